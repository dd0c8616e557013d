"""The cached public challenge answers (config/public_cache.py) follow resolution and the
confirmation of a claim; a new pending claim changes none of them. The cache here is the test
settings' local-memory cache; config/tests/test_public_copy.py runs it on Redis."""

import pytest
from django.utils import timezone

from responses.models import Response, ResponseStatus
from responses.resolution import challenge_resolve
from responses.services import response_confirm

pytestmark = pytest.mark.django_db


def test_an_exception_after_resolution_invalidates_winners_and_moves_no_sum(
    api, make_challenge, make_response, django_capture_on_commit_callbacks
):
    challenge = make_challenge(solution="10, 10", threshold=1000)
    late = make_response(challenge, "10, 10", "3", block=200)
    pending = make_response(challenge, "10, 10", "2", block=100, status=ResponseStatus.PENDING)
    Response.objects.filter(pk=pending.pk).update(status=ResponseStatus.REJECTED)
    with django_capture_on_commit_callbacks(execute=True):
        challenge_resolve(challenge=challenge)
    first = api.get(f"/api/challenges/{challenge.pk}/winners").json()
    assert first["earliest"]["id"] == late.pk and first["exceptions"] == []

    # The claim comes back pending (a late claim) and verification confirms it, through the service
    # it calls (responses/services.py, response_confirm): resolution has started, so it is turned
    # down and recorded; the answer shows the exception and nothing else moved.
    Response.objects.filter(pk=pending.pk).update(status=ResponseStatus.PENDING)
    with django_capture_on_commit_callbacks(execute=True):
        assert not response_confirm(
            response=pending,
            submission_timestamp=timezone.now(),
            block_number=pending.block_number,
            block_hash="0x" + "cd" * 32,
            transaction_index=0,
            log_index=0,
        )
    second = api.get(f"/api/challenges/{challenge.pk}/winners").json()
    assert [(e["responseId"], e["kind"], e["submissionStake"]) for e in second["exceptions"]] == [
        (pending.pk, "after_resolution", "2.000000")
    ]
    assert {k: v for k, v in second.items() if k != "exceptions"} == {
        k: v for k, v in first.items() if k != "exceptions"
    }


def test_resolved_list_follows_resolution(api, make_challenge, django_capture_on_commit_callbacks):
    challenge = make_challenge()
    assert api.get("/api/challenges/resolved").json() == []
    with django_capture_on_commit_callbacks(execute=True):
        challenge_resolve(challenge=challenge)
    assert [c["id"] for c in api.get("/api/challenges/resolved").json()] == [challenge.pk]


def test_a_404_is_not_cached(api, make_challenge, django_capture_on_commit_callbacks):
    challenge = make_challenge()
    assert api.get(f"/api/challenges/{challenge.pk}/winners").status_code == 404
    # Resolving without running the commit hooks: a cached 404 would still answer 404.
    challenge_resolve(challenge=challenge)
    assert api.get(f"/api/challenges/{challenge.pk}/winners").status_code == 200


def test_a_new_pending_claim_keeps_the_cache(
    api, make_challenge, make_response, django_capture_on_commit_callbacks, django_assert_num_queries
):
    challenge = make_challenge()
    api.get("/api/challenges/active")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        make_response(challenge, "1, 1", status=ResponseStatus.PENDING)
    assert callbacks == []
    with django_assert_num_queries(0):
        api.get("/api/challenges/active")
