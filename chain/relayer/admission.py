"""Whether Geopoem's relayer takes a new signed stake (docs/protocol.md section 3, "The relayer decides
when"): its switch and key, the payer's count in the last 24 hours, the gas it spent in the last 24
hours and its balance. Asked by the POST of a signed stake (through responses/ports.py: a refusal is
stored on it, with the sentence the player reads) and by GET /api/payments/authorization
(relay_available, for the page).

Both answer from the database alone, in one statement (no chain read while a request waits): the
balance and the cost of one stake are those the relayer last read (chain/relayer/watch.py reads them at
least every minute, chain/relayer/sender.py at each send). The relayer checks the same limits again under its
lock before it spends anything, so stakes posted at the same moment cannot slip past a limit
together."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from responses.models import RelayStatus
from responses.ports import RelayAdmission

from .reasons import OUTCOMES, SWITCHED_OFF, Outcome, address_limit_outcome
from .selectors import AdmissionReads, relay_admission_reads
from .signing import relayer_account


@dataclass(frozen=True)
class RelayAvailability:
    available: bool
    reason: str  # the sentence a refused stake would get; empty when available
    address: str | None  # the relayer's address, None without a key
    code: str = ""  # the refused stake's relayCode (chain/relayer/reasons.py); empty when available


def relayer_address() -> str | None:
    return relayer_account().address if settings.RELAYER_KEY else None


def _short(reads: AdmissionReads) -> Outcome | None:
    """The refusal of the relay as a whole by its money, or "": its budget of the last 24 hours, or
    a balance (as last read) that cannot pay one more stake's gas after what is in flight and what
    is queued ahead of it. Unknown before the first read: the relayer checks again before it sends."""
    if reads.stake_cost_wei is None:
        return None
    cost = reads.stake_cost_wei
    ahead = reads.queued_stakes * cost
    spending = reads.spending
    if spending.day_wei + ahead + cost > int(settings.RELAY_MAX_WEI_PER_DAY):
        return OUTCOMES["budget"]
    if reads.balance_wei is not None and reads.balance_wei - spending.in_flight_wei - ahead < cost:
        return OUTCOMES["funds"]
    return None


def _availability(payer: str | None) -> tuple[RelayAvailability, AdmissionReads | None]:
    address = relayer_address()
    if not settings.RELAY_ENABLED or address is None:
        return RelayAvailability(available=False, reason=SWITCHED_OFF, address=address, code="switched_off"), None
    reads = relay_admission_reads(address=address, payer=payer)
    short = _short(reads)
    if short is not None:
        return RelayAvailability(available=False, reason=short.reason, address=address, code=short.code), reads
    return RelayAvailability(available=True, reason="", address=address), reads


def relay_available() -> RelayAvailability:
    """The relay as a whole: switched on, with a key, within its daily budget and its balance."""
    return _availability(None)[0]


def relay_admit(*, payer: str) -> RelayAdmission:
    """Queued, or refused with the player's sentence: the relay switched off, the payer's stakes
    relayed (or queued) in the last 24 hours at RELAY_MAX_PER_ADDRESS_PER_DAY, the relayer's budget
    or its balance."""
    availability, reads = _availability(payer)
    if not availability.available or reads is None:
        return RelayAdmission(status=RelayStatus.REFUSED, reason=availability.reason, code=availability.code)
    most = int(settings.RELAY_MAX_PER_ADDRESS_PER_DAY)
    if reads.taken_for_payer >= most:
        limit = address_limit_outcome(most)
        return RelayAdmission(status=limit.status, reason=limit.reason, code=limit.code)
    return RelayAdmission(status=RelayStatus.QUEUED)
