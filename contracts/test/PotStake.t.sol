// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";

import {GeopoemPot} from "../GeopoemPot.sol";
import {PotFixture} from "./PotFixture.sol";

/// Stakes: by the payer's signature (relayed by anyone) or by approval (the caller pays), only in
/// [opensAt, closesAt) and at or above the minimum, each recorded in one slot with the next sequence.
contract PotStakeTest is PotFixture {
    string internal constant INVALID = "FiatTokenV2: invalid signature";

    function setUp() public override {
        super.setUp();
        openDefault(ID);
    }

    function test_a_relayed_stake_is_paid_by_its_signer_and_recorded() public {
        Ticket memory t = ticket(ID, alice, 5 * USDC, 1, 2, "salt");
        (uint8 v, bytes32 r, bytes32 s) = signStake(ALICE_KEY, ID, t.commitment, t.amount);
        uint256 aliceBefore = balance(alice);
        vm.expectEmit(true, true, true, true, address(pot));
        emit GeopoemPot.Staked(ID, alice, 1, t.amount, t.commitment);
        vm.prank(relayer);
        uint256 seq = pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, 0, START + 30 minutes, v, r, s);
        assertEq(seq, 1, "the first sequence is 1");
        assertEq(balance(alice), aliceBefore - t.amount, "the signer paid");
        assertEq(balance(relayer), 0, "the relayer paid nothing");
        assertEq(balance(address(pot)), 10 * USDC + t.amount, "the pot holds it (and the bond)");
        assertEq(pot.owed(), 10 * USDC + t.amount, "owed");
        assertEq(pot.stakeHash(ID, 1), stakeHashOf(alice, t.amount, t.commitment), "one slot per stake");
        GeopoemPot.State memory st = pot.stateOf(ID);
        assertEq(st.stakeCount, 1, "count");
        assertEq(st.pot, t.amount, "pot");

        Ticket memory second = stakeGuess(ID, bob, 3 * USDC, 3, 4);
        Ticket memory third = stakeApproved(ticket(ID, carol, 2 * USDC, 5, 6, "c"));
        assertEq(second.seq, 2, "then 2");
        assertEq(third.seq, 3, "then 3, whichever entry");
        assertEq(pot.stateOf(ID).pot, 10 * USDC, "the sum of the stakes");
        assertEq(pot.owed(), 20 * USDC, "stakes and bond");
    }

    function test_the_payer_may_send_its_own_signed_stake() public {
        Ticket memory t = ticket(ID, alice, 5 * USDC, 1, 2, "salt");
        (uint8 v, bytes32 r, bytes32 s) = signStake(ALICE_KEY, ID, t.commitment, t.amount);
        vm.prank(alice);
        pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, 0, START + 30 minutes, v, r, s);
        assertEq(pot.stakeHash(ID, 1), stakeHashOf(alice, t.amount, t.commitment), "recorded");
    }

    function test_the_nonce_is_the_stake_nonce_of_the_challenge_terms_commitment_and_amount() public {
        bytes32 commitment = keccak256("c");
        (, bytes32 digest) = pot.termsOf(ID);
        bytes32 nonce = pot.stakeNonce(ID, commitment, 5 * USDC);
        assertEq(nonce, stakeNonceOf(address(pot), ID, digest, commitment, 5 * USDC), "stakeNonce");
        Ticket memory t = ticket(ID, alice, 5 * USDC, 1, 2, "salt");
        stakeSigned(t);
        assertTrue(usdc.authorizationState(alice, pot.stakeNonce(ID, t.commitment, t.amount)), "that nonce is spent");
    }

    /// A signature for anything but this stake, on this pot, on this challenge's terms, is refused by
    /// the token: nobody can aim the payment elsewhere or strip its challenge.
    function test_a_signature_for_another_stake_is_refused() public {
        Ticket memory t = ticket(ID, alice, 5 * USDC, 1, 2, "salt");
        (, bytes32 digest) = pot.termsOf(ID);
        GeopoemPot.Terms memory other = termsFor(ID + 1);
        openChallenge(ID + 1, other);
        GeopoemPot otherPot = new GeopoemPot(IERC20(address(usdc)), operator, shareReceiver, sweepReceiver);
        uint256 until = START + 30 minutes;
        bytes32[6] memory nonces = [
            stakeNonceOf(address(pot), ID, digest, t.commitment, t.amount + 1), // another amount
            stakeNonceOf(address(pot), ID + 1, digest, t.commitment, t.amount), // another challenge
            stakeNonceOf(address(pot), ID, keccak256("other terms"), t.commitment, t.amount), // other terms
            stakeNonceOf(address(otherPot), ID, digest, t.commitment, t.amount), // another pot
            stakeNonceOf(address(pot), ID, digest, keccak256("copied"), t.amount), // another commitment
            keccak256("a random nonce, as a plain authorization has")
        ];
        for (uint256 i; i < nonces.length; ++i) {
            (uint8 v, bytes32 r, bytes32 s) = signReceive(usdc, ALICE_KEY, address(pot), t.amount, 0, until, nonces[i]);
            vm.prank(relayer);
            vm.expectRevert(bytes(INVALID));
            pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, 0, until, v, r, s);
        }
        // Signed for the amount, but submitted with another: refused too.
        (uint8 v2, bytes32 r2, bytes32 s2) = signStake(ALICE_KEY, ID, t.commitment, t.amount);
        vm.expectRevert(bytes(INVALID));
        pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount + 1, 0, until, v2, r2, s2);
        // By another signer than the payer named.
        vm.expectRevert(bytes(INVALID));
        pot.stakeWithAuthorization(ID, t.commitment, bob, t.amount, 0, until, v2, r2, s2);
        // For another challenge than the one it was signed for (same terms text, another id).
        vm.expectRevert(bytes(INVALID));
        pot.stakeWithAuthorization(ID + 1, t.commitment, alice, t.amount, 0, until, v2, r2, s2);
        // With other validity bounds than those signed.
        vm.expectRevert(bytes(INVALID));
        pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, 0, until + 1, v2, r2, s2);
        assertEq(pot.stateOf(ID).stakeCount + pot.stateOf(ID + 1).stakeCount, 0, "no stake recorded");
        assertEq(balance(address(pot)), 20 * USDC, "the two bonds only");
        // The right one passes.
        pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, 0, until, v2, r2, s2);
    }

    function test_a_signature_to_pay_someone_else_cannot_be_used_by_the_pot() public {
        Ticket memory t = ticket(ID, alice, 5 * USDC, 1, 2, "salt");
        bytes32 nonce = pot.stakeNonce(ID, t.commitment, t.amount);
        uint256 until = START + 30 minutes;
        (uint8 v, bytes32 r, bytes32 s) = signReceive(usdc, ALICE_KEY, relayer, t.amount, 0, until, nonce);
        vm.expectRevert(bytes(INVALID));
        pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, 0, until, v, r, s);
    }

    function test_a_replayed_authorization_is_refused_and_records_nothing() public {
        Ticket memory t = ticket(ID, alice, 5 * USDC, 1, 2, "salt");
        (uint8 v, bytes32 r, bytes32 s) = signStake(ALICE_KEY, ID, t.commitment, t.amount);
        pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, 0, START + 30 minutes, v, r, s);
        uint256 owedBefore = pot.owed();
        vm.prank(bob);
        vm.expectRevert(bytes("FiatTokenV2: authorization is used or canceled"));
        pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, 0, START + 30 minutes, v, r, s);
        assertEq(pot.stateOf(ID).stakeCount, 1, "one stake");
        assertEq(pot.stakeHash(ID, 2), bytes32(0), "no second slot");
        assertEq(pot.owed(), owedBefore, "owed unchanged");
    }

    function test_a_cancelled_or_expired_authorization_is_refused() public {
        Ticket memory t = ticket(ID, alice, 5 * USDC, 1, 2, "salt");
        uint256 until = START + 30 minutes;
        (uint8 v, bytes32 r, bytes32 s) = signStake(ALICE_KEY, ID, t.commitment, t.amount);
        vm.warp(until);
        vm.expectRevert(bytes("FiatTokenV2: authorization is expired"));
        pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, 0, until, v, r, s);
        vm.warp(START);
        vm.expectRevert(bytes("FiatTokenV2: authorization is not yet valid"));
        pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, START, until, v, r, s);
    }

    function test_stakes_are_taken_from_the_open_until_before_the_close() public {
        GeopoemPot.Terms memory t = termsFor(ID + 1);
        t.opensAt = uint32(START + 1 hours);
        t.closesAt = uint32(START + 2 hours);
        t.solutionDeadline = uint32(START + 1 days);
        openChallenge(ID + 1, t);
        Ticket memory early = ticket(ID + 1, alice, 5 * USDC, 1, 2, "salt");
        (uint8 v, bytes32 r, bytes32 s) = signStake(ALICE_KEY, ID + 1, early.commitment, early.amount);
        uint256 until = START + 30 minutes;
        vm.warp(START + 1 hours - 1);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotOpenYet.selector, START + 1 hours));
        pot.stakeWithAuthorization(ID + 1, early.commitment, alice, early.amount, 0, until + 1 hours, v, r, s);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotOpenYet.selector, START + 1 hours));
        pot.stake(ID + 1, early.commitment, early.amount);

        vm.warp(START + 1 hours);
        stakeSigned(early); // at opensAt exactly
        vm.warp(START + 2 hours - 1);
        stakeApproved(ticket(ID + 1, bob, 5 * USDC, 1, 2, "b")); // the last second
        vm.warp(START + 2 hours);
        Ticket memory late = ticket(ID + 1, carol, 5 * USDC, 1, 2, "late");
        (v, r, s) = signStake(CAROL_KEY, ID + 1, late.commitment, late.amount);
        uint256 carolBefore = balance(carol);
        vm.prank(relayer);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.StakingClosed.selector, START + 2 hours));
        pot.stakeWithAuthorization(ID + 1, late.commitment, carol, late.amount, 0, block.timestamp + 1 hours, v, r, s);
        vm.prank(carol);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.StakingClosed.selector, START + 2 hours));
        pot.stake(ID + 1, late.commitment, late.amount);
        assertEq(balance(carol), carolBefore, "a late stake moves nothing");
        assertEq(pot.stateOf(ID + 1).stakeCount, 2, "two stakes in the window");
        // The late signature is still unused: nothing of it was spent.
        assertTrue(!usdc.authorizationState(carol, pot.stakeNonce(ID + 1, late.commitment, late.amount)), "unused");
    }

    function test_a_stake_on_an_unopened_challenge_is_refused() public {
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotOpened.selector, ID + 5));
        pot.stakeWithAuthorization(ID + 5, bytes32(0), alice, 5 * USDC, 0, START + 1, 27, 0, 0);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.NotOpened.selector, ID + 5));
        pot.stake(ID + 5, bytes32(0), 5 * USDC);
    }

    function test_a_stake_below_the_minimum_is_refused() public {
        Ticket memory t = ticket(ID, alice, USDC - 1, 1, 2, "salt");
        (uint8 v, bytes32 r, bytes32 s) = signStake(ALICE_KEY, ID, t.commitment, t.amount);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.StakeBelowMinimum.selector, USDC - 1, USDC));
        pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, 0, START + 30 minutes, v, r, s);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(GeopoemPot.StakeBelowMinimum.selector, 0, USDC));
        pot.stake(ID, t.commitment, 0);
        stakeApproved(ticket(ID, alice, USDC, 1, 2, "at the minimum"));
    }

    function test_a_stake_beyond_64_bits_is_refused() public {
        uint256 huge = uint256(type(uint64).max) + 1;
        usdc.mint(alice, huge);
        vm.startPrank(alice);
        usdc.approve(address(pot), huge);
        vm.expectRevert(abi.encodeWithSelector(SafeCast.SafeCastOverflowedUintDowncast.selector, 64, huge));
        pot.stake(ID, bytes32(0), huge);
        vm.stopPrank();
        stakeApproved(ticket(ID, alice, type(uint64).max, 1, 2, "the largest"));
        assertEq(pot.stateOf(ID).pot, type(uint64).max, "taken whole");
    }

    function test_the_approval_path_pays_only_from_the_caller() public {
        Ticket memory t = ticket(ID, alice, 5 * USDC, 1, 2, "salt");
        vm.prank(alice);
        usdc.approve(address(pot), 100 * USDC); // alice approves the pot...
        uint256 aliceBefore = balance(alice);
        address thief = address(0x7E1F);
        vm.prank(thief); // ...a stranger without funds cannot stake with alice's approval
        vm.expectRevert(bytes("insufficient allowance"));
        pot.stake(ID, t.commitment, t.amount);
        vm.prank(bob); // bob's stake is bob's money, never alice's
        usdc.approve(address(pot), t.amount);
        uint256 bobBefore = balance(bob);
        vm.prank(bob);
        uint256 seq = pot.stake(ID, t.commitment, t.amount);
        assertEq(balance(alice), aliceBefore, "alice's approval untouched");
        assertEq(usdc.allowance(alice, address(pot)), 100 * USDC, "alice's allowance untouched");
        assertEq(balance(bob), bobBefore - t.amount, "bob paid");
        assertEq(pot.stakeHash(ID, seq), stakeHashOf(bob, t.amount, t.commitment), "bob's stake");
    }

    function test_a_paused_token_or_a_blacklisted_payer_records_nothing() public {
        Ticket memory t = ticket(ID, alice, 5 * USDC, 1, 2, "salt");
        (uint8 v, bytes32 r, bytes32 s) = signStake(ALICE_KEY, ID, t.commitment, t.amount);
        vm.prank(pauser);
        usdc.pause();
        vm.expectRevert(bytes("Pausable: paused"));
        pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, 0, START + 30 minutes, v, r, s);
        vm.prank(pauser);
        usdc.unpause();
        vm.prank(blacklister);
        usdc.blacklist(alice);
        vm.expectRevert(bytes("Blacklistable: account is blacklisted"));
        pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, 0, START + 30 minutes, v, r, s);
        assertEq(pot.stateOf(ID).stakeCount, 0, "nothing recorded");
        vm.prank(blacklister);
        usdc.unBlacklist(alice);
        // The same signature passes once the token would take it.
        pot.stakeWithAuthorization(ID, t.commitment, alice, t.amount, 0, START + 30 minutes, v, r, s);
        assertEq(pot.stateOf(ID).stakeCount, 1, "then recorded");
    }

    function test_the_same_guess_may_be_staked_twice_each_its_own_stake() public {
        Ticket memory a = stakeApproved(ticket(ID, alice, 5 * USDC, 1, 2, "salt"));
        Ticket memory b = stakeApproved(ticket(ID, alice, 5 * USDC, 1, 2, "salt"));
        assertEq(a.seq + 1, b.seq, "two sequences");
        assertEq(pot.stakeHash(ID, a.seq), pot.stakeHash(ID, b.seq), "the same stake twice");
        assertEq(pot.stateOf(ID).pot, 10 * USDC, "both in the pot");
    }
}
