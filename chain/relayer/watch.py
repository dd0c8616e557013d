"""The relayer's watcher (docs/protocol.md section 3; the beat's `chain.relay_watch` on the `relay`
queue): what became of the transactions chain/relayer/sender.py sent, and its balance.

For each nonce in flight, in one round of JSON-RPC batches: the receipts of every transaction sent
under it (a replacement may lose to the one it replaced) and whether the node still knows the latest.
Then, under the account's lock:
- mined, but not yet CHAIN_CONFIRMATIONS deep (chain/node/depth.py): still watched, so that a reorg
  that takes it away finds it in flight (sent again as it was, below, when no node kept it);
- mined that deep: gas used, effective price and cost recorded; the call `done`, or `failed` when it
  reverted (a signed stake that someone else sent first is `not_needed`);
- not mined after RELAY_RESEND_SECONDS: sent again under the same nonce with both fees raised by
  RELAY_FEE_BUMP_PERCENT (at least 10 %, and at least the market's), or, when it is a signed stake no
  longer worth sending (in the pot already, the challenge closed, its authorization about to expire),
  replaced by a 0-value transfer to itself that frees the nonce (a nonce filler); a stake whose
  challenge closed is replaced at once;
- forgotten by the node (dropped from its pool, or never received after a send that timed out):
  sent again as it was, the same bytes;
- the nonce used by a transaction the relayer has no record of: `lost`.
The balance is read at least every BALANCE_READ_SECONDS; below RELAY_BALANCE_ALARM_WEI the alarm
is raised once (chain/relayer/services.py, relayer_balance_record)."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from eth_account.signers.local import LocalAccount

from challenges.selectors import challenge_takes_stakes
from responses.models import Stake

from ..models import PotCall, PotCallKind, PotCallStatus, RelayTransaction, RelayTxStatus
from ..node.calls import as_int, rpc_batch
from ..node.client import ChainClient, get_client
from ..node.depth import confirmed_height
from ..node.sending import (
    FEE_TOO_LOW,
    NO_FUNDS,
    NONCE_USED,
    REPLACEMENT_UNDERPRICED,
    SENT,
    UNKNOWN,
    Fees,
    broadcast,
    bumped,
)
from ..relayer.outbox import CALL_GAS
from .facts import read_fees, read_next_block_fees, relayer_calls
from .reasons import OUTCOMES
from .selectors import relay_calls_of, relay_in_flight
from .services import (
    Mined,
    call_end,
    call_move,
    call_sent,
    relay_rebroadcast_noted,
    relay_transaction_lost,
    relay_transaction_mined,
    relay_transaction_note,
    relay_transaction_replaced,
    relayer_account_get,
    relayer_balance_record,
    relayer_lock,
)
from .signing import CALL, FILLER, relayer_account, sign_call, sign_filler

STAKE_GAS = CALL_GAS[PotCallKind.STAKE]

logger = logging.getLogger(__name__)

# The balance is read when the last read is older than this (the beat runs every few seconds): at
# least once a minute even when a beat is late.
BALANCE_READ_SECONDS = 30
# Replacements of one nonce tried in one watch when the node wants higher fees still.
MAX_BUMPS = 3


@dataclass
class WatchSummary:
    mined: int = 0
    shallow: int = 0  # mined, not CHAIN_CONFIRMATIONS deep yet
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
    calls_of = relay_calls_of(call_ids=[row.call_id for row in rows if row.call_id is not None])
    batch = [*relayer_calls(signer.address), ("eth_getTransactionCount", [signer.address, "latest"])]
    for row in rows:
        batch += [("eth_getTransactionReceipt", [attempt["hash"]]) for attempt in row.attempts]
        batch.append(("eth_getTransactionByHash", [row.transaction_hash]))
    answers = iter(rpc_batch(client, batch))
    _pending, balance, block, tip, latest_nonce = (next(answers) for _ in range(5))
    market = read_fees(block, tip)
    relayer_balance_record(account_id=account.pk, balance_wei=as_int(balance), stake_cost_wei=market.cost(STAKE_GAS))
    seen: dict[int, Seen] = {}
    for row in rows:
        receipts = [next(answers) for _ in row.attempts]
        known = next(answers) is not None
        receipt = next((r for r in receipts if r is not None), None)
        seen[row.pk] = Seen(receipt=receipt, known=known or receipt is not None)
    if not rows:
        return summary
    deep = confirmed_height(client, as_int(block["number"]))
    watcher = _Watcher(client, signer, market, as_int(block["timestamp"]), as_int(latest_nonce), calls_of, summary)
    with transaction.atomic():
        relayer_lock(account_id=account.pk)
        for row in rows:
            current = RelayTransaction.objects.filter(
                pk=row.pk, status=RelayTxStatus.SENT, transaction_hash=row.transaction_hash
            ).first()
            if current is None:
                continue  # another watcher got there first
            watcher.follow(current, seen[row.pk], deep=deep)
    return summary


class _Watcher:
    def __init__(
        self,
        client: ChainClient,
        signer: LocalAccount,
        market: Fees,
        block_time: int,
        latest_nonce: int,
        calls: dict[int, PotCall],
        summary: WatchSummary,
    ) -> None:
        self.client, self.signer, self.market = client, signer, market
        self.block_time, self.latest_nonce = block_time, latest_nonce
        self.calls, self.summary = calls, summary

    def follow(self, row: RelayTransaction, seen: Seen, *, deep: int) -> None:
        if seen.receipt is not None:
            if as_int(seen.receipt["blockNumber"]) <= deep:
                self.mined(row, seen.receipt)
            else:  # neither sent again nor replaced: watched until deep, or gone in a reorg
                self.summary.shallow += 1
        elif row.nonce < self.latest_nonce and not seen.known:
            self.lost(row)
        else:
            last = row.resent_at or row.sent_at
            due = timezone.now() - last >= timedelta(seconds=settings.RELAY_RESEND_SECONDS)
            if not due and self.worth_sending(row) == "closed":
                # Mined after the close it would only revert: replaced by a filler at once.
                due = True
            elif not due and not seen.known:
                due = not self.rebroadcast(row)
            if due:
                self.replace(row)

    def mined(self, row: RelayTransaction, receipt: dict) -> None:
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
        if row.call_id is None:
            return
        if kind == CALL and succeeded:
            call_move(call_id=row.call_id, status=PotCallStatus.DONE, transaction_hash=tx_hash)
        elif kind == CALL:
            call = self.calls.get(row.call_id)
            in_pot = call is not None and call.signed_stake is not None and self.in_pot(call)
            call_end(call_id=row.call_id, outcome=OUTCOMES["used" if in_pot else "reverted"])
        else:
            call_end(call_id=row.call_id, outcome=OUTCOMES[row.replaced_because or "expired"])

    @staticmethod
    def in_pot(call: PotCall) -> bool:
        signed = call.signed_stake
        return (
            signed is not None
            and Stake.objects.filter(
                challenge_id=signed.challenge_id, payer=signed.payer, commitment=signed.commitment
            ).exists()
        )

    def lost(self, row: RelayTransaction) -> None:
        error = f"nonce {row.nonce} was used by a transaction the relayer has no record of"
        if relay_transaction_lost(row_id=row.pk, error=error):
            self.summary.lost += 1
            logger.error("relayer: %s (its key is used elsewhere?)", error)
            if row.call_id is not None:
                call = self.calls.get(row.call_id)
                call_end(call_id=row.call_id, outcome=OUTCOMES["used" if call and self.in_pot(call) else "lost"])

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

    def worth_sending(self, row: RelayTransaction) -> str | None:
        """None when the call should still go out, else the reason code for its filler. Only a signed
        stake stops being worth it: the game's steps stay worth sending until mined."""
        call = self.calls.get(row.call_id or 0)
        if row.kind == FILLER or call is None:
            return row.replaced_because or "expired"
        signed = call.signed_stake
        if signed is None:
            return None
        if self.in_pot(call):
            return "used"
        if not challenge_takes_stakes(challenge=call.challenge):
            return "closed"
        if signed.valid_before - max(int(time.time()), self.block_time) < settings.RELAY_MIN_REMAINING_SECONDS:
            return "expired"
        return None

    def replace(self, row: RelayTransaction) -> None:
        because = self.worth_sending(row)
        fees = Fees(max_fee=int(row.max_fee_per_gas), tip=int(row.max_priority_fee_per_gas))
        result = None
        for _ in range(MAX_BUMPS):
            fees = bumped(fees, self.market, percent=settings.RELAY_FEE_BUMP_PERCENT)
            if because is None:
                call = self.calls[row.call_id or 0]
                attempt = sign_call(self.signer, nonce=row.nonce, data=call.data, gas=call.gas, fees=fees)
            else:
                attempt = sign_filler(self.signer, nonce=row.nonce, fees=fees)
            result = broadcast(self.client, attempt.raw)
            if result.outcome in (SENT, UNKNOWN):
                relay_transaction_replaced(row=row, attempt=attempt, because=because or "")
                if because is None and row.call_id is not None:
                    call_sent(call_id=row.call_id, transaction_hash=attempt.hash)
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
        if result is not None:
            relay_transaction_note(row_id=row.pk, error=f"could not replace it: {result.message}")
            if result.outcome == NO_FUNDS:
                logger.error("relayer: nonce %s cannot be replaced, no gas money: %s", row.nonce, result.message)
