"""Contract tests of the challenge endpoints that need a challenge resolved over its responses
(responses/resolution.py): the resolved list with the reveal, and the winners."""

import pytest

from challenges.scoring import haversine_m
from responses.resolution import challenge_resolve

pytestmark = pytest.mark.django_db

GIZA = "29.979175, 31.134258"


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
