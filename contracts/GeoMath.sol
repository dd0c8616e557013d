// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title The integer rule that scores a guess (docs/protocol.md section 4, "Correct, in integers").
/// @notice Written once here, in Python (challenges/geometry.py, and verify_challenge.py) and in
/// TypeScript (frontend/src/lib/protocol/geometry.ts); tests/vectors.json ("geometry") pins all of them
/// to the same integers, bit for bit.
/// @dev Fixed point with ONE = 10^18. Every division is on non-negative operands, except the products
/// of `unitVector`, which truncate toward zero as Solidity's `/` does on signed integers (the other
/// implementations truncate the same way, not floor).
///
/// Why a chord and not a distance: on the unit sphere the chord between two points is
/// c = 2·sin(d / 2R), which rises with the great-circle distance d for d < πR. So "d ≤ threshold" is
/// exactly "c² ≤ c_T²", and c² is a sum of three squared differences of integer unit vectors: no
/// arccos, no square root, nothing rounded but the sines themselves.
library GeoMath {
    uint256 internal constant ONE = 1e18;
    /// floor(π · 10^18)
    uint256 internal constant PI_ONE = 3_141_592_653_589_793_238;
    int256 internal constant MICRO_90 = 90_000_000;
    int256 internal constant MICRO_180 = 180_000_000;
    uint256 internal constant EARTH_RADIUS_M = 6_371_000;
    /// floor(π · EARTH_RADIUS_M): half the earth's circumference, in metres. A threshold must stay
    /// below it, where the chord still rises with the distance.
    uint256 internal constant HALF_CIRCUMFERENCE_M = 20_015_086;

    /// sin(x) for x in radians scaled by ONE, 0 ≤ x ≤ π/2·ONE: the first 13 terms of the Taylor series
    /// x − x³/3! + x⁵/5! − …, term k being floor(term(k−1) · x² / (ONE² · 2k · (2k+1))), k = 1 … 12.
    /// In that range the 12th term is always 0 already, so this is the whole series as far as integers
    /// can tell. Unrolled with constant divisors: a loop cost three times the gas.
    function sinRad(uint256 x) internal pure returns (uint256 s) {
        unchecked {
            // x ≤ 1.58e18: x² ≤ 2.5e36 and t · x² ≤ 4e54, far below 2^256. Every partial sum of the
            // series stays positive for x < √6, so the subtractions cannot wrap.
            uint256 x2 = x * x;
            uint256 t = x;
            s = x;
            t = (t * x2) / (ONE * ONE * 6);
            s -= t;
            t = (t * x2) / (ONE * ONE * 20);
            s += t;
            t = (t * x2) / (ONE * ONE * 42);
            s -= t;
            t = (t * x2) / (ONE * ONE * 72);
            s += t;
            t = (t * x2) / (ONE * ONE * 110);
            s -= t;
            t = (t * x2) / (ONE * ONE * 156);
            s += t;
            t = (t * x2) / (ONE * ONE * 210);
            s -= t;
            t = (t * x2) / (ONE * ONE * 272);
            s += t;
            t = (t * x2) / (ONE * ONE * 342);
            s -= t;
            t = (t * x2) / (ONE * ONE * 420);
            s += t;
            t = (t * x2) / (ONE * ONE * 506);
            s -= t;
            t = (t * x2) / (ONE * ONE * 600);
            s += t;
        }
    }

    /// sin of an angle in micro-degrees, |a| ≤ 180,000,000, scaled by ONE. The angle is folded into
    /// [0°, 90°] on the exact micro-degrees (sin(−a) = −sin a, sin(180° − a) = sin a) before it is
    /// turned into radians, so symmetric points get exactly symmetric values.
    function sinMicro(int256 a) internal pure returns (int256) {
        bool negative = a < 0;
        uint256 m = uint256(negative ? -a : a);
        if (m > uint256(MICRO_90)) m = uint256(MICRO_180) - m;
        int256 value = int256(sinRad((m * PI_ONE) / uint256(MICRO_180)));
        return negative ? -value : value;
    }

    /// cos a = sin(90° − |a|), on the exact micro-degrees.
    function cosMicro(int256 a) internal pure returns (int256) {
        return sinMicro(MICRO_90 - (a < 0 ? -a : a));
    }

    /// The point's unit vector scaled by ONE: (cos φ·cos λ, cos φ·sin λ, sin φ), each product
    /// truncated toward zero. Callers check the range first: |lat| ≤ 90°, |lon| ≤ 180°.
    function unitVector(int256 latE6, int256 lonE6) internal pure returns (int64 x, int64 y, int64 z) {
        int256 cosLat = cosMicro(latE6);
        int256 one = int256(ONE);
        // |each| ≤ ONE < 2^63: the casts cannot lose anything.
        x = int64((cosLat * cosMicro(lonE6)) / one);
        y = int64((cosLat * sinMicro(lonE6)) / one);
        z = int64(sinMicro(latE6));
    }

    function inRange(int256 latE6, int256 lonE6) internal pure returns (bool) {
        return latE6 >= -MICRO_90 && latE6 <= MICRO_90 && lonE6 >= -MICRO_180 && lonE6 <= MICRO_180;
    }

    /// The squared chord between two unit vectors scaled by ONE (so the result is scaled by ONE²):
    /// at most 4·ONE², about 1.2e37.
    function chordSq(int64 ax, int64 ay, int64 az, int64 bx, int64 by, int64 bz) internal pure returns (uint256) {
        int256 dx = int256(ax) - bx;
        int256 dy = int256(ay) - by;
        int256 dz = int256(az) - bz;
        return uint256(dx * dx) + uint256(dy * dy) + uint256(dz * dz);
    }

    /// The squared chord of a great-circle distance of `thresholdM` metres, scaled by ONE²:
    /// (2·sin(h))² with h = floor(thresholdM · ONE / (2R)). thresholdM ≤ HALF_CIRCUMFERENCE_M.
    function thresholdChordSq(uint256 thresholdM) internal pure returns (uint256) {
        uint256 chord = 2 * sinRad((thresholdM * ONE) / (2 * EARTH_RADIUS_M));
        return chord * chord;
    }
}
