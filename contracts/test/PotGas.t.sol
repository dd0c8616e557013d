// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

import {GeopoemPot} from "../GeopoemPot.sol";
import {PotFixture} from "./PotFixture.sol";

/// The gas of each step of a play, as the transaction's receipt would show it (intrinsic cost and
/// calldata included, refunds netted), behind the proxied token: `forge test --isolate` makes each call
/// of a test its own transaction, so every slot and account starts cold as on chain. The goals: at most
/// 125,000 for a relayed stake after the pot's first (the relayer's gas is sized from it), at most
/// 45,000 for a guess's reveal. `FOUNDRY_PROFILE=gas forge test -vv` (foundry.toml) prints every figure.
contract PotGasTest is PotFixture {
    uint256 internal constant STAKE_GOAL = 125_000;
    uint256 internal constant REVEAL_GOAL = 45_000;

    function setUp() public override {
        super.setUp();
        openDefault(ID);
    }

    /// Outside --isolate the calls of a test share one transaction and the figures mean nothing. (Only
    /// a call that may write is isolated; a view is not.)
    modifier isolated() {
        usdc.approve(address(pot), 0);
        assertGe(vm.lastCallGas().gasTotalUsed, 21_000, "run the gas tests with forge test --isolate");
        _;
    }

    /// The last call's transaction: gasUsed of its receipt.
    function gasOfLast(string memory what) internal view returns (uint256 used) {
        used = vm.lastCallGas().gasTotalUsed;
        log(what, used);
    }

    function test_gas_of_a_play_within_the_goals() public isolated {
        stakeGuess(ID, alice, 5 * USDC, SOL_LAT, SOL_LON);
        gasOfLast("stakeWithAuthorization, the pot's first stake (after the bond)");
        Ticket memory big = stakeGuess(ID, bob, 9 * USDC, SOL_LAT + 10, SOL_LON);
        assertLe(gasOfLast("stakeWithAuthorization, a later stake"), STAKE_GOAL, "a relayed stake");
        Ticket memory again = stakeGuess(ID, alice, 3 * USDC, SOL_LAT - 10, SOL_LON);
        assertLe(gasOfLast("stakeWithAuthorization, the same payer again"), STAKE_GOAL, "a relayed stake");
        Ticket memory wrong = stakeGuess(ID, dave, 20 * USDC, 0, 0);
        Ticket memory outOfRange = stakeGuess(ID, dave, 2 * USDC, 90_000_001, 0);
        Ticket memory approved = ticket(ID, carol, 4 * USDC, SOL_LAT, SOL_LON, "carol");
        vm.prank(carol);
        usdc.approve(address(pot), approved.amount);
        gasOfLast("approve (the payer's own transaction)");
        vm.prank(carol);
        approved.seq = pot.stake(ID, approved.commitment, approved.amount);
        gasOfLast("stake (by approval)");

        vm.warp(START + 1 days);
        revealSolutionOf(ID);
        gasOfLast("revealSolution");
        reveal(again);
        assertLe(gasOfLast("revealGuess, the first correct"), REVEAL_GOAL, "a reveal");
        reveal(big);
        assertLe(gasOfLast("revealGuess, a correct one that beats the best"), REVEAL_GOAL, "a reveal");
        reveal(approved);
        assertLe(gasOfLast("revealGuess, a correct one that beats nothing"), REVEAL_GOAL, "a reveal");
        reveal(wrong);
        assertLe(gasOfLast("revealGuess, an incorrect one"), REVEAL_GOAL, "a reveal");
        reveal(outOfRange);
        assertLe(gasOfLast("revealGuess, out of range"), REVEAL_GOAL, "a reveal");
        reveal(big);
        assertLe(gasOfLast("revealGuess, again"), REVEAL_GOAL, "a reveal");

        vm.warp(guessDeadline(ID));
        pot.finalize(ID);
        gasOfLast("finalize");
        payPrizeOf(0, big);
        gasOfLast("payPrize, the earliest");
        payPrizeOf(1, big);
        gasOfLast("payPrize, the highest");
        pot.payShare(ID);
        gasOfLast("payShare");
    }

    function test_gas_of_a_later_challenges_first_stake_within_the_goal() public isolated {
        stakeGuess(ID, alice, 5 * USDC, SOL_LAT, SOL_LON);
        openDefault(ID + 1);
        stakeGuess(ID + 1, bob, 5 * USDC, SOL_LAT, SOL_LON);
        assertLe(gasOfLast("stakeWithAuthorization, a later challenge's first"), STAKE_GOAL, "a relayed stake");
    }

    /// The pot's very first stake when no bond was posted: `owed` and the pot's balance go from zero,
    /// two fresh slots (about 34,000 more). Once only, for the pot's life.
    function test_gas_of_the_pots_very_first_stake() public isolated {
        pot = new GeopoemPot(IERC20(address(usdc)), operator, shareReceiver, sweepReceiver);
        GeopoemPot.Terms memory t = termsFor(ID);
        t.bond = 0;
        openChallenge(ID, t);
        stakeGuess(ID, alice, 5 * USDC, SOL_LAT, SOL_LON);
        gasOfLast("stakeWithAuthorization, the pot's very first with no bond");
        stakeGuess(ID, bob, 5 * USDC, SOL_LAT, SOL_LON);
        assertLe(gasOfLast("stakeWithAuthorization, its second"), STAKE_GOAL, "a relayed stake");
    }

    function test_gas_of_refunds() public isolated {
        Ticket memory a = stakeGuess(ID, alice, 5 * USDC, 0, 0);
        Ticket memory b = stakeGuess(ID, bob, 7 * USDC, 0, 0);
        openDefault(ID + 1);
        Ticket memory c = stakeGuess(ID + 1, carol, 5 * USDC, 0, 0);
        Ticket memory d = stakeGuess(ID + 1, dave, 7 * USDC, 0, 0);
        vm.warp(START + 1 days);
        revealSolutionOf(ID); // the first has no correct guess; the second is never solved
        vm.warp(START + 2 days);
        pot.finalize(ID);
        gasOfLast("finalize, no correct guess");
        refundOf(a);
        gasOfLast("refund, no correct guess");
        refundOf(b);
        refundOf(c);
        gasOfLast("refund after an abort, with its share of the bond");
        refundOf(d);
        gasOfLast("refund after an abort, the last (the rest of the bond)");
        vm.prank(dave);
        usdc.transfer(address(pot), USDC);
        pot.sweep();
        gasOfLast("sweep");
    }
}
