"""What a refusal of the pot, or of the token behind it, means to a player (docs/protocol.md section 2,
"Refusals"): the revert data of a simulation or a receipt turned into a code and the sentence the
player reads. The page has the same table (frontend/src/lib/protocol/errors.ts)."""

from __future__ import annotations

from dataclasses import dataclass

from eth_abi import decode
from eth_utils import keccak


@dataclass(frozen=True)
class Refusal:
    code: str
    sentence: str
    detail: str  # the error's name or the revert text, for logs and staff


# The pot's named errors (contracts/GeopoemPot.sol): those a player's stake or reveal can meet, then the
# worker's and the operator's.
POT_ERRORS: dict[str, tuple[str, str, str]] = {
    # signature: (name, code, sentence)
    sig: (sig.split("(")[0], code, sentence)
    for sig, code, sentence in [
        (
            "NotOpened(uint256)",
            "not_opened",
            "This challenge's terms are not on chain yet, so it cannot take stakes.",
        ),
        ("NotOpenYet(uint256)", "not_open_yet", "This challenge does not take stakes yet."),
        ("StakingClosed(uint256)", "challenge_closed", "This challenge has closed: it takes no more stakes."),
        ("StakeBelowMinimum(uint256,uint256)", "stake_below_minimum", "The stake is below this challenge's minimum."),
        (
            "SafeCastOverflowedUintDowncast(uint8,uint256)",
            "stake_too_large",
            "The stake is larger than the pot accepts.",
        ),
        (
            "SolutionNotRevealed(uint256)",
            "solution_not_revealed",
            "The solution has not been revealed yet, so guesses cannot be revealed.",
        ),
        (
            "GuessWindowClosed(uint256)",
            "guess_window_closed",
            "The guess window has closed: no more guesses can be revealed.",
        ),
        (
            "GuessDoesNotOpenStake(uint256,uint256)",
            "guess_does_not_open_stake",
            "This guess and salt do not open that stake's commitment.",
        ),
        # Settlement and the solution: sent by the worker; the names say what happened.
        ("SolutionTooEarly(uint256)", "solution_too_early", "The challenge has not closed yet."),
        ("SolutionDeadlinePassed(uint256)", "solution_deadline_passed", "The solution deadline has passed."),
        ("SolutionAlreadyRevealed(uint256)", "solution_already_revealed", "The solution is already revealed."),
        ("WrongSolution(uint256)", "wrong_solution", "The solution does not open the committed solution."),
        ("GuessWindowOpen(uint256)", "guess_window_open", "The guess window is still open."),
        ("AlreadyFinalized(uint256)", "already_finalized", "The challenge is already finalized."),
        ("NotFinalized(uint256)", "not_finalized", "The challenge is not finalized yet."),
        ("NoWinner(uint256)", "no_winner", "Nobody won this prize."),
        ("UnknownKind(uint8)", "unknown_kind", "No such prize."),
        ("AlreadyPaid(uint256,uint8)", "already_paid", "This payment was already made."),
        ("NothingToPay(uint256)", "nothing_to_pay", "There is nothing to pay."),
        ("NotRefundable(uint256)", "not_refundable", "This stake cannot be refunded."),
        ("NothingToSweep()", "nothing_to_sweep", "There is nothing to sweep."),
        # The operator's `open` (chain/pot/opening.py shows staff the name); challenges/terms.py refuses
        # the same terms at publish.
        ("AlreadyOpened(uint256)", "already_opened", "This challenge id is already opened in the pot."),
        ("CloseNotAfterOpen(uint256,uint256)", "close_not_after_open", "The close must come after the opening."),
        ("CloseInThePast(uint256)", "close_in_the_past", "The close must be in the future."),
        ("OpenTooLong(uint256,uint256)", "open_too_long", "A challenge can be open for at most 90 days."),
        (
            "SolutionDeadlineOutOfRange(uint256)",
            "solution_deadline_out_of_range",
            "The solution deadline must come after the close, and at most 30 days after it.",
        ),
        ("GuessWindowOutOfRange(uint256)", "guess_window_out_of_range", "The guess window must be 1 hour to 30 days."),
        ("MinimumStakeTooLow(uint256,uint256)", "minimum_stake_too_low", "The minimum stake must be at least 1 USDC."),
        (
            "ThresholdTooLarge(uint256,uint256)",
            "threshold_too_large",
            "The threshold must be below half the earth's circumference.",
        ),
        # OpenZeppelin's, inherited by the pot.
        ("OwnableUnauthorizedAccount(address)", "not_owner", "Only the pot's owner (the operator) may do this."),
        ("OwnableInvalidOwner(address)", "invalid_owner", "That address cannot own the pot."),
        ("ReentrancyGuardReentrantCall()", "reentrant_call", "The pot refuses a call from inside one of its own."),
        ("SafeERC20FailedOperation(address)", "token_failed", "The token refused the transfer."),
    ]
}
SELECTORS = {"0x" + keccak(text=sig)[:4].hex(): entry for sig, entry in POT_ERRORS.items()}
ERROR_STRING = "0x08c379a0"  # Error(string)

ALLOWANCE_SENTENCE = "The pot is not allowed to take this much USDC from this wallet yet (approve it first)."

# The token's revert texts (Circle's FiatToken v2.2, and contracts/TestUSDC.sol, which copies them).
TOKEN_REVERTS: list[tuple[str, str, str]] = [
    (
        "Pausable: paused",
        "token_paused",
        "The USDC token is paused by its issuer, so no USDC can move right now; try again later.",
    ),
    (
        "Blacklistable: account is blacklisted",
        "payer_blacklisted",
        "The USDC token's issuer has blocked this wallet, so it cannot pay a stake.",
    ),
    (
        "FiatTokenV2: invalid signature",
        "invalid_authorization",
        "The payment authorization is not this wallet's signature for this stake.",
    ),
    (
        "FiatTokenV2: authorization is used or canceled",
        "authorization_used",
        "This payment authorization has already been used or was cancelled.",
    ),
    (
        "FiatTokenV2: authorization is expired",
        "authorization_expired",
        "The payment authorization has expired; sign a new one.",
    ),
    (
        "FiatTokenV2: authorization is not yet valid",
        "authorization_window",
        "The payment authorization is not valid yet.",
    ),
    ("transfer amount exceeds balance", "insufficient_balance", "This wallet does not hold enough USDC for the stake."),
    ("exceeds allowance", "insufficient_allowance", ALLOWANCE_SENTENCE),
    ("insufficient allowance", "insufficient_allowance", ALLOWANCE_SENTENCE),
]

UNKNOWN = "refused_by_chain"
UNKNOWN_SENTENCE = "The chain refused this call."


def refusal(revert_data: str, message: str = "") -> Refusal:
    """The refusal a revert's return data (0x hex; "0x" when the node gave none) and the node's
    message say: a named error of the pot, a revert text of the token, else an unknown refusal."""
    data = (revert_data or "0x").lower()
    entry = SELECTORS.get(data[:10])
    if entry is not None:
        name, code, sentence = entry
        return Refusal(code=code, sentence=sentence, detail=name)
    text = message
    if data.startswith(ERROR_STRING) and len(data) > 10:
        try:
            (text,) = decode(["string"], bytes.fromhex(data[10:]))
        except Exception:  # noqa: BLE001 - malformed revert data: fall back to the node's message
            text = message
    for fragment, code, sentence in TOKEN_REVERTS:
        if fragment in text:
            return Refusal(code=code, sentence=sentence, detail=text)
    return Refusal(code=UNKNOWN, sentence=UNKNOWN_SENTENCE, detail=text or data)
