from operator import attrgetter

import pytest
from django.core.management import call_command
from django.utils import timezone

from challenges.models import Challenge, ChallengeStatus
from responses.demo import seed_demo
from responses.selectors import challenge_winners, responses_with_scores

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


def test_the_demo_tells_one_consistent_story():
    """Every seeded claim lies inside its challenge's open window (before its resolution), block
    order is time order across all of them, and the challenges follow one another."""
    from responses.models import Response

    seed_demo()
    resolved = list(Challenge.objects.filter(status=ChallengeStatus.RESOLVED).order_by("start_timestamp"))
    active = Challenge.objects.get(status=ChallengeStatus.ACTIVE)
    assert active.start_timestamp is not None
    for challenge in resolved:
        assert challenge.start_timestamp and challenge.closed_at and challenge.resolved_at
        assert challenge.start_timestamp < challenge.closed_at == challenge.resolved_at < timezone.now()
        assert challenge.created_at <= challenge.start_timestamp
        for claim in challenge.responses.all():
            assert claim.submission_timestamp is not None
            assert challenge.start_timestamp < claim.submission_timestamp < challenge.resolved_at, claim
            assert claim.created_at == claim.submission_timestamp
        for payout in challenge.payouts.all():
            assert payout.created_at == challenge.resolved_at
    assert resolved[0].resolved_at and resolved[1].start_timestamp and resolved[-1].resolved_at
    assert resolved[0].resolved_at < resolved[1].start_timestamp
    assert resolved[-1].resolved_at < active.start_timestamp

    claims = list(Response.objects.filter(is_demo=True))
    by_block = sorted(claims, key=lambda r: (r.block_number, r.transaction_index, r.log_index))
    by_time = sorted(claims, key=attrgetter("submission_timestamp"))
    assert [r.pk for r in by_block] == [r.pk for r in by_time]
    assert len({r.block_number for r in claims}) == len(claims)


def test_the_demo_shows_each_rule():
    from responses.models import Response

    seed_demo()
    giza = Challenge.objects.get(poem_title="Four Thousand Summers")
    winners = challenge_winners(challenge=giza)
    # Earliest and highest staked correct are different responses, and the biggest stake of all is wrong.
    assert winners.earliest is not None and winners.highest is not None
    assert winners.earliest.pk != winners.highest.pk
    biggest = responses_with_scores(giza.responses.order_by("-submission_stake")).first()
    assert biggest is not None
    assert biggest.correct is False and biggest.submission_stake > winners.highest.submission_stake

    sails = Challenge.objects.get(poem_title="Sails That Never Leave")
    assert sails.proximity_threshold_m is None
    assert "only a guess on the exact" in sails.instructions_text
    # As the public API reads them (the distance is computed on read, challenges.selectors).
    scored = responses_with_scores(sails.responses.all())
    near_miss = scored.get(submission_text="-33.8568, 151.2153")
    assert near_miss.distance_meters is not None
    assert round(near_miss.distance_meters, 2) == 1.82 and near_miss.correct is False
    exact = scored.get(submission_text=sails.solution)
    assert exact.distance_meters == 0 and exact.correct is True
    winners = challenge_winners(challenge=sails)
    assert winners.earliest is not None and winners.highest is not None
    assert winners.earliest.pk == winners.highest.pk == exact.pk
    assert near_miss.submission_timestamp and exact.submission_timestamp
    assert near_miss.submission_timestamp < exact.submission_timestamp  # wrong even though earlier

    # Only the seeded claims are marked, and all of them are.
    assert set(Response.objects.filter(is_demo=True)) == set(Response.objects.filter(challenge__in=[giza, sails]))
