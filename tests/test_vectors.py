"""The shared vectors, read from the same file the TypeScript suite reads: the canonical coordinates,
the stakes, the distance shown and the terms hash (docs/protocol.md sections 1 and 4). The pot's own
rules and encodings: tests/test_pot_vectors.py."""

import math
from decimal import Decimal

import pytest

import challenges.commitments
from challenges.coordinates import COORDINATES_MESSAGE, CoordinateError, canonical_coordinates, parse_coordinates
from challenges.money import token_units
from challenges.scoring import haversine_m
from responses.stakes import MIN_STAKE_MESSAGE, StakeError, parse_stake


def test_valid_coordinates_canonicalise(vectors):
    for case in vectors["coordinates"]["valid"]:
        assert canonical_coordinates(case["input"]) == case["canonical"], case


def test_invalid_coordinates_are_refused_with_the_spec_sentence(vectors):
    for text in vectors["coordinates"]["invalid"]:
        with pytest.raises(CoordinateError) as caught:
            parse_coordinates(text)
        assert str(caught.value) == COORDINATES_MESSAGE, text


def test_canonical_form_is_a_fixed_point(vectors):
    for case in vectors["coordinates"]["valid"]:
        assert canonical_coordinates(case["canonical"]) == case["canonical"]


def test_stakes(vectors):
    for case in vectors["stakes"]["valid"]:
        amount = parse_stake(case["input"])
        assert amount == Decimal(case["amount"]), case
        assert token_units(amount) == int(case["units"]), case
    for case in vectors["stakes"]["invalid"]:
        with pytest.raises(StakeError) as caught:
            parse_stake(case["input"])
        if case["message"]:
            assert str(caught.value) == case["message"] == MIN_STAKE_MESSAGE


def test_distances(vectors):
    for case in vectors["distances"]:
        a = [float(x) for x in case["from"].split(",")]
        b = [float(x) for x in case["to"].split(",")]
        assert f"{haversine_m(*a, *b):.2f}" == case["meters"], case


def test_antipodes_do_not_fail_on_rounding():
    assert math.isclose(haversine_m(0, 0, 0, 180), math.pi * 6_371_000)


def test_terms_commitments(vectors):
    """docs/protocol.md section 1: the terms hash the pot's terms carry (challenges/terms.py)."""
    cases = vectors["anchor"]["terms"]
    assert len(cases) >= 3
    for case in cases:
        assert (
            challenges.commitments.terms_commitment(
                challenge_id=case["challengeId"],
                poem_title=case["poemTitle"],
                poem_text=case["poemText"],
                instructions_text=case["instructionsText"],
            )
            == case["termsSha256"]
        ), case
