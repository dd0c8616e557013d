"""Writes to a claim's authorization (docs/protocol.md section 2a): the relay's progress, which the
chain app's relayer reports here so the claim's answers show it (responses/models.py,
StakeAuthorization). Each move is one conditional UPDATE from the statuses it may leave, so a
relayer that runs twice, or late, cannot move a claim backwards."""

from django.utils import timezone

from .models import RelayStatus, StakeAuthorization

# Where each status may be reached from. `queued` is only ever the first status; `refused`,
# `not_needed` and `failed` are final for the relayer (the player may still submit it themselves).
_MAY_FOLLOW: dict[str, tuple[str, ...]] = {
    RelayStatus.SENT: (RelayStatus.QUEUED, RelayStatus.SENT),
    RelayStatus.REFUSED: (RelayStatus.QUEUED,),
    RelayStatus.NOT_NEEDED: (RelayStatus.QUEUED, RelayStatus.SENT),
    RelayStatus.FAILED: (RelayStatus.QUEUED, RelayStatus.SENT),
}


def authorization_relay_moved(*, response_id: int, status: str, reason: str = "", transaction_hash: str = "") -> bool:
    """Move a claim's relay to `status` (with the player's sentence `reason`, and for `sent` the
    relayer's latest transaction); True when this call moved it. A `sent` claim may be sent again
    (a stuck transaction replaced with higher fees: the new hash)."""
    fields: dict[str, object] = {"relay_status": status, "relay_reason": reason, "updated_at": timezone.now()}
    if transaction_hash:
        fields["relay_transaction_hash"] = transaction_hash.lower()
    changed = StakeAuthorization.objects.filter(response_id=response_id, relay_status__in=_MAY_FOLLOW[status]).update(
        **fields
    )
    return bool(changed)
