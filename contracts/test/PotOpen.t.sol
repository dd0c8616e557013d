// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

import {GeoMath} from "../GeoMath.sol";
import {GeopoemPot} from "../GeopoemPot.sol";
import {PotFixture} from "./PotFixture.sol";

/// `open`: only the operator, once per id, terms that cannot trap players, the bond pulled.
contract PotOpenTest is PotFixture {
    function test_open_fixes_the_terms_pulls_the_bond_and_logs_them() public {
        GeopoemPot.Terms memory t = termsFor(ID);
        bytes32 digest = termsDigestOf(ID, t);
        uint256 operatorBefore = balance(operator);
        vm.expectEmit(true, true, true, true, address(pot));
        emit GeopoemPot.Opened(ID, t, digest);
        openChallenge(ID, t);

        (GeopoemPot.Terms memory stored, bytes32 storedDigest) = pot.termsOf(ID);
        assertEq(keccak256(abi.encode(stored)), keccak256(abi.encode(t)), "termsOf gives the terms opened");
        assertEq(storedDigest, digest, "the digest");
        assertEq(pot.termsDigestOf(ID, t), digest, "termsDigestOf is keccak256(abi.encode(id, terms))");
        assertEq(pot.owed(), t.bond, "owed: the bond");
        assertEq(balance(address(pot)), t.bond, "the pot holds the bond");
        assertEq(balance(operator), operatorBefore - t.bond, "from the operator");
        GeopoemPot.State memory s = pot.stateOf(ID);
        assertEq(s.stakeCount + s.pot + s.guessDeadline + s.earliestSeq + s.highestSeq, 0, "nothing yet");
        assertEq(s.thresholdChordSq, GeoMath.thresholdChordSq(THRESHOLD_M), "the threshold's chord");
        assertEq(
            pot.stakeNonce(ID, bytes32(uint256(1)), 5 * USDC),
            stakeNonceOf(address(pot), ID, digest, bytes32(uint256(1)), 5 * USDC),
            "stakeNonce binds the digest"
        );
    }

    function test_only_the_operator_opens() public {
        GeopoemPot.Terms memory t = termsFor(ID);
        for (uint256 i; i < 3; ++i) {
            address stranger = [alice, shareReceiver, sweepReceiver][i];
            vm.prank(stranger);
            vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
            pot.open(ID, t);
        }
        assertEq(pot.owed(), 0, "nothing opened");
    }

    function test_the_first_open_wins_and_nothing_changes_after() public {
        GeopoemPot.Terms memory t = openDefault(ID);
        (, bytes32 digest) = pot.termsOf(ID);
        GeopoemPot.Terms memory other = termsFor(ID);
        other.thresholdM = 5_000_000;
        other.solutionCommitment = keccak256("a decoy");
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.AlreadyOpened.selector, ID));
        pot.open(ID, other);
        (GeopoemPot.Terms memory stored, bytes32 storedDigest) = pot.termsOf(ID);
        assertEq(keccak256(abi.encode(stored)), keccak256(abi.encode(t)), "terms unchanged");
        assertEq(storedDigest, digest, "digest unchanged");
        assertEq(pot.owed(), t.bond, "one bond");
    }

    function test_the_operators_role_moves_in_two_steps_and_only_opens() public {
        address next = address(0x4E47);
        vm.prank(operator);
        pot.transferOwnership(next);
        openDefault(ID); // still the operator's until accepted
        vm.prank(next);
        pot.acceptOwnership();
        usdc.mint(next, 100 * USDC);
        vm.prank(next);
        usdc.approve(address(pot), type(uint256).max);
        GeopoemPot.Terms memory t = termsFor(ID + 1); // (sha256 is a call: not between prank and open)
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, operator));
        pot.open(ID + 1, t);
        vm.prank(next);
        pot.open(ID + 1, t);
        assertEq(pot.owed(), 20 * USDC, "two bonds");
    }

    function test_a_zero_bond_moves_nothing() public {
        GeopoemPot.Terms memory t = termsFor(ID);
        t.bond = 0;
        vm.prank(operator);
        usdc.approve(address(pot), 0);
        openChallenge(ID, t);
        assertEq(pot.owed(), 0, "owed");
        assertEq(balance(address(pot)), 0, "balance");
    }

    function test_an_open_whose_bond_cannot_be_pulled_records_nothing() public {
        vm.prank(operator);
        usdc.approve(address(pot), 0);
        GeopoemPot.Terms memory t = termsFor(ID);
        vm.prank(operator);
        vm.expectRevert(bytes("insufficient allowance"));
        pot.open(ID, t);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotOpened.selector, ID));
        pot.stakeNonce(ID, bytes32(0), USDC);
        (GeopoemPot.Terms memory stored,) = pot.termsOf(ID);
        assertEq(stored.closesAt, 0, "not opened");
    }

    function expectOpenReverts(GeopoemPot.Terms memory t, bytes memory error) internal {
        vm.prank(operator);
        vm.expectRevert(error);
        pot.open(ID, t);
    }

    function test_the_close_must_follow_the_open_and_be_in_the_future() public {
        GeopoemPot.Terms memory t = termsFor(ID);
        t.closesAt = t.opensAt;
        expectOpenReverts(t, abi.encodeWithSelector(GeopoemPot.CloseNotAfterOpen.selector, t.opensAt, t.closesAt));
        t.closesAt = t.opensAt - 1;
        expectOpenReverts(t, abi.encodeWithSelector(GeopoemPot.CloseNotAfterOpen.selector, t.opensAt, t.closesAt));
        t = termsFor(ID);
        t.opensAt = uint32(START - 2 hours);
        t.closesAt = uint32(START);
        expectOpenReverts(t, abi.encodeWithSelector(GeopoemPot.CloseInThePast.selector, START));
        t.closesAt = uint32(START + 1);
        t.solutionDeadline = uint32(START + 1 days);
        openChallenge(ID, t); // opened in the past, closing in a second: allowed
    }

    function test_staking_lasts_at_most_ninety_days() public {
        GeopoemPot.Terms memory t = termsFor(ID);
        t.closesAt = uint32(t.opensAt + 90 days + 1);
        t.solutionDeadline = t.closesAt + 1 days;
        expectOpenReverts(t, abi.encodeWithSelector(GeopoemPot.OpenTooLong.selector, 90 days + 1, 90 days));
        t.closesAt = uint32(t.opensAt + 90 days);
        openChallenge(ID, t);
    }

    function test_the_solution_deadline_follows_the_close_within_thirty_days() public {
        GeopoemPot.Terms memory t = termsFor(ID);
        t.solutionDeadline = t.closesAt;
        expectOpenReverts(t, abi.encodeWithSelector(GeopoemPot.SolutionDeadlineOutOfRange.selector, t.closesAt));
        t.solutionDeadline = t.closesAt - 1;
        expectOpenReverts(t, abi.encodeWithSelector(GeopoemPot.SolutionDeadlineOutOfRange.selector, t.closesAt - 1));
        t.solutionDeadline = t.closesAt + 30 days + 1;
        expectOpenReverts(
            t, abi.encodeWithSelector(GeopoemPot.SolutionDeadlineOutOfRange.selector, t.closesAt + 30 days + 1)
        );
        t.solutionDeadline = t.closesAt + 30 days;
        openChallenge(ID, t);
        t.solutionDeadline = t.closesAt + 1;
        openChallenge(ID + 1, t);
    }

    function test_the_guess_window_lasts_an_hour_to_thirty_days() public {
        GeopoemPot.Terms memory t = termsFor(ID);
        t.guessWindow = 1 hours - 1;
        expectOpenReverts(t, abi.encodeWithSelector(GeopoemPot.GuessWindowOutOfRange.selector, 1 hours - 1));
        t.guessWindow = 30 days + 1;
        expectOpenReverts(t, abi.encodeWithSelector(GeopoemPot.GuessWindowOutOfRange.selector, 30 days + 1));
        t.guessWindow = 1 hours;
        openChallenge(ID, t);
        t.guessWindow = 30 days;
        openChallenge(ID + 1, t);
    }

    function test_the_minimum_stake_is_at_least_one_usdc() public {
        GeopoemPot.Terms memory t = termsFor(ID);
        t.minStake = uint64(USDC - 1);
        expectOpenReverts(t, abi.encodeWithSelector(GeopoemPot.MinimumStakeTooLow.selector, USDC - 1, USDC));
        t.minStake = 0;
        expectOpenReverts(t, abi.encodeWithSelector(GeopoemPot.MinimumStakeTooLow.selector, 0, USDC));
        t.minStake = uint64(USDC);
        openChallenge(ID, t);
    }

    function test_the_threshold_stays_below_half_the_circumference() public {
        uint256 half = GeoMath.HALF_CIRCUMFERENCE_M;
        GeopoemPot.Terms memory t = termsFor(ID);
        t.thresholdM = uint32(half);
        expectOpenReverts(t, abi.encodeWithSelector(GeopoemPot.ThresholdTooLarge.selector, half, half - 1));
        t.thresholdM = type(uint32).max;
        expectOpenReverts(t, abi.encodeWithSelector(GeopoemPot.ThresholdTooLarge.selector, t.thresholdM, half - 1));
        t.thresholdM = uint32(half - 1);
        openChallenge(ID, t);
        assertEq(pot.stateOf(ID).thresholdChordSq, GeoMath.thresholdChordSq(half - 1), "the largest threshold's chord");
        t.thresholdM = 0; // only the exact point
        openChallenge(ID + 1, t);
        assertEq(pot.stateOf(ID + 1).thresholdChordSq, 0, "a zero threshold");
    }

    function test_the_views_of_an_unopened_challenge() public {
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotOpened.selector, ID));
        pot.stakeNonce(ID, bytes32(0), USDC);
        (GeopoemPot.Terms memory t, bytes32 digest) = pot.termsOf(ID);
        assertEq(uint256(t.closesAt) + uint256(digest), 0, "empty terms");
        assertEq(pot.stakeHash(ID, 1), bytes32(0), "no stake");
        assertEq(pot.stateOf(ID).aborted, false, "an unopened challenge is not aborted");
    }

    function test_the_constants_are_fixed_at_deploy() public view {
        assertEq(address(pot.token()), address(usdc), "token");
        assertEq(pot.shareReceiver(), shareReceiver, "share receiver");
        assertEq(pot.sweepReceiver(), sweepReceiver, "sweep receiver");
        assertEq(pot.owner(), operator, "owner");
        assertEq(pot.GUESS_TAG(), bytes32("geopoem:guess:v2"), "guess tag");
        assertEq(pot.SOLUTION_TAG(), bytes32("geopoem:solution:v2"), "solution tag");
        assertEq(pot.STAKE_TAG(), bytes32("geopoem:stake:v1"), "stake tag");
        assertEq(pot.PRIZE_PERCENT(), 40, "40 % each prize");
    }
}
