"""Whether Geopoem's relayer takes a new authorization (docs/protocol.md section 2a, "The
relayer"): its switch and key, the payer's count in the last 24 hours, the gas it spent in the last
24 hours and its balance. Asked by the POST of a claim paid by authorization (through
responses/hooks.py, relay_admit: a refusal is stored on the claim, with the sentence the player
reads) and by GET /api/payments/authorization (relay_available, for the page)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from eth_account import Account

from responses.hooks import RELAY_SWITCHED_OFF, RelayAdmission
from responses.models import RelayStatus


@dataclass(frozen=True)
class RelayAvailability:
    available: bool
    reason: str  # the sentence a refused claim would get; empty when available
    address: str | None  # the relayer's address, None without a key


def relayer_address() -> str | None:
    key = settings.RELAYER_KEY
    return Account.from_key(key).address if key else None


def relay_available() -> RelayAvailability:
    """The relay as a whole: switched on, with a key."""
    address = relayer_address()
    if not settings.RELAY_ENABLED or address is None:
        return RelayAvailability(available=False, reason=RELAY_SWITCHED_OFF, address=address)
    return RelayAvailability(available=True, reason="", address=address)


def relay_admit(*, submitter_address: str) -> RelayAdmission:
    """Queued, or refused with the player's sentence."""
    availability = relay_available()
    if not availability.available:
        return RelayAdmission(status=RelayStatus.REFUSED, reason=availability.reason)
    return RelayAdmission(status=RelayStatus.QUEUED)
