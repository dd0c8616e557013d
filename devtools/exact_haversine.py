"""The haversine in Decimal arithmetic at 50 significant digits: the reference distance against which
the pot's integer rule (challenges/geometry.py) and the site's double-precision haversine
(challenges/scoring.py) are measured (tests/pot_vectors.py, scripts/chord_rule_error.py).

Doubles carry 16 digits and lose more near the antipode (asin near 1); at 50 digits every figure these
tools print, to the micrometre, is exact. The series below are the Decimal documentation's recipes
(sin, cos) and the half-angle reduction of atan; slow (about a tenth of a millisecond per term) and
only for tools and tests."""

from __future__ import annotations

from decimal import Decimal, localcontext

PRECISION = 50
EARTH_RADIUS_M = Decimal(6_371_000)
# π to 64 digits: more than PRECISION needs.
PI = Decimal("3.141592653589793238462643383279502884197169399375105820974944592")


def _sin(x: Decimal) -> Decimal:
    x2, term, total, n = x * x, x, x, 1
    while True:
        n += 2
        term = -term * x2 / (n * (n - 1))
        if total + term == total:
            return total
        total += term


def _cos(x: Decimal) -> Decimal:
    x2, term, total, n = x * x, Decimal(1), Decimal(1), 0
    while True:
        n += 2
        term = -term * x2 / (n * (n - 1))
        if total + term == total:
            return total
        total += term


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
