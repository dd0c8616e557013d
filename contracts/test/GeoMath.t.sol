// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {GeoMath} from "../GeoMath.sol";
import {Base} from "./Base.sol";

/// The integer sine, the unit vectors and the chord rule: symmetric where the sphere is, accurate to a
/// few units of 10^-18, and, along a meridian or the equator where the great-circle distance is exact
/// arithmetic, "correct" exactly when the distance is within the threshold (a metre either side).
contract GeoMathTest is Base {
    uint256 internal constant ONE = 1e18;
    int256 internal constant M90 = 90_000_000;
    int256 internal constant M180 = 180_000_000;
    uint256 internal constant R = GeoMath.EARTH_RADIUS_M;

    function near(int256 a, int256 b, uint256 tolerance, string memory what) internal pure {
        uint256 diff = a > b ? uint256(a - b) : uint256(b - a);
        if (diff > tolerance) revert(string.concat(what, ": ", vm.toString(a), " vs ", vm.toString(b)));
    }

    function test_known_sines() public pure {
        assertEq(GeoMath.sinRad(0), 0, "sin 0");
        near(int256(GeoMath.sinRad(GeoMath.PI_ONE / 2)), int256(ONE), 20, "sin pi/2");
        near(GeoMath.sinMicro(90_000_000), int256(ONE), 20, "sin 90");
        near(GeoMath.sinMicro(30_000_000), int256(ONE / 2), 20, "sin 30");
        near(GeoMath.sinMicro(-30_000_000), -int256(ONE / 2), 20, "sin -30");
        near(GeoMath.sinMicro(150_000_000), int256(ONE / 2), 20, "sin 150");
        near(GeoMath.cosMicro(60_000_000), int256(ONE / 2), 20, "cos 60");
        near(GeoMath.cosMicro(-120_000_000), -int256(ONE / 2), 20, "cos -120");
        assertEq(GeoMath.sinMicro(180_000_000), 0, "sin 180");
        assertEq(GeoMath.sinMicro(-180_000_000), 0, "sin -180");
        assertEq(GeoMath.cosMicro(90_000_000), 0, "cos 90");
        // sin 45 = cos 45 = √2/2 = 0.707106781186547524...
        near(GeoMath.sinMicro(45_000_000), 707_106_781_186_547_524, 20, "sin 45");
        assertEq(GeoMath.sinMicro(45_000_000), GeoMath.cosMicro(45_000_000), "sin 45 is cos 45, folded exactly");
    }

    function testFuzz_the_sine_is_odd_and_folds_exactly(int256 seed) public pure {
        int256 a = boundInt(seed, -M180, M180);
        assertEq(GeoMath.sinMicro(-a), -GeoMath.sinMicro(a), "sin(-a) = -sin a");
        int256 m = a < 0 ? -a : a;
        assertEq(GeoMath.sinMicro(M180 - m), GeoMath.sinMicro(m), "sin(180 - a) = sin a");
        assertEq(GeoMath.cosMicro(-a), GeoMath.cosMicro(a), "cos(-a) = cos a");
        assertEq(GeoMath.cosMicro(M180 - m), -GeoMath.cosMicro(m), "cos(180 - a) = -cos a");
    }

    function testFuzz_the_sine_rises_to_90_degrees(uint256 a, uint256 b) public pure {
        a = bound(a, 0, uint256(M90));
        b = bound(b, 0, uint256(M90));
        if (a > b) (a, b) = (b, a);
        assertTrue(GeoMath.sinMicro(int256(a)) <= GeoMath.sinMicro(int256(b)), "monotonic on [0, 90]");
        assertTrue(GeoMath.sinMicro(int256(b)) <= int256(ONE) + 20, "at most one");
    }

    function testFuzz_a_unit_vector_has_length_one(int256 latSeed, int256 lonSeed) public pure {
        int256 lat = boundInt(latSeed, -M90, M90);
        int256 lon = boundInt(lonSeed, -M180, M180);
        (int64 x, int64 y, int64 z) = GeoMath.unitVector(lat, lon);
        int256 norm = int256(x) * x + int256(y) * y + int256(z) * z;
        near(norm, int256(ONE * ONE), 1e21, "x^2 + y^2 + z^2 = 1, to 1e-15");
        assertEq(GeoMath.chordSq(x, y, z, x, y, z), 0, "no distance to itself");
        (int64 x2, int64 y2, int64 z2) = GeoMath.unitVector(-lat, lon);
        assertEq(z2, -z, "mirrored in the equator");
        assertEq(x2, x, "mirrored in the equator");
        assertEq(y2, y, "mirrored in the equator");
    }

    function testFuzz_the_chord_is_symmetric(int256[4] memory seeds) public pure {
        (int64 ax, int64 ay, int64 az) =
            GeoMath.unitVector(boundInt(seeds[0], -M90, M90), boundInt(seeds[1], -M180, M180));
        (int64 bx, int64 by, int64 bz) =
            GeoMath.unitVector(boundInt(seeds[2], -M90, M90), boundInt(seeds[3], -M180, M180));
        assertEq(GeoMath.chordSq(ax, ay, az, bx, by, bz), GeoMath.chordSq(bx, by, bz, ax, ay, az), "symmetric");
        assertLe(GeoMath.chordSq(ax, ay, az, bx, by, bz), 4 * ONE * ONE + 1e21, "at most the diameter squared");
    }

    /// metres × 10^18 of `micro` micro-degrees of a great circle: R · micro · π / 180e6.
    function arcE18(uint256 micro) internal pure returns (uint256) {
        return (R * micro * GeoMath.PI_ONE) / 180_000_000;
    }

    /// Half of the time the arc is within a couple of metres of the threshold, where it matters.
    function deltaNear(uint256 thresholdM, uint256 seed) internal pure returns (uint256) {
        if (seed % 2 == 0) return bound(seed >> 1, 0, 180_000_000);
        uint256 atThreshold = (thresholdM * 180_000_000 * ONE) / (GeoMath.PI_ONE * R);
        uint256 offset = (seed >> 1) % 41; // ± 20 micro-degrees, ± 2.2 m
        uint256 delta = atThreshold + offset < 20 ? 0 : atThreshold + offset - 20;
        return delta > 180_000_000 ? 180_000_000 : delta;
    }

    function correct(int256 lat1, int256 lon1, int256 lat2, int256 lon2, uint256 thresholdM)
        internal
        pure
        returns (bool)
    {
        (int64 ax, int64 ay, int64 az) = GeoMath.unitVector(lat1, lon1);
        (int64 bx, int64 by, int64 bz) = GeoMath.unitVector(lat2, lon2);
        return GeoMath.chordSq(ax, ay, az, bx, by, bz) <= GeoMath.thresholdChordSq(thresholdM);
    }

    /// Along a meridian the great-circle distance is the difference of latitudes, exactly: the chord
    /// rule says "correct" whenever that distance is a metre or more within the threshold, and "not
    /// correct" whenever it is a metre or more beyond it.
    function testFuzz_along_a_meridian_correct_is_within_the_threshold(
        uint256 thresholdSeed,
        uint256 deltaSeed,
        int256 latSeed,
        int256 lonSeed
    ) public pure {
        uint256 threshold = bound(thresholdSeed, 1, GeoMath.HALF_CIRCUMFERENCE_M - 1);
        uint256 delta = deltaNear(threshold, deltaSeed);
        int256 lat = boundInt(latSeed, -M90, M90 - int256(delta));
        int256 lon = boundInt(lonSeed, -M180, M180);
        uint256 d = arcE18(delta);
        bool within = correct(lat, lon, lat + int256(delta), lon, threshold);
        if (d + ONE <= threshold * ONE) assertTrue(within, "a metre within: correct");
        if (d >= threshold * ONE + ONE) assertTrue(!within, "a metre beyond: not correct");
    }

    /// Along the equator likewise, the distance being the difference of longitudes (the shorter way).
    function testFuzz_along_the_equator_correct_is_within_the_threshold(
        uint256 thresholdSeed,
        uint256 deltaSeed,
        int256 lonSeed
    ) public pure {
        uint256 threshold = bound(thresholdSeed, 1, GeoMath.HALF_CIRCUMFERENCE_M - 1);
        uint256 delta = deltaNear(threshold, deltaSeed);
        int256 lon = boundInt(lonSeed, -M180, M180 - int256(delta));
        uint256 d = arcE18(delta);
        bool within = correct(0, lon, 0, lon + int256(delta), threshold);
        if (d + ONE <= threshold * ONE) assertTrue(within, "a metre within: correct");
        if (d >= threshold * ONE + ONE) assertTrue(!within, "a metre beyond: not correct");
    }

    function testFuzz_the_threshold_chord_rises_with_the_threshold(uint256 a, uint256 b) public pure {
        a = bound(a, 0, GeoMath.HALF_CIRCUMFERENCE_M);
        b = bound(b, 0, GeoMath.HALF_CIRCUMFERENCE_M);
        if (a > b) (a, b) = (b, a);
        assertLe(GeoMath.thresholdChordSq(a), GeoMath.thresholdChordSq(b), "monotonic");
    }

    function test_the_range() public pure {
        assertTrue(GeoMath.inRange(M90, M180) && GeoMath.inRange(-M90, -M180) && GeoMath.inRange(0, 0), "edges in");
        assertTrue(!GeoMath.inRange(M90 + 1, 0) && !GeoMath.inRange(-M90 - 1, 0), "latitude out");
        assertTrue(!GeoMath.inRange(0, M180 + 1) && !GeoMath.inRange(0, -M180 - 1), "longitude out");
        assertTrue(!GeoMath.inRange(type(int256).min, 0) && !GeoMath.inRange(0, type(int256).max), "extremes out");
    }

    function test_the_half_circumference_is_floor_pi_r() public pure {
        assertEq(GeoMath.HALF_CIRCUMFERENCE_M, (GeoMath.PI_ONE * R) / ONE, "floor(pi * R)");
    }
}
