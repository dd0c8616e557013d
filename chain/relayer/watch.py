"""The relayer's watcher (docs/protocol.md section 2a, "The relayer"; the beat's `chain.relay_watch`
on the `relay` queue): what became of the transactions chain/relayer.py sent, and its balance.

For each nonce in flight, in one round of JSON-RPC batches: the receipts of every transaction sent
under it (a replacement may lose to the one it replaced), whether the node still knows the latest,
and the authorization's state. Then, under the account's lock:
- mined: gas used, effective price and cost recorded; a stake that reverted because its
  authorization was used first (someone else submitted it) is `not_needed`, else `failed` saying why;
- not mined after RELAY_RESEND_SECONDS: sent again under the same nonce with both fees raised by
  RELAY_FEE_BUMP_PERCENT (at least 10 %, and at least the market's), or, when its authorization is no
  longer worth sending (used, cancelled, about to expire), replaced by a 0-value transfer to itself
  that frees the nonce (a nonce filler); a stake whose challenge closed is replaced at once;
- forgotten by the node (dropped from its pool, or never received after a send that timed out):
  sent again as it was, the same bytes;
- the nonce used by a transaction the relayer has no record of: `lost`.
The balance is read at least every BALANCE_READ_SECONDS; below RELAY_BALANCE_ALARM_WEI the alarm
is raised once (chain/relay_services.py, relayer_balance_record)."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from eth_account.signers.local import LocalAccount
from eth_utils import to_checksum_address

from challenges.selectors import challenge_is_open

from .client import ChainClient, get_client
from .models import RelayTransaction, RelayTxStatus
from .relay_facts import cancelled_among, read_fees, read_next_block_fees, relayer_calls, stake_calldata
from .relay_reasons import OUTCOMES
from .relay_rpc import (
    FEE_TOO_LOW,
    NO_FUNDS,
    NONCE_USED,
    REPLACEMENT_UNDERPRICED,
    SENT,
    UNKNOWN,
    Fees,
    as_int,
    authorization_state_call,
    balance_of_call,
    broadcast,
    bumped,
    rpc_batch,
)
from .relay_selectors import QueuedClaim, relay_claims_of, relay_in_flight
from .relay_services import (
    Mined,
    relay_claim_move,
    relay_claim_sent,
    relay_rebroadcast_noted,
    relay_transaction_lost,
    relay_transaction_mined,
    relay_transaction_note,
    relay_transaction_replaced,
    relayer_account_get,
    relayer_balance_record,
    relayer_lock,
)
from .relay_signing import FILLER, RELAY_GAS, STAKE, relayer_account, sign_filler, sign_stake

logger = logging.getLogger(__name__)

# The balance is read when the last read is older than this (the beat runs every few seconds): at
# least once a minute even when a beat is late.
BALANCE_READ_SECONDS = 30
# Replacements of one nonce tried in one watch when the node wants higher fees still.
MAX_BUMPS = 3


@dataclass
class WatchSummary:
    mined: int = 0
    reverted: int = 0
    resent: int = 0
    fillers: int = 0
    rebroadcast: int = 0
    lost: int = 0


@dataclass(frozen=True)
class Seen:
    """What one round read about one nonce in flight."""

    receipt: dict | None
    known: bool  # a node still has its latest transaction (in its pool or mined)
    used: bool  # the claim's authorization is used or cancelled


def relay_watch(*, client: ChainClient | None = None) -> WatchSummary:
    summary = WatchSummary()
    if not settings.RELAYER_KEY:
        return summary
    signer = relayer_account()
    account = relayer_account_get(address=signer.address)
    rows = relay_in_flight(account=account)
    read_at = account.balance_read_at
    if not rows and read_at is not None and timezone.now() - read_at < timedelta(seconds=BALANCE_READ_SECONDS):
        return summary
    client = client or get_client()
    claims = relay_claims_of(response_ids=[row.response_id for row in rows if row.response_id is not None])
    token = to_checksum_address(settings.USDC_ADDRESS)
    calls = [*relayer_calls(signer.address), ("eth_getTransactionCount", [signer.address, "latest"])]
    for row in rows:
        calls += [("eth_getTransactionReceipt", [attempt["hash"]]) for attempt in row.attempts]
        calls.append(("eth_getTransactionByHash", [row.transaction_hash]))
        claim = claims.get(row.response_id or 0)
        if claim is not None:
            calls.append(
                authorization_state_call(token=token, authorizer=claim.submitter_address, nonce=claim.commitment)
            )
    answers = iter(rpc_batch(client, calls))
    _pending, balance, block, tip, latest_nonce = (next(answers) for _ in range(5))
    market = read_fees(block, tip)
    relayer_balance_record(account_id=account.pk, balance_wei=as_int(balance), stake_cost_wei=market.cost(RELAY_GAS))
    seen: dict[int, Seen] = {}
    for row in rows:
        receipts = [next(answers) for _ in row.attempts]
        known = next(answers) is not None
        used = row.response_id in claims and as_int(next(answers)) != 0
        receipt = next((r for r in receipts if r is not None), None)
        seen[row.pk] = Seen(receipt=receipt, known=known or receipt is not None, used=used)
    if not rows:
        return summary
    watcher = _Watcher(client, signer, market, as_int(block["timestamp"]), as_int(latest_nonce), claims, summary)
    with transaction.atomic():
        relayer_lock(account_id=account.pk)
        for row in rows:
            current = RelayTransaction.objects.filter(
                pk=row.pk, status=RelayTxStatus.SENT, transaction_hash=row.transaction_hash
            ).first()
            if current is None:
                continue  # another watcher got there first
            watcher.follow(current, seen[row.pk])
    return summary


class _Watcher:
    def __init__(
        self,
        client: ChainClient,
        signer: LocalAccount,
        market: Fees,
        block_time: int,
        latest_nonce: int,
        claims: dict[int, QueuedClaim],
        summary: WatchSummary,
    ) -> None:
        self.client, self.signer, self.market = client, signer, market
        self.block_time, self.latest_nonce = block_time, latest_nonce
        self.claims, self.summary = claims, summary
        self.open_challenges: dict[int, bool] = {}

    def follow(self, row: RelayTransaction, seen: Seen) -> None:
        if seen.receipt is not None:
            self.mined(row, seen.receipt, seen.used)
        elif row.nonce < self.latest_nonce and not seen.known:
            self.lost(row, seen.used)
        else:
            last = row.resent_at or row.sent_at
            due = timezone.now() - last >= timedelta(seconds=settings.RELAY_RESEND_SECONDS)
            if not due and self.challenge_closed(row):
                # Mined after the close it would count `late` and its USDC stay in the treasury:
                # replaced by a filler at once, not after RELAY_RESEND_SECONDS.
                due = True
            elif not due and not seen.known:
                due = not self.rebroadcast(row)
            if due:
                self.replace(row, seen.used)

    def challenge_closed(self, row: RelayTransaction) -> bool:
        claim = self.claims.get(row.response_id or 0)
        if row.kind != STAKE or claim is None:
            return False
        if claim.challenge_id not in self.open_challenges:
            self.open_challenges[claim.challenge_id] = challenge_is_open(challenge_id=claim.challenge_id)
        return not self.open_challenges[claim.challenge_id]

    def mined(self, row: RelayTransaction, receipt: dict, used: bool) -> None:
        tx_hash = str(receipt["transactionHash"]).lower()
        kind = next((a["kind"] for a in row.attempts if a["hash"] == tx_hash), row.kind)
        succeeded = as_int(receipt["status"]) == 1
        mined = Mined(
            transaction_hash=tx_hash,
            kind=kind,
            succeeded=succeeded,
            block_number=as_int(receipt["blockNumber"]),
            gas_used=as_int(receipt["gasUsed"]),
            effective_gas_price=as_int(receipt.get("effectiveGasPrice") or "0x0"),
        )
        if not relay_transaction_mined(row_id=row.pk, mined=mined):
            return
        self.summary.mined += succeeded
        self.summary.reverted += not succeeded
        logger.info(
            "relayer: nonce %s mined in %s (%s, %s gas)%s",
            row.nonce,
            tx_hash,
            kind,
            mined.gas_used,
            "" if succeeded else ", reverted",
        )
        if row.response_id is None:
            return
        if kind == STAKE and succeeded:
            relay_claim_sent(response_id=row.response_id, transaction_hash=tx_hash)
        elif kind == STAKE:
            relay_claim_move(response_id=row.response_id, outcome=OUTCOMES[self.why_reverted(row, used)])
        else:
            relay_claim_move(response_id=row.response_id, outcome=OUTCOMES[row.replaced_because or "expired"])

    def why_reverted(self, row: RelayTransaction, used: bool) -> str:
        """Why the token refused a stake the simulation had accepted."""
        claim = self.claims.get(row.response_id or 0)
        if claim is None:
            return "reverted"
        if used:
            return "cancelled" if cancelled_among(self.client, [claim]) else "used"
        if self.block_time >= claim.valid_before:
            return "expired"
        call = balance_of_call(token=settings.USDC_ADDRESS, owner=claim.submitter_address)
        balance = as_int(rpc_batch(self.client, [call])[0])
        return "balance" if balance < claim.stake_units else "reverted"

    def lost(self, row: RelayTransaction, used: bool) -> None:
        error = f"nonce {row.nonce} was used by a transaction the relayer has no record of"
        if relay_transaction_lost(row_id=row.pk, error=error):
            self.summary.lost += 1
            logger.error("relayer: %s (its key is used elsewhere?)", error)
            if row.response_id is not None:
                relay_claim_move(response_id=row.response_id, outcome=OUTCOMES["used" if used else "lost"])

    def rebroadcast(self, row: RelayTransaction) -> bool:
        """The latest transaction, sent again as it was; False when it needs higher fees now."""
        result = broadcast(self.client, row.attempts[-1]["raw"])
        if result.outcome in (SENT, UNKNOWN, NONCE_USED):  # NONCE_USED: mined meanwhile
            relay_rebroadcast_noted(row_id=row.pk)
            self.summary.rebroadcast += result.outcome != NONCE_USED
            logger.info("relayer: nonce %s sent again (%s): the node had forgotten it", row.nonce, row.transaction_hash)
            return True
        relay_transaction_note(row_id=row.pk, error=f"sent again as it was: {result.message}")
        return result.outcome not in (FEE_TOO_LOW, REPLACEMENT_UNDERPRICED)

    def worth_sending(self, row: RelayTransaction, used: bool) -> str | None:
        """None when the stake should still go out, else the reason code for its filler."""
        claim = self.claims.get(row.response_id or 0)
        if row.kind == FILLER or claim is None:
            return row.replaced_because or "expired"
        if used:
            return "used"
        if self.challenge_closed(row):
            return "closed"
        if claim.valid_before - max(int(time.time()), self.block_time) < settings.RELAY_MIN_REMAINING_SECONDS:
            return "expired"
        return None

    def replace(self, row: RelayTransaction, used: bool) -> None:
        because = self.worth_sending(row, used)
        fees = Fees(max_fee=int(row.max_fee_per_gas), tip=int(row.max_priority_fee_per_gas))
        for _ in range(MAX_BUMPS):
            fees = bumped(fees, self.market, percent=settings.RELAY_FEE_BUMP_PERCENT)
            if because is None:
                claim = self.claims[row.response_id or 0]
                attempt = sign_stake(self.signer, nonce=row.nonce, data=stake_calldata(claim) or "0x", fees=fees)
            else:
                attempt = sign_filler(self.signer, nonce=row.nonce, fees=fees)
            result = broadcast(self.client, attempt.raw)
            if result.outcome in (SENT, UNKNOWN):
                relay_transaction_replaced(row=row, attempt=attempt, because=because or "")
                if because is None and row.response_id is not None:
                    relay_claim_sent(response_id=row.response_id, transaction_hash=attempt.hash)
                self.summary.resent += because is None
                self.summary.fillers += because is not None
                logger.info(
                    "relayer: nonce %s not mined after %s s: %s %s (maxFeePerGas %s, tip %s)",
                    row.nonce,
                    settings.RELAY_RESEND_SECONDS,
                    "sent again as" if because is None else f"replaced ({because}) by a filler",
                    attempt.hash,
                    fees.max_fee,
                    fees.tip,
                )
                return
            if result.outcome == NONCE_USED:
                return  # mined meanwhile: the next watch reads its receipt
            if result.outcome not in (FEE_TOO_LOW, REPLACEMENT_UNDERPRICED):
                break
            if result.outcome == FEE_TOO_LOW:
                self.market = read_next_block_fees(self.client)
        relay_transaction_note(row_id=row.pk, error=f"could not replace it: {result.message}")
        if result.outcome == NO_FUNDS:
            logger.error("relayer: nonce %s cannot be replaced, no gas money: %s", row.nonce, result.message)
