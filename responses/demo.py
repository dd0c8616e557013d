"""Demonstration data for a local run: one active challenge and two resolved ones with confirmed
responses. The challenges and the seeded claims are marked is_demo; the claims carry made-up
transaction hashes and blocks that no chain holds: they exist to show the Resolved tab and the
Winners' Circle, not to be paid. A claim a player makes on the active demo challenge is real and
is not marked.

The demo tells one consistent story, since it is the first thing a player sees: the first resolved
challenge ran from 30 to 20 days ago, the second from 18 to 10 days ago, the active one starts
now; every claim lies inside its challenge's window, and its block number grows with its time
(12-second blocks), so "earliest" means the same by block and by clock. Each rule shows: a correct
guess that is earliest, another correct one with the highest stake, a wrong guess with the highest
stake of all, and a challenge without threshold where a guess 1.82 m off is wrong and only the
exact hit wins (both prizes)."""

import hashlib
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.db import transaction
from django.db.models import Count, Sum
from django.utils import timezone

from challenges.models import Challenge, ChallengeStatus, Payout
from challenges.services import challenge_create_published
from config.public_cache import public_answers_mark_stale

from .models import Response, ResponseStatus
from .resolution import challenge_resolve
from .services import guess_fields


@dataclass(frozen=True)
class DemoPoem:
    title: str
    poem: str
    instructions: str
    threshold_m: int | None
    solution: str
    # (coordinates, stake, hours after the start)
    guesses: tuple[tuple[str, str, int], ...] = ()
    # Days before the seeding: when the challenge started and when it was resolved.
    started_days_ago: int = 0
    resolved_days_ago: int = 0


INSTRUCTIONS = (
    "<p>Find the place this poem describes and enter its latitude and longitude.</p>"
    "<p>A guess within the proximity threshold of the hidden solution is correct.</p>"
)
EXACT_INSTRUCTIONS = (
    "<p>Find the place this poem describes and enter its latitude and longitude.</p>"
    "<p>This challenge has no proximity threshold: it counts as 0 m, so only a guess on the exact"
    " coordinates of the solution is correct. A guess even a metre away is not.</p>"
)

RESOLVED = (
    DemoPoem(
        title="Four Thousand Summers",
        poem=(
            "<p>I was counted in stone before counting had pages,<br>"
            "a staircase for a king who would climb it alone.<br>"
            "The river keeps my shadow on its western hand;<br>"
            "the desert keeps my corners true to the compass.</p>"
            "<p>Stand at my summit, where the tallest of three once ended,<br>"
            "and the Sphinx will be looking the other way.</p>"
        ),
        instructions=INSTRUCTIONS,
        threshold_m=150,
        solution="29.979175, 31.134258",
        guesses=(
            ("29.9792, 31.1342", "5.00", 26),  # correct (6 m), the earliest correct
            ("29.97918, 31.13426", "25.50", 53),  # correct (0.6 m), the highest staked correct
            ("30.0444, 31.2357", "40.00", 96),  # Cairo: the highest stake, but wrong
            ("29.9753, 31.1376", "12.25", 150),  # 530 m off: outside the 150 m threshold
        ),
        started_days_ago=30,
        resolved_days_ago=20,
    ),
    DemoPoem(
        title="Sails That Never Leave",
        poem=(
            "<p>White shells stacked on a finger of sandstone,<br>"
            "a fleet that moored and forgot to depart.<br>"
            "The bridge across the water hums its coat-hanger song;<br>"
            "the harbour claps for me each night at eight.</p>"
        ),
        instructions=EXACT_INSTRUCTIONS,
        threshold_m=None,
        solution="-33.856784, 151.215296",
        guesses=(
            ("-33.8568, 151.2153", "3.00", 20),  # 1.82 m off: wrong without a threshold
            ("-33.856784, 151.215296", "2.00", 70),  # the exact hit: the only correct guess, wins both
            ("-33.852222, 151.210556", "8.00", 121),  # the highest stake, wrong
        ),
        started_days_ago=18,
        resolved_days_ago=10,
    ),
)

ACTIVE = DemoPoem(
    title="The Torch on the Tide",
    poem=(
        "<p>A copper woman, gone green with the weather,<br>"
        "keeps her lamp lit for the ones who came by sea.<br>"
        "Seven points on her crown for seven waters,<br>"
        "a tablet dated in the numerals of Rome.</p>"
        "<p>She stands on a star that was once a fort,<br>"
        "on an island that bears her name.</p>"
    ),
    instructions=INSTRUCTIONS,
    threshold_m=250,
    solution="40.689247, -74.044502",
)

DEMO_ADDRESSES = (
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    "0x90F79bf6EB2c4F870365E785982E1f101E93b906",
    "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65",
)


# Made-up blocks: block DEMO_FIRST_BLOCK at the start of the story, one every 12 seconds after it.
DEMO_FIRST_BLOCK = 1000
DEMO_BLOCK_SECONDS = 12
STORY_DAYS = max(p.started_days_ago for p in RESOLVED)


def _demo_tx_hash(title: str, index: int) -> str:
    # responses/migrations/0003 recognises claims seeded before Response.is_demo by this form.
    return "0x" + hashlib.sha256(f"geopoem-demo|{title}|{index}".encode()).hexdigest()


def _demo_block(at, story_start) -> int:
    return DEMO_FIRST_BLOCK + int((at - story_start).total_seconds()) // DEMO_BLOCK_SECONDS


def _add_demo_responses(challenge: Challenge, poem: DemoPoem, *, now) -> None:
    start = challenge.start_timestamp
    assert start is not None  # seed_demo back-dates the published challenge's start before this
    story_start = now - timedelta(days=STORY_DAYS)
    for index, (coordinates, stake, hours) in enumerate(poem.guesses):
        address = DEMO_ADDRESSES[index % len(DEMO_ADDRESSES)]
        Response.objects.create(
            challenge=challenge,
            **guess_fields(challenge_id=challenge.pk, text=coordinates, submitter_address=address),
            submission_stake=Decimal(stake),
            submission_timestamp=start + timedelta(hours=hours),
            transaction_hash=_demo_tx_hash(poem.title, index),
            submitter_address=address,
            status=ResponseStatus.CONFIRMED,
            block_number=_demo_block(start + timedelta(hours=hours), story_start),
            transaction_index=0,
            log_index=0,
            is_demo=True,
        )
    # The rows' own creation times follow the story too (the admin shows them).
    for response in challenge.responses.filter(is_demo=True):
        Response.objects.filter(pk=response.pk).update(created_at=response.submission_timestamp)
    totals = challenge.responses.filter(status=ResponseStatus.CONFIRMED).aggregate(
        total=Sum("submission_stake"), count=Count("id")
    )
    Challenge.objects.filter(pk=challenge.pk).update(
        staked_sum=totals["total"] or Decimal("0"), response_count=totals["count"]
    )


def _published(poem: DemoPoem) -> Challenge:
    """A demo challenge, created and published through the services, as staff would."""
    return challenge_create_published(
        poem_title=poem.title,
        poem_text=poem.poem,
        instructions_text=poem.instructions,
        proximity_threshold_m=poem.threshold_m,
        solution=poem.solution,
        is_demo=True,
    )


def seed_demo() -> list[str]:
    """Create whatever demo challenge is missing; running it again changes nothing."""
    report: list[str] = []
    now = timezone.now()
    for poem in RESOLVED:
        if Challenge.objects.filter(is_demo=True, poem_title=poem.title).exists():
            report.append(f"kept resolved demo '{poem.title}'")
            continue
        if Challenge.objects.filter(status=ChallengeStatus.ACTIVE).exists():
            report.append(f"skipped resolved demo '{poem.title}': another challenge is active")
            continue
        with transaction.atomic():
            challenge = _published(poem)
            # Back-dated to the story's days: publishing and resolving stamp "now".
            started = now - timedelta(days=poem.started_days_ago)
            resolved = now - timedelta(days=poem.resolved_days_ago)
            Challenge.objects.filter(pk=challenge.pk).update(start_timestamp=started)
            challenge.refresh_from_db()
            _add_demo_responses(challenge, poem, now=now)
            challenge_resolve(challenge=challenge)
            Challenge.objects.filter(pk=challenge.pk).update(
                created_at=started, closed_at=resolved, resolved_at=resolved
            )
            Payout.objects.filter(challenge=challenge).update(created_at=resolved)
            public_answers_mark_stale()
        report.append(f"created resolved demo '{poem.title}' (#{challenge.pk})")
    if Challenge.objects.filter(is_demo=True, poem_title=ACTIVE.title).exists():
        report.append(f"kept active demo '{ACTIVE.title}'")
    elif Challenge.objects.filter(status=ChallengeStatus.ACTIVE).exists():
        report.append(f"skipped active demo '{ACTIVE.title}': another challenge is active")
    else:
        with transaction.atomic():
            challenge = _published(ACTIVE)
        report.append(f"created active demo '{ACTIVE.title}' (#{challenge.pk})")
    return report
