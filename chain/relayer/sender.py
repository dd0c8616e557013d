"""Geopoem's relayer: it sends every call of the pot the site makes but `open` (docs/protocol.md
section 3, "The relayer decides when"): the players' signed stakes and the game's steps, and pays the
gas. This module sends; chain/relayer/watch.py follows what was sent (receipts, re-sends with higher
fees, nonce fillers, the balance).

`relay_send` takes the queued calls in order. Each is decided under SELECT ... FOR UPDATE on the
relayer's account row (chain/models.py, RelayerAccount), in a database transaction of its own: one
call is being sent at any moment in any number of workers, the nonces follow the calls' order, and a
worker that dies leaves at most the call it was sending (whose transaction, if it went out, is found
by the nonce read at the next run). Before a nonce is spent the call is checked again: a simulation
of it from the relayer (the pot's or the token's refusal says it must not be sent); for a signed
stake also its challenge still taking stakes, its authorization valid for RELAY_MIN_REMAINING_SECONDS
more, and the relayer's limits (chain/relayer/admission.py says the same at the POST). The chain's
facts for a round of calls are read in JSON-RPC batches (chain/relayer/facts.py), and no send waits
for a receipt: many calls go into one block."""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from eth_account.signers.local import LocalAccount

from challenges.selectors import challenge_takes_stakes
from responses.models import Stake

from ..models import PotCall, PotCallKind, RelayerAccount
from ..node.client import ChainClient, get_client
from ..node.sending import FEE_TOO_LOW, NO_FUNDS, NONCE_USED, REPLACEMENT_UNDERPRICED, SENT, UNKNOWN, broadcast, bumped
from ..relayer.outbox import CALL_GAS, wake_clear
from .facts import RelayerFacts, read_facts, read_next_block_fees, read_relayer
from .reasons import OUTCOMES, Outcome, address_limit_outcome, failed
from .selectors import relay_oldest_queued, relay_queued_calls, relay_sent_for_payer, relay_spending
from .services import (
    call_end,
    call_sent,
    calls_refuse_queued_stakes,
    relay_transaction_record,
    relayer_account_get,
    relayer_balance_record,
    relayer_lock,
    relayer_nonce_set,
    relayer_note,
)
from .signing import relayer_account, sign_call

STAKE_GAS = CALL_GAS[PotCallKind.STAKE]
# What a simulation's refusal means for a call that is not a signed stake: done by someone already,
# so not needed; anything else fails it, and the game's steps queue it again later (chain/pot/steps.py).
ALREADY_DONE = ("solution_already_revealed", "already_finalized", "already_paid")

logger = logging.getLogger(__name__)

# Calls whose facts are read in one round of batches; a run goes on round after round until the
# queue is empty, at most MAX_ROUNDS (the beat's sweep queues another run for what is left).
ROUND_CLAIMS = 100
MAX_ROUNDS = 50
# Sends of one call retried after the node said its nonce or fees were stale.
MAX_SEND_TRIES = 4
# The shared cache's flag of the run that is sending, held at most this long past its last round
# (a sender that died lets the next run in after it), and the passes of one run over the queue.
SENDER_KEY = "chain:relay:sender"
SENDER_SECONDS = 30
MAX_PASSES = 3

NEXT, STOP, REREAD = "next", "stop", "reread"


@dataclass
class SendSummary:
    sent: int = 0
    failed: int = 0  # failed or not needed: the re-checks
    refused: int = 0  # the limits, the funds, the switch
    stopped: str = ""  # why the run stopped with calls left queued
    hashes: list[str] = field(default_factory=list)


def relay_send(*, client: ChainClient | None = None) -> SendSummary:
    """Send every queued call that passes its re-checks, oldest first, unless another run is at it
    already (SENDER_KEY in the shared cache): that one takes every call queued until the queue is
    empty, so a worker process that gets another call's message goes back to other work instead of
    waiting on the account's lock. The lock, not this flag, is what keeps two senders from one nonce:
    relay_send_now is safe to run at once in any number of places. The run that holds the flag looks
    at the queue again once it has let it go, so a call queued while it was finishing is not left
    for the watcher's sweep. Right after letting it go, before that look, the run deletes the flag of
    the pending message (chain/relayer/outbox.py, WAKE_KEY): a call that found it set committed before
    the delete and is seen by the look; one committed after publishes a message of its own. A run that
    finds another holding the flag leaves it: the holder's own delete comes later."""
    summary = SendSummary()
    token = uuid.uuid4().hex
    for _ in range(MAX_PASSES):
        if not _flag(SENDER_KEY, token):
            summary.stopped = summary.stopped or "another run is sending"
            break
        try:
            relay_send_now(client=client, summary=summary)
        finally:
            _unflag(SENDER_KEY, token)
            wake_clear()
        if summary.stopped or relay_oldest_queued() is None:
            break
    return summary


def _flag(key: str, token: str) -> bool:
    try:
        return bool(cache.add(key, token, timeout=SENDER_SECONDS))
    except Exception:  # noqa: BLE001 - the cache down: go on under the database lock alone
        logger.warning("relayer: the cache did not answer; sending without the one-sender flag")
        return True


def _refresh(key: str) -> None:
    try:
        cache.touch(key, timeout=SENDER_SECONDS)
    except Exception:  # noqa: BLE001 - see _flag
        logger.warning("relayer: the cache did not answer; the one-sender flag expires on its own")


def _unflag(key: str, token: str) -> None:
    try:
        if cache.get(key) == token:
            cache.delete(key)
    except Exception:  # noqa: BLE001 - it expires by itself
        logger.warning("relayer: the cache did not answer; the one-sender flag expires on its own")


def relay_send_now(*, client: ChainClient | None = None, summary: SendSummary | None = None) -> SendSummary:
    """The sending itself, round after round until the queue is empty (at most MAX_ROUNDS)."""
    summary = summary or SendSummary()
    if not settings.RELAYER_KEY:
        summary.refused += calls_refuse_queued_stakes(outcome=OUTCOMES["switched_off"])
        summary.stopped = "no RELAYER_KEY: nothing can be sent"
        return summary
    if not settings.RELAY_ENABLED:
        summary.refused += calls_refuse_queued_stakes(outcome=OUTCOMES["switched_off"])
    signer = relayer_account()
    account = relayer_account_get(address=signer.address)
    client = client or get_client()
    for _ in range(MAX_ROUNDS):
        calls = relay_queued_calls(limit=ROUND_CLAIMS)
        if not calls:
            break
        facts = read_facts(client, address=signer.address, calls=calls)
        relayer_balance_record(
            account_id=account.pk, balance_wei=facts.balance, stake_cost_wei=facts.fees.cost(STAKE_GAS)
        )
        sender = _Sender(client, signer, account.pk, facts, {call.pk: call for call in calls}, summary)
        if sender.run() == STOP:
            break
        _refresh(SENDER_KEY)
    if summary.sent or summary.failed or summary.refused:
        logger.info(
            "relayer: %s sent, %s not sent after their re-checks, %s refused%s",
            summary.sent,
            summary.failed,
            summary.refused,
            f"; stopped: {summary.stopped}" if summary.stopped else "",
        )
    return summary


class _Sender:
    """One round: the calls of `calls` taken one at a time under the account's lock."""

    def __init__(
        self,
        client: ChainClient,
        signer: LocalAccount,
        account_id: int,
        facts: RelayerFacts,
        calls: dict[int, PotCall],
        summary: SendSummary,
    ) -> None:
        self.client, self.signer, self.account_id = client, signer, account_id
        self.facts, self.calls, self.summary = facts, calls, summary
        self.fees = facts.fees

    def run(self) -> str:
        while True:
            with transaction.atomic():
                account = relayer_lock(account_id=self.account_id)
                if account.next_nonce is None or account.next_nonce < self.facts.pending_nonce:
                    if account.next_nonce is not None:
                        logger.warning(
                            "relayer %s: the chain's pending nonce %s is past its own %s: a transaction it has "
                            "no record of used the key; going on from there",
                            account.address,
                            self.facts.pending_nonce,
                            account.next_nonce,
                        )
                    relayer_nonce_set(account=account, next_nonce=self.facts.pending_nonce)
                call_id = relay_oldest_queued()
                if call_id is None:
                    return NEXT
                call = self.calls.get(call_id)
                if call is None:  # arrived after this round's reads: the next round reads it
                    return REREAD
                step = self.one(account, call)
            if step == STOP:
                return STOP

    def one(self, account: RelayerAccount, call: PotCall) -> str:
        why = self.recheck(call)
        if why is not None:
            if call_end(call_id=call.pk, outcome=why):
                self.summary.failed += 1
                logger.info("relayer: %s not sent: %s", call.key, why.code)
            return NEXT
        if call.kind != PotCallKind.STAKE:
            return self.send(account, call)
        refusal = self.limit(account, call)
        if refusal is OUTCOMES["funds"]:
            why_text = f"its balance cannot pay one more stake's gas ({self.facts.balance} wei)"
            return self.stop(account, "funds", why_text)
        if refusal is not None:
            self.summary.refused += call_end(call_id=call.pk, outcome=refusal)
            return NEXT
        return self.send(account, call)

    def recheck(self, call: PotCall) -> Outcome | None:
        """Why the call must not be sent, or None."""
        refused = self.facts.refusals.get(call.pk)
        if call.kind != PotCallKind.STAKE:
            if refused is None:
                return None
            if refused.code in ALREADY_DONE:
                return Outcome(status="not_needed", reason=refused.sentence, code=refused.code)
            logger.warning("relayer: %s: the simulation reverts: %s", call.key, refused.detail)
            return failed(refused.code, refused.sentence)
        signed = call.signed_stake
        assert signed is not None  # a stake call always carries its signed stake (chain/pot/port.py)
        if not settings.RELAY_ENABLED:
            return OUTCOMES["switched_off"]
        # Read for each call (indexed queries), under the lock: the chain's clock moved meanwhile is seen.
        if Stake.objects.filter(
            challenge_id=signed.challenge_id, payer=signed.payer, commitment=signed.commitment
        ).exists():
            return OUTCOMES["used"]
        if not challenge_takes_stakes(challenge=call.challenge):
            return OUTCOMES["closed"]
        now = max(int(time.time()), self.facts.block_time)
        if signed.valid_before - now < settings.RELAY_MIN_REMAINING_SECONDS:
            return OUTCOMES["expired"]
        if refused is not None:
            if refused.code == "authorization_used":
                return OUTCOMES["used"]
            logger.info("relayer: %s: the simulation reverts: %s", call.key, refused.detail)
            return failed(refused.code, refused.sentence)
        return None

    def limit(self, account: RelayerAccount, call: PotCall) -> Outcome | None:
        """A refusal by the relayer's limits (under the lock: what other workers sent is counted)."""
        signed = call.signed_stake
        assert signed is not None
        most = int(settings.RELAY_MAX_PER_ADDRESS_PER_DAY)
        if relay_sent_for_payer(address=signed.payer) >= most:
            return address_limit_outcome(most)
        cost = self.fees.cost(STAKE_GAS)
        spending = relay_spending(account=account)
        if spending.day_wei + cost > int(settings.RELAY_MAX_WEI_PER_DAY):
            return OUTCOMES["budget"]
        if self.facts.balance - spending.in_flight_wei < cost:
            return OUTCOMES["funds"]
        return None

    def send(self, account: RelayerAccount, call: PotCall) -> str:
        for _ in range(MAX_SEND_TRIES):
            assert account.next_nonce is not None
            attempt = sign_call(self.signer, nonce=account.next_nonce, data=call.data, gas=call.gas, fees=self.fees)
            result = broadcast(self.client, attempt.raw)
            if result.outcome in (SENT, UNKNOWN):
                # The nonce is spent (or may be): recorded whatever the call became meanwhile.
                relay_transaction_record(account=account, attempt=attempt, call_id=call.pk)
                relayer_nonce_set(account=account, next_nonce=attempt.nonce + 1)
                call_sent(call_id=call.pk, transaction_hash=attempt.hash)
                self.summary.sent += 1
                self.summary.hashes.append(attempt.hash)
                if result.outcome == UNKNOWN:
                    # Kept as sent (its hash is keccak of its bytes); the watcher sends it again if no
                    # node has it. The rest waits for a node that answers.
                    self.summary.stopped = f"no node answered the send of nonce {attempt.nonce}"
                    relayer_note(account_id=account.pk, error=f"{self.summary.stopped}: {result.message}")
                    return STOP
                return NEXT
            if result.outcome in (NONCE_USED, REPLACEMENT_UNDERPRICED):
                pending, _, _, _ = read_relayer(self.client, address=account.address)
                logger.warning(
                    "relayer %s: nonce %s is taken (%s); the chain's pending count is %s",
                    account.address,
                    attempt.nonce,
                    result.message,
                    pending,
                )
                relayer_nonce_set(account=account, next_nonce=max(pending, attempt.nonce + 1))
                continue
            if result.outcome == FEE_TOO_LOW:
                market = read_next_block_fees(self.client)
                logger.info("relayer: fees %s refused (%s); the next block's: %s", self.fees, result.message, market)
                self.fees = bumped(self.fees, market, percent=settings.RELAY_FEE_BUMP_PERCENT)
                continue
            if result.outcome == NO_FUNDS:
                return self.stop(account, "funds", f"the node says it cannot pay the gas: {result.message}")
            self.summary.stopped = f"the node refused the transaction of nonce {attempt.nonce}: {result.message}"
            logger.error("relayer %s: %s", account.address, self.summary.stopped)
            relayer_note(account_id=account.pk, error=self.summary.stopped)
            return STOP
        self.summary.stopped = f"the nonce or the fees kept changing under {call.key}"
        relayer_note(account_id=account.pk, error=self.summary.stopped)
        return STOP

    def stop(self, account: RelayerAccount, code: str, why: str) -> str:
        """Out of gas money: every queued signed stake is refused with the funds sentence; the game's
        steps stay queued until the relayer has money again."""
        self.summary.stopped = why
        logger.error("relayer %s: %s; refusing the queued stakes", account.address, why)
        relayer_note(account_id=account.pk, error=why)
        self.summary.refused += calls_refuse_queued_stakes(outcome=OUTCOMES[code])
        return STOP
