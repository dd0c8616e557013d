"""Contract tests of the challenge endpoints: field names, types, the null case, status codes."""

import pytest

from challenges.scoring import haversine_m
from challenges.services import challenge_close
from responses.resolution import challenge_resolve

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


def test_resolved_lists_newest_first_with_the_reveal(api, make_challenge):
    older = make_challenge(title="Older", solution="1, 2")
    challenge_resolve(challenge=older)
    newer = make_challenge(title="Newer", solution="3, 4")
    challenge_resolve(challenge=newer)
    make_challenge(title="Still open")
    data = api.get("/api/challenges/resolved").json()
    assert [c["id"] for c in data] == [newer.pk, older.pk]
    assert data[1]["solutionReveal"] == "1, 2"
    assert data[1]["solutionSalt"] == older.solution_salt
    assert all(c["status"] == "resolved" and isinstance(c["resolvedTimestamp"], int) for c in data)


def test_resolved_is_an_empty_list_when_none(api, db):
    assert api.get("/api/challenges/resolved").json() == []


def test_winners_of_a_resolved_challenge(api, make_challenge, make_response):
    challenge = make_challenge(solution=GIZA, threshold=150)
    first = make_response(challenge, "29.9792, 31.1342", "2", block=5)
    rich = make_response(challenge, "29.97918, 31.13426", "10", block=6)
    make_response(challenge, "0, 0", "100", block=1)
    challenge_resolve(challenge=challenge)
    answer = api.get(f"/api/challenges/{challenge.pk}/winners")
    assert answer.status_code == 200
    data = answer.json()
    assert data["challengeId"] == challenge.pk
    assert data["totalStaked"] == "112.000000"
    assert data["responseCount"] == 3
    assert data["earliest"]["id"] == first.pk and data["highest"]["id"] == rich.pk
    assert data["earliest"]["prize"] == data["highest"]["prize"] == "44.800000"
    assert data["operations"] == "22.400000" and data["unallocated"] == "0.000000"
    assert data["earliest"]["distanceMeters"] == pytest.approx(haversine_m(29.9792, 31.1342, 29.979175, 31.134258))
    assert data["earliest"]["isCorrect"] is True
    assert data["earliest"]["submissionText"] == "29.9792, 31.1342"
    assert data["earliest"]["payoutTransactionHash"] is None


def test_winners_when_nobody_is_correct(api, make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    make_response(challenge, "0, 0", "4")
    challenge_resolve(challenge=challenge)
    data = api.get(f"/api/challenges/{challenge.pk}/winners").json()
    assert data["earliest"] is None and data["highest"] is None
    assert data["unallocated"] == "4.000000" and data["operations"] == "0"


def test_winners_of_an_open_or_unknown_challenge_are_404(api, make_challenge):
    challenge = make_challenge()
    for url in (f"/api/challenges/{challenge.pk}/winners", "/api/challenges/999999/winners"):
        answer = api.get(url)
        assert answer.status_code == 404
        assert set(answer.json()) == {"message", "errors"}
