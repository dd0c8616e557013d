"""Two staff members (or two tabs) close the same challenge at the same moment, on PostgreSQL: one
close is made, with one closing time; the other is refused and changes nothing. The closing time is
the instant after which no payment counts (docs/protocol.md section 4, "Close, grace period and
resolution"), so it must never be written twice."""

import pytest

from challenges.models import Challenge, ChallengeStatus
from challenges.services import ChallengeStateError, challenge_close
from devtools.concurrency import at_once

pytestmark = [pytest.mark.postgresql, pytest.mark.django_db(transaction=True)]


def close_or_refusal(challenge_id: int) -> Challenge | ChallengeStateError:
    try:
        return challenge_close(challenge=Challenge.objects.get(pk=challenge_id))
    except ChallengeStateError as refusal:
        return refusal


@pytest.mark.parametrize("staff", [2, 5])
def test_closes_at_the_same_moment_make_one_close(make_challenge, staff):
    challenge = make_challenge()

    results = at_once([lambda: close_or_refusal(challenge.pk)] * staff)

    closed = [r for r in results if isinstance(r, Challenge)]
    refused = [r for r in results if isinstance(r, ChallengeStateError)]
    assert len(closed) == 1 and len(refused) == staff - 1
    assert all("Only an active challenge can be closed; this one is closed." in str(r) for r in refused)
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.CLOSED
    assert challenge.closed_at == closed[0].closed_at
