"""Resolution in chunks (responses/resolution.py, challenge_resolve_run), in this process with small
chunks: correct responses first and last in a chunk and on both sides of the boundary between two
chunks, claims that are not confirmed sitting on the boundaries, and a worker that dies between two
chunks. The result must be the one of a single chunk: every correct response marked once, no other,
and the progress counting each response exactly once (docs/architecture.md, "Resolution")."""

from decimal import Decimal

import pytest

from challenges.models import ChallengeResolution, Payout, PayoutKind, ResolutionStatus
from responses import resolution
from responses.models import Response, ResponseStatus
from responses.resolution import challenge_resolve_run, challenge_resolve_start

pytestmark = pytest.mark.django_db

GIZA = "29.979175, 31.134258"  # the solution; threshold 150 m
RIGHT = "29.9795, 31.1343"  # about 40 m away
WRONG = "29.99, 31.13"  # about 1.2 km away
# The confirmed responses in id order, as chunks of 3 cut them: [R W R | R W R | R].
PATTERN = [RIGHT, WRONG, RIGHT, RIGHT, WRONG, RIGHT, RIGHT]


@pytest.fixture
def scored(make_challenge, make_response):
    """A challenge whose confirmed responses follow PATTERN, with correct guesses that are not
    confirmed (rejected) before the first, on the boundary of the first two chunks and after the
    last. Returns (challenge, confirmed in id order, the not confirmed)."""
    challenge = make_challenge(solution=GIZA, threshold=150)
    others = [make_response(challenge, GIZA, "50", status=ResponseStatus.REJECTED)]
    confirmed = []
    for index, text in enumerate(PATTERN):
        # Chain order is not id order: the last response paid first; stakes grow with the id.
        confirmed.append(make_response(challenge, text, str(index + 1), block=900 - index))
        if index == 2:
            others.append(make_response(challenge, GIZA, "50", status=ResponseStatus.REJECTED))
    others.append(make_response(challenge, GIZA, "50", status=ResponseStatus.REJECTED))
    challenge_resolve_start(challenge=challenge, enqueue=False, wait_for_late_claims=False)
    return challenge, confirmed, others


def assert_scored_as_one_chunk(challenge, confirmed, others) -> None:
    flags = dict(Response.objects.filter(challenge=challenge).values_list("pk", "is_correct"))
    assert [flags[r.pk] for r in confirmed] == [True if text == RIGHT else None for text in PATTERN]
    assert all(flags[r.pk] is None for r in others)
    done = ChallengeResolution.objects.get(challenge=challenge)
    assert (done.status, done.total, done.scored, done.correct) == (ResolutionStatus.DONE, 7, 7, 5)
    assert done.last_response_id == confirmed[-1].pk
    # Winners from the edges: the earliest in chain order is the last response (the only one of its
    # chunk); the highest stake is the same one (stakes grow with the id).
    payouts = {p.kind: p for p in Payout.objects.filter(challenge=challenge)}
    assert payouts[PayoutKind.EARLIEST].response_id == confirmed[-1].pk
    assert payouts[PayoutKind.HIGHEST].response_id == confirmed[-1].pk
    assert payouts[PayoutKind.EARLIEST].amount == Decimal("11.200000")  # 40 % of 1 + 2 + ... + 7


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 6, 7, 8])
def test_correct_responses_at_the_edges_of_chunks_are_each_scored_once(scored, chunk_size):
    challenge, confirmed, others = scored
    assert challenge_resolve_run(challenge_id=challenge.pk, chunk_size=chunk_size).status == ResolutionStatus.DONE
    assert_scored_as_one_chunk(challenge, confirmed, others)


def test_each_chunk_moves_the_progress_to_its_last_confirmed_response(scored, monkeypatch):
    challenge, confirmed, _ = scored
    seen = []
    real = resolution._resolve_next_chunk

    def recording(row, *, chunk_size):
        moved = real(row, chunk_size=chunk_size)
        seen.append((row.last_response_id, row.scored, row.correct))
        return moved

    monkeypatch.setattr(resolution, "_resolve_next_chunk", recording)
    challenge_resolve_run(challenge_id=challenge.pk, chunk_size=3)
    # [R W R | R W R | R]: the boundaries are the 3rd and 6th confirmed responses, whatever lies
    # between them; the last call finds nothing left.
    assert seen == [
        (confirmed[2].pk, 3, 2),
        (confirmed[5].pk, 6, 4),
        (confirmed[6].pk, 7, 5),
        (confirmed[6].pk, 7, 5),
    ]


@pytest.mark.parametrize("dies_after", [1, 2])
def test_a_worker_that_dies_between_chunks_resumes_at_the_boundary(scored, monkeypatch, dies_after):
    # The worker's death is a fault the in-process run cannot make for real: the chunk after
    # `dies_after` raises instead of running (a real SIGKILL: responses/tests/test_resolve_worker.py).
    challenge, confirmed, others = scored
    real = resolution._resolve_next_chunk
    calls = {"n": 0}

    def dying(row, *, chunk_size):
        calls["n"] += 1
        if calls["n"] > dies_after:
            raise RuntimeError("worker killed")
        return real(row, chunk_size=chunk_size)

    monkeypatch.setattr(resolution, "_resolve_next_chunk", dying)
    with pytest.raises(RuntimeError):
        challenge_resolve_run(challenge_id=challenge.pk, chunk_size=3)
    halfway = ChallengeResolution.objects.get(challenge=challenge)
    assert (halfway.status, halfway.scored, halfway.last_response_id) == (
        ResolutionStatus.RUNNING,
        3 * dies_after,
        confirmed[3 * dies_after - 1].pk,
    )

    monkeypatch.setattr(resolution, "_resolve_next_chunk", real)
    challenge_resolve_run(challenge_id=challenge.pk, chunk_size=3)
    assert_scored_as_one_chunk(challenge, confirmed, others)
    assert ChallengeResolution.objects.get(challenge=challenge).runs == 2
