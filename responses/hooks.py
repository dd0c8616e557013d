"""Where the chain app plugs into a claim's life. responses sits below chain and never imports it
(docs/architecture.md, "Layers"): chain/apps.py connects its verification here when Django starts.

- `claim_stored` is sent once a new pending claim is committed (responses/services.py); the chain
  app's receiver queues its verification.
- `claim_check` runs the part of verification that can refuse a claim while its POST waits
  (chain/checks.py, claim_check_at_post); with no check registered, every claim is stored."""

from collections.abc import Callable

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
