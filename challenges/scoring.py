"""Pure scoring rules (docs/protocol.md section 4): distance, correctness, winners and the prize split.

The database applies the same haversine in bulk at resolution (challenges/selectors.py,
distance_to_solution_sql, run by responses/resolution.py); these functions are the reference it is
tested against."""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from typing import Protocol

EARTH_RADIUS_M = 6_371_000
EARLIEST_SHARE = Decimal("0.40")
HIGHEST_SHARE = Decimal("0.40")
OPERATIONS_SHARE = Decimal("0.20")
TOKEN_UNIT = Decimal("0.000001")


def haversine_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in metres on a sphere of radius 6,371,000 m."""
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi = math.radians(lat2 - lat1)
    dlambda = math.radians(lon2 - lon1)
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(min(1.0, a)))


def is_correct(distance_m: float, threshold_m: int | None) -> bool:
    """A missing threshold scores as 0 m: only an exact hit is correct."""
    return distance_m <= (threshold_m or 0)


class Scored(Protocol):
    submission_stake: Decimal
    block_number: int | None
    transaction_index: int | None
    log_index: int | None


def chain_order(response: Scored) -> tuple[int, int, int]:
    return (response.block_number or 0, response.transaction_index or 0, response.log_index or 0)


def pick_earliest(correct: Sequence[Scored]) -> Scored | None:
    """The first correct response in chain order, never by a client's clock or the server's."""
    return min(correct, key=chain_order, default=None)


def pick_highest(correct: Sequence[Scored]) -> Scored | None:
    """The largest stake; among equal stakes the earliest in chain order."""
    if not correct:
        return None
    return min(correct, key=lambda r: (-r.submission_stake, *chain_order(r)))


@dataclass(frozen=True)
class PrizeSplit:
    total: Decimal
    earliest: Decimal
    highest: Decimal
    operations: Decimal

    @property
    def unallocated(self) -> Decimal:
        """Dust left by rounding each share down to a token unit."""
        return self.total - self.earliest - self.highest - self.operations


def prize_split(total: Decimal) -> PrizeSplit:
    """40 % / 40 % / 20 % of the pot, each share rounded down to whole token units."""

    def share(fraction: Decimal) -> Decimal:
        return (total * fraction).quantize(TOKEN_UNIT, rounding=ROUND_DOWN)

    return PrizeSplit(
        total=total,
        earliest=share(EARLIEST_SHARE),
        highest=share(HIGHEST_SHARE),
        operations=share(OPERATIONS_SHARE),
    )


# A hexagonal covering of the plane by discs needs 2π/(3√3) times the area they cover alone.
COVERING_DENSITY = Decimal("1.2092")
BLANKET_RADIUS_M = 10_000


@dataclass(frozen=True)
class Blanket:
    """What covering a circle with guesses costs at a challenge's threshold and minimum stake."""

    stakes: int  # guesses of the minimum stake needed to cover the circle
    cost: Decimal  # USDC
    worth_it_at: Decimal  # the pot (those stakes included) at which the earliest prize repays them


def blanket(*, threshold_m: int | None, min_stake: Decimal, radius_m: int = BLANKET_RADIUS_M) -> Blanket | None:
    """Each correct guess covers a disc of the threshold's radius: covering a circle of `radius_m`
    around a suspected place takes about density × (radius / threshold)² guesses, and a player who
    blankets it wins "earliest correct" (40 %) for sure once the place is inside. Staff see this when
    they set the threshold and the minimum stake (docs/decisions.md, "A blanket of cheap guesses").
    None without a threshold: only the exact point is correct, and no number of guesses covers a
    circle."""
    if not threshold_m:
        return None
    stakes = math.ceil(COVERING_DENSITY * (Decimal(radius_m) / Decimal(threshold_m)) ** 2)
    cost = stakes * min_stake
    return Blanket(stakes=stakes, cost=cost, worth_it_at=(cost / EARLIEST_SHARE).quantize(Decimal("0.01")))
