"""Where the chain app plugs into a claim's life. responses sits below chain and never imports it
(docs/architecture.md, "Layers"): chain/apps.py connects its verification here when Django starts.

- `claim_stored` is sent once a new pending claim is committed (responses/services.py); the chain
  app's receiver queues its verification.
- `claim_check` reads the claim's transaction while its POST waits (chain/checks.py,
  claim_check_at_post) and says what the read showed: a reason code that refuses the claim, whether
  it is the payer's own claim, and whether the transaction is mined. With no check registered,
  nothing was read and every claim is stored.
- `ledger_read_until` is the time of the last block the ledger indexer has read (chain/indexer.py):
  resolution waits until it is after the close (responses/barrier.py); with nothing registered
  nothing is known to be read, and resolution waits.
- `unclaimed_payments` lists the payments mined in a challenge's open window that name it and that
  no claim of the payer names (chain/selectors.py), for staff before they resolve.
- `authorization_check` checks a claim paid by a signed authorization while its POST waits (the
  signature under the token's domain, its window, the token's state: docs/protocol.md 3.3a).
- `relay_admit` asks the relayer whether it will send a new claim's authorization (queued) or not
  (refused, with the sentence the player reads); `relay_queued` is sent once such a claim is
  committed with its relay queued, and the chain app's receiver queues the relayer."""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.dispatch import Signal

logger = logging.getLogger(__name__)

claim_stored = Signal()  # kwargs: response_id


def queue_verification(response_id: int) -> None:
    """Send claim_stored for a committed pending claim (new, or re-opened: responses/reopening.py)."""
    try:
        # The chain app's receiver queues the verification (chain/apps.py).
        claim_stored.send(sender=None, response_id=response_id)
    except Exception:  # noqa: BLE001 - the broker being down must not lose the claim
        # The claim is committed; the sweeper re-queues stale pending claims once the broker is back.
        logger.warning("could not enqueue verification of response %s", response_id)


@dataclass(frozen=True)
class ClaimRead:
    """What one read of a claim's transaction showed. The default: nothing (no node answered in
    time, or none knows the hash)."""

    code: str | None = None  # the reason code of a claim this transaction can never confirm
    mined: bool = False  # a node holds the transaction in a block (not only in its pool)
    # Sent from the claim's address, carrying the claim's commitment: the payer's own claim
    # (responses/models.py, Response.sent_by_submitter).
    sent_by_submitter: bool = False
    nonce: int | None = None  # the transaction's nonce, when sent_by_submitter


ClaimCheck = Callable[..., ClaimRead]
_claim_check: ClaimCheck | None = None


def register_claim_check(check: ClaimCheck) -> None:
    global _claim_check
    _claim_check = check


def claim_check(
    *, transaction_hash: str, submitter_address: str, commitment: str, challenge_id: int, client: object | None
) -> ClaimRead:
    """What the claim's transaction shows now (bounded: the POST waits on it)."""
    if _claim_check is None:
        return ClaimRead()
    return _claim_check(
        transaction_hash=transaction_hash,
        submitter_address=submitter_address,
        commitment=commitment,
        challenge_id=challenge_id,
        client=client,
    )


# --- What the ledger has read, for resolution's start -------------------------------------------


@dataclass(frozen=True)
class UnclaimedPayment:
    """A payment to the treasury naming a challenge, mined in its open window, that no claim of the
    payer names: the player paid and the claim never reached the site (yet)."""

    transaction_hash: str
    from_address: str
    amount: Decimal  # USDC, exact
    block_number: int
    block_time: datetime | None


LedgerReadUntil = Callable[[], datetime | None]
UnclaimedPayments = Callable[..., list[UnclaimedPayment]]
_ledger_read_until: LedgerReadUntil | None = None
_unclaimed_payments: UnclaimedPayments | None = None


def register_ledger(
    *, read_until: LedgerReadUntil | None, unclaimed: UnclaimedPayments | None
) -> tuple[LedgerReadUntil | None, UnclaimedPayments | None]:
    """Plug the ledger in; returns what was registered before (a test puts it back)."""
    global _ledger_read_until, _unclaimed_payments
    before = _ledger_read_until, _unclaimed_payments
    _ledger_read_until, _unclaimed_payments = read_until, unclaimed
    return before


def ledger_read_until() -> datetime | None:
    """The time of the last block the ledger indexer has read, or None when it has read none."""
    return _ledger_read_until() if _ledger_read_until is not None else None


def unclaimed_payments(*, challenge_id: int, opened_at: datetime, closed_at: datetime | None) -> list[UnclaimedPayment]:
    """The unclaimed payments naming the challenge mined from `opened_at` to `closed_at` (None: to
    now), as far as the ledger has read; empty with nothing registered."""
    if _unclaimed_payments is None:
        return []
    return _unclaimed_payments(challenge_id=challenge_id, opened_at=opened_at, closed_at=closed_at)


# --- A claim paid by a signed authorization (docs/protocol.md section 2a) ------------------------

# What a refused relay says when no relayer is plugged in (the chain app registers the real one).
RELAY_SWITCHED_OFF = (
    "Geopoem's relay is switched off; send this payment yourself from your wallet (it needs a little ETH for gas)."
)


@dataclass(frozen=True)
class AuthorizationClaim:
    """A claim's authorization as posted: what the payer signed is rebuilt from the claim (from =
    the submitter, to = the treasury, value = the stake's units, nonce = the commitment)."""

    submitter_address: str
    commitment: str
    stake_units: int
    valid_after: int
    valid_before: int
    signature: str
    challenge_id: int


@dataclass(frozen=True)
class AuthorizationRead:
    """What the POST's check of an authorization showed."""

    code: str | None = None  # a code of reasons.REFUSED_AUTHORIZATION_AT_POST: refused, nothing stored
    used: bool = False  # the token shows it used already (AuthorizationUsed): stored, nothing relayed
    search_from_block: int | None = None  # where verification starts looking for its use
    unavailable: bool = False  # the token's domain is not known and could not be read now: 503
    unsupported: bool = False  # the token has no transfer authorizations: 409


AuthorizationCheck = Callable[..., AuthorizationRead]
_authorization_check: AuthorizationCheck | None = None


def register_authorization_check(check: AuthorizationCheck | None) -> AuthorizationCheck | None:
    """Plug the chain's check in; returns what was registered before (a test puts it back)."""
    global _authorization_check
    before, _authorization_check = _authorization_check, check
    return before


def authorization_check(claim: AuthorizationClaim, *, client: object | None) -> AuthorizationRead:
    """The authorization checked now (bounded: the POST waits on it). With no check registered no
    token is known to accept authorizations."""
    if _authorization_check is None:
        return AuthorizationRead(unsupported=True)
    return _authorization_check(claim, client=client)


@dataclass(frozen=True)
class RelayAdmission:
    status: str  # a RelayStatus value: "queued" or "refused"
    reason: str = ""  # the sentence a refused claim shows the player
    code: str = ""  # its relayCode (docs/protocol.md 3.3a), what a page decides on


RelayAdmit = Callable[..., RelayAdmission]
_relay_admit: RelayAdmit | None = None


def register_relay_admit(admit: RelayAdmit | None) -> RelayAdmit | None:
    global _relay_admit
    before, _relay_admit = _relay_admit, admit
    return before


def relay_admit(*, submitter_address: str) -> RelayAdmission:
    """Whether the relayer takes a new authorization of this payer (its switch, its limits, its funds)."""
    if _relay_admit is None:
        return RelayAdmission(status="refused", reason=RELAY_SWITCHED_OFF, code="switched_off")
    return _relay_admit(submitter_address=submitter_address)


relay_queued = Signal()  # kwargs: response_id


def queue_relay(response_id: int) -> None:
    """Send relay_queued for a committed claim whose authorization the relayer is to send."""
    try:
        relay_queued.send(sender=None, response_id=response_id)
    except Exception:  # noqa: BLE001 - the broker being down must not lose the claim
        # The relayer's beat picks up queued authorizations whose message was lost.
        logger.warning("could not enqueue the relay of response %s", response_id)
