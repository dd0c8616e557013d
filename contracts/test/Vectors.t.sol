// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {GeoMath} from "../GeoMath.sol";
import {GeopoemPot} from "../GeopoemPot.sol";
import {PotFixture} from "./PotFixture.sol";

/// The shared vectors (tests/vectors.json, "geometry" and "potEncodings"), which the Python and the
/// TypeScript implementations are checked against too: GeoMath gives every integer, the pot gives every
/// verdict through its own reveal path, and every commitment, terms digest, stake nonce and stake hash,
/// deployed at the address and run on the chain each vector names. Each section is read whole into
/// structs whose fields are its keys (forge reads decimal strings as integers and hex as bytes32).
contract VectorsTest is PotFixture {
    string internal constant VECTORS = "tests/vectors.json";

    struct MicroDegrees {
        int256 latE6;
        int256 lonE6;
        string text;
    }

    struct Sine {
        int256 cos;
        int256 microDegrees;
        int256 sin;
    }

    struct UnitVector {
        int256 latE6;
        int256 lonE6;
        int256 x;
        int256 y;
        int256 z;
    }

    struct InRange {
        bool inRange;
        int256 latE6;
        int256 lonE6;
    }

    struct ThresholdChord {
        uint256 chordSq;
        uint256 thresholdM;
    }

    struct Verdict {
        string about;
        uint256 chordSq;
        bool correct;
        string guess;
        string haversineM;
        string solution;
        uint256 thresholdChordSq;
        uint256 thresholdM;
    }

    struct GuessCommitment {
        uint256 chainId;
        uint256 challengeId;
        bytes32 commitment;
        int256 latE6;
        int256 lonE6;
        address payer;
        address pot;
        bytes32 salt;
    }

    struct SolutionCommitment {
        uint256 chainId;
        uint256 challengeId;
        bytes32 commitment;
        int256 latE6;
        int256 lonE6;
        address pot;
        bytes32 salt;
    }

    struct TermsDigest {
        uint256 challengeId;
        bytes32 digest;
        bool openable;
        GeopoemPot.Terms terms;
    }

    struct StakeNonce {
        uint256 amount;
        uint256 chainId;
        uint256 challengeId;
        bytes32 commitment;
        bytes32 nonce;
        address pot;
        bytes32 termsDigest;
    }

    struct StakeHash {
        uint256 amount;
        bytes32 commitment;
        bytes32 hash;
        address payer;
    }

    string internal constant TERMS_TYPE = "Terms(bytes32 solutionCommitment,bytes32 termsHash,uint32 thresholdM,"
        "uint32 opensAt,uint32 closesAt,uint32 solutionDeadline,uint32 guessWindow,uint64 minStake,uint96 bond)";

    function setUp() public override {
        super.setUp();
        openDefault(ID);
    }

    function section(string memory path, string memory typeDescription) internal view returns (bytes memory) {
        return vm.parseJsonTypeArray(vm.readFile(VECTORS), path, typeDescription);
    }

    /// Canonical "lat, lon" text to micro-degrees, on the digits (docs/protocol.md section 1).
    function microDegrees(string memory coordinates) internal pure returns (int256 lat, int256 lon) {
        bytes memory b = bytes(coordinates);
        uint256 i;
        (lat, i) = parseMicro(b, 0);
        require(i + 2 <= b.length && b[i] == "," && b[i + 1] == " ", "coordinates: a comma and a space");
        uint256 end;
        (lon, end) = parseMicro(b, i + 2);
        require(end == b.length, "coordinates: trailing text");
    }

    function parseMicro(bytes memory b, uint256 i) internal pure returns (int256 value, uint256 next) {
        bool negative = b[i] == "-";
        if (negative) ++i;
        uint256 whole;
        uint256 digits;
        while (i < b.length && b[i] >= "0" && b[i] <= "9") {
            whole = whole * 10 + uint8(b[i]) - 48;
            ++i;
            ++digits;
        }
        require(digits > 0, "coordinates: a number");
        uint256 fraction;
        uint256 places;
        if (i < b.length && b[i] == ".") {
            ++i;
            while (i < b.length && b[i] >= "0" && b[i] <= "9") {
                fraction = fraction * 10 + uint8(b[i]) - 48;
                ++i;
                ++places;
            }
            require(places > 0 && places <= 6, "coordinates: one to six decimals");
        }
        uint256 micro = whole * 1e6 + fraction * 10 ** (6 - places);
        return (negative ? -int256(micro) : int256(micro), i);
    }

    /// The pot's code and constructor run at `target` (as if deployed there), its storage its own.
    function potAt(address target) internal returns (GeopoemPot) {
        if (target.code.length == 0) {
            vm.etch(
                target,
                abi.encodePacked(
                    type(GeopoemPot).creationCode, abi.encode(address(usdc), operator, shareReceiver, sweepReceiver)
                )
            );
            (bool ok, bytes memory runtime) = target.call("");
            require(ok, "the pot's constructor");
            vm.etch(target, runtime);
        }
        return GeopoemPot(target);
    }

    // ---------------------------------------------------------------------------------------------
    // geometry

    function test_micro_degrees_of_the_canonical_text() public view {
        MicroDegrees[] memory vs = abi.decode(
            section(".geometry.microDegrees", "MicroDegrees(int256 latE6,int256 lonE6,string text)"), (MicroDegrees[])
        );
        assertGe(vs.length, 1, "vectors");
        for (uint256 i; i < vs.length; ++i) {
            (int256 lat, int256 lon) = microDegrees(vs[i].text);
            assertEq(lat, vs[i].latE6, vs[i].text);
            assertEq(lon, vs[i].lonE6, vs[i].text);
        }
    }

    function test_geomath_gives_every_sine_and_cosine() public view {
        Sine[] memory vs =
            abi.decode(section(".geometry.sinMicro", "Sine(int256 cos,int256 microDegrees,int256 sin)"), (Sine[]));
        assertGe(vs.length, 1, "vectors");
        for (uint256 i; i < vs.length; ++i) {
            string memory angle = vm.toString(vs[i].microDegrees);
            assertEq(GeoMath.sinMicro(vs[i].microDegrees), vs[i].sin, string.concat("sin ", angle));
            assertEq(GeoMath.cosMicro(vs[i].microDegrees), vs[i].cos, string.concat("cos ", angle));
        }
    }

    function test_geomath_gives_every_unit_vector() public view {
        UnitVector[] memory vs = abi.decode(
            section(".geometry.unitVector", "UnitVector(int256 latE6,int256 lonE6,int256 x,int256 y,int256 z)"),
            (UnitVector[])
        );
        assertGe(vs.length, 1, "vectors");
        for (uint256 i; i < vs.length; ++i) {
            (int64 x, int64 y, int64 z) = GeoMath.unitVector(vs[i].latE6, vs[i].lonE6);
            string memory where = string.concat(vm.toString(vs[i].latE6), ", ", vm.toString(vs[i].lonE6));
            assertEq(x, vs[i].x, where);
            assertEq(y, vs[i].y, where);
            assertEq(z, vs[i].z, where);
        }
    }

    function test_geomath_gives_every_range_and_threshold_chord() public view {
        InRange[] memory ranges =
            abi.decode(section(".geometry.inRange", "InRange(bool inRange,int256 latE6,int256 lonE6)"), (InRange[]));
        assertGe(ranges.length, 1, "range vectors");
        for (uint256 i; i < ranges.length; ++i) {
            assertEq(GeoMath.inRange(ranges[i].latE6, ranges[i].lonE6), ranges[i].inRange, "inRange");
        }
        ThresholdChord[] memory chords = abi.decode(
            section(".geometry.thresholdChordSq", "ThresholdChord(uint256 chordSq,uint256 thresholdM)"),
            (ThresholdChord[])
        );
        assertGe(chords.length, 1, "threshold vectors");
        for (uint256 i; i < chords.length; ++i) {
            assertEq(
                GeoMath.thresholdChordSq(chords[i].thresholdM),
                chords[i].chordSq,
                string.concat("threshold ", vm.toString(chords[i].thresholdM))
            );
        }
    }

    function verdicts() internal view returns (Verdict[] memory) {
        return abi.decode(
            section(
                ".geometry.correct",
                "Verdict(string about,uint256 chordSq,bool correct,string guess,string haversineM,string solution,"
                "uint256 thresholdChordSq,uint256 thresholdM)"
            ),
            (Verdict[])
        );
    }

    function chordOf(Verdict memory v) internal pure returns (uint256) {
        (int256 guessLat, int256 guessLon) = microDegrees(v.guess);
        (int256 solLat, int256 solLon) = microDegrees(v.solution);
        (int64 ax, int64 ay, int64 az) = GeoMath.unitVector(guessLat, guessLon);
        (int64 bx, int64 by, int64 bz) = GeoMath.unitVector(solLat, solLon);
        return GeoMath.chordSq(ax, ay, az, bx, by, bz);
    }

    function test_geomath_gives_every_chord_and_verdict() public view {
        Verdict[] memory vs = verdicts();
        assertGe(vs.length, 1, "vectors");
        for (uint256 i; i < vs.length; ++i) {
            uint256 chord = chordOf(vs[i]);
            uint256 threshold = GeoMath.thresholdChordSq(vs[i].thresholdM);
            (int256 lat, int256 lon) = microDegrees(vs[i].guess);
            assertEq(chord, vs[i].chordSq, vs[i].about);
            assertEq(threshold, vs[i].thresholdChordSq, vs[i].about);
            assertEq(GeoMath.inRange(lat, lon) && chord <= threshold, vs[i].correct, vs[i].about);
        }
    }

    /// Every verdict through the pot itself: a challenge per vector, opened on the solution's
    /// commitment and the threshold, the guess staked, the solution then the guess revealed.
    function test_the_pot_scores_every_revealed_guess_as_the_vectors_say() public {
        Verdict[] memory vs = verdicts();
        GeopoemPot.Terms memory t = defaultTerms();
        t.bond = 0;
        for (uint256 i; i < vs.length; ++i) {
            (int256 lat, int256 lon) = microDegrees(vs[i].solution);
            t.solutionCommitment = solutionCommitmentOf(address(pot), 1000 + i, lat, lon, SOL_SALT);
            t.thresholdM = uint32(vs[i].thresholdM);
            openChallenge(1000 + i, t);
            assertEq(pot.stateOf(1000 + i).thresholdChordSq, vs[i].thresholdChordSq, "the pot's threshold chord");
        }
        vm.prank(alice);
        usdc.approve(address(pot), type(uint256).max);
        for (uint256 i; i < vs.length; ++i) {
            (int256 lat, int256 lon) = microDegrees(vs[i].guess);
            bytes32 c = guessCommitmentOf(address(pot), 1000 + i, alice, lat, lon, bytes32(i));
            vm.prank(alice);
            pot.stake(1000 + i, c, USDC);
        }
        vm.warp(t.closesAt);
        for (uint256 i; i < vs.length; ++i) {
            (int256 lat, int256 lon) = microDegrees(vs[i].solution);
            pot.revealSolution(1000 + i, lat, lon, SOL_SALT);
            (lat, lon) = microDegrees(vs[i].guess);
            assertEq(pot.revealGuess(1000 + i, 1, alice, USDC, lat, lon, bytes32(i)), vs[i].correct, vs[i].about);
            assertEq(pot.stateOf(1000 + i).earliestSeq, vs[i].correct ? 1 : 0, vs[i].about);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // potEncodings

    function test_the_pot_recomputes_every_guess_commitment() public {
        GuessCommitment[] memory vs = abi.decode(
            section(
                ".potEncodings.guessCommitments",
                "GuessCommitment(uint256 chainId,uint256 challengeId,bytes32 commitment,int256 latE6,int256 lonE6,"
                "address payer,address pot,bytes32 salt)"
            ),
            (GuessCommitment[])
        );
        assertGe(vs.length, 1, "vectors");
        for (uint256 i; i < vs.length; ++i) {
            GuessCommitment memory v = vs[i];
            vm.chainId(v.chainId);
            bytes32 got = potAt(v.pot).guessCommitment(v.challengeId, v.payer, v.latE6, v.lonE6, v.salt);
            assertEq(got, v.commitment, string.concat("guess commitment ", vm.toString(i)));
        }
    }

    function test_the_pot_recomputes_every_solution_commitment() public {
        SolutionCommitment[] memory vs = abi.decode(
            section(
                ".potEncodings.solutionCommitments",
                "SolutionCommitment(uint256 chainId,uint256 challengeId,bytes32 commitment,int256 latE6,int256 lonE6,"
                "address pot,bytes32 salt)"
            ),
            (SolutionCommitment[])
        );
        assertGe(vs.length, 1, "vectors");
        for (uint256 i; i < vs.length; ++i) {
            SolutionCommitment memory v = vs[i];
            vm.chainId(v.chainId);
            bytes32 got = potAt(v.pot).solutionCommitment(v.challengeId, v.latE6, v.lonE6, v.salt);
            assertEq(got, v.commitment, string.concat("solution commitment ", vm.toString(i)));
        }
    }

    /// The terms digests, then the stake nonces read back from the pot the vectors name, with their
    /// terms opened there.
    function test_the_pot_gives_every_terms_digest_and_stake_nonce() public {
        TermsDigest[] memory digests = abi.decode(
            section(
                ".potEncodings.termsDigests",
                string.concat("TermsDigest(uint256 challengeId,bytes32 digest,bool openable,Terms terms)", TERMS_TYPE)
            ),
            (TermsDigest[])
        );
        StakeNonce[] memory nonces = abi.decode(
            section(
                ".potEncodings.stakeNonces",
                "StakeNonce(uint256 amount,uint256 chainId,uint256 challengeId,bytes32 commitment,bytes32 nonce,"
                "address pot,bytes32 termsDigest)"
            ),
            (StakeNonce[])
        );
        assertGe(digests.length, 1, "terms digest vectors");
        assertGe(nonces.length, 1, "stake nonce vectors");
        GeopoemPot at = potAt(nonces[0].pot);
        for (uint256 i; i < digests.length; ++i) {
            TermsDigest memory v = digests[i];
            assertEq(at.termsDigestOf(v.challengeId, v.terms), v.digest, string.concat("terms digest ", vm.toString(i)));
            if (!v.openable) continue;
            vm.prank(operator);
            at.open(v.challengeId, v.terms);
            (, bytes32 stored) = at.termsOf(v.challengeId);
            assertEq(stored, v.digest, "the digest the pot keeps");
        }
        for (uint256 i; i < nonces.length; ++i) {
            StakeNonce memory v = nonces[i];
            assertEq(v.pot, address(at), "one pot");
            (, bytes32 stored) = at.termsOf(v.challengeId);
            assertEq(stored, v.termsDigest, "the vector's terms are the ones opened");
            vm.chainId(v.chainId);
            assertEq(
                at.stakeNonce(v.challengeId, v.commitment, v.amount),
                v.nonce,
                string.concat("stake nonce ", vm.toString(i))
            );
        }
    }

    /// The stake hashes, recorded by a stake where the amount can be staked at all.
    function test_the_pot_records_every_stake_hash() public {
        StakeHash[] memory vs = abi.decode(
            section(
                ".potEncodings.stakeHashes", "StakeHash(uint256 amount,bytes32 commitment,bytes32 hash,address payer)"
            ),
            (StakeHash[])
        );
        assertGe(vs.length, 1, "vectors");
        uint256 staked;
        for (uint256 i; i < vs.length; ++i) {
            StakeHash memory v = vs[i];
            if (v.amount > type(uint64).max) {
                // The pot never records such a stake (SafeCast refuses it); the encoding is still the one
                // it uses: keccak256(abi.encode(payer, amount, commitment)).
                assertEq(stakeHashOf(v.payer, v.amount, v.commitment), v.hash, "an amount beyond 64 bits");
                continue;
            }
            usdc.mint(v.payer, v.amount);
            vm.startPrank(v.payer);
            usdc.approve(address(pot), v.amount);
            uint256 seq = pot.stake(ID, v.commitment, v.amount);
            vm.stopPrank();
            assertEq(pot.stakeHash(ID, seq), v.hash, string.concat("stake hash ", vm.toString(i)));
            ++staked;
        }
        assertGe(staked, 1, "stake hashes recorded by the pot");
    }
}
