"""Geopoem's relayer: it sends the players' signed authorizations and pays the gas (docs/protocol.md
section 2a, "The relayer decides when" and "The relayer"). This module sends; chain/relay_watch.py
follows what was sent (receipts, re-sends with higher fees, nonce fillers, the balance).

`relay_send` takes the claims whose relay is queued in arrival order. Each claim is decided under
SELECT ... FOR UPDATE on the relayer's account row (chain/models.py, RelayerAccount), in a database
transaction of its own: only one claim is being sent at any moment in any number of workers, the
nonces follow the claims' order, and a worker that dies leaves at most the claim it was sending
(whose transaction, if it went out, is found by the nonce read at the next run). Before a nonce is
spent the claim is checked again: its challenge still open, its authorization valid for
RELAY_MIN_REMAINING_SECONDS more and unused, the payer's USDC, a simulation of the call from the
relayer, then the relayer's limits (chain/relay_admission.py says the same at the POST). A claim
that fails is never sent and gets its sentence (chain/relay_reasons.py). The chain's facts for a
round of claims are read in JSON-RPC batches (chain/relay_facts.py), and no send waits for a
receipt: many stakes go into one block."""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from eth_account.signers.local import LocalAccount

from challenges.selectors import challenge_is_open

from .client import ChainClient, get_client
from .models import RelayerAccount
from .relay_facts import RelayerFacts, read_facts, read_next_block_fees, read_relayer, stake_calldata
from .relay_reasons import OUTCOMES, Outcome, address_limit_outcome
from .relay_rpc import (
    FEE_TOO_LOW,
    NO_FUNDS,
    NONCE_USED,
    REPLACEMENT_UNDERPRICED,
    SENT,
    UNKNOWN,
    broadcast,
    bumped,
)
from .relay_selectors import (
    QueuedClaim,
    relay_oldest_queued,
    relay_queued_claims,
    relay_sent_for_payer,
    relay_spending,
)
from .relay_services import (
    relay_claim_move,
    relay_claim_sent,
    relay_claims_refuse_queued,
    relay_transaction_record,
    relayer_account_get,
    relayer_balance_record,
    relayer_lock,
    relayer_nonce_set,
    relayer_note,
)
from .relay_signing import RELAY_GAS, relayer_account, sign_stake

logger = logging.getLogger(__name__)

# Claims whose facts are read in one round of batches; a run goes on round after round until the
# queue is empty, at most MAX_ROUNDS (the beat's sweep queues another run for what is left).
ROUND_CLAIMS = 100
MAX_ROUNDS = 50
# Sends of one claim retried after the node said its nonce or fees were stale.
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
    stopped: str = ""  # why the run stopped with claims left queued
    hashes: list[str] = field(default_factory=list)


def relay_send(*, client: ChainClient | None = None) -> SendSummary:
    """Send every queued authorization that passes its re-checks, oldest claim first, unless another
    run is at it already (SENDER_KEY in the shared cache): that one takes every claim queued until
    the queue is empty, so a worker process that gets another claim's message goes back to other
    work (verifications) instead of waiting on the account's lock. The lock, not this flag, is what
    keeps two senders from one nonce: relay_send_now is safe to run at once in any number of places.
    The run that holds the flag looks at the queue again once it has let it go, so a claim queued
    while it was finishing is not left for the watcher's sweep."""
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
    if not settings.RELAY_ENABLED or not settings.RELAYER_KEY:
        summary.refused += relay_claims_refuse_queued(outcome=OUTCOMES["switched_off"])
        return summary
    signer = relayer_account()
    account = relayer_account_get(address=signer.address)
    client = client or get_client()
    for _ in range(MAX_ROUNDS):
        claims = relay_queued_claims(limit=ROUND_CLAIMS)
        if not claims:
            break
        facts = read_facts(client, address=signer.address, claims=claims)
        relayer_balance_record(
            account_id=account.pk, balance_wei=facts.balance, stake_cost_wei=facts.fees.cost(RELAY_GAS)
        )
        sender = _Sender(client, signer, account.pk, facts, {claim.response_id: claim for claim in claims}, summary)
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
    """One round: the claims of `claims` taken one at a time under the account's lock."""

    def __init__(
        self,
        client: ChainClient,
        signer: LocalAccount,
        account_id: int,
        facts: RelayerFacts,
        claims: dict[int, QueuedClaim],
        summary: SendSummary,
    ) -> None:
        self.client, self.signer, self.account_id = client, signer, account_id
        self.facts, self.claims, self.summary = facts, claims, summary
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
                response_id = relay_oldest_queued()
                if response_id is None:
                    return NEXT
                claim = self.claims.get(response_id)
                if claim is None:  # arrived after this round's reads: the next round reads it
                    return REREAD
                step = self.one(account, claim)
            if step == STOP:
                return STOP

    def one(self, account: RelayerAccount, claim: QueuedClaim) -> str:
        why = self.recheck(claim)
        if why is not None:
            if relay_claim_move(response_id=claim.response_id, outcome=OUTCOMES[why]):
                self.summary.failed += 1
                logger.info("relayer: response %s not sent: %s", claim.response_id, why)
            return NEXT
        refusal = self.limit(account, claim)
        if refusal is OUTCOMES["funds"]:
            why = f"its balance cannot pay one more stake's gas ({self.facts.balance} wei)"
            return self.stop(account, "funds", why)
        if refusal is not None:
            self.summary.refused += relay_claim_move(response_id=claim.response_id, outcome=refusal)
            return NEXT
        return self.send(account, claim)

    def recheck(self, claim: QueuedClaim) -> str | None:
        """The reason code (chain/relay_reasons.py) the claim must not be sent for, or None."""
        # Read for each claim (one indexed query), under the lock: a close committed meanwhile is seen.
        if not challenge_is_open(challenge_id=claim.challenge_id):
            return "closed"
        now = max(int(time.time()), self.facts.block_time)
        if claim.valid_before - now < settings.RELAY_MIN_REMAINING_SECONDS:
            return "expired"
        facts = self.facts.claims[claim.response_id]
        if facts.used:
            return "cancelled" if facts.cancelled else "used"
        if facts.balance < claim.stake_units:
            return "balance"
        if facts.simulation is not None:
            logger.warning("relayer: response %s: the simulation reverts: %s", claim.response_id, facts.simulation)
            return "refused_by_token"
        return None

    def limit(self, account: RelayerAccount, claim: QueuedClaim) -> Outcome | None:
        """A refusal by the relayer's limits (under the lock: what other workers sent is counted)."""
        most = int(settings.RELAY_MAX_PER_ADDRESS_PER_DAY)
        if relay_sent_for_payer(address=claim.submitter_address) >= most:
            return address_limit_outcome(most)
        cost = self.fees.cost(RELAY_GAS)
        spending = relay_spending(account=account)
        if spending.day_wei + cost > int(settings.RELAY_MAX_WEI_PER_DAY):
            return OUTCOMES["budget"]
        if self.facts.balance - spending.in_flight_wei < cost:
            return OUTCOMES["funds"]
        return None

    def send(self, account: RelayerAccount, claim: QueuedClaim) -> str:
        data = stake_calldata(claim)
        assert data is not None  # recheck() refused a claim without one (its simulation)
        for _ in range(MAX_SEND_TRIES):
            assert account.next_nonce is not None
            attempt = sign_stake(self.signer, nonce=account.next_nonce, data=data, fees=self.fees)
            result = broadcast(self.client, attempt.raw)
            if result.outcome in (SENT, UNKNOWN):
                # The nonce is spent (or may be): recorded whatever the claim became meanwhile.
                relay_transaction_record(account=account, attempt=attempt, response_id=claim.response_id)
                relayer_nonce_set(account=account, next_nonce=attempt.nonce + 1)
                relay_claim_sent(response_id=claim.response_id, transaction_hash=attempt.hash)
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
        self.summary.stopped = f"the nonce or the fees kept changing under response {claim.response_id}"
        relayer_note(account_id=account.pk, error=self.summary.stopped)
        return STOP

    def stop(self, account: RelayerAccount, code: str, why: str) -> str:
        """Out of gas money: every queued claim is refused with the funds sentence."""
        self.summary.stopped = why
        logger.error("relayer %s: %s; refusing the queued stakes", account.address, why)
        relayer_note(account_id=account.pk, error=why)
        self.summary.refused += relay_claims_refuse_queued(outcome=OUTCOMES[code])
        return STOP
