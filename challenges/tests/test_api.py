"""Contract tests of the challenge endpoints: field names, types, the null case, status codes."""

import pytest

from challenges.services import challenge_close

pytestmark = pytest.mark.django_db

GIZA = "29.979175, 31.134258"
CHALLENGE_FIELDS = {
    "id", "poemTitle", "poemText", "instructionsText", "proximityThreshold", "solutionSha256", "solutionReveal",
    "solutionSalt", "stakedSum", "responseCount", "startTimestamp", "closedTimestamp", "resolvedTimestamp", "status",
    "isDemo", "anchor",
}  # fmt: skip


def test_active_is_null_when_there_is_none(api, db):
    answer = api.get("/api/challenges/active")
    assert answer.status_code == 200
    assert answer.content == b"null"


def test_active_challenge_shape(api, make_challenge, make_response):
    challenge = make_challenge(solution=GIZA, threshold=None)
    make_response(challenge, GIZA, "2.5")
    data = api.get("/api/challenges/active").json()
    assert set(data) == CHALLENGE_FIELDS
    assert data["id"] == challenge.pk
    assert data["status"] == "active"
    assert data["proximityThreshold"] is None
    assert data["solutionReveal"] is None and data["solutionSalt"] is None
    assert data["solutionSha256"] == challenge.solution_sha256 and len(data["solutionSha256"]) == 64
    assert data["stakedSum"] == "2.500000" and data["responseCount"] == 1
    assert isinstance(data["startTimestamp"], int)
    assert data["startTimestamp"] == int(challenge.start_timestamp.timestamp())
    anchor = challenge.anchor
    assert data["anchor"] == {
        "registry": anchor.registry_address,
        "transactionHash": anchor.transaction_hash,
        "blockNumber": anchor.block_number,
        "blockTimestamp": int(anchor.block_timestamp.timestamp()),
        "termsSha256": anchor.terms_sha256,
    }


def test_draft_and_closed_challenges_are_not_active(api, make_challenge):
    make_challenge(publish=False)
    assert api.get("/api/challenges/active").json() is None
    challenge_close(challenge=make_challenge(title="Closed"))
    assert api.get("/api/challenges/active").json() is None


def test_resolved_is_an_empty_list_when_none(api, db):
    assert api.get("/api/challenges/resolved").json() == []
