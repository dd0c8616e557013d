import pytest
from django.db import IntegrityError, transaction

from challenges.commitments import solution_commitment_v1
from challenges.coordinates import CoordinateError
from challenges.models import Challenge, ChallengeStatus
from challenges.services import (
    ChallengeStateError,
    challenge_close,
    challenge_create,
    challenge_publish,
    challenge_set_solution,
)

pytestmark = pytest.mark.django_db


def test_create_canonicalises_the_solution_and_commits_to_it_with_a_salt():
    challenge = challenge_create(
        poem_title="T", poem_text="<p>p</p>", proximity_threshold_m=10, solution=" 29.9791759 ,31.1342589 "
    )
    assert challenge.status == ChallengeStatus.DRAFT
    assert challenge.solution == "29.979175, 31.134258"
    assert len(challenge.solution_salt) == 64
    assert challenge.solution_sha256 == solution_commitment_v1(
        challenge_id=challenge.pk, text=challenge.solution, salt=challenge.solution_salt
    )


def test_two_challenges_with_one_solution_get_different_commitments():
    a = challenge_create(poem_title="A", poem_text="", proximity_threshold_m=1, solution="1, 2")
    b = challenge_create(poem_title="B", poem_text="", proximity_threshold_m=1, solution="1, 2")
    assert a.solution_sha256 != b.solution_sha256


def test_create_refuses_an_invalid_solution():
    with pytest.raises(CoordinateError):
        challenge_create(poem_title="T", poem_text="", proximity_threshold_m=1, solution="91, 0")
    assert not Challenge.objects.exists()


def test_publish_then_close(make_challenge):
    challenge = make_challenge()
    assert challenge.status == ChallengeStatus.ACTIVE and challenge.start_timestamp is not None
    closed = challenge_close(challenge=challenge)
    assert closed.status == ChallengeStatus.CLOSED and closed.closed_at is not None


def test_a_second_active_challenge_is_refused_by_name(make_challenge):
    first = make_challenge(title="First")
    second = make_challenge(title="Second", publish=False)
    with pytest.raises(ChallengeStateError, match="First"):
        challenge_publish(challenge=second)
    second.refresh_from_db()
    assert second.status == ChallengeStatus.DRAFT
    assert Challenge.objects.get(status=ChallengeStatus.ACTIVE).pk == first.pk


def test_the_database_itself_allows_one_active_challenge(make_challenge):
    make_challenge(title="First")
    second = make_challenge(title="Second", publish=False)
    with pytest.raises(IntegrityError), transaction.atomic():
        Challenge.objects.filter(pk=second.pk).update(status=ChallengeStatus.ACTIVE)


def test_published_solution_cannot_change(make_challenge):
    challenge = make_challenge()
    before = challenge.solution_sha256
    with pytest.raises(ChallengeStateError):
        challenge_set_solution(challenge=challenge, solution="1, 1")
    challenge.refresh_from_db()
    assert challenge.solution_sha256 == before


def test_close_refuses_a_draft(make_challenge):
    with pytest.raises(ChallengeStateError):
        challenge_close(challenge=make_challenge(publish=False))
