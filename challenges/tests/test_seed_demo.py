import pytest
from django.core.management import call_command

from challenges.models import Challenge, ChallengeStatus
from challenges.selectors import challenge_winners

pytestmark = pytest.mark.django_db


def test_seed_demo_is_idempotent_and_marked(capsys):
    call_command("seed_demo")
    call_command("seed_demo")
    challenges = Challenge.objects.all()
    assert challenges.count() == 3
    assert all(c.is_demo for c in challenges)
    assert challenges.filter(status=ChallengeStatus.ACTIVE).count() == 1
    resolved = challenges.filter(status=ChallengeStatus.RESOLVED)
    assert resolved.count() == 2
    for challenge in resolved:
        assert challenge.responses.filter(status="confirmed").count() == challenge.response_count > 0
        assert sum(r.submission_stake for r in challenge.responses.all()) == challenge.staked_sum
    giza = resolved.get(poem_title="Four Thousand Summers")
    winners = challenge_winners(challenge=giza)
    assert winners.earliest is not None and winners.highest is not None
    assert "kept" in capsys.readouterr().out
