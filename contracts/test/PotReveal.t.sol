// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {GeopoemPot} from "../GeopoemPot.sol";
import {PotFixture} from "./PotFixture.sol";

/// The solution's reveal (after the close, before its deadline) and the guesses' (in the guess window
/// it opens): each checked against its commitment, scored on chain; the best kept as they arrive.
contract PotRevealTest is PotFixture {
    int256 internal constant NEAR_LAT = SOL_LAT + 8990; // 999.6 m north: correct within 1,000 m
    int256 internal constant FAR_LAT = SOL_LAT + 9000; // 1,000.8 m north: not correct

    function setUp() public override {
        super.setUp();
        openDefault(ID);
    }

    function test_the_solution_is_revealed_after_the_close_and_opens_the_guess_window() public {
        vm.warp(START + 1 days - 1);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.SolutionTooEarly.selector, START + 1 days));
        revealSolutionOf(ID);
        vm.warp(START + 1 days);
        vm.expectEmit(true, true, true, true, address(pot));
        emit GeopoemPot.SolutionRevealed(ID, SOL_LAT, SOL_LON, SOL_SALT, START + 1 days + 1 hours);
        vm.prank(address(0x57A9)); // anyone who holds it
        revealSolutionOf(ID);
        assertEq(guessDeadline(ID), START + 1 days + 1 hours, "the window counts from the reveal");
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.SolutionAlreadyRevealed.selector, ID));
        revealSolutionOf(ID);
    }

    function test_the_solution_is_revealed_before_its_deadline_only() public {
        openDefault(ID + 1);
        vm.warp(START + 2 days - 1);
        revealSolutionOf(ID); // the last second: the window still lasts its hour
        assertEq(guessDeadline(ID), START + 2 days - 1 + 1 hours, "a full window after a late reveal");
        vm.warp(START + 2 days);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.SolutionDeadlinePassed.selector, START + 2 days));
        revealSolutionOf(ID + 1);
        assertTrue(pot.stateOf(ID + 1).aborted, "aborted");
    }

    function test_only_the_committed_solution_is_taken() public {
        vm.warp(START + 1 days);
        bytes4 wrong = GeopoemPot.WrongSolution.selector;
        vm.expectRevert(abi.encodeWithSelector(wrong, ID));
        pot.revealSolution(ID, SOL_LAT, SOL_LON, keccak256("another salt"));
        vm.expectRevert(abi.encodeWithSelector(wrong, ID));
        pot.revealSolution(ID, SOL_LAT + 1, SOL_LON, SOL_SALT);
        vm.expectRevert(abi.encodeWithSelector(wrong, ID));
        pot.revealSolution(ID, SOL_LAT, SOL_LON - 1, SOL_SALT);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotOpened.selector, ID + 9));
        revealSolutionOf(ID + 9);
        revealSolutionOf(ID);
    }

    function test_a_solution_out_of_range_can_never_be_revealed() public {
        GeopoemPot.Terms memory t = termsFor(ID + 1);
        t.solutionCommitment = solutionCommitmentOf(address(pot), ID + 1, 90_000_001, 0, SOL_SALT);
        openChallenge(ID + 1, t);
        vm.warp(START + 1 days);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.WrongSolution.selector, ID + 1));
        pot.revealSolution(ID + 1, 90_000_001, 0, SOL_SALT);
    }

    function test_guesses_are_revealed_in_the_window_only() public {
        Ticket memory t = stakeGuess(ID, alice, 5 * USDC, SOL_LAT, SOL_LON);
        vm.warp(START + 1 days);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.SolutionNotRevealed.selector, ID));
        reveal(t);
        revealSolutionOf(ID);
        uint256 deadline = guessDeadline(ID);
        vm.warp(deadline - 1);
        assertTrue(reveal(t), "in the window's last second");
        vm.warp(deadline);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.GuessWindowClosed.selector, deadline));
        reveal(t);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.SolutionNotRevealed.selector, ID + 3));
        pot.revealGuess(ID + 3, 1, alice, 5 * USDC, SOL_LAT, SOL_LON, t.salt);
    }

    function test_a_reveal_must_open_its_stake() public {
        Ticket memory t = stakeGuess(ID, alice, 5 * USDC, SOL_LAT, SOL_LON);
        stakeGuess(ID, bob, 5 * USDC, SOL_LAT, SOL_LON);
        vm.warp(START + 1 days);
        revealSolutionOf(ID);
        bytes memory refused = abi.encodeWithSelector(GeopoemPot.GuessDoesNotOpenStake.selector, ID, 1);
        vm.expectRevert(refused);
        pot.revealGuess(ID, 1, alice, 5 * USDC, SOL_LAT, SOL_LON, keccak256("wrong salt"));
        vm.expectRevert(refused);
        pot.revealGuess(ID, 1, bob, 5 * USDC, SOL_LAT, SOL_LON, t.salt);
        vm.expectRevert(refused);
        pot.revealGuess(ID, 1, alice, 6 * USDC, SOL_LAT, SOL_LON, t.salt);
        vm.expectRevert(refused);
        pot.revealGuess(ID, 1, alice, 5 * USDC, SOL_LAT + 1, SOL_LON, t.salt);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.GuessDoesNotOpenStake.selector, ID, 2));
        pot.revealGuess(ID, 2, alice, 5 * USDC, SOL_LAT, SOL_LON, t.salt);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.GuessDoesNotOpenStake.selector, ID, 3));
        pot.revealGuess(ID, 3, alice, 5 * USDC, SOL_LAT, SOL_LON, t.salt);
        assertEq(pot.stateOf(ID).earliestSeq, 0, "no winner from refused reveals");
    }

    function test_a_guess_is_scored_on_chain_and_logged() public {
        Ticket memory near = stakeGuess(ID, alice, 5 * USDC, NEAR_LAT, SOL_LON);
        Ticket memory far = stakeGuess(ID, bob, 9 * USDC, FAR_LAT, SOL_LON);
        vm.warp(START + 1 days);
        revealSolutionOf(ID);
        vm.expectEmit(true, true, true, true, address(pot));
        emit GeopoemPot.GuessRevealed(ID, bob, far.seq, FAR_LAT, SOL_LON, false);
        assertTrue(!reveal(far), "1,000.8 m: not correct");
        assertEq(pot.stateOf(ID).earliestSeq, 0, "an incorrect guess wins nothing");
        vm.expectEmit(true, true, true, true, address(pot));
        emit GeopoemPot.GuessRevealed(ID, alice, near.seq, NEAR_LAT, SOL_LON, true);
        vm.prank(address(0x57A9)); // by anyone who holds it
        assertTrue(reveal(near), "999.6 m: correct");
        GeopoemPot.State memory s = pot.stateOf(ID);
        assertEq(s.earliestSeq, near.seq, "earliest");
        assertEq(s.highestSeq, near.seq, "highest");
        assertEq(s.highestAmount, near.amount, "highest amount");
    }

    function test_a_guess_out_of_range_scores_incorrect_without_reverting() public {
        int256[2][8] memory points = [
            [int256(90_000_001), SOL_LON],
            [int256(-90_000_001), SOL_LON],
            [SOL_LAT, int256(180_000_001)],
            [SOL_LAT, int256(-180_000_001)],
            [type(int256).min, type(int256).min],
            [type(int256).max, type(int256).max],
            [SOL_LAT + 360_000_000, SOL_LON], // the solution's latitude plus a full turn
            [SOL_LAT, SOL_LON + 360_000_000] // the solution's longitude plus a full turn
        ];
        Ticket[8] memory tickets;
        for (uint256 i; i < points.length; ++i) {
            tickets[i] = stakeGuess(ID, alice, 5 * USDC, points[i][0], points[i][1]);
        }
        vm.warp(START + 1 days);
        revealSolutionOf(ID);
        for (uint256 i; i < points.length; ++i) {
            vm.expectEmit(true, true, true, true, address(pot));
            emit GeopoemPot.GuessRevealed(ID, alice, tickets[i].seq, points[i][0], points[i][1], false);
            assertTrue(!reveal(tickets[i]), "out of range: incorrect");
        }
        assertEq(pot.stateOf(ID).earliestSeq, 0, "no winner");
    }

    function test_the_edges_of_the_range_are_in_range() public {
        // The solution at the antimeridian: 180° and -180° are the same meridian.
        GeopoemPot.Terms memory t = termsFor(ID + 1);
        t.solutionCommitment = solutionCommitmentOf(address(pot), ID + 1, 10_000_000, 180_000_000, SOL_SALT);
        openChallenge(ID + 1, t);
        Ticket memory west = stakeGuess(ID + 1, alice, 5 * USDC, 10_000_000, -180_000_000);
        Ticket memory pole = stakeGuess(ID + 1, bob, 5 * USDC, 90_000_000, 0);
        vm.warp(START + 1 days);
        pot.revealSolution(ID + 1, 10_000_000, 180_000_000, SOL_SALT);
        assertTrue(reveal(west), "-180 is 180");
        assertTrue(!reveal(pole), "the pole is far");
    }

    /// A commitment copied from the chain and staked by someone else never opens with the first
    /// player's reveal: the commitment binds the payer, and the stake hash binds the commitment.
    function test_a_copied_commitment_never_matches_the_first_players_reveal() public {
        Ticket memory original = ticket(ID, alice, 5 * USDC, SOL_LAT, SOL_LON, "alice's salt");
        Ticket memory copy = original;
        copy = ticket(ID, bob, 50 * USDC, SOL_LAT, SOL_LON, "alice's salt");
        copy.commitment = original.commitment; // bob stakes alice's commitment, seen before hers is mined
        copy = stakeApproved(copy);
        original = stakeSigned(original);
        assertEq(copy.seq, 1, "the copy is earlier");
        vm.warp(START + 1 days);
        revealSolutionOf(ID);
        // Every way to open the copy with alice's guess fails.
        address[2] memory payers = [bob, alice];
        for (uint256 i; i < 2; ++i) {
            vm.expectRevert(abi.encodeWithSelector(GeopoemPot.GuessDoesNotOpenStake.selector, ID, copy.seq));
            pot.revealGuess(ID, copy.seq, payers[i], copy.amount, SOL_LAT, SOL_LON, original.salt);
        }
        assertTrue(reveal(original), "alice's own reveal");
        GeopoemPot.State memory s = pot.stateOf(ID);
        assertEq(s.earliestSeq, original.seq, "alice is the earliest");
        assertEq(s.highestSeq, original.seq, "and the highest: bob's 50 USDC cannot be revealed");
    }

    function test_a_duplicate_reveal_changes_nothing() public {
        Ticket memory a = stakeGuess(ID, alice, 5 * USDC, SOL_LAT, SOL_LON);
        Ticket memory b = stakeGuess(ID, bob, 7 * USDC, NEAR_LAT, SOL_LON);
        vm.warp(START + 1 days);
        revealSolutionOf(ID);
        reveal(b);
        reveal(a);
        bytes32 state = keccak256(abi.encode(pot.stateOf(ID)));
        assertTrue(reveal(b), "again: still correct");
        assertTrue(reveal(a), "again");
        assertTrue(reveal(b), "and again");
        assertEq(keccak256(abi.encode(pot.stateOf(ID))), state, "state unchanged");
        assertEq(pot.stateOf(ID).earliestSeq, a.seq, "earliest");
        assertEq(pot.stateOf(ID).highestSeq, b.seq, "highest");
    }

    function test_the_earliest_and_the_highest_whatever_the_order_ties_to_the_lower_sequence() public {
        Ticket memory wrong = stakeGuess(ID, dave, 100 * USDC, 0, 0); // highest stake, incorrect
        Ticket memory first = stakeGuess(ID, alice, 3 * USDC, SOL_LAT, SOL_LON);
        Ticket memory big = stakeGuess(ID, bob, 8 * USDC, NEAR_LAT, SOL_LON);
        Ticket memory tie = stakeGuess(ID, carol, 8 * USDC, SOL_LAT, SOL_LON + 1);
        vm.warp(START + 1 days);
        revealSolutionOf(ID);
        reveal(tie);
        GeopoemPot.State memory s = pot.stateOf(ID);
        assertEq(s.earliestSeq, tie.seq, "only the tie so far");
        assertEq(s.highestSeq, tie.seq, "only the tie so far");
        reveal(wrong);
        reveal(big);
        s = pot.stateOf(ID);
        assertEq(s.earliestSeq, big.seq, "big is earlier than the tie");
        assertEq(s.highestSeq, big.seq, "8 USDC, the lower sequence");
        reveal(first);
        s = pot.stateOf(ID);
        assertEq(s.earliestSeq, first.seq, "the first correct");
        assertEq(s.highestSeq, big.seq, "still the highest");
        assertEq(s.highestAmount, 8 * USDC, "its amount");
    }

    function test_the_stake_hash_keeps_the_whole_stake() public {
        Ticket memory t = stakeGuess(ID, alice, 5 * USDC, SOL_LAT, SOL_LON);
        assertEq(pot.stakeHash(ID, t.seq), stakeHashOf(alice, 5 * USDC, t.commitment), "payer, amount, commitment");
        assertEq(
            pot.guessCommitment(ID, alice, SOL_LAT, SOL_LON, t.salt),
            guessCommitmentOf(address(pot), ID, alice, SOL_LAT, SOL_LON, t.salt),
            "the v2 guess commitment"
        );
        assertEq(
            pot.solutionCommitment(ID, SOL_LAT, SOL_LON, SOL_SALT),
            solutionCommitmentOf(address(pot), ID, SOL_LAT, SOL_LON, SOL_SALT),
            "the v2 solution commitment"
        );
    }
}
