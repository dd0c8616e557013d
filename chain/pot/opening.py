"""The operator's `open` of a published challenge in the pot (docs/protocol.md section 2, "Terms, opened
once"; the task is chain/tasks.py, open_challenge). The worker sends the terms fixed at publish
(challenges.models.PotOpening) with POT_OPERATOR_KEY, after posting the bond's approval when there is
one, and re-sends a transaction no node knows after POT_OPEN_RESEND_SECONDS. It never confirms an
opening itself: the follower does, from the Opened event once it is deep enough and holds these
terms (chain/pot/projection.py)."""

from __future__ import annotations

import logging
from datetime import timedelta
from functools import lru_cache

from django.conf import settings
from django.utils import timezone
from eth_account import Account
from eth_account.signers.local import LocalAccount
from eth_utils import to_checksum_address

from challenges.models import OpeningStatus, PotOpening
from challenges.services import opening_failed, opening_note, opening_requeue, opening_sent

from ..models import PotEvent
from ..node.calls import as_int, rpc_batch, simulation_call, word
from ..node.client import ChainClient, Reverted, get_client
from ..node.sending import SENT, UNKNOWN, broadcast, read_account, sign
from . import abi
from .encoding import Terms
from .errors import refusal

logger = logging.getLogger(__name__)

APPROVE = "0x095ea7b3"  # approve(address,uint256)
ALLOWANCE = "0xdd62ed3e"  # allowance(address,address)
APPROVE_GAS = 80_000


class OpeningPending(Exception):
    """On its way: look again later."""


@lru_cache(maxsize=4)
def _account(key: str) -> LocalAccount:
    return Account.from_key(key)


def operator_account() -> LocalAccount:
    return _account(settings.POT_OPERATOR_KEY)


def terms_of(opening: PotOpening) -> Terms:
    values = opening.terms
    return Terms(**{name: values[name] for name in values})


def opening_advance(*, challenge_id: int, client: ChainClient | None = None) -> str:
    """Move one challenge's opening as far as the chain allows now; returns its status. Raises
    OpeningPending while its transaction is on its way; ChainUnavailable when no node answers."""
    client = client or get_client()
    opening = PotOpening.objects.filter(challenge_id=challenge_id).first()
    if opening is None or opening.status in (OpeningStatus.CONFIRMED, OpeningStatus.FAILED):
        return opening.status if opening else ""
    if PotEvent.objects.filter(challenge_id=challenge_id, name="Opened").exists():
        # On chain already: the follower confirms it (or fails it: other terms) once it is deep.
        raise OpeningPending("opened on chain; waiting for its depth")
    if opening.status == OpeningStatus.QUEUED:
        _send(opening, client)
    else:
        _follow(opening, client)
    raise OpeningPending("sent; waiting for the chain")


def _send(opening: PotOpening, client: ChainClient) -> None:
    cid = opening.challenge_id
    if not settings.POT_OPERATOR_KEY:
        opening_failed(challenge_id=cid, error="POT_OPERATOR_KEY is not set: set it, then retry the opening.")
        return
    pot = to_checksum_address(opening.pot_address)
    account = operator_account()
    terms = terms_of(opening)
    data = abi.open_data(challenge_id=cid, terms=terms)
    nonce, balance, fees, _ = read_account(client, address=account.address)
    if terms.bond > 0:
        (allowance,) = rpc_batch(
            client,
            [
                (
                    "eth_call",
                    [{"to": settings.USDC_ADDRESS, "data": ALLOWANCE + word(account.address) + word(pot)}, "latest"],
                )
            ],
        )
        if isinstance(allowance, Reverted) or as_int(allowance) < terms.bond:
            approve = sign(
                account,
                nonce=nonce,
                to=settings.USDC_ADDRESS,
                data=APPROVE + word(pot) + word(terms.bond),
                gas=APPROVE_GAS,
                fees=fees,
            )
            if broadcast(client, approve.raw).outcome not in (SENT, UNKNOWN):
                opening_note(challenge_id=cid, error="The node refused the bond's approval; trying again.")
                return
            nonce += 1
    else:
        (simulated,) = rpc_batch(
            client, [simulation_call(to=pot, sender=account.address, data=data, gas=settings.POT_OPEN_GAS)]
        )
        if isinstance(simulated, Reverted):
            why = refusal(simulated.data, simulated.message)
            opening_failed(challenge_id=cid, error=f"The pot refuses to open this challenge: {why.detail}.")
            return
    signed = sign(account, nonce=nonce, to=pot, data=data, gas=settings.POT_OPEN_GAS, fees=fees)
    result = broadcast(client, signed.raw)
    if result.outcome not in (SENT, UNKNOWN):
        opening_note(challenge_id=cid, error=f"The node refused the open: {result.message}")
        return
    logger.info("opening of challenge %s sent in %s (nonce %s)", cid, signed.hash, signed.nonce)
    opening_sent(challenge_id=cid, transaction_hash=signed.hash, sender_address=account.address, nonce=signed.nonce)


def _follow(opening: PotOpening, client: ChainClient) -> None:
    cid = opening.challenge_id
    (receipt,) = rpc_batch(client, [("eth_getTransactionReceipt", [opening.transaction_hash])])
    if receipt is None:
        waited = timezone.now() - (opening.sent_at or opening.updated_at)
        if waited >= timedelta(seconds=settings.POT_OPEN_RESEND_SECONDS):
            opening_requeue(challenge_id=cid, error=f"{opening.transaction_hash} was not mined: sending again")
        return
    if as_int(receipt["status"]) != 1:
        opening_failed(
            challenge_id=cid,
            error=f"The open transaction {opening.transaction_hash} reverted "
            f"in block {as_int(receipt['blockNumber'])}.",
        )
