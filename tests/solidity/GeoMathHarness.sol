// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {GeoMath} from "../../contracts/GeoMath.sol";

/// GeoMath's internal functions as external views, so tests/test_pot_vectors_on_chain.py can ask the
/// library itself for the values tests/vectors.json ("geometry") pins. `verdict` is revealGuess's
/// scoring (contracts/GeopoemPot.sol) in one call; the pot's own reveals check a sample of it.
contract GeoMathHarness {
    function sinRad(uint256 x) external pure returns (uint256) {
        return GeoMath.sinRad(x);
    }

    function sinMicro(int256 a) external pure returns (int256) {
        return GeoMath.sinMicro(a);
    }

    function cosMicro(int256 a) external pure returns (int256) {
        return GeoMath.cosMicro(a);
    }

    function unitVector(int256 latE6, int256 lonE6) external pure returns (int64, int64, int64) {
        return GeoMath.unitVector(latE6, lonE6);
    }

    function inRange(int256 latE6, int256 lonE6) external pure returns (bool) {
        return GeoMath.inRange(latE6, lonE6);
    }

    function thresholdChordSq(uint256 thresholdM) external pure returns (uint256) {
        return GeoMath.thresholdChordSq(thresholdM);
    }

    function verdict(int256 guessLat, int256 guessLon, int256 solutionLat, int256 solutionLon, uint256 thresholdM)
        external
        pure
        returns (uint256 chord, uint256 thresholdChord, bool correct)
    {
        (int64 sx, int64 sy, int64 sz) = GeoMath.unitVector(solutionLat, solutionLon);
        thresholdChord = GeoMath.thresholdChordSq(thresholdM);
        if (GeoMath.inRange(guessLat, guessLon)) {
            (int64 gx, int64 gy, int64 gz) = GeoMath.unitVector(guessLat, guessLon);
            chord = GeoMath.chordSq(gx, gy, gz, sx, sy, sz);
            correct = chord <= thresholdChord;
        }
    }
}
