"""Pure scoring rules the site shows (docs/protocol.md section 4). Correct or not is the integer
chord rule of challenges/geometry.py, which the pot computes; here are the distance shown to people
(the haversine), the prize split of a pot in token units, and what a blanket of guesses costs.
verify_challenge.py computes the split again without importing the site's code; both are held to the
shared vectors."""

import math
from dataclasses import dataclass
from decimal import Decimal

EARTH_RADIUS_M = 6_371_000
PRIZE_PERCENT = 40  # GeopoemPot.PRIZE_PERCENT: each of the two prizes
TOKEN_UNIT = Decimal("0.000001")


def haversine_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in metres on a sphere of radius 6,371,000 m: shown with 2 decimals,
    never the verdict."""
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi = math.radians(lat2 - lat1)
    dlambda = math.radians(lon2 - lon1)
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(min(1.0, a)))


def prize_split(pot_units: int) -> tuple[int, int]:
    """(each prize, the share) in token units, as GeopoemPot._split pays them: 40 % each rounded
    down, the 20 % share takes the remainder, so nothing is left over."""
    prize = pot_units * PRIZE_PERCENT // 100
    return prize, pot_units - 2 * prize


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
    return Blanket(stakes=stakes, cost=cost, worth_it_at=(cost * 100 / PRIZE_PERCENT).quantize(Decimal("0.01")))
