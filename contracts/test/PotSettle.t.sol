// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {GeopoemPot} from "../GeopoemPot.sol";
import {PotFixture} from "./PotFixture.sol";

/// Finalize, the prizes, the share, refunds (no correct guess, or an abort with the bond pro rata) and
/// the sweep: each step by anyone, each payment to a recorded payer or a fixed address, once.
contract PotSettleTest is PotFixture {
    uint8 internal constant EARLIEST = 0;
    uint8 internal constant HIGHEST = 1;
    uint8 internal constant SHARE = 2;

    Ticket internal first; // alice, 3 USDC, correct
    Ticket internal big; // bob, 8 USDC, correct
    Ticket internal wrong; // carol, 20 USDC, incorrect

    function setUp() public override {
        super.setUp();
        openDefault(ID);
        first = stakeGuess(ID, alice, 3 * USDC, SOL_LAT, SOL_LON);
        big = stakeGuess(ID, bob, 8 * USDC, SOL_LAT + 10, SOL_LON);
        wrong = stakeGuess(ID, carol, 20 * USDC, 0, 0);
        vm.warp(START + 1 days);
    }

    /// Reveal the solution and the given guesses, then let the window pass.
    function play(bool revealFirst, bool revealBig) internal {
        revealSolutionOf(ID);
        if (revealFirst) reveal(first);
        if (revealBig) reveal(big);
        reveal(wrong);
        vm.warp(guessDeadline(ID));
    }

    /// A second challenge, ID + 1, open from now: it closes in an hour and its solution is due an
    /// hour later. `bonded`: with the fixture's bond, else none. Returns its terms.
    function openSecondChallenge(bool bonded) internal returns (GeopoemPot.Terms memory t) {
        t = termsFor(ID + 1);
        if (!bonded) t.bond = 0;
        t.opensAt = uint32(block.timestamp);
        t.closesAt = uint32(block.timestamp + 1 hours);
        t.solutionDeadline = uint32(block.timestamp + 2 hours);
        openChallenge(ID + 1, t);
    }

    function test_finalize_after_the_window_fixes_the_winners_and_the_split() public {
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.SolutionNotRevealed.selector, ID));
        pot.finalize(ID);
        revealSolutionOf(ID);
        reveal(first);
        reveal(big);
        uint256 deadline = guessDeadline(ID);
        vm.warp(deadline - 1);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.GuessWindowOpen.selector, deadline));
        pot.finalize(ID);
        vm.warp(deadline);
        // 31 USDC: 40 % is 12.4 each, the share takes the remaining 6.2.
        vm.expectEmit(true, true, true, true, address(pot));
        emit GeopoemPot.Finalized(ID, first.seq, big.seq, 12_400_000, 12_400_000, 6_200_000);
        vm.prank(address(0x57A9));
        pot.finalize(ID);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.AlreadyFinalized.selector, ID));
        pot.finalize(ID);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.GuessWindowClosed.selector, deadline));
        reveal(wrong);
        assertTrue(pot.stateOf(ID).finalized, "finalized");
    }

    function test_the_prizes_and_the_share_go_to_their_recorded_receivers_once() public {
        play(true, true);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotFinalized.selector, ID));
        payPrizeOf(EARLIEST, first);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotFinalized.selector, ID));
        pot.payShare(ID);
        pot.finalize(ID);
        uint256 owedBefore = pot.owed();
        uint256 aliceBefore = balance(alice);
        uint256 bobBefore = balance(bob);
        address caller = address(0xCA11);
        vm.expectEmit(true, true, true, true, address(pot));
        emit GeopoemPot.Paid(ID, EARLIEST, alice, 12_400_000);
        vm.prank(caller);
        payPrizeOf(EARLIEST, first);
        vm.expectEmit(true, true, true, true, address(pot));
        emit GeopoemPot.Paid(ID, HIGHEST, bob, 12_400_000);
        vm.prank(caller);
        payPrizeOf(HIGHEST, big);
        vm.expectEmit(true, true, true, true, address(pot));
        emit GeopoemPot.Paid(ID, SHARE, shareReceiver, 6_200_000 + 10 * USDC);
        vm.prank(caller);
        pot.payShare(ID);
        assertEq(balance(alice), aliceBefore + 12_400_000, "alice's prize");
        assertEq(balance(bob), bobBefore + 12_400_000, "bob's prize");
        assertEq(balance(shareReceiver), 16_200_000, "the share and the bond back");
        assertEq(balance(caller), 0, "never the caller");
        assertEq(pot.owed(), owedBefore - 41 * USDC, "owed: the pot and the bond paid out");
        assertEq(pot.owed(), 0, "nothing left owed");
        assertEq(balance(address(pot)), 0, "no dust");

        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.AlreadyPaid.selector, ID, EARLIEST));
        payPrizeOf(EARLIEST, first);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.AlreadyPaid.selector, ID, HIGHEST));
        payPrizeOf(HIGHEST, big);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.AlreadyPaid.selector, ID, SHARE));
        pot.payShare(ID);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotRefundable.selector, ID));
        refundOf(wrong);
        GeopoemPot.State memory s = pot.stateOf(ID);
        assertTrue(s.earliestPaid && s.highestPaid && s.sharePaid, "all paid");
    }

    function test_a_prize_is_paid_only_to_the_winning_stake() public {
        play(true, true);
        pot.finalize(ID);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.UnknownKind.selector, 2));
        pot.payPrize(ID, 2, alice, first.amount, first.commitment);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.UnknownKind.selector, 255));
        pot.payPrize(ID, 255, alice, first.amount, first.commitment);
        // Naming another stake, or the winner's with a field changed, is refused.
        bytes memory refused = abi.encodeWithSelector(GeopoemPot.GuessDoesNotOpenStake.selector, ID, first.seq);
        vm.expectRevert(refused);
        payPrizeOf(EARLIEST, big);
        vm.expectRevert(refused);
        pot.payPrize(ID, EARLIEST, operator, first.amount, first.commitment);
        vm.expectRevert(refused);
        pot.payPrize(ID, EARLIEST, alice, first.amount + 1, first.commitment);
        vm.expectRevert(refused);
        pot.payPrize(ID, EARLIEST, alice, first.amount, big.commitment);
        assertTrue(!pot.stateOf(ID).earliestPaid, "still owed");
    }

    function test_one_stake_may_win_both_prizes() public {
        play(true, false);
        pot.finalize(ID);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.GuessDoesNotOpenStake.selector, ID, first.seq));
        payPrizeOf(HIGHEST, big); // bob's correct guess was never revealed
        payPrizeOf(EARLIEST, first);
        payPrizeOf(HIGHEST, first);
        assertEq(pot.owed(), 6_200_000 + 10 * USDC, "the share and the bond remain");
    }

    function test_with_no_correct_guess_every_stake_is_refunded_and_the_bond_returns() public {
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotRefundable.selector, ID));
        refundOf(first); // after the close, before any outcome
        play(false, false);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotRefundable.selector, ID));
        refundOf(first); // the window passed, not finalized
        vm.expectEmit(true, true, true, true, address(pot));
        emit GeopoemPot.Finalized(ID, 0, 0, 0, 0, 0);
        pot.finalize(ID);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NoWinner.selector, ID));
        payPrizeOf(EARLIEST, first);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NoWinner.selector, ID));
        payPrizeOf(HIGHEST, first);
        Ticket[3] memory all = [wrong, first, big];
        for (uint256 i; i < 3; ++i) {
            uint256 before = balance(all[i].payer);
            vm.expectEmit(true, true, true, true, address(pot));
            emit GeopoemPot.Refunded(ID, all[i].payer, all[i].seq, all[i].amount, 0);
            vm.prank(operator); // whoever calls, the payer is paid
            refundOf(all[i]);
            assertEq(balance(all[i].payer), before + all[i].amount, "the stake back");
            assertEq(pot.stakeHash(ID, all[i].seq), bytes32(0), "the slot is cleared");
            vm.expectRevert(abi.encodeWithSelector(GeopoemPot.GuessDoesNotOpenStake.selector, ID, all[i].seq));
            refundOf(all[i]);
        }
        assertEq(pot.owed(), 10 * USDC, "the bond remains");
        vm.expectEmit(true, true, true, true, address(pot));
        emit GeopoemPot.Paid(ID, SHARE, shareReceiver, 10 * USDC);
        pot.payShare(ID);
        assertEq(pot.owed(), 0, "nothing owed");
        assertEq(balance(address(pot)), 0, "nothing held");
        assertEq(balance(operator), 1_000_000 * USDC - 10 * USDC, "the operator's key got nothing back itself");
        GeopoemPot.State memory s = pot.stateOf(ID);
        assertEq(s.refundedStake, 31 * USDC, "refunded");
        assertEq(s.refundedBond, 0, "no bond to payers");
    }

    function test_a_refund_names_its_stake_exactly() public {
        play(false, false);
        pot.finalize(ID);
        bytes memory refused = abi.encodeWithSelector(GeopoemPot.GuessDoesNotOpenStake.selector, ID, first.seq);
        vm.expectRevert(refused);
        pot.refund(ID, first.seq, operator, first.amount, first.commitment);
        vm.expectRevert(refused);
        pot.refund(ID, first.seq, alice, first.amount + 1, first.commitment);
        vm.expectRevert(refused);
        pot.refund(ID, first.seq, alice, first.amount, big.commitment);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.GuessDoesNotOpenStake.selector, ID, 99));
        pot.refund(ID, 99, alice, first.amount, first.commitment);
    }

    function test_no_winner_and_no_bond_leaves_no_share_to_pay() public {
        openSecondChallenge(false);
        vm.warp(block.timestamp + 1 hours);
        revealSolutionOf(ID + 1);
        vm.warp(guessDeadline(ID + 1));
        pot.finalize(ID + 1);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NothingToPay.selector, ID + 1));
        pot.payShare(ID + 1);
    }

    function test_an_abort_refunds_every_stake_with_the_bond_pro_rata_and_no_dust() public {
        vm.warp(START + 2 days - 1);
        assertTrue(!pot.stateOf(ID).aborted, "not yet");
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotRefundable.selector, ID));
        refundOf(first);
        vm.warp(START + 2 days);
        assertTrue(pot.stateOf(ID).aborted, "aborted at the solution deadline");
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.SolutionDeadlinePassed.selector, START + 2 days));
        revealSolutionOf(ID);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.SolutionNotRevealed.selector, ID));
        pot.finalize(ID);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotFinalized.selector, ID));
        pot.payShare(ID); // the bond is the payers'
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotFinalized.selector, ID));
        payPrizeOf(EARLIEST, first);
        // Stakes 3, 8 and 20 (31 in all) share the 10 USDC bond: each takes its part of what is left,
        // the last what remains.
        uint256[3] memory bondShares;
        bondShares[0] = (10 * USDC * 8) / 31; // big first: 2,580,645
        bondShares[1] = ((10 * USDC - bondShares[0]) * 20) / 23; // then wrong: 6,451,613
        bondShares[2] = 10 * USDC - bondShares[0] - bondShares[1]; // first takes the rest: 967,742
        Ticket[3] memory order = [big, wrong, first];
        for (uint256 i; i < 3; ++i) {
            uint256 before = balance(order[i].payer);
            vm.expectEmit(true, true, true, true, address(pot));
            emit GeopoemPot.Refunded(ID, order[i].payer, order[i].seq, order[i].amount, bondShares[i]);
            refundOf(order[i]);
            assertEq(balance(order[i].payer), before + order[i].amount + bondShares[i], "stake and bond share");
        }
        assertEq(bondShares[0] + bondShares[1] + bondShares[2], 10 * USDC, "the whole bond");
        assertEq(bondShares[2], 967_742, "the last share");
        assertEq(pot.owed(), 0, "nothing owed");
        assertEq(balance(address(pot)), 0, "no dust");
        GeopoemPot.State memory s = pot.stateOf(ID);
        assertEq(s.refundedStake, 31 * USDC, "stakes");
        assertEq(s.refundedBond, 10 * USDC, "bond");
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotFinalized.selector, ID));
        pot.payShare(ID);
    }

    function test_an_abort_nobody_staked_in_returns_the_bond() public {
        openSecondChallenge(true);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotFinalized.selector, ID + 1));
        pot.payShare(ID + 1);
        vm.warp(block.timestamp + 2 hours);
        pot.payShare(ID + 1);
        assertEq(balance(shareReceiver), 10 * USDC, "the bond");
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.AlreadyPaid.selector, ID + 1, SHARE));
        pot.payShare(ID + 1);
    }

    function test_a_paused_token_holds_every_payment_and_loses_nothing() public {
        play(true, true);
        pot.finalize(ID);
        vm.prank(pauser);
        usdc.pause();
        uint256 owedBefore = pot.owed();
        vm.expectRevert(bytes("Pausable: paused"));
        payPrizeOf(EARLIEST, first);
        vm.expectRevert(bytes("Pausable: paused"));
        payPrizeOf(HIGHEST, big);
        vm.expectRevert(bytes("Pausable: paused"));
        pot.payShare(ID);
        assertEq(pot.owed(), owedBefore, "still owed");
        GeopoemPot.State memory s = pot.stateOf(ID);
        assertTrue(!s.earliestPaid && !s.highestPaid && !s.sharePaid, "nothing marked paid");
        vm.prank(pauser);
        usdc.unpause();
        payPrizeOf(EARLIEST, first);
        payPrizeOf(HIGHEST, big);
        pot.payShare(ID);
        assertEq(pot.owed(), 0, "all paid once unpaused");
    }

    function test_a_blacklisted_winner_stays_owed_and_blocks_nobody() public {
        play(true, true);
        pot.finalize(ID);
        vm.prank(blacklister);
        usdc.blacklist(alice);
        vm.expectRevert(bytes("Blacklistable: account is blacklisted"));
        payPrizeOf(EARLIEST, first);
        payPrizeOf(HIGHEST, big);
        pot.payShare(ID);
        assertEq(pot.owed(), 12_400_000, "alice's prize stays owed");
        assertEq(balance(address(pot)), 12_400_000, "and held");
        assertTrue(!pot.stateOf(ID).earliestPaid, "not marked paid");
        vm.prank(blacklister);
        usdc.unBlacklist(alice);
        payPrizeOf(EARLIEST, first);
        assertEq(pot.owed(), 0, "paid once unblacklisted");
    }

    function test_a_blacklisted_payer_refund_stays_owed_and_blocks_nobody() public {
        vm.warp(START + 2 days); // aborted
        vm.prank(blacklister);
        usdc.blacklist(bob);
        vm.expectRevert(bytes("Blacklistable: account is blacklisted"));
        refundOf(big);
        refundOf(first);
        refundOf(wrong);
        uint256 left = pot.owed();
        assertEq(left, big.amount + (10 * USDC - pot.stateOf(ID).refundedBond), "bob's stake and its bond share");
        assertEq(balance(address(pot)), left, "held");
        vm.prank(blacklister);
        usdc.unBlacklist(bob);
        refundOf(big);
        assertEq(pot.owed(), 0, "all refunded");
        assertEq(balance(address(pot)), 0, "no dust");
    }

    function test_the_sweep_sends_only_what_is_not_owed_to_its_fixed_receiver() public {
        vm.expectRevert(GeopoemPot.NothingToSweep.selector);
        pot.sweep();
        vm.prank(dave);
        usdc.transfer(address(pot), 4 * USDC); // a plain transfer: not a stake
        assertEq(pot.stateOf(ID).pot, 31 * USDC, "not in the pot");
        uint256 owedBefore = pot.owed();
        vm.expectEmit(true, true, true, true, address(pot));
        emit GeopoemPot.Swept(sweepReceiver, 4 * USDC);
        vm.prank(operator);
        pot.sweep();
        assertEq(balance(sweepReceiver), 4 * USDC, "to the sweep receiver");
        assertEq(balance(operator), 1_000_000 * USDC - 10 * USDC, "not to the caller");
        assertEq(pot.owed(), owedBefore, "owed unchanged");
        assertEq(balance(address(pot)), owedBefore, "the stakes and the bond stay");
        vm.expectRevert(GeopoemPot.NothingToSweep.selector);
        pot.sweep();
        // After everything is paid out, a late plain transfer can still be swept.
        play(true, true);
        pot.finalize(ID);
        payPrizeOf(EARLIEST, first);
        payPrizeOf(HIGHEST, big);
        pot.payShare(ID);
        vm.prank(dave);
        usdc.transfer(address(pot), 1);
        pot.sweep();
        assertEq(balance(sweepReceiver), 4 * USDC + 1, "the late unit too");
        assertEq(balance(address(pot)), 0, "empty");
    }

    function test_challenges_never_pay_from_each_other() public {
        // A second challenge whose solution is never revealed, played beside the first.
        GeopoemPot.Terms memory t = openSecondChallenge(true);
        Ticket memory other = stakeGuess(ID + 1, dave, 50 * USDC, SOL_LAT, SOL_LON);
        // The first challenge's winner cannot be paid with the second's stakes.
        play(true, true);
        pot.finalize(ID);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.GuessDoesNotOpenStake.selector, ID, first.seq));
        pot.payPrize(ID, EARLIEST, dave, other.amount, other.commitment);
        payPrizeOf(EARLIEST, first);
        payPrizeOf(HIGHEST, big);
        pot.payShare(ID);
        // What is left is exactly the second challenge's stake and bond.
        assertEq(pot.owed(), 60 * USDC, "the other challenge's money");
        assertEq(balance(address(pot)), 60 * USDC, "held");
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotRefundable.selector, ID));
        pot.refund(ID, other.seq, dave, other.amount, other.commitment);
        vm.warp(t.solutionDeadline);
        refundOf(other);
        assertEq(pot.owed(), 0, "the abort refunded its stake and its whole bond");
    }
}
