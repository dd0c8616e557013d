"""Reads of challenges and their scores. Winners are indexed look-ups on columns written once at
resolution, so their cost does not grow with the number of responses."""

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import QuerySet

from responses.models import Response, ResponseStatus

from .models import Challenge, ChallengeStatus
from .scoring import PrizeSplit, prize_split


def challenge_get_active() -> Challenge | None:
    return Challenge.objects.filter(status=ChallengeStatus.ACTIVE).first()


def challenge_list_resolved() -> QuerySet[Challenge]:
    return Challenge.objects.filter(status=ChallengeStatus.RESOLVED).order_by("-resolved_at", "-id")


@dataclass(frozen=True)
class Winners:
    challenge: Challenge
    earliest: Response | None
    highest: Response | None
    split: PrizeSplit

    @property
    def earliest_prize(self) -> Decimal | None:
        return self.split.earliest if self.earliest else None

    @property
    def highest_prize(self) -> Decimal | None:
        return self.split.highest if self.highest else None

    @property
    def operations(self) -> Decimal:
        """The 20 % share; with no correct response nothing is allocated at all."""
        return self.split.operations if self.earliest else Decimal("0")

    @property
    def unallocated(self) -> Decimal:
        """What nobody is due: the rounding dust, or the whole pot when no response is correct."""
        return self.split.total - self.operations - (self.earliest_prize or 0) - (self.highest_prize or 0)


def challenge_winners(*, challenge: Challenge) -> Winners:
    correct = Response.objects.filter(challenge=challenge, status=ResponseStatus.CONFIRMED, is_correct=True)
    earliest = correct.order_by("block_number", "transaction_index", "log_index").first()
    highest = correct.order_by("-submission_stake", "block_number", "transaction_index", "log_index").first()
    return Winners(challenge=challenge, earliest=earliest, highest=highest, split=prize_split(challenge.staked_sum))
