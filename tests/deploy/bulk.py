"""A challenge of many stakes for the deploy rehearsal's admin budget (tests/deploy/test_rehearsal.py),
loaded with COPY in the slug's own environment (`manage.py shell`): the rows the follower would have
projected from the pot's events (responses.models.Stake) and the guesses the site would hold, the
solution revealed and the challenge settled, so the admin's pages and export have all of them to
show. Test data: no chain holds these stakes, and the follower leaves a settled challenge alone."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta


def load_stakes(title: str, count: int, *, seed: int = 7) -> int:
    """A published challenge with `count` stakes and their guesses; returns its id."""
    from django.db import connection, transaction

    from challenges.coordinates import micro_degrees, text_from_micro
    from challenges.models import Challenge, ChallengeStatus, PotState
    from challenges.services import challenge_create

    rng = random.Random(seed)
    start = datetime(2026, 6, 1, tzinfo=UTC)
    with transaction.atomic():
        challenge = challenge_create(
            poem_title=title, poem_text="<p>Many</p>", instructions_text="", proximity_threshold_m=150,
            solution="29.979175, 31.134258",
        )  # fmt: skip
        Challenge.objects.filter(pk=challenge.pk).update(
            status=ChallengeStatus.PUBLISHED, opens_at=start, closes_at=start + timedelta(days=7),
            solution_deadline=start + timedelta(days=8),
        )  # fmt: skip
        lat, lon = micro_degrees(challenge.solution)
        with connection.cursor() as cursor:
            stakes = cursor.cursor.copy(
                "COPY responses_stake (challenge_id, seq, payer, amount_units, commitment, transaction_hash, "
                "block_number, block_hash, log_index, block_time, revealed_correct) FROM STDIN"
            )
            with stakes as copy:
                for n in range(1, count + 1):
                    copy.write_row(
                        (challenge.pk, n, f"0x{n:040x}", 1_000_000 + n % 97 * 10_000, f"{n:064x}", f"0x{n:064x}",
                         1_000 + n // 400, f"0x{n // 400:064x}", n % 400, start + timedelta(seconds=n), None)
                    )  # fmt: skip
            guesses = cursor.cursor.copy(
                "COPY responses_guess (challenge_id, payer, commitment, text, salt, lat_e6, lon_e6, is_correct, "
                "distance_m, created_at) FROM STDIN"
            )
            with guesses as copy:
                for n in range(1, count + 1):
                    dlat, dlon = rng.randint(-900, 900), rng.randint(-900, 900)
                    text = text_from_micro(lat + dlat, lon + dlon)
                    copy.write_row(
                        (challenge.pk, f"0x{n:040x}", f"{n:064x}", text, f"{n:064x}", lat + dlat, lon + dlon,
                         abs(dlat) + abs(dlon) < 800, f"{(abs(dlat) + abs(dlon)) * 0.1:.2f}", start)
                    )  # fmt: skip
        with connection.cursor() as cursor:  # the statistics autovacuum would gather after such a load
            cursor.execute("ANALYZE responses_stake, responses_guess")
        PotState.objects.update_or_create(
            challenge=challenge,
            defaults={
                "staked_units": sum(1_000_000 + n % 97 * 10_000 for n in range(1, count + 1)),
                "stake_count": count, "solution_lat_e6": lat, "solution_lon_e6": lon, "solution_block": 1_000,
                "guess_deadline": start + timedelta(days=9), "settled": True,
            },
        )  # fmt: skip
    return challenge.pk
