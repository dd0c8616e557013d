// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {GeopoemPot} from "../GeopoemPot.sol";
import {PotFixture} from "./PotFixture.sol";
import {PotHandler} from "./PotHandler.sol";

/// The pot's invariants (its header lists them) over random sequences of PotHandler's actions, on
/// three challenges that overlap in time (one with no bond), the token behind its proxy paused and
/// blacklisting at random. The handler itself fails the campaign when the pot takes an action it must
/// refuse or refuses one it must take (foundry.toml: fail_on_revert); the checks below run after every
/// action, all in one campaign (forge runs a campaign per invariant function, so there is one).
contract PotInvariantTest is PotFixture {
    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    PotHandler internal handler;

    function setUp() public override {
        super.setUp();
        handler = new PotHandler(pot, usdc);
        handler.openAll();
    }

    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    function targetSelectors() public view returns (FuzzSelector[] memory targets) {
        bytes4[] memory selectors = new bytes4[](18);
        selectors[0] = PotHandler.stake.selector;
        selectors[1] = PotHandler.stakeCopy.selector;
        selectors[2] = PotHandler.plainTransfer.selector;
        selectors[3] = PotHandler.warp.selector;
        selectors[4] = PotHandler.revealSolution.selector;
        selectors[5] = PotHandler.revealGuess.selector;
        selectors[6] = PotHandler.revealCopy.selector;
        selectors[7] = PotHandler.finalize.selector;
        selectors[8] = PotHandler.payPrize.selector;
        selectors[9] = PotHandler.payShare.selector;
        selectors[10] = PotHandler.refund.selector;
        selectors[11] = PotHandler.sweep.selector;
        selectors[12] = PotHandler.togglePause.selector;
        selectors[13] = PotHandler.toggleBlacklist.selector;
        selectors[14] = PotHandler.operatorTries.selector;
        // The clock, the stakes and the reveals twice as often: a play needs them most.
        selectors[15] = PotHandler.warp.selector;
        selectors[16] = PotHandler.stake.selector;
        selectors[17] = PotHandler.revealGuess.selector;
        targets = new FuzzSelector[](1);
        targets[0] = FuzzSelector(address(handler), selectors);
    }

    function invariant_the_pot() public view {
        theBalanceCoversExactlyWhatItOwes();
        theWinnersAreTheBestRevealedGuesses();
        eachChallengePaysPrizesOrRefundsFromItsOwnMoney();
        neitherTheOperatorNorACallerReceivesAUnit();
    }

    /// 1. The balance covers what the pot owes, and what it owes is exactly the stakes and bonds taken
    /// less the prizes, shares and refunds paid; the balance is that plus the plain transfers not swept.
    function theBalanceCoversExactlyWhatItOwes() internal view {
        uint256 owed = pot.owed();
        uint256 held = balance(address(pot));
        assertGe(held, owed, "balance >= owed");
        assertEq(
            owed,
            handler.ghostStakes() + handler.ghostBonds() - handler.ghostPrizes() - handler.ghostShares()
                - handler.ghostRefunds(),
            "owed == stakes + bonds - prizes - shares - refunds"
        );
        assertEq(held, owed + handler.ghostPlain() - handler.ghostSwept(), "the excess is the plain transfers unswept");
    }

    /// 4. The winners are the lowest correct sequence and the highest correct stake (ties to the lower
    /// sequence) among the guesses revealed; the handler checks they never change after the window.
    function theWinnersAreTheBestRevealedGuesses() internal view {
        uint256[3] memory ids = handler.challengeIds();
        for (uint256 i; i < ids.length; ++i) {
            GeopoemPot.State memory s = pot.stateOf(ids[i]);
            assertEq(s.earliestSeq, handler.expectedEarliest(ids[i]), "the earliest correct");
            assertEq(s.highestSeq, handler.expectedHighest(ids[i]), "the highest correct");
        }
    }

    /// 5. A challenge pays its prizes or refunds, never both, and never more than its own stakes and
    /// bond; once all of it is paid, exactly those. 6. Nobody is paid twice (the pot's flags agree with
    /// the handler's record of each payment, and the handler refuses a second one).
    function eachChallengePaysPrizesOrRefundsFromItsOwnMoney() internal view {
        uint256[3] memory ids = handler.challengeIds();
        for (uint256 i; i < ids.length; ++i) {
            uint256 id = ids[i];
            GeopoemPot.State memory s = pot.stateOf(id);
            uint256 prizes = handler.prizesOf(id);
            uint256 refunds = handler.refundsOf(id);
            uint256 out = prizes + handler.shareOf(id) + refunds;
            assertTrue(prizes == 0 || refunds == 0, "prizes and refunds from one challenge");
            assertLe(out, handler.inOf(id), "never more than its own stakes and bond");
            assertEq(s.pot, handler.potOf(id), "its pot is its stakes");
            assertEq(s.refundedStake, handler.refundedStakeOf(id), "refunded stakes");
            assertEq(s.refundedBond, handler.refundedBondOf(id), "refunded bond");
            assertEq(s.earliestPaid, handler.paid(id, 0), "earliest paid once");
            assertEq(s.highestPaid, handler.paid(id, 1), "highest paid once");
            assertEq(s.sharePaid, handler.sharePaid(id), "share paid once");
            if (s.earliestPaid && s.highestPaid && s.sharePaid) {
                assertEq(out, handler.inOf(id), "a settled challenge paid out all of its stakes and bond");
            }
            if (s.refundedStake == s.pot && s.pot > 0 && (s.aborted || s.sharePaid)) {
                assertEq(refunds + handler.shareOf(id), handler.inOf(id), "every stake refunded: all of it");
            }
        }
    }

    /// No function lets the operator's key reach a stake: after posting the bonds, it never receives.
    /// Nor does whoever sends the calls (the relayer here): payments go to recorded addresses only.
    function neitherTheOperatorNorACallerReceivesAUnit() internal view {
        assertEq(balance(operator), handler.operatorStart(), "the operator's balance");
        assertEq(balance(relayer), 0, "the relayer's balance");
    }
}
