"""Why a claim was rejected: the reason codes verification writes (chain/checks.py decides them)
and the sentence shown to the player beside each rejected claim (docs/protocol.md, section 2)."""


class Reason:
    TX_FAILED = "tx_failed"
    WRONG_TOKEN = "wrong_token"
    WRONG_SENDER = "wrong_sender"
    WRONG_RECIPIENT = "wrong_recipient"
    AMOUNT_MISMATCH = "amount_mismatch"
    COMMITMENT_MISMATCH = "commitment_mismatch"
    CHALLENGE_MISMATCH = "challenge_mismatch"
    NO_TRANSFER_LOG = "no_transfer_log"
    UNSUPPORTED_TRANSACTION = "unsupported_transaction"
    EARLY = "early"
    LATE = "late"
    NOT_FOUND = "not_found"
    REORGED = "reorged"
    # Every check passed, but the challenge's resolution had started: the sums are final
    # (responses/barrier.py); a ResolutionException row tells staff.
    AFTER_RESOLUTION = "after_resolution"
    # A claim paid by authorization (docs/protocol.md section 2a) whose authorization can never be used.
    AUTHORIZATION_EXPIRED = "authorization_expired"
    AUTHORIZATION_CANCELLED = "authorization_cancelled"
    # Refusals of an authorization at the POST (docs/protocol.md 3.3a): nothing is stored.
    INVALID_AUTHORIZATION = "invalid_authorization"
    AUTHORIZATION_WINDOW = "authorization_window"
    INSUFFICIENT_BALANCE = "insufficient_balance"


# One sentence per code, shown to the player beside the rejected claim.
REASON_SENTENCES: dict[str, str] = {
    Reason.TX_FAILED: "The payment transaction failed on chain, so no USDC was transferred.",
    Reason.WRONG_TOKEN: "The payment was made in a token other than USDC.",
    Reason.WRONG_SENDER: "The payment was sent from a different address than the one that submitted the guess.",
    Reason.WRONG_RECIPIENT: "The payment was not sent to the Geopoem treasury address.",
    Reason.AMOUNT_MISMATCH: "The amount paid does not match the stake of the guess.",
    Reason.COMMITMENT_MISMATCH: "The payment does not carry the commitment of this guess.",
    Reason.CHALLENGE_MISMATCH: "The payment was made for a different challenge.",
    Reason.NO_TRANSFER_LOG: "The transaction did not transfer USDC to the treasury.",
    Reason.UNSUPPORTED_TRANSACTION: (
        "The payment must be a direct USDC transfer from your wallet; transfers through a smart-contract "
        "wallet or another contract are not supported."
    ),
    Reason.EARLY: "The payment was made before the challenge's terms were committed on chain.",
    Reason.LATE: "The payment was confirmed on chain after the challenge had closed.",
    Reason.NOT_FOUND: "The payment transaction could not be found on chain.",
    Reason.REORGED: "The payment's block was dropped from the chain and the transaction did not return.",
    Reason.AFTER_RESOLUTION: (
        "This payment reached Geopoem after the challenge was resolved, so it does not count toward the prizes; "
        "staff have been told."
    ),
    Reason.AUTHORIZATION_EXPIRED: (
        "The payment authorization expired before it was used on chain, so no USDC was transferred."
    ),
    Reason.AUTHORIZATION_CANCELLED: "The payment authorization was cancelled, so no USDC was transferred.",
    Reason.INVALID_AUTHORIZATION: (
        "The payment authorization is not this wallet's signature for this guess, stake and treasury."
    ),
    Reason.AUTHORIZATION_WINDOW: (
        "The payment authorization has expired, or is valid for longer than Geopoem accepts; sign a new one."
    ),
    Reason.INSUFFICIENT_BALANCE: "This wallet does not hold enough USDC for the stake.",
}

# The codes that refuse a claim paid by authorization at its POST (docs/protocol.md 3.3a); never stored.
REFUSED_AUTHORIZATION_AT_POST = (
    Reason.INVALID_AUTHORIZATION,
    Reason.AUTHORIZATION_WINDOW,
    Reason.AUTHORIZATION_CANCELLED,
    Reason.INSUFFICIENT_BALANCE,
)

# Rejections that say a claim is not the payer's: it names another sender, or carries a guess the
# payment did not commit to (a stranger's claim on someone else's hash). Such a claim neither links
# nor hides the payment in the ledger (chain.selectors.payments_unclaimed).
NOT_THE_PAYERS_CLAIM = (Reason.WRONG_SENDER, Reason.COMMITMENT_MISMATCH)
