"""Whether Geopoem's relayer takes a new signed stake (docs/protocol.md section 3, "The relayer decides
when"): its switch and key, the payer's count in the last 24 hours, the gas it spent in the last 24
hours and its balance. Asked by the POST of a signed stake (through responses/ports.py: a refusal is
stored on it, with the sentence the player reads) and by GET /api/payments/authorization
(relay_available, for the page).

Both answer from the database alone (no chain read while a request waits): the balance and the cost
of one stake are those the relayer last read (chain/relayer/watch.py reads them at least every
minute, chain/relayer/sender.py at each send). The relayer checks the same limits again under its
lock before it spends anything, so stakes posted at the same moment cannot slip past a limit
together."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from responses.models import RelayStatus
from responses.ports import RelayAdmission

from ..models import RelayerAccount
from .reasons import OUTCOMES, SWITCHED_OFF, Outcome, address_limit_outcome
from .selectors import relay_account, relay_queued_stakes, relay_spending, relay_taken_for_payer
from .signing import relayer_account


@dataclass(frozen=True)
class RelayAvailability:
    available: bool
    reason: str  # the sentence a refused stake would get; empty when available
    address: str | None  # the relayer's address, None without a key
    code: str = ""  # the refused stake's relayCode (chain/relayer/reasons.py); empty when available


def relayer_address() -> str | None:
    return relayer_account().address if settings.RELAYER_KEY else None


def _short(account: RelayerAccount | None) -> Outcome | None:
    """The refusal of the relay as a whole by its money, or "": its budget of the last 24 hours, or
    a balance (as last read) that cannot pay one more stake's gas after what is in flight and what
    is queued ahead of it. Unknown before the first read: the relayer checks again before it sends."""
    if account is None or account.stake_cost_wei is None:
        return None
    cost = int(account.stake_cost_wei)
    ahead = relay_queued_stakes() * cost
    spending = relay_spending(account=account)
    if spending.day_wei + ahead + cost > int(settings.RELAY_MAX_WEI_PER_DAY):
        return OUTCOMES["budget"]
    if account.balance_wei is not None and int(account.balance_wei) - spending.in_flight_wei - ahead < cost:
        return OUTCOMES["funds"]
    return None


def relay_available() -> RelayAvailability:
    """The relay as a whole: switched on, with a key, within its daily budget and its balance."""
    address = relayer_address()
    if not settings.RELAY_ENABLED or address is None:
        return RelayAvailability(available=False, reason=SWITCHED_OFF, address=address, code="switched_off")
    short = _short(relay_account(address=address))
    if short is not None:
        return RelayAvailability(available=False, reason=short.reason, address=address, code=short.code)
    return RelayAvailability(available=True, reason="", address=address)


def relay_admit(*, payer: str) -> RelayAdmission:
    """Queued, or refused with the player's sentence: the relay switched off, the payer's stakes
    relayed (or queued) in the last 24 hours at RELAY_MAX_PER_ADDRESS_PER_DAY, the relayer's budget
    or its balance."""
    availability = relay_available()
    if not availability.available:
        return RelayAdmission(status=RelayStatus.REFUSED, reason=availability.reason, code=availability.code)
    most = int(settings.RELAY_MAX_PER_ADDRESS_PER_DAY)
    if relay_taken_for_payer(address=payer) >= most:
        limit = address_limit_outcome(most)
        return RelayAdmission(status=limit.status, reason=limit.reason, code=limit.code)
    return RelayAdmission(status=RelayStatus.QUEUED)
