"""The pot's rules in Python against the shared vectors ("geometry", "potEncodings"), read from the same
file the TypeScript suite reads (frontend/src/lib/protocol/*.test.ts) and that
tests/test_pot_vectors_on_chain.py checks against the contract."""

from decimal import Decimal

import pytest

from chain.pot.encoding import Terms, stake_hash, stake_nonce, terms_digest
from challenges.commitments import guess_commitment, solution_commitment
from challenges.coordinates import CoordinateError, micro_degrees, text_from_micro
from challenges.geometry import (
    HALF_CIRCUMFERENCE_M,
    MICRO_90,
    MICRO_180,
    chord_sq,
    cos_micro,
    div_trunc,
    in_range,
    is_correct,
    sin_micro,
    sin_rad,
    threshold_chord_sq,
    unit_vector,
)
from challenges.scoring import haversine_m

from .pot_vectors import commitment_inputs

# How far from the threshold a verdict may differ from the exact distance's, at any threshold the pot
# opens: below a nanometre for the integer rule up to 10,000 km, under a millimetre at the largest (near
# the antipode); the double haversine is off by nanometres, and by up to about 2 cm at the largest
# (devtools/chord_rule_error.py measures both). 2 cm covers both everywhere.
VERDICT_BAND_M = Decimal("0.02")


def test_micro_degrees_are_computed_on_the_decimal_text(vectors):
    for case in vectors["geometry"]["microDegrees"]:
        assert micro_degrees(case["text"]) == (case["latE6"], case["lonE6"]), case
        assert text_from_micro(case["latE6"], case["lonE6"]) == case["text"]


def test_micro_degrees_of_player_input_are_those_of_its_canonical_text():
    assert micro_degrees(" +48.85840099, 2.2945 ") == (48_858_400, 2_294_500)
    assert micro_degrees("-0.0000009, -0") == (0, 0)
    for text in ("90.0000001, 0", "0, -180.000001", "48.8584 2.2945"):
        with pytest.raises(CoordinateError):
            micro_degrees(text)
    for lat, lon in ((MICRO_90 + 1, 0), (0, -MICRO_180 - 1)):
        with pytest.raises(CoordinateError):
            text_from_micro(lat, lon)


def test_sine_and_cosine(vectors):
    for case in vectors["geometry"]["sinMicro"]:
        angle = case["microDegrees"]
        assert (str(sin_micro(angle)), str(cos_micro(angle))) == (case["sin"], case["cos"]), case


def test_unit_vectors(vectors):
    for case in vectors["geometry"]["unitVector"]:
        assert unit_vector(case["latE6"], case["lonE6"]) == (int(case["x"]), int(case["y"]), int(case["z"])), case


def test_range(vectors):
    for case in vectors["geometry"]["inRange"]:
        assert in_range(case["latE6"], case["lonE6"]) is case["inRange"], case


def test_threshold_chords(vectors):
    for case in vectors["geometry"]["thresholdChordSq"]:
        assert str(threshold_chord_sq(case["thresholdM"])) == case["chordSq"], case


def test_verdicts(vectors):
    for case in vectors["geometry"]["correct"]:
        guess, solution = micro_degrees(case["guess"]), micro_degrees(case["solution"])
        threshold = case["thresholdM"]
        assert str(chord_sq(unit_vector(*guess), unit_vector(*solution))) == case["chordSq"], case
        assert str(threshold_chord_sq(threshold)) == case["thresholdChordSq"], case
        assert is_correct(guess, solution, threshold) is case["correct"], case


def test_the_integer_verdict_is_the_haversines_away_from_the_threshold(vectors):
    """The chord rule is the distance rule: wherever the exact distance is more than the measured band
    from the threshold, the verdict is the haversine's; and the site's double haversine (the distance
    shown) stays within that band of the exact one."""
    cases = vectors["geometry"]["correct"]
    for case in cases:
        exact = Decimal(case["haversineM"])
        if abs(exact - case["thresholdM"]) > VERDICT_BAND_M:
            assert case["correct"] is (exact <= case["thresholdM"]), case
        guess, solution = micro_degrees(case["guess"]), micro_degrees(case["solution"])
        shown = haversine_m(guess[0] / 1e6, guess[1] / 1e6, solution[0] / 1e6, solution[1] / 1e6)
        assert abs(Decimal(shown) - exact) <= VERDICT_BAND_M, case
    millimetres = [c for c in cases if "by a millimetre" in c["about"]]
    assert len(millimetres) >= 18
    assert all(c["correct"] is c["about"].startswith("inside") for c in millimetres)
    assert {c["correct"] for c in cases if c["about"] == "random"} == {True, False}


def test_a_guess_out_of_range_is_incorrect_never_an_error():
    solution = (MICRO_90, 0)
    assert is_correct((MICRO_90, 0), solution, 0)
    assert not is_correct((MICRO_90 + 1, 0), solution, HALF_CIRCUMFERENCE_M - 1)
    assert not is_correct((0, -MICRO_180 - 1), (0, MICRO_180), HALF_CIRCUMFERENCE_M - 1)
    with pytest.raises(ValueError):
        is_correct((0, 0), (MICRO_90 + 1, 0), 10)


def test_where_the_contract_would_revert_python_refuses():
    """GeoMath's checked arithmetic reverts beyond 180°; the pot never opens a threshold of half the
    circumference or more; sin_rad is the sine only up to π/2."""
    for angle in (MICRO_180 + 1, -MICRO_180 - 1):
        with pytest.raises(ValueError):
            sin_micro(angle)
    for threshold in (-1, HALF_CIRCUMFERENCE_M):
        with pytest.raises(ValueError):
            threshold_chord_sq(threshold)
    with pytest.raises(ValueError):
        sin_rad(-1)


def test_division_truncates_toward_zero_as_solidity_does():
    assert [div_trunc(7, 2), div_trunc(-7, 2), div_trunc(7, -2), div_trunc(-7, -2)] == [3, -3, -3, 3]
    assert div_trunc(-(10**18) + 1, 10**18) == 0


def test_guess_commitments(vectors):
    for case in vectors["potEncodings"]["guessCommitments"]:
        assert guess_commitment(**commitment_inputs(case)) == case["commitment"], case


def test_a_guess_commitment_binds_payer_chain_pot_and_challenge_but_not_the_address_case(vectors):
    first, lowercased, other_payer, other_chain, other_pot, other_challenge = [
        case["commitment"] for case in vectors["potEncodings"]["guessCommitments"][:6]
    ]
    assert first == lowercased
    assert len({first, other_payer, other_chain, other_pot, other_challenge}) == 5


def test_solution_commitments(vectors):
    for case in vectors["potEncodings"]["solutionCommitments"]:
        assert solution_commitment(**commitment_inputs(case)) == case["commitment"], case


def test_commitments_refuse_what_the_contract_could_not_take():
    base = {"chain_id": 1, "pot": "0x" + "11" * 20, "challenge_id": 1, "lat_e6": 0, "lon_e6": 0, "salt": "ab" * 32}
    for bad in (
        {"salt": "AB" * 32},
        {"salt": "ab" * 31},
        {"pot": "0x" + "11" * 19},
        {"lat_e6": 2**255},
        {"chain_id": -1},
    ):
        with pytest.raises(ValueError):
            solution_commitment(**(base | bad))
    assert solution_commitment(**(base | {"lat_e6": -(2**255)})) != solution_commitment(**base)


def terms_of(case: dict) -> Terms:
    t = case["terms"]
    return Terms(
        solution_commitment=t["solutionCommitment"],
        terms_hash=t["termsHash"],
        threshold_m=t["thresholdM"],
        opens_at=t["opensAt"],
        closes_at=t["closesAt"],
        solution_deadline=t["solutionDeadline"],
        guess_window=t["guessWindow"],
        min_stake=int(t["minStake"]),
        bond=int(t["bond"]),
    )


def test_terms_digests(vectors):
    for case in vectors["potEncodings"]["termsDigests"]:
        assert terms_digest(int(case["challengeId"]), terms_of(case)) == case["digest"], case


def test_terms_that_no_struct_holds_are_refused(vectors):
    case = vectors["potEncodings"]["termsDigests"][0]
    with pytest.raises(ValueError):
        terms_digest(1, Terms(**(vars(terms_of(case)) | {"bond": 2**96})))
    with pytest.raises(ValueError):
        terms_digest(1, Terms(**(vars(terms_of(case)) | {"threshold_m": 2**32})))


def test_stake_nonces(vectors):
    for case in vectors["potEncodings"]["stakeNonces"]:
        nonce = stake_nonce(
            chain_id=case["chainId"],
            pot=case["pot"],
            challenge_id=case["challengeId"],
            terms_digest=case["termsDigest"],
            commitment=case["commitment"],
            amount=int(case["amount"]),
        )
        assert nonce == case["nonce"], case


def test_stake_hashes(vectors):
    for case in vectors["potEncodings"]["stakeHashes"]:
        hashed = stake_hash(payer=case["payer"], amount=int(case["amount"]), commitment=case["commitment"])
        assert hashed == case["hash"], case
