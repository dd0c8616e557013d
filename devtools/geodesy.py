"""Reference geodesy for tools and tests: the haversine in Decimal arithmetic at 50 significant digits,
against which the pot's integer rule (challenges/geometry.py) and the site's double-precision haversine
(challenges/scoring.py) are measured (tests/pot_vectors.py, devtools/chord_rule_error.py), and the
placing of sample pairs at a chosen distance on the micro-degree grid.

Doubles carry 16 digits and lose more near the antipode (asin near 1); at 50 digits every figure these
tools print is exact far below a nanometre. The series are the Decimal documentation's recipes (sin,
cos) and the half-angle reduction of atan. Not for the app: nothing here is needed to score a guess."""

from __future__ import annotations

import math
import random
from decimal import Decimal, localcontext

from challenges.geometry import MICRO_90, MICRO_180, ONE
from challenges.scoring import haversine_m as double_haversine_m

MicroPoint = tuple[int, int]

PRECISION = 50
EARTH_RADIUS_M = Decimal(6_371_000)
# π to 64 digits: more than PRECISION needs.
PI = Decimal("3.141592653589793238462643383279502884197169399375105820974944592")


def _alternating(x: Decimal, term: Decimal, n: int) -> Decimal:
    """term − term·x²/((n+1)(n+2)) + …, summed until a term no longer changes the total: the sine's
    series from (x, 1), the cosine's from (1, 0)."""
    x2, total = x * x, term
    while True:
        n += 2
        term = -term * x2 / (n * (n - 1))
        if total + term == total:
            return total
        total += term


def _sin(x: Decimal) -> Decimal:
    return _alternating(x, x, 1)


def _cos(x: Decimal) -> Decimal:
    return _alternating(x, Decimal(1), 0)


def _atan(y: Decimal) -> Decimal:
    """atan y for 0 ≤ y ≤ 1: halve the angle until y < 0.1 (atan y = 2·atan(y / (1 + √(1 + y²)))),
    then the series y − y³/3 + y⁵/5 − …"""
    doublings = 0
    while y > Decimal("0.1"):
        y = y / (1 + (1 + y * y).sqrt())
        doublings += 1
    y2, power, total, n = y * y, y, y, 1
    while True:
        n += 2
        power = -power * y2
        term = power / n
        if total + term == total:
            return total * (1 << doublings)
        total += term


def _asin(x: Decimal) -> Decimal:
    """asin x for 0 ≤ x ≤ 1, as 2·atan(x / (1 + √(1 − x²)))."""
    return 2 * _atan(x / (1 + (1 - x * x).sqrt()))


def haversine_m(lat1: Decimal, lon1: Decimal, lat2: Decimal, lon2: Decimal) -> Decimal:
    """Great-circle distance in metres on the sphere of radius 6,371,000 m, coordinates in degrees
    (exact Decimals: micro-degrees / 10^6), to PRECISION significant digits."""
    with localcontext() as context:
        context.prec = PRECISION + 10
        radians = PI / 180
        phi1, phi2 = lat1 * radians, lat2 * radians
        half_dphi = (lat2 - lat1) * radians / 2
        half_dlambda = (lon2 - lon1) * radians / 2
        a = _sin(half_dphi) ** 2 + _cos(phi1) * _cos(phi2) * _sin(half_dlambda) ** 2
        a = min(Decimal(1), max(Decimal(0), a))
        distance = 2 * EARTH_RADIUS_M * _asin(a.sqrt())
    with localcontext() as context:
        context.prec = PRECISION
        return +distance


def micro(value_e6: int) -> Decimal:
    """Micro-degrees as exact decimal degrees."""
    return Decimal(value_e6).scaleb(-6)


def exact_m(a: MicroPoint, b: MicroPoint) -> Decimal:
    """The exact distance between two points of the micro-degree grid."""
    return haversine_m(micro(a[0]), micro(a[1]), micro(b[0]), micro(b[1]))


def double_m(a: MicroPoint, b: MicroPoint) -> float:
    """The site's double-precision haversine of the same points, from their floats as the site has them."""
    return double_haversine_m(a[0] / 1e6, a[1] / 1e6, b[0] / 1e6, b[1] / 1e6)


def chord_distance_m(chord_sq: int) -> Decimal:
    """The great-circle distance whose chord, squared and scaled by ONE² as the integer rule writes it,
    is `chord_sq`: 2R·asin(√chord_sq / 2·ONE), exactly. The distance the integer rule "sees"."""
    with localcontext() as context:
        context.prec = PRECISION + 10
        half_chord = Decimal(chord_sq).sqrt() / (2 * ONE)
        distance = 2 * EARTH_RADIUS_M * _asin(min(Decimal(1), half_chord))
    with localcontext() as context:
        context.prec = PRECISION
        return +distance


def grid(lat: float, lon: float) -> MicroPoint:
    """The micro-degree point nearest a float position, folded into range."""
    lat_e6 = max(-MICRO_90, min(MICRO_90, round(lat * 1e6)))
    lon_e6 = (round(lon * 1e6) + MICRO_180) % (2 * MICRO_180) - MICRO_180
    return lat_e6, lon_e6


def destination(start: MicroPoint, bearing: float, distance_m: float) -> MicroPoint:
    """The grid point nearest the one `distance_m` from `start` along `bearing` (radians), in floats:
    a place to start a search; every distance recorded from it is computed exactly."""
    phi1, lambda1 = math.radians(start[0] / 1e6), math.radians(start[1] / 1e6)
    delta = distance_m / float(EARTH_RADIUS_M)
    sin_phi2 = math.sin(phi1) * math.cos(delta) + math.cos(phi1) * math.sin(delta) * math.cos(bearing)
    phi2 = math.asin(max(-1.0, min(1.0, sin_phi2)))
    lambda2 = lambda1 + math.atan2(
        math.sin(bearing) * math.sin(delta) * math.cos(phi1), math.cos(delta) - math.sin(phi1) * math.sin(phi2)
    )
    return grid(math.degrees(phi2), math.degrees(lambda2))


def random_point(rng: random.Random, margin: int = 0) -> MicroPoint:
    return rng.randint(-MICRO_90 + margin, MICRO_90 - margin), rng.randint(-MICRO_180, MICRO_180)


def pair_near(
    rng: random.Random, target_m: Decimal, window_m: Decimal, *, tries: int = 200, reach: int = 30
) -> tuple[MicroPoint, MicroPoint]:
    """A grid pair whose exact distance is within `window_m` of `target_m`: a random start, the float
    destination at that distance, and the grid around it, filtered by the double haversine (off by at
    most centimetres, well inside the filter's margin) and then checked exactly."""
    margin = float(window_m) + 0.05
    for _ in range(tries):
        start = random_point(rng, reach)
        centre = destination(start, rng.uniform(0, 2 * math.pi), float(target_m))
        for i in range(-reach, reach + 1):
            for j in range(-reach, reach + 1):
                end = grid((centre[0] + i) / 1e6, (centre[1] + j) / 1e6)
                if abs(double_m(start, end) - float(target_m)) > margin:
                    continue
                if abs(exact_m(start, end) - target_m) <= window_m:
                    return start, end
    raise RuntimeError(f"no pair within {window_m} m of {target_m} m")


def unit_vector_exact(lat_e6: int, lon_e6: int) -> tuple[Decimal, Decimal, Decimal]:
    """(cos φ·cos λ, cos φ·sin λ, sin φ) scaled by ONE, to PRECISION digits: what the integer
    unit vector (challenges/geometry.py) approximates."""
    with localcontext() as context:
        context.prec = PRECISION + 10
        phi, lam = micro(lat_e6) * PI / 180, micro(lon_e6) * PI / 180
        cos_phi = _cos(phi)
        return cos_phi * _cos(lam) * ONE, cos_phi * _sin(lam) * ONE, _sin(phi) * ONE
