"""The integer rule that scores a guess, as contracts/GeoMath.sol computes it (docs/protocol.md section 4).

The pot decides on chain whether a revealed guess is correct; the site, the verifiers and the page must
reach the same verdict, so this module is the contract's arithmetic in Python integers, step for step,
and tests/vectors.json ("geometry") pins it and the TypeScript copy (frontend/src/lib/protocol/
geometry.ts) to the contract's own answers. No float appears anywhere: a float rounds differently from
the EVM, and a verdict that differs by one unit at the threshold is a different winner.

Fixed point with ONE = 10^18. Coordinates are micro-degrees (challenges/coordinates.py, micro_degrees).
Why a chord and not a distance: on the unit sphere the chord between two points is c = 2·sin(d / 2R),
which rises with the great-circle distance d for d < πR, so "d ≤ threshold" is exactly "c² ≤ c_T²", and
c² is a sum of three squared differences of integer unit vectors: no arccos, no square root.
"""

ONE = 10**18
# floor(π · 10^18), as GeoMath.PI_ONE.
PI_ONE = 3_141_592_653_589_793_238
MICRO_90 = 90_000_000
MICRO_180 = 180_000_000
EARTH_RADIUS_M = 6_371_000
# floor(π · EARTH_RADIUS_M): the pot refuses a threshold at or above it, where the chord stops rising.
HALF_CIRCUMFERENCE_M = 20_015_086
# The largest angle sin_rad is given: 90° as sin_micro turns it into radians (floor(PI_ONE / 2)).
HALF_PI_ONE = MICRO_90 * PI_ONE // MICRO_180

Vector = tuple[int, int, int]
MicroDegrees = tuple[int, int]

# The Taylor series' divisors (2k)·(2k+1), k = 1 … 12, as GeoMath.sinRad unrolls them.
_TAYLOR_DIVISORS = tuple((2 * k) * (2 * k + 1) for k in range(1, 13))


def div_trunc(numerator: int, denominator: int) -> int:
    """Integer division truncated toward zero, as Solidity's `/` on signed integers. Python's `//`
    floors instead (-7 // 2 == -4 where Solidity gives -3), which would move every negative product of
    unit_vector by one unit."""
    quotient = abs(numerator) // abs(denominator)
    return -quotient if (numerator < 0) != (denominator < 0) else quotient


def sin_rad(x: int) -> int:
    """sin(x) for x radians scaled by ONE, 0 ≤ x ≤ π/2·ONE: the first 13 terms of the Taylor series,
    term k being floor(term(k−1) · x² / (ONE² · 2k · (2k+1))). Every operand is non-negative, so the
    floor here is the contract's truncation. Outside that range the contract's unchecked arithmetic is
    not the sine any more; nothing of the pot calls it there, and neither may this."""
    if not 0 <= x <= HALF_PI_ONE:
        raise ValueError(f"sin_rad takes 0 ≤ x ≤ {HALF_PI_ONE}, not {x}")
    x2 = x * x
    term = total = x
    for k, divisor in enumerate(_TAYLOR_DIVISORS, start=1):
        term = term * x2 // (ONE * ONE * divisor)
        total = total - term if k % 2 else total + term
    return total


def sin_micro(angle_e6: int) -> int:
    """sin of an angle in micro-degrees, |angle| ≤ 180°, scaled by ONE. Folded into [0°, 90°] on the
    exact micro-degrees before the conversion to radians, so symmetric angles get exactly symmetric
    sines. Beyond 180° the contract's checked subtraction reverts; this raises."""
    magnitude = abs(angle_e6)
    if magnitude > MICRO_180:
        raise ValueError(f"sin_micro takes |angle| ≤ {MICRO_180} micro-degrees, not {angle_e6}")
    if magnitude > MICRO_90:
        magnitude = MICRO_180 - magnitude
    value = sin_rad(magnitude * PI_ONE // MICRO_180)
    return -value if angle_e6 < 0 else value


def cos_micro(angle_e6: int) -> int:
    """cos a = sin(90° − |a|), on the exact micro-degrees."""
    return sin_micro(MICRO_90 - abs(angle_e6))


def unit_vector(lat_e6: int, lon_e6: int) -> Vector:
    """The point's unit vector scaled by ONE: (cos φ·cos λ, cos φ·sin λ, sin φ), each product divided
    by ONE truncated toward zero (div_trunc). Callers check the range first (in_range)."""
    cos_lat = cos_micro(lat_e6)
    return (
        div_trunc(cos_lat * cos_micro(lon_e6), ONE),
        div_trunc(cos_lat * sin_micro(lon_e6), ONE),
        sin_micro(lat_e6),
    )


def in_range(lat_e6: int, lon_e6: int) -> bool:
    return -MICRO_90 <= lat_e6 <= MICRO_90 and -MICRO_180 <= lon_e6 <= MICRO_180


def chord_sq(a: Vector, b: Vector) -> int:
    """The squared chord between two unit vectors scaled by ONE, so scaled by ONE²: at most 4·ONE²."""
    return sum((p - q) ** 2 for p, q in zip(a, b, strict=True))


def threshold_chord_sq(threshold_m: int) -> int:
    """The squared chord of a great-circle distance of `threshold_m` metres, scaled by ONE²:
    (2·sin(h))² with h = floor(threshold_m · ONE / (2R)). The pot opens only thresholds below
    HALF_CIRCUMFERENCE_M."""
    if not 0 <= threshold_m < HALF_CIRCUMFERENCE_M:
        raise ValueError(f"a threshold is 0 ≤ metres < {HALF_CIRCUMFERENCE_M}, not {threshold_m}")
    chord = 2 * sin_rad(threshold_m * ONE // (2 * EARTH_RADIUS_M))
    return chord * chord


def is_correct(guess_e6: MicroDegrees, solution_e6: MicroDegrees, threshold_m: int) -> bool:
    """The pot's verdict on a revealed guess (GeopoemPot.revealGuess): a guess out of range is
    incorrect, never an error; the solution was range-checked when it was revealed, so one out of
    range here is the caller's mistake."""
    if not in_range(*solution_e6):
        raise ValueError(f"the solution {solution_e6} is out of range")
    if not in_range(*guess_e6):
        return False
    return chord_sq(unit_vector(*guess_e6), unit_vector(*solution_e6)) <= threshold_chord_sq(threshold_m)
