// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {GeopoemPot} from "../GeopoemPot.sol";
import {TestUSDC} from "../TestUSDC.sol";
import {PotFixture} from "./PotFixture.sol";

/// What the invariant campaign does to the pot, at random: stakes (signed, approved, copied from
/// another's commitment), plain transfers to the pot, the clock, the solution's and the guesses'
/// reveals, finalize, every payment and refund, the sweep, the token paused and addresses blacklisted,
/// and the operator trying its key on the money. Each action predicts from its own records whether
/// the pot must take it, and fails the campaign (`fail_on_revert`) when the pot disagrees: so nothing
/// moves outside its window, nobody is paid twice, and a payment refused only for a paused token or
/// a blacklisted receiver holds nobody else up. The ghost totals let the invariants account for every
/// unit.
contract PotHandler is PotFixture {
    uint256 internal constant CHALLENGES = 3;
    uint8 internal constant EARLIEST = 0;
    uint8 internal constant HIGHEST = 1;

    struct Play {
        uint256 id;
        int256 solLat;
        int256 solLon;
        bytes32 solSalt;
        GeopoemPot.Terms terms;
    }

    struct Record {
        Ticket t;
        bool correct; // what its shape makes it
        bool copied; // staked with a commitment made for another payer: can never be revealed
        bool refunded;
        address committer; // the payer its commitment was made for
    }

    Play[CHALLENGES] internal plays;
    Record[] internal records;
    mapping(uint256 challengeId => mapping(uint256 seq => uint256 index)) internal recordOf; // index + 1

    // Ghosts: every unit in and out, in all and per challenge.
    uint256 public ghostStakes;
    uint256 public ghostBonds;
    uint256 public ghostPrizes;
    uint256 public ghostShares;
    uint256 public ghostRefunds;
    uint256 public ghostPlain;
    uint256 public ghostSwept;
    uint256 public operatorStart;
    mapping(uint256 => uint256) public inOf; // stakes and bond
    mapping(uint256 => uint256) public potOf; // stakes
    mapping(uint256 => uint256) public prizesOf;
    mapping(uint256 => uint256) public shareOf;
    mapping(uint256 => uint256) public refundsOf;
    mapping(uint256 => uint256) public refundedStakeOf;
    mapping(uint256 => uint256) public refundedBondOf;
    mapping(uint256 => mapping(uint8 => bool)) public paid;
    mapping(uint256 => bool) public sharePaid;
    mapping(uint256 => bool) public revealed;
    mapping(uint256 => bool) public finalized;
    // The winners from the guesses revealed, as the pot must have them (0: none).
    mapping(uint256 => uint256) public expectedEarliest;
    mapping(uint256 => uint256) public expectedHighest;
    mapping(uint256 => uint256) internal highestAmount;
    // The winners seen first after the window: they must never change.
    mapping(uint256 => bool) internal frozen;
    mapping(uint256 => uint256) internal frozenEarliest;
    mapping(uint256 => uint256) internal frozenHighest;

    bool public paused;
    mapping(address => bool) public blacklisted;

    // How often each thing happened in a run: read them (callsOf) from an afterInvariant hook when
    // tuning the campaign, to see that it still reaches the payouts.
    mapping(bytes32 => uint256) public calls;

    constructor(GeopoemPot pot_, TestUSDC usdc_) {
        pot = pot_;
        usdc = usdc_;
    }

    /// Called by the test's setUp, after this handler was given the operator's approval.
    function openAll() external {
        int256[2][CHALLENGES] memory solutions =
            [[SOL_LAT, SOL_LON], [int256(0), int256(179_999_000)], [int256(-33_856_800), int256(151_215_300)]];
        uint32[CHALLENGES] memory thresholds = [uint32(1000), 50_000, 1000];
        for (uint256 i; i < CHALLENGES; ++i) {
            Play storage p = plays[i];
            p.id = 100 + i;
            p.solLat = solutions[i][0];
            p.solLon = solutions[i][1];
            p.solSalt = keccak256(abi.encode("solution", i));
            GeopoemPot.Terms memory t = defaultTerms();
            t.solutionCommitment = solutionCommitmentOf(address(pot), p.id, p.solLat, p.solLon, p.solSalt);
            t.thresholdM = thresholds[i];
            t.opensAt = uint32(START + [0, 5 minutes, 0][i]);
            t.closesAt = uint32(START + [20 minutes, 25 minutes, 10 minutes][i]);
            t.solutionDeadline = uint32(START + [1 hours, 90 minutes, 40 minutes][i]);
            t.guessWindow = 1 hours;
            t.minStake = uint64([1, 2, 1][i] * USDC);
            t.bond = uint96([10, 5, 0][i] * USDC);
            p.terms = t;
            openChallenge(p.id, t);
            ghostBonds += t.bond;
            inOf[p.id] += t.bond;
        }
        operatorStart = balance(operator);
    }

    // ---------------------------------------------------------------------------------------------
    // Reading the world

    function challengeIds() external pure returns (uint256[CHALLENGES] memory ids) {
        for (uint256 i; i < CHALLENGES; ++i) {
            ids[i] = 100 + i;
        }
    }

    function players(uint256 seed) internal view returns (address) {
        return [alice, bob, carol, dave][seed % 4];
    }

    /// Most actions aim at something that can happen now (three times in four), so that the campaign
    /// reaches payouts; the rest are random, so that refusals are tried too.
    function aimed(uint256 seed) internal pure returns (bool) {
        return mix(seed, "aim") % 4 != 0;
    }

    /// The fuzzer favours small and repeated inputs; what must be spread evenly is hashed first.
    function mix(uint256 seed, bytes32 purpose) internal pure returns (uint256) {
        return uint256(keccak256(abi.encode(seed, purpose)));
    }

    /// The first challenge from a random start for which `phase` holds now, else the random one.
    function pickPlay(uint256 seed, uint8 phase) internal view returns (Play storage) {
        uint256 start = seed % CHALLENGES;
        if (aimed(seed)) {
            for (uint256 k; k < CHALLENGES; ++k) {
                Play storage p = plays[(start + k) % CHALLENGES];
                if (inPhase(p, phase)) return p;
            }
        }
        return plays[start];
    }

    uint8 internal constant STAKING = 0;
    uint8 internal constant SOLVING = 1;
    uint8 internal constant GUESSING = 2;
    uint8 internal constant FINALIZING = 3;
    uint8 internal constant PRIZE = 4; // finalized with a winner, a prize unpaid
    uint8 internal constant SHARE_DUE = 5; // the share (or the bond alone) can be paid
    uint8 internal constant REFUNDING = 6; // aborted, or finalized with no winner

    function inPhase(Play storage p, uint8 phase) internal view returns (bool) {
        uint256 now_ = block.timestamp;
        uint256 deadline = pot.stateOf(p.id).guessDeadline;
        if (phase == STAKING) return now_ >= p.terms.opensAt && now_ < p.terms.closesAt;
        if (phase == SOLVING) return !revealed[p.id] && now_ >= p.terms.closesAt && now_ < p.terms.solutionDeadline;
        if (phase == GUESSING) return deadline != 0 && now_ < deadline;
        if (phase == FINALIZING) return deadline != 0 && now_ >= deadline && !finalized[p.id];
        if (phase == PRIZE) return finalized[p.id] && expectedEarliest[p.id] != 0 && !(paid[p.id][0] && paid[p.id][1]);
        if (phase == SHARE_DUE) {
            return !sharePaid[p.id] && (finalized[p.id] || (aborted(p) && pot.stateOf(p.id).stakeCount == 0));
        }
        return aborted(p) || (finalized[p.id] && expectedEarliest[p.id] == 0);
    }

    /// A record from a random start whose challenge is in `phase` (and, for refunds, not refunded).
    function pickRecord(uint256 seed, uint8 phase) internal view returns (Record storage) {
        uint256 start = seed % records.length;
        if (aimed(seed)) {
            for (uint256 k; k < records.length && k < 16; ++k) {
                Record storage rec = records[(start + k) % records.length];
                if (rec.refunded || (phase == GUESSING && rec.copied)) continue;
                if (inPhase(playOf(rec.t.challengeId), phase)) return rec;
            }
        }
        return records[start];
    }

    function aborted(Play storage p) internal view returns (bool) {
        return !revealed[p.id] && block.timestamp >= p.terms.solutionDeadline;
    }

    function canMove(address from, address to) internal view returns (bool) {
        return !paused && !blacklisted[from] && !blacklisted[to];
    }

    function check(bool ok, bool expected, string memory what) internal pure {
        if (ok != expected) {
            revert(string.concat(what, expected ? ": refused, it must pass" : ": passed, it must not"));
        }
    }

    /// At the start of every action: the winners of a challenge whose window is over never change.
    modifier observed() {
        for (uint256 i; i < CHALLENGES; ++i) {
            uint256 id = plays[i].id;
            GeopoemPot.State memory s = pot.stateOf(id);
            if (s.guessDeadline == 0 || block.timestamp < s.guessDeadline) continue;
            if (!frozen[id]) {
                frozen[id] = true;
                frozenEarliest[id] = s.earliestSeq;
                frozenHighest[id] = s.highestSeq;
            } else {
                assertEq(s.earliestSeq, frozenEarliest[id], "the earliest changed after the window");
                assertEq(s.highestSeq, frozenHighest[id], "the highest changed after the window");
            }
        }
        _;
    }

    // ---------------------------------------------------------------------------------------------
    // Stakes and plain transfers

    function guessFor(Play storage p, uint256 r) internal view returns (int256 lat, int256 lon, bool correct) {
        int256 step = int256(uint256(p.terms.thresholdM)) * 4; // about 0.45 of the threshold, in latitude
        uint256 shape = r % 6;
        if (shape == 0) return (p.solLat, p.solLon, true);
        if (shape == 1) return (p.solLat - step, p.solLon, true);
        if (shape == 2) return (p.solLat + 3 * step, p.solLon, false); // 1.33 thresholds
        if (shape == 3) return (-p.solLat, p.solLon > 0 ? p.solLon - 90_000_000 : p.solLon + 90_000_000, false);
        if (shape == 4) return (90_000_001, p.solLon, false);
        return (p.solLat, 180_000_001, false);
    }

    function stakeExpected(Play storage p, address payer, uint256 amount) internal view returns (bool) {
        return block.timestamp >= p.terms.opensAt && block.timestamp < p.terms.closesAt && amount >= p.terms.minStake
            && canMove(payer, address(pot));
    }

    function recordStake(Ticket memory t, bool correct, address committer) internal {
        records.push(Record(t, correct, t.payer != committer, false, committer));
        recordOf[t.challengeId][t.seq] = records.length;
        ghostStakes += t.amount;
        potOf[t.challengeId] += t.amount;
        inOf[t.challengeId] += t.amount;
    }

    function stake(uint256 challengeSeed, uint256 playerSeed, uint256 amountSeed, uint256 guessSeed, bool signed)
        external
        observed
    {
        Play storage p = pickPlay(challengeSeed, STAKING);
        address payer = players(playerSeed);
        uint256 amount = bound(amountSeed, USDC / 2, 20 * USDC);
        (int256 lat, int256 lon, bool correct) = guessFor(p, guessSeed);
        Ticket memory t = ticket(p.id, payer, amount, lat, lon, keccak256(abi.encode(guessSeed, records.length)));
        bool expected = stakeExpected(p, payer, amount);
        if (signed) expected = expected && !usdc.authorizationState(payer, pot.stakeNonce(p.id, t.commitment, amount));
        uint256 payerBefore = balance(payer);
        bool ok;
        if (signed) {
            (uint8 v, bytes32 r, bytes32 s) = signStake(keyOf(payer), p.id, t.commitment, amount);
            vm.prank(relayer);
            try pot.stakeWithAuthorization(
                p.id, t.commitment, payer, amount, 0, block.timestamp + 30 minutes, v, r, s
            ) returns (
                uint256 seq
            ) {
                (ok, t.seq) = (true, seq);
            } catch {}
        } else {
            vm.prank(payer);
            try usdc.approve(address(pot), amount) {} catch {}
            vm.prank(payer);
            try pot.stake(p.id, t.commitment, amount) returns (uint256 seq) {
                (ok, t.seq) = (true, seq);
            } catch {}
        }
        check(ok, expected, signed ? "stakeWithAuthorization" : "stake");
        if (!ok) return;
        assertEq(payerBefore - balance(payer), amount, "the stake came from its payer");
        assertEq(t.seq, pot.stateOf(p.id).stakeCount, "the next sequence");
        recordStake(t, correct, payer);
        ++calls[signed ? bytes32("stake signed") : bytes32("stake approved")];
    }

    /// Someone stakes a commitment copied from another's stake (as seen in its Staked event): only the
    /// payer it was made for can ever reveal it (and then it is that payer's guess, staked again).
    function stakeCopy(uint256 indexSeed, uint256 playerSeed) external observed {
        if (records.length == 0) return;
        Record storage original = pickRecord(indexSeed, STAKING);
        Ticket memory t = original.t;
        address payer = players(playerSeed);
        t.payer = payer;
        Play storage p = playOf(t.challengeId);
        // The token refuses a nonce its payer already spent (the same copy staked before).
        bool spent = usdc.authorizationState(payer, pot.stakeNonce(p.id, t.commitment, t.amount));
        bool expected = stakeExpected(p, payer, t.amount) && !spent;
        (uint8 v, bytes32 r, bytes32 s) = signStake(keyOf(payer), p.id, t.commitment, t.amount);
        bool ok;
        vm.prank(relayer);
        try pot.stakeWithAuthorization(
            p.id, t.commitment, payer, t.amount, 0, block.timestamp + 30 minutes, v, r, s
        ) returns (
            uint256 seq
        ) {
            (ok, t.seq) = (true, seq);
        } catch {}
        check(ok, expected, "a copied stake");
        if (!ok) return;
        recordStake(t, original.correct, original.committer);
        ++calls["stake copied"];
    }

    function plainTransfer(uint256 playerSeed, uint256 amountSeed) external observed {
        address from = players(playerSeed);
        uint256 amount = bound(amountSeed, 1, 5 * USDC);
        vm.prank(from);
        bool ok;
        try usdc.transfer(address(pot), amount) {
            ok = true;
        } catch {}
        check(ok, canMove(from, address(pot)), "a plain transfer");
        if (ok) {
            ghostPlain += amount;
            ++calls["plain transfer"];
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The clock

    /// A small step (a second to two minutes), or, once no challenge takes stakes, three calls in four to
    /// the next mark of any challenge (a close, a solution deadline, the end of a guess window): the
    /// second before it, at it, or after it. So a play walks through its phases in order, half of the
    /// campaign's calls while stakes are taken, and every boundary is tried.
    function warp(uint256 seed) external observed {
        seed = mix(seed, "warp");
        uint256 target = block.timestamp + 1 + (seed >> 32) % 2 minutes;
        bool staking;
        for (uint256 i; i < CHALLENGES; ++i) {
            staking = staking || block.timestamp < plays[i].terms.closesAt;
        }
        if (!staking && seed % 4 != 0) {
            uint256 next = type(uint256).max;
            for (uint256 i; i < CHALLENGES; ++i) {
                Play storage p = plays[i];
                uint256[4] memory marks = [
                    uint256(p.terms.opensAt),
                    p.terms.closesAt,
                    p.terms.solutionDeadline,
                    pot.stateOf(p.id).guessDeadline
                ];
                for (uint256 k; k < 4; ++k) {
                    if (marks[k] > block.timestamp + 1 && marks[k] < next) next = marks[k];
                }
            }
            if (next != type(uint256).max) target = next - 1 + (seed >> 8) % 3;
        }
        vm.warp(target);
        ++calls["warp"];
    }

    // ---------------------------------------------------------------------------------------------
    // Reveals

    function revealSolution(uint256 challengeSeed, bool wrongSalt) external observed {
        Play storage p = pickPlay(challengeSeed, SOLVING);
        bytes32 salt = wrongSalt ? keccak256("not the salt") : p.solSalt;
        bool expected = !wrongSalt && !revealed[p.id] && block.timestamp >= p.terms.closesAt
            && block.timestamp < p.terms.solutionDeadline;
        bool ok;
        vm.prank(relayer);
        try pot.revealSolution(p.id, p.solLat, p.solLon, salt) {
            ok = true;
        } catch {}
        check(ok, expected, "revealSolution");
        if (!ok) return;
        revealed[p.id] = true;
        assertEq(pot.stateOf(p.id).guessDeadline, block.timestamp + p.terms.guessWindow, "the window");
        ++calls["reveal solution"];
    }

    function revealGuess(uint256 indexSeed) external observed {
        if (records.length == 0) return;
        Record storage rec = pickRecord(indexSeed, GUESSING);
        Ticket memory t = rec.t;
        uint256 deadline = pot.stateOf(t.challengeId).guessDeadline;
        bool expected = !rec.copied && deadline != 0 && block.timestamp < deadline;
        bool ok;
        bool correct;
        vm.prank(players(indexSeed >> 128)); // anyone: here a player, maybe not the payer
        try pot.revealGuess(t.challengeId, t.seq, t.payer, t.amount, t.lat, t.lon, t.salt) returns (bool c) {
            (ok, correct) = (true, c);
        } catch {}
        check(ok, expected, "revealGuess");
        if (!ok) return;
        assertEq(correct, rec.correct, "scored as its shape says");
        ++calls[correct ? bytes32("reveal correct") : bytes32("reveal incorrect")];
        if (!correct) return;
        uint256 id = t.challengeId;
        if (expectedEarliest[id] == 0 || t.seq < expectedEarliest[id]) expectedEarliest[id] = t.seq;
        if (t.amount > highestAmount[id] || (t.amount == highestAmount[id] && t.seq < expectedHighest[id])) {
            highestAmount[id] = t.amount;
            expectedHighest[id] = t.seq;
        }
    }

    /// A copied commitment never opens with the first player's reveal, whoever is named as payer.
    function revealCopy(uint256 indexSeed, uint256 playerSeed) external observed {
        if (records.length == 0) return;
        Record storage rec = records[indexSeed % records.length];
        if (!rec.copied) return;
        Ticket memory t = rec.t;
        try pot.revealGuess(t.challengeId, t.seq, players(playerSeed), t.amount, t.lat, t.lon, t.salt) {
            fail("a copied commitment was opened");
        } catch {}
        ++calls["reveal copy refused"];
    }

    // ---------------------------------------------------------------------------------------------
    // Settlement

    function finalize(uint256 challengeSeed) external observed {
        Play storage p = pickPlay(challengeSeed, FINALIZING);
        uint256 deadline = pot.stateOf(p.id).guessDeadline;
        bool expected = deadline != 0 && block.timestamp >= deadline && !finalized[p.id];
        bool ok;
        try pot.finalize(p.id) {
            ok = true;
        } catch {}
        check(ok, expected, "finalize");
        if (!ok) return;
        finalized[p.id] = true;
        ++calls["finalize"];
    }

    function playOf(uint256 id) internal view returns (Play storage) {
        return plays[id - 100];
    }

    function payPrize(uint256 challengeSeed, bool highest, uint256 decoySeed) external observed {
        Play storage p = pickPlay(challengeSeed, PRIZE);
        if (aimed(challengeSeed) && paid[p.id][highest ? HIGHEST : EARLIEST]) highest = !highest;
        uint8 kind = highest ? HIGHEST : EARLIEST;
        uint256 seq = highest ? expectedHighest[p.id] : expectedEarliest[p.id];
        Ticket memory t;
        bool decoy = seq == 0 || decoySeed % 5 == 0;
        if (decoy) {
            // Naming any other stake (or anyone, with no winner) is refused.
            if (records.length == 0) return;
            t = records[decoySeed % records.length].t;
            if (t.challengeId == p.id && t.seq == seq) return;
            if (seq != 0 && pot.stakeHash(p.id, seq) == stakeHashOf(t.payer, t.amount, t.commitment)) return;
        } else {
            t = records[recordOf[p.id][seq] - 1].t;
        }
        uint256 prize = (potOf[p.id] * 40) / 100;
        bool expected = !decoy && finalized[p.id] && !paid[p.id][kind] && canMove(address(pot), t.payer);
        uint256 before = balance(t.payer);
        bool ok;
        vm.prank(operator); // whoever calls, the winner is paid
        try pot.payPrize(p.id, kind, t.payer, t.amount, t.commitment) {
            ok = true;
        } catch {}
        check(ok, expected, "payPrize");
        if (!ok) return;
        assertEq(balance(t.payer) - before, prize, "the prize to the winner");
        paid[p.id][kind] = true;
        ghostPrizes += prize;
        prizesOf[p.id] += prize;
        ++calls["prize paid"];
    }

    function payShare(uint256 challengeSeed) external observed {
        Play storage p = pickPlay(challengeSeed, SHARE_DUE);
        bool winner = expectedEarliest[p.id] != 0;
        uint256 amount = (winner ? potOf[p.id] - 2 * ((potOf[p.id] * 40) / 100) : 0) + p.terms.bond;
        bool due = finalized[p.id] || (aborted(p) && pot.stateOf(p.id).stakeCount == 0);
        bool expected = due && !sharePaid[p.id] && amount > 0 && canMove(address(pot), shareReceiver);
        uint256 before = balance(shareReceiver);
        bool ok;
        vm.prank(operator);
        try pot.payShare(p.id) {
            ok = true;
        } catch {}
        check(ok, expected, "payShare");
        if (!ok) return;
        assertEq(balance(shareReceiver) - before, amount, "the share and the bond");
        sharePaid[p.id] = true;
        ghostShares += amount;
        shareOf[p.id] += amount;
        ++calls["share paid"];
    }

    function refund(uint256 indexSeed) external observed {
        if (records.length == 0) return;
        Record storage rec = pickRecord(indexSeed, REFUNDING);
        Ticket memory t = rec.t;
        Play storage p = playOf(t.challengeId);
        bool isAborted = aborted(p);
        bool refundable = isAborted || (finalized[p.id] && expectedEarliest[p.id] == 0);
        bool expected = refundable && !rec.refunded && canMove(address(pot), t.payer);
        uint256 bondShare;
        if (isAborted) {
            uint256 left = potOf[p.id] - refundedStakeOf[p.id];
            bondShare = left == 0 ? 0 : ((p.terms.bond - refundedBondOf[p.id]) * t.amount) / left;
        }
        uint256 before = balance(t.payer);
        bool ok;
        vm.prank(relayer);
        try pot.refund(t.challengeId, t.seq, t.payer, t.amount, t.commitment) {
            ok = true;
        } catch {}
        check(ok, expected, "refund");
        if (!ok) return;
        assertEq(balance(t.payer) - before, t.amount + bondShare, "the stake and its share of the bond");
        rec.refunded = true;
        ghostRefunds += t.amount + bondShare;
        refundsOf[p.id] += t.amount + bondShare;
        refundedStakeOf[p.id] += t.amount;
        refundedBondOf[p.id] += bondShare;
        ++calls[bondShare > 0 ? bytes32("refund with bond") : bytes32("refund")];
    }

    function sweep(bool byOperator) external observed {
        uint256 excess = balance(address(pot)) - pot.owed(); // the invariant says it cannot underflow
        bool expected = excess > 0 && canMove(address(pot), sweepReceiver);
        uint256 before = balance(sweepReceiver);
        bool ok;
        vm.prank(byOperator ? operator : relayer);
        try pot.sweep() {
            ok = true;
        } catch {}
        check(ok, expected, "sweep");
        if (!ok) return;
        assertEq(balance(sweepReceiver) - before, excess, "exactly the excess");
        ghostSwept += excess;
        ++calls["sweep"];
    }

    // ---------------------------------------------------------------------------------------------
    // The token's pause and blacklist, and the operator

    /// Pauses now and then (one call in four), unpauses at once: a pause is an episode, not the norm.
    function togglePause(uint256 seed) external observed {
        if (!paused && seed % 4 != 0) return;
        vm.prank(pauser);
        if (paused) usdc.unpause();
        else usdc.pause();
        paused = !paused;
        ++calls[paused ? bytes32("pause") : bytes32("unpause")];
    }

    /// Blacklists now and then (one call in four), unblacklists at once.
    function toggleBlacklist(uint256 seed) external observed {
        address who = [alice, bob, carol, dave, shareReceiver, sweepReceiver][seed % 6];
        if (!blacklisted[who] && (seed >> 8) % 4 != 0) return;
        vm.prank(blacklister);
        if (blacklisted[who]) usdc.unBlacklist(who);
        else usdc.blacklist(who);
        blacklisted[who] = !blacklisted[who];
        ++calls["blacklist toggled"];
    }

    /// The operator's key tries to reach a stake: naming itself as a winner or a payer to refund, with
    /// a real stake's amount and commitment. Every such call is refused.
    function operatorTries(uint256 indexSeed, uint256 what) external observed {
        if (records.length == 0) return;
        Ticket memory t = records[indexSeed % records.length].t;
        vm.startPrank(operator);
        if (what % 3 == 0) {
            try pot.payPrize(t.challengeId, uint8(what % 2), operator, t.amount, t.commitment) {
                fail("the operator was paid a prize");
            } catch {}
        } else if (what % 3 == 1) {
            try pot.refund(t.challengeId, t.seq, operator, t.amount, t.commitment) {
                fail("the operator was refunded a stake");
            } catch {}
        } else {
            try pot.revealGuess(t.challengeId, t.seq, operator, t.amount, t.lat, t.lon, t.salt) {
                fail("the operator opened someone's stake");
            } catch {}
        }
        vm.stopPrank();
        ++calls["operator refused"];
    }

    function callsOf(bytes32 what) external view returns (uint256) {
        return calls[what];
    }
}
