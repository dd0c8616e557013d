"""Where the chain app plugs into a claim's life. responses sits below chain and never imports it
(docs/architecture.md, "Layers"): chain/apps.py connects its verification here when Django starts.

- `claim_stored` is sent once a new pending claim is committed (responses/services.py); the chain
  app's receiver queues its verification.
- `claim_check` runs the part of verification that can refuse a claim while its POST waits
  (chain/checks.py, claim_check_at_post); with no check registered, every claim is stored.
- `ledger_read_until` is the time of the last block the ledger indexer has read (chain/indexer.py):
  resolution waits until it is after the close (responses/barrier.py); with nothing registered
  nothing is known to be read, and resolution waits.
- `unclaimed_payments` lists the payments mined in a challenge's open window that name it and that
  no claim of the payer names (chain/selectors.py), for staff before they resolve."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.dispatch import Signal

claim_stored = Signal()  # kwargs: response_id

ClaimCheck = Callable[..., str | None]
_claim_check: ClaimCheck | None = None


def register_claim_check(check: ClaimCheck) -> None:
    global _claim_check
    _claim_check = check


def claim_check(
    *, transaction_hash: str, submitter_address: str, commitment: str, challenge_id: int, client: object | None
) -> str | None:
    """The reason code of a claim its transaction shows can never be confirmed, or None."""
    if _claim_check is None:
        return None
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
