"""The shared vectors, read from the same file the TypeScript suite reads."""

import math
from decimal import Decimal

import pytest

import challenges.commitments
from challenges.coordinates import COORDINATES_MESSAGE, CoordinateError, canonical_coordinates, parse_coordinates
from challenges.money import token_units
from challenges.scoring import haversine_m, prize_split
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


def test_prize_splits_are_the_verifiers(vectors):
    """The split the site shows (challenges/scoring.py) is the one both verifiers and the pot compute."""
    cases = vectors["verifier"]["splits"]
    assert len(cases) >= 5
    for case in cases:
        assert prize_split(int(case["pot"])) == (int(case["prize"]), int(case["share"])), case


def test_antipodes_do_not_fail_on_rounding():
    assert math.isclose(haversine_m(0, 0, 0, 180), math.pi * 6_371_000)


def test_terms_hashes(vectors):
    """docs/protocol.md section 1: the terms hash the pot holds, over the texts as the API serves them."""
    cases = vectors["termsHashes"]
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
