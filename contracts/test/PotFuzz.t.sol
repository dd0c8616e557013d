// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {GeopoemPot} from "../GeopoemPot.sol";
import {PotFixture} from "./PotFixture.sol";

/// Properties over random plays: the winners whatever the order of the reveals, the split and the bond
/// to the unit, the staking window to the second.
contract PotFuzzTest is PotFixture {
    uint256 internal constant MAX_STAKES = 8;

    function setUp() public override {
        super.setUp();
        openDefault(ID);
    }

    function random(uint256 seed, uint256 i) internal pure returns (uint256) {
        return uint256(keccak256(abi.encode(seed, i)));
    }

    /// A guess that is correct (`correct`) or not, in several shapes: the point itself, a point within
    /// the threshold, a point far away, a point out of range.
    function guessOf(uint256 r, bool correct) internal pure returns (int256 lat, int256 lon) {
        if (correct) {
            return r % 2 == 0 ? (SOL_LAT, SOL_LON) : (SOL_LAT - int256(r % 5000), SOL_LON + int256((r >> 8) % 5000));
        }
        uint256 shape = r % 3;
        if (shape == 0) return (-SOL_LAT, SOL_LON + 90_000_000);
        if (shape == 1) return (SOL_LAT + 12_000, SOL_LON); // 1.3 km
        return (90_000_001 + int256((r >> 8) % 1000), SOL_LON);
    }

    /// Stakes `n` random guesses (amounts of 1 to 4 USDC, so that ties are common) and returns them
    /// with whether each is correct.
    function stakeRandom(uint256 seed, uint256 n) internal returns (Ticket[] memory ts, bool[] memory correct) {
        ts = new Ticket[](n);
        correct = new bool[](n);
        address[4] memory players = [alice, bob, carol, dave];
        for (uint256 i; i < n; ++i) {
            uint256 r = random(seed, i);
            correct[i] = r % 3 != 0;
            (int256 lat, int256 lon) = guessOf(r >> 16, correct[i]);
            Ticket memory t = ticket(ID, players[(r >> 8) % 4], (1 + (r >> 12) % 4) * USDC, lat, lon, bytes32(r));
            ts[i] = (r >> 40) % 2 == 0 ? stakeSigned(t) : stakeApproved(t);
        }
    }

    function testFuzz_the_winners_whatever_the_order_of_the_reveals(uint256 seed, uint8 count, uint8 revealsCount)
        public
    {
        uint256 n = bound(count, 1, MAX_STAKES);
        (Ticket[] memory ts, bool[] memory correct) = stakeRandom(seed, n);
        vm.warp(START + 1 days);
        revealSolutionOf(ID);
        // Random reveals, duplicates included, some stakes never revealed.
        uint256 reveals = bound(revealsCount, 0, 3 * n);
        bool[] memory revealed = new bool[](n);
        uint256 expectedEarliest;
        uint256 expectedHighest;
        uint256 highestAmount;
        for (uint256 k; k < reveals; ++k) {
            uint256 i = random(seed ^ 0x5EED, k) % n;
            assertEq(reveal(ts[i]), correct[i], "scored as its shape says");
            revealed[i] = true;
            // What the winners must be now, from the guesses revealed so far.
            expectedEarliest = 0;
            expectedHighest = 0;
            highestAmount = 0;
            for (uint256 j; j < n; ++j) {
                if (!revealed[j] || !correct[j]) continue;
                if (expectedEarliest == 0) expectedEarliest = ts[j].seq; // sequences rise with j
                if (ts[j].amount > highestAmount) {
                    highestAmount = ts[j].amount;
                    expectedHighest = ts[j].seq;
                }
            }
            GeopoemPot.State memory s = pot.stateOf(ID);
            assertEq(s.earliestSeq, expectedEarliest, "the lowest correct sequence revealed");
            assertEq(s.highestSeq, expectedHighest, "the highest correct stake, ties to the lower sequence");
            assertEq(s.highestAmount, highestAmount, "its amount");
        }
        vm.warp(guessDeadline(ID));
        pot.finalize(ID);
        GeopoemPot.State memory fin = pot.stateOf(ID);
        assertEq(fin.earliestSeq, expectedEarliest, "unchanged by finalize");
        assertEq(fin.highestSeq, expectedHighest, "unchanged by finalize");
    }

    function testFuzz_the_split_sums_to_the_pot_with_no_dust(uint64[4] memory amounts, uint96 bond) public {
        GeopoemPot.Terms memory t = termsFor(ID + 1);
        t.bond = uint96(bound(bond, 0, 1e12));
        openChallenge(ID + 1, t);
        Ticket[4] memory ts;
        uint256 total;
        for (uint256 i; i < 4; ++i) {
            uint256 amount = bound(amounts[i], USDC, 1e15);
            usdc.mint(alice, amount);
            ts[i] = stakeSigned(ticket(ID + 1, alice, amount, SOL_LAT, SOL_LON + int256(i), bytes32(i)));
            total += amount;
        }
        vm.warp(START + 1 days);
        pot.revealSolution(ID + 1, SOL_LAT, SOL_LON, SOL_SALT);
        for (uint256 i; i < 4; ++i) {
            reveal(ts[i]);
        }
        vm.warp(guessDeadline(ID + 1));
        pot.finalize(ID + 1);
        uint256 owedBefore = pot.owed();
        uint256 held = balance(address(pot));
        GeopoemPot.State memory s = pot.stateOf(ID + 1);
        payPrizeOf(0, ts[s.earliestSeq - 1]);
        payPrizeOf(1, ts[s.highestSeq - 1]);
        pot.payShare(ID + 1);
        uint256 prize = (total * 40) / 100;
        assertEq(balance(shareReceiver), total - 2 * prize + t.bond, "the share takes the remainder, with the bond");
        assertEq(owedBefore - pot.owed(), total + t.bond, "the whole pot and bond paid");
        assertEq(held - balance(address(pot)), total + t.bond, "and moved");
        assertEq(pot.owed(), 10 * USDC, "only the first challenge's bond is left");
    }

    function testFuzz_the_bond_is_shared_pro_rata_with_no_dust(uint64[5] memory amounts, uint96 bond, uint256 seed)
        public
    {
        GeopoemPot.Terms memory t = termsFor(ID + 1);
        t.bond = uint96(bound(bond, 0, 1e15));
        usdc.mint(operator, t.bond);
        openChallenge(ID + 1, t);
        Ticket[5] memory ts;
        uint256 total;
        address[4] memory players = [alice, bob, carol, dave];
        for (uint256 i; i < 5; ++i) {
            uint256 amount = bound(amounts[i], USDC, 1e13);
            usdc.mint(players[i % 4], amount);
            ts[i] = stakeApproved(ticket(ID + 1, players[i % 4], amount, 1, 2, bytes32(i)));
            total += amount;
        }
        vm.warp(START + 2 days); // the solution was never revealed
        uint256 shares;
        bool[5] memory done;
        for (uint256 k; k < 5; ++k) {
            uint256 i = random(seed, k) % 5;
            while (done[i]) i = (i + 1) % 5;
            done[i] = true;
            uint256 before = balance(ts[i].payer);
            uint256 bondBefore = pot.stateOf(ID + 1).refundedBond;
            refundOf(ts[i]);
            uint256 share = pot.stateOf(ID + 1).refundedBond - bondBefore;
            assertEq(balance(ts[i].payer), before + ts[i].amount + share, "the stake and its share of the bond");
            uint256 fair = (uint256(t.bond) * ts[i].amount) / total;
            assertGe(share, fair, "at least its pro-rata share, rounded down");
            assertLe(share, fair + 5, "and at most a unit per refund more");
            shares += share;
        }
        assertEq(shares, t.bond, "the whole bond, no dust");
        assertEq(pot.owed(), 10 * USDC, "only the first challenge's bond is left");
        assertEq(balance(address(pot)), 10 * USDC, "held");
    }

    function testFuzz_a_stake_is_taken_in_its_window_only(uint256 when, bool signed) public {
        uint256 at = bound(when, START - 2 days, START + 3 days);
        GeopoemPot.Terms memory t = termsFor(ID + 1);
        t.opensAt = uint32(START + 1 hours);
        openChallenge(ID + 1, t);
        vm.warp(at);
        Ticket memory tk = ticket(ID + 1, alice, 2 * USDC, 1, 2, "s");
        bool inWindow = at >= t.opensAt && at < t.closesAt;
        (uint8 v, bytes32 r, bytes32 s) = signStake(ALICE_KEY, ID + 1, tk.commitment, tk.amount);
        vm.prank(alice);
        usdc.approve(address(pot), tk.amount);
        uint256 before = balance(alice);
        if (!inWindow) {
            vm.expectRevert(
                at < t.opensAt
                    ? abi.encodeWithSelector(GeopoemPot.NotOpenYet.selector, t.opensAt)
                    : abi.encodeWithSelector(GeopoemPot.StakingClosed.selector, t.closesAt)
            );
        }
        vm.prank(alice);
        if (signed) {
            pot.stakeWithAuthorization(ID + 1, tk.commitment, alice, tk.amount, 0, at + 30 minutes, v, r, s);
        } else {
            pot.stake(ID + 1, tk.commitment, tk.amount);
        }
        assertEq(pot.stateOf(ID + 1).stakeCount, inWindow ? 1 : 0, "taken only in [opensAt, closesAt)");
        assertEq(balance(alice), inWindow ? before - tk.amount : before, "paid only then");
    }

    function testFuzz_the_solution_is_taken_between_the_close_and_its_deadline(uint256 when) public {
        uint256 at = bound(when, START, START + 3 days);
        vm.warp(at);
        if (at < START + 1 days) {
            vm.expectRevert(abi.encodeWithSelector(GeopoemPot.SolutionTooEarly.selector, START + 1 days));
        } else if (at >= START + 2 days) {
            vm.expectRevert(abi.encodeWithSelector(GeopoemPot.SolutionDeadlinePassed.selector, START + 2 days));
        }
        revealSolutionOf(ID);
        bool taken = at >= START + 1 days && at < START + 2 days;
        assertEq(guessDeadline(ID), taken ? at + 1 hours : 0, "the window opens only from a reveal in time");
        assertEq(pot.stateOf(ID).aborted, at >= START + 2 days, "aborted from the deadline, unless revealed");
    }
}
