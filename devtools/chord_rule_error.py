"""How far from the threshold a guess can be and still be judged otherwise than by the exact distance:
by the pot's integer chord rule (challenges/geometry.py, contracts/GeoMath.sol) and by the site's
double-precision haversine (challenges/scoring.py). The exact distance is the 50-digit Decimal
haversine of devtools/geodesy.py. The figures go into docs/protocol.md section 4.

    .venv/bin/python -m devtools.chord_rule_error [--pairs N] [--seed S]

For each threshold T, on N pairs of micro-degree points placed about T apart (random start and
bearing; all over the globe, poles and antimeridian included):

- the integer rule compares chordSq(pair) with thresholdChordSq(T). Both are chords of some exact
  distance: d_int = 2R·asin(√chordSq / 2) and T_int likewise, and the rule's verdict is d_int ≤ T_int.
  It differs from the exact verdict (d ≤ T) only if |d − T| ≤ |d_int − d| + |T_int − T|: that sum, with
  the largest |d_int − d| seen, is the band reported;
- the double haversine's verdict differs only if |d − T| ≤ |d_double − d|: the largest seen is reported.

The sampled |d_int − d| is not a proof. A bound from the integer unit vectors themselves: if no
component is off by more than e (measured first, on random points, against the 50-digit sine and
cosine), a chord is off by at most 2·√3·e, and a distance near T by at most 2·√3·e·R / cos(T / 2R);
that plus |T_int − T| is the "int bound" column.

Then, at each threshold, pairs are searched whose exact distance is within each band (when the band is
wide enough for the micro-degree grid to hold such pairs) and the verdicts that differ are counted: the
largest |d − T| among them is a difference actually reached, not a bound."""

from __future__ import annotations

import argparse
import math
import random
import time
from decimal import Decimal

from challenges.geometry import EARTH_RADIUS_M, HALF_CIRCUMFERENCE_M, ONE, chord_sq, threshold_chord_sq, unit_vector
from devtools.geodesy import (
    MicroPoint,
    chord_distance_m,
    destination,
    double_m,
    exact_m,
    pair_near,
    random_point,
    unit_vector_exact,
)

LARGEST_THRESHOLD_M = HALF_CIRCUMFERENCE_M - 1
THRESHOLDS_M = [m * 10**e for e in range(6) for m in (1, 2, 5)] + [1_000_000, 5_000_000, 10_000_000, 20_000_000]
THRESHOLDS_M += [20_015_000, LARGEST_THRESHOLD_M]
# A band narrower than this holds no pair of the micro-degree grid one can hope to find by sampling.
SEARCHABLE_BAND_M = Decimal("0.0001")


def component_error(points: int, rng: random.Random) -> Decimal:
    """The largest error of an integer unit vector's component, in units of 1/ONE, over random points
    and the poles, the equator and the antimeridian."""
    special = [(90_000_000, 0), (-90_000_000, 0), (0, 180_000_000), (0, -180_000_000), (89_999_999, 179_999_999)]
    worst = Decimal(0)
    for lat, lon in special + [random_point(rng) for _ in range(points)]:
        exact = unit_vector_exact(lat, lon)
        worst = max(worst, *(abs(a - b) for a, b in zip(unit_vector(lat, lon), exact, strict=True)))
    return worst


def integer_bound_m(threshold_m: int, component: Decimal, threshold_error: Decimal) -> Decimal:
    chord_error = 2 * Decimal(3).sqrt() * component / ONE
    slope = Decimal(math.cos(threshold_m / (2 * EARTH_RADIUS_M)))
    return chord_error * EARTH_RADIUS_M / slope + abs(threshold_error)


def integer_distance_m(a: MicroPoint, b: MicroPoint) -> Decimal:
    return chord_distance_m(chord_sq(unit_vector(*a), unit_vector(*b)))


def measure(threshold_m: int, pairs: int, component: Decimal, rng: random.Random) -> dict:
    threshold = Decimal(threshold_m)
    threshold_error = chord_distance_m(threshold_chord_sq(threshold_m)) - threshold
    worst_integer = worst_double = Decimal(0)
    for _ in range(pairs):
        start = random_point(rng)
        end = destination(start, rng.uniform(0, 2 * math.pi), threshold_m)
        exact = exact_m(start, end)
        worst_integer = max(worst_integer, abs(integer_distance_m(start, end) - exact))
        worst_double = max(worst_double, abs(Decimal(double_m(start, end)) - exact))
    integer_band = worst_integer + abs(threshold_error)
    chord_limit = threshold_chord_sq(threshold_m)

    def integer_verdict(guess: MicroPoint, solution: MicroPoint) -> bool:
        return chord_sq(unit_vector(*guess), unit_vector(*solution)) <= chord_limit

    def double_verdict(guess: MicroPoint, solution: MicroPoint) -> bool:
        return double_m(guess, solution) <= threshold_m

    return {
        "threshold": threshold_m,
        "thresholdError": threshold_error,
        "integerError": worst_integer,
        "integerBand": integer_band,
        "integerBound": integer_bound_m(threshold_m, component, threshold_error),
        "doubleBand": worst_double,
        "integerReached": reached(threshold_m, integer_band, integer_verdict, pairs // 10, rng),
        "doubleReached": reached(threshold_m, worst_double, double_verdict, pairs // 10, rng),
    }


def reached(
    threshold_m: int, band: Decimal, verdict, pairs: int, rng: random.Random
) -> tuple[int, int, Decimal] | None:
    """Pairs within `band` of the threshold, judged by `verdict` and by the exact distance: (pairs,
    verdicts that differ, the largest |d − T| among those). None when the band is too narrow to hold
    pairs of the grid."""
    if band < SEARCHABLE_BAND_M:
        return None
    threshold = Decimal(threshold_m)
    differing, farthest = 0, Decimal(0)
    for _ in range(pairs):
        guess, solution = pair_near(rng, threshold, band, reach=10)
        exact = exact_m(guess, solution)
        if verdict(guess, solution) is not (exact <= threshold):
            differing += 1
            farthest = max(farthest, abs(exact - threshold))
    return pairs, differing, farthest


def _m(value: Decimal) -> str:
    return f"{float(value):.2e}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000, help="pairs per threshold (default 2000)")
    parser.add_argument("--seed", type=int, default=20260412)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    began = time.monotonic()
    print(f"{args.pairs} pairs per threshold, seed {args.seed}; distances in metres (exact: 50-digit haversine)")
    component = component_error(10 * args.pairs, rng)
    print(f"largest error of a unit vector's component over {10 * args.pairs} points: {float(component):.2f} / ONE")
    print(
        f"{'threshold':>10} {'|T_int-T|':>9} {'max|d_int-d|':>12} {'int band':>9} {'int bound':>9} "
        f"{'double band':>11}   "
        "pairs placed within a band (when the grid holds any): verdicts that differ, largest |d-T|"
    )
    for threshold_m in THRESHOLDS_M:
        row = measure(threshold_m, args.pairs, component, rng)
        line = (
            f"{threshold_m:>10} {_m(abs(row['thresholdError'])):>9} {_m(row['integerError']):>12} "
            f"{_m(row['integerBand']):>9} {_m(row['integerBound']):>9} {_m(row['doubleBand']):>11}   "
        )
        for kind in ("integer", "double"):
            found = row[f"{kind}Reached"]
            if found is not None:
                line += f"{kind}: {found[1]} of {found[0]} pairs in its band differ, up to {_m(found[2])}; "
        print(line.rstrip("; "), flush=True)
    print(f"{time.monotonic() - began:.1f} s")


if __name__ == "__main__":
    main()
