"""The shared vectors, read from the same file the TypeScript suite reads."""

import math
from decimal import Decimal

import pytest

import challenges.commitments
import verify_challenge
from challenges.coordinates import COORDINATES_MESSAGE, CoordinateError, canonical_coordinates, parse_coordinates
from challenges.money import token_units
from challenges.scoring import haversine_m, prize_split
from responses.reasons import REASON_SENTENCES, Reason
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


# The server's v1 commitments and the standalone verifier's (verify_challenge.py, standard library only)
# must both agree with the vectors.
BOTH_COMMITMENTS = pytest.mark.parametrize(
    ("guess_commitment", "solution_commitment"),
    [
        (challenges.commitments.guess_commitment_v1, challenges.commitments.solution_commitment_v1),
        (verify_challenge.guess_commitment, verify_challenge.solution_commitment),
    ],
    ids=["server", "verify_challenge.py"],
)


@BOTH_COMMITMENTS
def test_guess_commitments(vectors, guess_commitment, solution_commitment):
    for case in vectors["guessCommitments"]:
        assert (
            guess_commitment(
                chain_id=case["chainId"],
                challenge_id=case["challengeId"],
                submitter_address=case["submitterAddress"],
                text=case["text"],
                salt=case["salt"],
            )
            == case["commitment"]
        )


def test_guess_commitment_ignores_address_case_but_binds_chain(vectors):
    first, same_lowercased, other, other_chain = vectors["guessCommitments"][:4]
    assert first["commitment"] == same_lowercased["commitment"]
    assert other["commitment"] != other_chain["commitment"]


@BOTH_COMMITMENTS
def test_solution_commitments(vectors, guess_commitment, solution_commitment):
    for case in vectors["solutionCommitments"]:
        text, salt = case["text"], case["salt"]
        assert solution_commitment(challenge_id=case["challengeId"], text=text, salt=salt) == (case["commitment"])


def test_prize_splits(vectors):
    for case in vectors["prizeSplits"]:
        split = prize_split(Decimal(case["total"]))
        assert (str(split.earliest), str(split.highest), str(split.operations)) == (
            case["earliest"],
            case["highest"],
            case["operations"],
        ), case
        assert Decimal(0) <= split.unallocated < Decimal("0.000003")


def test_distances(vectors):
    for case in vectors["distances"]:
        a = [float(x) for x in case["from"].split(",")]
        b = [float(x) for x in case["to"].split(",")]
        assert f"{haversine_m(*a, *b):.2f}" == case["meters"], case


def test_antipodes_do_not_fail_on_rounding():
    assert math.isclose(haversine_m(0, 0, 0, 180), math.pi * 6_371_000)


def test_terms_commitments(vectors):
    """docs/protocol.md section 6: the terms hash the server anchors."""
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


def test_terms_anchored_topic_is_the_event_of_the_registry_artifact(vectors):
    """The topic in the vectors is keccak of the signature, and the compiled registry's ABI has
    exactly that event (contracts/build/TermsRegistry.json), so the verifiers read what it emits."""
    from eth_utils import event_abi_to_log_topic, keccak

    from chain.contracts import load_artifact
    from chain.registry import TERMS_ANCHORED_TOPIC

    anchor = vectors["anchor"]
    assert "0x" + keccak(text=anchor["eventSignature"]).hex() == anchor["topic"] == TERMS_ANCHORED_TOPIC
    (event,) = [e for e in load_artifact("TermsRegistry")["abi"] if e.get("name") == "TermsAnchored"]
    assert "0x" + event_abi_to_log_topic(event).hex() == anchor["topic"]
    assert [(i["name"], i["type"], i["indexed"]) for i in event["inputs"]] == [
        ("challengeId", "uint256", True),
        ("solutionCommitment", "bytes32", False),
        ("termsHash", "bytes32", False),
        ("opensAt", "uint64", False),
        ("proximityThresholdM", "uint32", False),
    ]


def test_the_after_resolution_reason_is_the_shared_one(vectors):
    """The code and sentence the server stores with a claim rejected after resolution started
    (responses/barrier.py) are the vectors' (docs/protocol.md section 5, "Exceptions"); the page
    shows that sentence for such a claim in My submissions
    (frontend/src/tabs/my-submissions/MySubmissionsPanel.test.tsx)."""
    assert Reason.AFTER_RESOLUTION == vectors["exceptions"]["code"]
    assert REASON_SENTENCES[Reason.AFTER_RESOLUTION] == vectors["exceptions"]["sentence"]


def test_the_authorization_constants_are_the_servers(vectors):
    """docs/protocol.md section 2a: the topics and the selector the verifiers write in are the ones
    the server reads the token with (chain/authorization.py)."""
    from chain import authorization

    section = vectors["authorization"]
    assert authorization.AUTHORIZATION_USED_TOPIC == section["usedTopic"]
    assert authorization.AUTHORIZATION_CANCELED_TOPIC == section["canceledTopic"]
    assert "0x" + authorization.TRANSFER_WITH_AUTHORIZATION_SELECTOR.hex() == section["selector"]
    assert authorization.RELAYED_CALL_LENGTH == 292 and authorization.RELAYED_STAKE_LENGTH == 324


def test_the_server_reads_the_relayed_calls_as_the_verifiers_do(vectors):
    """The relayed call of docs/protocol.md section 2a, decoded by the server
    (chain/authorization.py, decode_relayed_stake) as the vectors say, or refused."""
    from chain.authorization import AuthorizationError, decode_relayed_stake

    for case in vectors["authorization"]["relayedCalls"]:
        expected = case["decoded"]
        if expected is None:
            with pytest.raises(AuthorizationError):
                decode_relayed_stake(case["data"])
            continue
        decoded = decode_relayed_stake(case["data"])
        authorization = decoded.authorization
        assert {
            "authorizer": authorization.from_address.lower(),
            "recipient": authorization.to_address.lower(),
            "amountUnits": str(authorization.value),
            "validAfter": authorization.valid_after,
            "validBefore": authorization.valid_before,
            "nonce": authorization.nonce,
            "challengeId": decoded.challenge_id,
        } == expected, case["about"]
