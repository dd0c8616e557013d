// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Ownable, Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";

import {GeoMath} from "./GeoMath.sol";

/// EIP-3009's payee-only entry, as Circle's FiatToken v2.2 has it.
interface IReceiveWithAuthorization {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;
}

/// @title Geopoem's pot: it holds every stake, scores the revealed guesses and pays the winners.
/// @notice docs/protocol.md section 2 is its specification. One pot per chain; nothing in it can be
/// upgraded, paused or withdrawn by anyone. The owner (the operator's key) can only open challenges,
/// and hand that right on in two steps.
/// @dev Invariants (each has a test in contracts/test/):
///  1. The token balance is at least `owed`, and `owed` is exactly the stakes and bonds taken less the
///     prizes, shares and refunds paid. Only the excess over `owed` can be swept, to `sweepReceiver`.
///  2. A challenge's terms are written once, by its first `open`, and never change.
///  3. A stake is taken only in [opensAt, closesAt) and at or above the minimum; its USDC comes from
///     its payer (the signer of the authorization, or the caller of `stake`), never from anyone else.
///  4. The winners are the lowest correct sequence and the highest correct stake (ties to the lower
///     sequence) among the guesses revealed in the guess window, whatever the order of the reveals;
///     they never change after it.
///  5. A challenge either pays its two prizes and its share (summing to its pot, plus its bond back to
///     the share's receiver) or refunds every stake, never both, and only from its own stakes and bond.
///  6. Nobody is paid twice; every payment goes to a recorded payer or to an address fixed at deploy,
///     never to the caller.
contract GeopoemPot is Ownable2Step, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;
    using SafeCast for uint256;

    /// What `open` fixes for good. Times are Unix seconds; amounts are token units (USDC: 10^6 = 1).
    struct Terms {
        bytes32 solutionCommitment; // sha256 of the solution's reveal (solutionCommitment())
        bytes32 termsHash; // what players read: title, poem and instructions (docs/protocol.md 1)
        uint32 thresholdM; // a guess is correct within this great-circle distance, in metres
        uint32 opensAt; // stakes are taken from here...
        uint32 closesAt; // ...to here, excluded
        uint32 solutionDeadline; // the solution must be revealed before this, or every stake is refunded
        uint32 guessWindow; // seconds after the solution's reveal in which guesses may be revealed
        uint64 minStake; // the smallest stake taken
        uint96 bond; // posted by the operator at open; the payers' if the solution is never revealed
    }

    /// The slot every stake reads and writes.
    struct Book {
        uint32 opensAt;
        uint32 closesAt; // 0: not opened
        uint64 minStake;
        uint32 stakeCount; // the last sequence number given; sequences start at 1
        uint96 pot; // the sum of the stakes
    }

    struct Rules {
        uint32 solutionDeadline;
        uint32 guessWindow;
        uint32 thresholdM;
        uint96 bond;
        uint8 settled; // FINALIZED | EARLIEST_PAID | HIGHEST_PAID | SHARE_PAID
    }

    /// Written by the solution's reveal: its unit vector (GeoMath) and the end of the guess window.
    struct Solution {
        int64 x;
        int64 y;
        int64 z;
        uint32 guessDeadline; // 0: not revealed
    }

    /// The best correct guesses revealed so far. NO_SEQ when there is none, so the slot is never zero
    /// after open and the first winner's write costs no more than the others.
    struct Best {
        uint128 thresholdChordSq;
        uint32 earliestSeq;
        uint32 highestSeq;
        uint64 highestAmount;
    }

    struct Refunds {
        uint96 stake;
        uint96 bond;
    }

    struct Challenge {
        Book book;
        bytes32 termsDigest;
        bytes32 solutionCommitment;
        bytes32 termsHash;
        Rules rules;
        Solution solution;
        Best best;
        Refunds refunds;
    }

    uint8 public constant EARLIEST = 0;
    uint8 public constant HIGHEST = 1;
    uint8 public constant SHARE = 2;
    uint256 public constant PRIZE_PERCENT = 40;
    uint256 public constant MIN_STAKE_FLOOR = 1_000_000; // 1 USDC
    uint256 public constant MAX_OPEN_SECONDS = 90 days;
    uint256 public constant MAX_SOLUTION_DELAY = 30 days;
    uint256 public constant MIN_GUESS_WINDOW = 1 hours;
    uint256 public constant MAX_GUESS_WINDOW = 30 days;
    bytes32 public constant GUESS_TAG = "geopoem:guess:v2";
    bytes32 public constant SOLUTION_TAG = "geopoem:solution:v2";
    bytes32 public constant STAKE_TAG = "geopoem:stake:v1";

    uint32 private constant NO_SEQ = type(uint32).max;
    uint8 private constant FINALIZED = 1;
    uint8 private constant EARLIEST_PAID = 2;
    uint8 private constant HIGHEST_PAID = 4;
    uint8 private constant SHARE_PAID = 8;

    IERC20 public immutable token;
    /// Receives the 20 % share (with the bond back) of every challenge that had a winner.
    address public immutable shareReceiver;
    /// Receives what was sent to the pot outside a stake (the excess of the balance over `owed`).
    address public immutable sweepReceiver;

    /// What the pot owes: stakes and bonds taken, less prizes, shares and refunds paid.
    uint256 public owed;

    mapping(uint256 challengeId => Challenge) private _challenges;
    /// keccak256(abi.encode(payer, amount, commitment)) of each stake; deleted when refunded.
    mapping(uint256 challengeId => mapping(uint256 seq => bytes32)) private _stakes;

    event Opened(uint256 indexed challengeId, Terms terms, bytes32 termsDigest);
    event Staked(uint256 indexed challengeId, address indexed payer, uint256 seq, uint256 amount, bytes32 commitment);
    event SolutionRevealed(uint256 indexed challengeId, int256 latE6, int256 lonE6, bytes32 salt, uint256 guessDeadline);
    /// The guess, as the contract scored it (its salt opened the stake's commitment; the site publishes it).
    event GuessRevealed(
        uint256 indexed challengeId, address indexed payer, uint256 seq, int256 latE6, int256 lonE6, bool correct
    );
    /// Sequences are 0 when there is no correct guess; then every stake is refunded instead.
    event Finalized(
        uint256 indexed challengeId,
        uint256 earliestSeq,
        uint256 highestSeq,
        uint256 earliestPrize,
        uint256 highestPrize,
        uint256 share
    );
    event Paid(uint256 indexed challengeId, uint8 indexed kind, address indexed to, uint256 amount);
    event Refunded(uint256 indexed challengeId, address indexed payer, uint256 seq, uint256 stake, uint256 bondShare);
    event Swept(address indexed to, uint256 amount);

    // open
    error AlreadyOpened(uint256 challengeId);
    error CloseNotAfterOpen(uint256 opensAt, uint256 closesAt);
    error CloseInThePast(uint256 closesAt);
    error OpenTooLong(uint256 seconds_, uint256 max);
    error SolutionDeadlineOutOfRange(uint256 solutionDeadline);
    error GuessWindowOutOfRange(uint256 guessWindow);
    error MinimumStakeTooLow(uint256 minStake, uint256 floor);
    error ThresholdTooLarge(uint256 thresholdM, uint256 max);
    // stakes
    error NotOpened(uint256 challengeId);
    error NotOpenYet(uint256 opensAt);
    error StakingClosed(uint256 closesAt);
    error StakeBelowMinimum(uint256 amount, uint256 minStake);
    // reveals
    error SolutionTooEarly(uint256 closesAt);
    error SolutionDeadlinePassed(uint256 solutionDeadline);
    error SolutionAlreadyRevealed(uint256 challengeId);
    error WrongSolution(uint256 challengeId);
    error SolutionNotRevealed(uint256 challengeId);
    error GuessWindowClosed(uint256 guessDeadline);
    error GuessDoesNotOpenStake(uint256 challengeId, uint256 seq);
    // settlement
    error GuessWindowOpen(uint256 guessDeadline);
    error AlreadyFinalized(uint256 challengeId);
    error NotFinalized(uint256 challengeId);
    error NoWinner(uint256 challengeId);
    error UnknownKind(uint8 kind);
    error AlreadyPaid(uint256 challengeId, uint8 kind);
    error NothingToPay(uint256 challengeId);
    error NotRefundable(uint256 challengeId);
    error NothingToSweep();

    constructor(IERC20 token_, address operator, address shareReceiver_, address sweepReceiver_) Ownable(operator) {
        token = token_;
        shareReceiver = shareReceiver_;
        sweepReceiver = sweepReceiver_;
    }

    // ---------------------------------------------------------------------------------------------
    // Opening

    /// Fix a challenge's terms. Only the operator; the first open of an id wins. The bond is pulled
    /// from the operator (an approval first) and is the payers' if the solution is never revealed.
    function open(uint256 challengeId, Terms calldata terms) external onlyOwner nonReentrant {
        Challenge storage c = _challenges[challengeId];
        if (c.book.closesAt != 0) revert AlreadyOpened(challengeId);
        _checkTerms(terms);
        bytes32 digest = termsDigestOf(challengeId, terms);
        c.book = Book(terms.opensAt, terms.closesAt, terms.minStake, 0, 0);
        c.termsDigest = digest;
        c.solutionCommitment = terms.solutionCommitment;
        c.termsHash = terms.termsHash;
        c.rules = Rules(terms.solutionDeadline, terms.guessWindow, terms.thresholdM, terms.bond, 0);
        c.best = Best(uint128(GeoMath.thresholdChordSq(terms.thresholdM)), NO_SEQ, NO_SEQ, 0);
        emit Opened(challengeId, terms, digest);
        if (terms.bond > 0) {
            owed += terms.bond;
            token.safeTransferFrom(msg.sender, address(this), terms.bond);
        }
    }

    function _checkTerms(Terms calldata t) private view {
        if (t.closesAt <= t.opensAt) revert CloseNotAfterOpen(t.opensAt, t.closesAt);
        if (t.closesAt <= block.timestamp) revert CloseInThePast(t.closesAt);
        if (t.closesAt - t.opensAt > MAX_OPEN_SECONDS) revert OpenTooLong(t.closesAt - t.opensAt, MAX_OPEN_SECONDS);
        if (t.solutionDeadline <= t.closesAt || t.solutionDeadline - t.closesAt > MAX_SOLUTION_DELAY) {
            revert SolutionDeadlineOutOfRange(t.solutionDeadline);
        }
        if (t.guessWindow < MIN_GUESS_WINDOW || t.guessWindow > MAX_GUESS_WINDOW) {
            revert GuessWindowOutOfRange(t.guessWindow);
        }
        if (t.minStake < MIN_STAKE_FLOOR) revert MinimumStakeTooLow(t.minStake, MIN_STAKE_FLOOR);
        if (t.thresholdM >= GeoMath.HALF_CIRCUMFERENCE_M) {
            revert ThresholdTooLarge(t.thresholdM, GeoMath.HALF_CIRCUMFERENCE_M - 1);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Stakes

    /// Take a stake the payer signed (EIP-3009 ReceiveWithAuthorization to this pot), sent by anyone:
    /// Geopoem's relayer, or the payer's own wallet. The signed nonce is stakeNonce(challengeId,
    /// commitment, amount), so the signature funds exactly this stake on this challenge's terms.
    function stakeWithAuthorization(
        uint256 challengeId,
        bytes32 commitment,
        address payer,
        uint256 amount,
        uint256 validAfter,
        uint256 validBefore,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external nonReentrant returns (uint256 seq) {
        Challenge storage c = _challenges[challengeId];
        seq = _record(c, challengeId, payer, amount, commitment);
        bytes32 nonce = _stakeNonce(challengeId, c.termsDigest, commitment, amount);
        IReceiveWithAuthorization(address(token)).receiveWithAuthorization(
            payer, address(this), amount, validAfter, validBefore, nonce, v, r, s
        );
    }

    /// Take a stake from the caller's approval (for wallets that cannot sign typed data). The payer is
    /// always the caller, so nobody can spend another player's approval.
    function stake(uint256 challengeId, bytes32 commitment, uint256 amount) external nonReentrant returns (uint256 seq) {
        seq = _record(_challenges[challengeId], challengeId, msg.sender, amount, commitment);
        token.safeTransferFrom(msg.sender, address(this), amount);
    }

    function _record(Challenge storage c, uint256 challengeId, address payer, uint256 amount, bytes32 commitment)
        private
        returns (uint256 seq)
    {
        Book memory book = c.book;
        if (book.closesAt == 0) revert NotOpened(challengeId);
        if (block.timestamp < book.opensAt) revert NotOpenYet(book.opensAt);
        if (block.timestamp >= book.closesAt) revert StakingClosed(book.closesAt);
        if (amount < book.minStake) revert StakeBelowMinimum(amount, book.minStake);
        uint64 amount64 = amount.toUint64();
        book.stakeCount += 1;
        book.pot += amount64;
        c.book = book;
        owed += amount64;
        seq = book.stakeCount;
        _stakes[challengeId][seq] = _stakeHash(payer, amount64, commitment);
        emit Staked(challengeId, payer, seq, amount, commitment);
    }

    // ---------------------------------------------------------------------------------------------
    // Reveals

    /// Reveal the solution, by anyone who holds it: from the close to the solution deadline. Opens the
    /// guess window for `guessWindow` seconds.
    function revealSolution(uint256 challengeId, int256 latE6, int256 lonE6, bytes32 salt) external {
        Challenge storage c = _challenges[challengeId];
        uint256 closesAt = c.book.closesAt;
        if (closesAt == 0) revert NotOpened(challengeId);
        if (block.timestamp < closesAt) revert SolutionTooEarly(closesAt);
        Rules memory rules = c.rules;
        if (block.timestamp >= rules.solutionDeadline) revert SolutionDeadlinePassed(rules.solutionDeadline);
        if (c.solution.guessDeadline != 0) revert SolutionAlreadyRevealed(challengeId);
        if (
            !GeoMath.inRange(latE6, lonE6)
                || solutionCommitment(challengeId, latE6, lonE6, salt) != c.solutionCommitment
        ) revert WrongSolution(challengeId);
        (int64 x, int64 y, int64 z) = GeoMath.unitVector(latE6, lonE6);
        uint32 guessDeadline = (block.timestamp + rules.guessWindow).toUint32();
        c.solution = Solution(x, y, z, guessDeadline);
        emit SolutionRevealed(challengeId, latE6, lonE6, salt, guessDeadline);
    }

    /// Reveal the guess of stake `seq`, by anyone who holds it, in the guess window. A guess out of
    /// range scores incorrect (the reveal still succeeds); revealing a guess again changes nothing.
    function revealGuess(
        uint256 challengeId,
        uint256 seq,
        address payer,
        uint256 amount,
        int256 latE6,
        int256 lonE6,
        bytes32 salt
    ) external returns (bool correct) {
        Challenge storage c = _challenges[challengeId];
        Solution memory sol = c.solution;
        if (sol.guessDeadline == 0) revert SolutionNotRevealed(challengeId);
        if (block.timestamp >= sol.guessDeadline) revert GuessWindowClosed(sol.guessDeadline);
        bytes32 commitment = guessCommitment(challengeId, payer, latE6, lonE6, salt);
        if (_stakes[challengeId][seq] != _stakeHash(payer, amount, commitment)) {
            revert GuessDoesNotOpenStake(challengeId, seq);
        }
        Best memory best = c.best;
        if (GeoMath.inRange(latE6, lonE6)) {
            (int64 x, int64 y, int64 z) = GeoMath.unitVector(latE6, lonE6);
            correct = GeoMath.chordSq(x, y, z, sol.x, sol.y, sol.z) <= best.thresholdChordSq;
        }
        if (correct) {
            // The stake hash matched, so seq ≤ stakeCount < 2^32 and amount < 2^64.
            uint32 seq32 = uint32(seq);
            uint64 amount64 = uint64(amount);
            bool better;
            if (seq32 < best.earliestSeq) {
                best.earliestSeq = seq32;
                better = true;
            }
            if (amount64 > best.highestAmount || (amount64 == best.highestAmount && seq32 < best.highestSeq)) {
                best.highestSeq = seq32;
                best.highestAmount = amount64;
                better = true;
            }
            if (better) c.best = best;
        }
        emit GuessRevealed(challengeId, payer, seq, latE6, lonE6, correct);
    }

    // ---------------------------------------------------------------------------------------------
    // Settlement: anyone may call each step; the money only ever goes to a recorded payer or to an
    // address fixed at deploy.

    /// Close the guess window's books: the winners are fixed from here.
    function finalize(uint256 challengeId) external {
        Challenge storage c = _challenges[challengeId];
        uint256 guessDeadline = c.solution.guessDeadline;
        if (guessDeadline == 0) revert SolutionNotRevealed(challengeId);
        if (block.timestamp < guessDeadline) revert GuessWindowOpen(guessDeadline);
        uint8 settled = c.rules.settled;
        if (settled & FINALIZED != 0) revert AlreadyFinalized(challengeId);
        c.rules.settled = settled | FINALIZED;
        Best memory best = c.best;
        if (best.earliestSeq == NO_SEQ) {
            emit Finalized(challengeId, 0, 0, 0, 0, 0);
        } else {
            (uint256 prize, uint256 share) = _split(c.book.pot);
            emit Finalized(challengeId, best.earliestSeq, best.highestSeq, prize, prize, share);
        }
    }

    /// Pay the earliest (kind 0) or the highest (kind 1) prize to the winning stake's payer. The
    /// caller names the stake (payer, amount, commitment: the Staked event's), which must be the winner.
    function payPrize(uint256 challengeId, uint8 kind, address payer, uint256 amount, bytes32 commitment)
        external
        nonReentrant
    {
        if (kind > HIGHEST) revert UnknownKind(kind);
        Challenge storage c = _challenges[challengeId];
        uint8 settled = c.rules.settled;
        if (settled & FINALIZED == 0) revert NotFinalized(challengeId);
        uint8 paidFlag = kind == EARLIEST ? EARLIEST_PAID : HIGHEST_PAID;
        if (settled & paidFlag != 0) revert AlreadyPaid(challengeId, kind);
        Best memory best = c.best;
        uint256 seq = kind == EARLIEST ? best.earliestSeq : best.highestSeq;
        if (seq == NO_SEQ) revert NoWinner(challengeId);
        if (_stakes[challengeId][seq] != _stakeHash(payer, amount, commitment)) {
            revert GuessDoesNotOpenStake(challengeId, seq);
        }
        (uint256 prize,) = _split(c.book.pot);
        c.rules.settled = settled | paidFlag;
        owed -= prize;
        emit Paid(challengeId, kind, payer, prize);
        token.safeTransfer(payer, prize);
    }

    /// Pay the 20 % share and the bond back to `shareReceiver`: after a finalized challenge (the share
    /// is 0 when nobody won), or after an abort that nobody staked in (the bond alone).
    function payShare(uint256 challengeId) external nonReentrant {
        Challenge storage c = _challenges[challengeId];
        Rules memory rules = c.rules;
        if (rules.settled & SHARE_PAID != 0) revert AlreadyPaid(challengeId, SHARE);
        uint256 amount;
        if (rules.settled & FINALIZED != 0) {
            if (c.best.earliestSeq != NO_SEQ) (, amount) = _split(c.book.pot);
            amount += rules.bond;
        } else if (_aborted(c) && c.book.stakeCount == 0) {
            amount = rules.bond;
        } else {
            revert NotFinalized(challengeId);
        }
        if (amount == 0) revert NothingToPay(challengeId);
        c.rules.settled = rules.settled | SHARE_PAID;
        owed -= amount;
        emit Paid(challengeId, SHARE, shareReceiver, amount);
        token.safeTransfer(shareReceiver, amount);
    }

    /// Refund stake `seq` to its payer: when the challenge was finalized with no correct guess, or was
    /// aborted (its solution not revealed by the deadline), when the payer also gets a share of the bond
    /// in proportion to the stake (the last refund takes what remains, so none of it is left behind).
    function refund(uint256 challengeId, uint256 seq, address payer, uint256 amount, bytes32 commitment)
        external
        nonReentrant
    {
        Challenge storage c = _challenges[challengeId];
        bool aborted = _aborted(c);
        bool noWinner = c.rules.settled & FINALIZED != 0 && c.best.earliestSeq == NO_SEQ;
        if (!aborted && !noWinner) revert NotRefundable(challengeId);
        if (_stakes[challengeId][seq] != _stakeHash(payer, amount, commitment)) {
            revert GuessDoesNotOpenStake(challengeId, seq);
        }
        delete _stakes[challengeId][seq];
        uint256 bondShare;
        Refunds memory done = c.refunds;
        if (aborted) {
            uint256 potLeft = c.book.pot - done.stake;
            bondShare = (uint256(c.rules.bond - done.bond) * amount) / potLeft;
            done.bond += uint96(bondShare); // ≤ the bond, a uint96
        }
        done.stake += uint96(amount); // ≤ the pot, a uint96
        c.refunds = done;
        owed -= amount + bondShare;
        emit Refunded(challengeId, payer, seq, amount, bondShare);
        token.safeTransfer(payer, amount + bondShare);
    }

    /// Send what the pot holds beyond what it owes (USDC sent to it outside a stake) to sweepReceiver.
    function sweep() external nonReentrant {
        uint256 balance = token.balanceOf(address(this));
        if (balance <= owed) revert NothingToSweep();
        uint256 amount = balance - owed;
        emit Swept(sweepReceiver, amount);
        token.safeTransfer(sweepReceiver, amount);
    }

    // ---------------------------------------------------------------------------------------------
    // Views and the encodings (docs/protocol.md section 1)

    /// The nonce a payer signs for a stake: it binds this chain, this pot, the challenge and its terms,
    /// the guess commitment and the amount.
    function stakeNonce(uint256 challengeId, bytes32 commitment, uint256 amount) external view returns (bytes32) {
        bytes32 digest = _challenges[challengeId].termsDigest;
        if (digest == 0) revert NotOpened(challengeId);
        return _stakeNonce(challengeId, digest, commitment, amount);
    }

    function guessCommitment(uint256 challengeId, address payer, int256 latE6, int256 lonE6, bytes32 salt)
        public
        view
        returns (bytes32)
    {
        return sha256(abi.encode(GUESS_TAG, block.chainid, address(this), challengeId, payer, latE6, lonE6, salt));
    }

    function solutionCommitment(uint256 challengeId, int256 latE6, int256 lonE6, bytes32 salt)
        public
        view
        returns (bytes32)
    {
        return sha256(abi.encode(SOLUTION_TAG, block.chainid, address(this), challengeId, latE6, lonE6, salt));
    }

    function termsDigestOf(uint256 challengeId, Terms calldata terms) public pure returns (bytes32) {
        return keccak256(abi.encode(challengeId, terms));
    }

    function termsOf(uint256 challengeId) external view returns (Terms memory terms, bytes32 termsDigest) {
        Challenge storage c = _challenges[challengeId];
        terms = Terms(
            c.solutionCommitment,
            c.termsHash,
            c.rules.thresholdM,
            c.book.opensAt,
            c.book.closesAt,
            c.rules.solutionDeadline,
            c.rules.guessWindow,
            c.book.minStake,
            c.rules.bond
        );
        termsDigest = c.termsDigest;
    }

    /// A challenge's state. Sequences are 0 when there is none.
    struct State {
        uint256 stakeCount;
        uint256 pot;
        uint256 guessDeadline; // 0 until the solution is revealed
        uint256 earliestSeq;
        uint256 highestSeq;
        uint256 highestAmount;
        bool finalized;
        bool earliestPaid;
        bool highestPaid;
        bool sharePaid;
        bool aborted;
        uint256 refundedStake;
        uint256 refundedBond;
        uint256 thresholdChordSq;
    }

    function stateOf(uint256 challengeId) external view returns (State memory s) {
        Challenge storage c = _challenges[challengeId];
        Best memory best = c.best;
        uint8 settled = c.rules.settled;
        s.stakeCount = c.book.stakeCount;
        s.pot = c.book.pot;
        s.guessDeadline = c.solution.guessDeadline;
        s.earliestSeq = best.earliestSeq == NO_SEQ ? 0 : best.earliestSeq;
        s.highestSeq = best.highestSeq == NO_SEQ ? 0 : best.highestSeq;
        s.highestAmount = best.highestAmount;
        s.finalized = settled & FINALIZED != 0;
        s.earliestPaid = settled & EARLIEST_PAID != 0;
        s.highestPaid = settled & HIGHEST_PAID != 0;
        s.sharePaid = settled & SHARE_PAID != 0;
        s.aborted = _aborted(c);
        s.refundedStake = c.refunds.stake;
        s.refundedBond = c.refunds.bond;
        s.thresholdChordSq = best.thresholdChordSq;
    }

    /// keccak256(abi.encode(payer, amount, commitment)) of stake `seq`; 0 when there is none or it
    /// was refunded.
    function stakeHash(uint256 challengeId, uint256 seq) external view returns (bytes32) {
        return _stakes[challengeId][seq];
    }

    function _stakeNonce(uint256 challengeId, bytes32 digest, bytes32 commitment, uint256 amount)
        private
        view
        returns (bytes32)
    {
        return keccak256(abi.encode(STAKE_TAG, block.chainid, address(this), challengeId, digest, commitment, amount));
    }

    function _stakeHash(address payer, uint256 amount, bytes32 commitment) private pure returns (bytes32) {
        return keccak256(abi.encode(payer, amount, commitment));
    }

    /// The 40 % prize (each of two) and the share, which takes the remainder: nothing is left over.
    function _split(uint256 pot) private pure returns (uint256 prize, uint256 share) {
        prize = (pot * PRIZE_PERCENT) / 100;
        share = pot - 2 * prize;
    }

    /// The solution was not revealed before its deadline.
    function _aborted(Challenge storage c) private view returns (bool) {
        return c.book.closesAt != 0 && c.solution.guessDeadline == 0 && block.timestamp >= c.rules.solutionDeadline;
    }
}
