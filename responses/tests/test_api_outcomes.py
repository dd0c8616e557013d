"""What re-checking an outcome needs (docs/protocol.md section 5): each response's salt and chain
position are public once its challenge is resolved, and never before."""

import json

import pytest

from challenges.services import challenge_close
from responses.resolution import challenge_resolve
from responses.serializers import ScoredResponseSerializer

pytestmark = pytest.mark.django_db

GIZA = "29.979175, 31.134258"
OUTCOME_FIELDS = ("submissionSalt", "blockNumber", "transactionIndex", "logIndex")


def test_the_public_list_gives_salt_and_chain_position_after_resolution(api, make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    first = make_response(challenge, GIZA, "2", block=700, tx_index=3, log_index=5)
    second = make_response(challenge, "29.98, 31.13", "4", block=701, tx_index=0, log_index=1)
    challenge_resolve(challenge=challenge)

    rows = {row["id"]: row for row in api.get(f"/api/responses?challengeId={challenge.pk}").json()}
    assert rows[first.pk]["submissionSalt"] == first.submission_salt
    assert (rows[first.pk]["blockNumber"], rows[first.pk]["transactionIndex"], rows[first.pk]["logIndex"]) == (
        700,
        3,
        5,
    )
    assert rows[second.pk]["submissionSalt"] == second.submission_salt
    assert (rows[second.pk]["blockNumber"], rows[second.pk]["transactionIndex"], rows[second.pk]["logIndex"]) == (
        701,
        0,
        1,
    )


def test_the_winners_carry_salt_and_chain_position_after_resolution(api, make_challenge, make_response):
    challenge = make_challenge(solution=GIZA)
    winner = make_response(challenge, GIZA, "3", block=900, tx_index=2, log_index=7)
    challenge_resolve(challenge=challenge)
    earliest = api.get(f"/api/challenges/{challenge.pk}/winners").json()["earliest"]
    assert earliest["submissionSalt"] == winner.submission_salt
    assert (earliest["blockNumber"], earliest["transactionIndex"], earliest["logIndex"]) == (900, 2, 7)


@pytest.mark.parametrize("close", [False, True], ids=["active", "closed"])
def test_nothing_of_it_before_resolution(api, make_challenge, make_response, close):
    challenge = make_challenge(solution=GIZA)
    response = make_response(challenge, GIZA, "2", block=700, tx_index=3, log_index=5)
    if close:
        challenge = challenge_close(challenge=challenge)

    # The serializer itself hides them, whatever view would use it on an unresolved challenge ...
    response.refresh_from_db()
    data = ScoredResponseSerializer(response).data
    assert all(data[name] is None for name in OUTCOME_FIELDS)
    # ... and no public answer carries the salt or the position.
    bodies = [
        api.get("/api/responses").content,
        api.get(f"/api/responses?challengeId={challenge.pk}").content,
        api.get(f"/api/responses/{response.transaction_hash}").content,
        api.get("/api/challenges/active").content,
        api.get("/api/challenges/resolved").content,
        api.get(f"/api/challenges/{challenge.pk}/winners").content,
    ]
    for body in bodies:
        assert response.submission_salt.encode() not in body
        # The anchor of the terms carries its own blockNumber (public, docs/protocol.md section 6).
        body = body.replace(b'"blockNumber":%d,' % challenge.anchor.block_number, b"")
        assert b'"blockNumber"' not in body and b'"logIndex"' not in body
    assert json.loads(bodies[1]) == []


def test_the_closing_time_is_public_once_closed(api, make_challenge):
    challenge = make_challenge(solution=GIZA)
    assert api.get("/api/challenges/active").json()["closedTimestamp"] is None
    challenge = challenge_resolve(challenge=challenge)
    [data] = api.get("/api/challenges/resolved").json()
    assert challenge.closed_at is not None
    assert data["closedTimestamp"] == int(challenge.closed_at.timestamp())
    assert data["closedTimestamp"] <= data["resolvedTimestamp"]
