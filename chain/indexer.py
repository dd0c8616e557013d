"""The indexer (beat: chain/tasks.py, index_payments): every USDC Transfer to the treasury into the
ledger (chain/ledger.py), one bounded block range per call, whether or not a claim names it: the
completeness list (chain/selectors.py, payments_unclaimed) reads it.

A transfer's row records what its transaction's calldata says: a direct stake's commitment and
challenge word (docs/protocol.md section 2), or a relayed stake's nonce (the payer's guess
commitment) and the challenge word after the call's nine words (section 2a). A relayed stake is
linked to the claim paid by that authorization of its payer, which is verified again at once; a
transfer whose calldata is neither (an authorization used by a contract) is recorded naming no
challenge, and verification links it when it reads the receipt (chain/authorization_verification.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import transaction
from eth_utils import to_checksum_address

from responses.models import Response, ResponseStatus
from responses.reopening import response_reopen, responses_reopen_found

from .authorization_verification import relayed_words
from .calldata import CalldataError, DecodedTransfer, decode_transfer
from .client import ChainClient, get_client
from .ledger import RelayedWords, authorization_claim, payment_claim, payment_upsert
from .models import ChainCursor, Payment
from .transfers import TRANSFER_TOPIC, Transfer, block_time, to_hex, transfer_from_log

INDEX_CURSOR = "usdc-transfers-to-treasury"


@dataclass(frozen=True)
class IndexResult:
    from_block: int
    to_block: int
    recorded: int
    removed: int
    pending_claims: list[int]


def _address_topic(address: str) -> str:
    return "0x" + bytes.fromhex(address[2:]).rjust(32, b"\0").hex()


def payments_index(*, client: ChainClient | None = None) -> IndexResult | None:
    """Record every USDC Transfer to the treasury in the ledger, one bounded block range per call.

    The range starts CHAIN_REORG_DEPTH_BLOCKS below the stored cursor, so recent blocks are read
    again: a log that is no longer there (its block was replaced) is marked removed, a log that
    moved to another block gets its new position. A claim rejected not_found or reorged whose
    payment it records is re-opened (responses/reopening.py). Returns the pending claims of the
    payments it records for the first time, and those it re-opened, for the caller to verify now
    rather than at the head watcher's next round; the payments it reads again (the last
    CHAIN_REORG_DEPTH_BLOCKS blocks, every run) are not named again: the head watcher re-checks every
    pending claim at each block, and a hundred claims queued again every run starved its rounds
    (docs/performance.md, section 7).
    Every answer of a call comes from one node: a lagging node's missing logs beside another node's
    head would mark payments removed (docs/chain.md, "A node that lags")."""
    client = client or get_client()
    return client.on_one_node(_index_on)


def _index_on(client: ChainClient) -> IndexResult | None:
    head = client.block_number()
    cursor = ChainCursor.objects.filter(name=INDEX_CURSOR).first()
    if cursor is None:
        start = settings.CHAIN_INDEX_START_BLOCK or max(0, head - settings.CHAIN_REORG_DEPTH_BLOCKS)
        last = start - 1
    else:
        last = cursor.block_number
    from_block = max(0, min(last + 1, head) - settings.CHAIN_REORG_DEPTH_BLOCKS)
    if settings.CHAIN_INDEX_START_BLOCK:
        from_block = max(from_block, settings.CHAIN_INDEX_START_BLOCK)
    to_block = min(head, max(last, from_block) + settings.CHAIN_INDEX_MAX_BLOCKS)
    if to_block < from_block:
        return None
    logs = client.get_logs(
        {
            "address": to_checksum_address(settings.USDC_ADDRESS),
            "topics": [to_hex(TRANSFER_TOPIC), None, _address_topic(settings.TREASURY_ADDRESS)],
            "fromBlock": from_block,
            "toBlock": to_block,
        }
    )
    seen: set[tuple[str, int]] = set()
    fresh_hashes: set[str] = set()  # transactions whose payment this run records for the first time
    named: set[int] = set()  # claims to verify now: of those payments, and those re-opened
    recorded = 0
    # The cursor keeps the last block's time too: resolution waits until it is after the close
    # (ledger_read_until below; responses/barrier.py).
    last_block = client.get_block(to_block)
    block_times: dict[int, datetime | None] = {to_block: block_time(last_block) if last_block is not None else None}
    with transaction.atomic():
        for log in logs:
            if log.get("removed"):
                continue
            transfer = transfer_from_log(log)
            if transfer is None or transfer.token.lower() != settings.USDC_ADDRESS.lower():
                continue
            key = (transfer.transaction_hash, transfer.log_index)
            seen.add(key)
            number = int(transfer.block_number or 0)
            if number not in block_times:
                block = client.get_block(number)
                block_times[number] = block_time(block) if block is not None else None
            existing = Payment.objects.filter(transaction_hash=key[0], log_index=key[1]).first()
            if existing is None:
                fresh_hashes.add(transfer.transaction_hash)
            decoded = None
            if existing is None or not existing.commitment:
                decoded = _stake_calldata(client, transfer)
            commitment = _ledger_commitment(existing, decoded)
            if _relayed(existing, decoded):
                claim, reopened = _relayed_claim(transfer, commitment)
                if claim is not None and (existing is None or reopened):
                    named.add(claim.pk)
            else:
                # The payer's claim, rejected not_found or reorged before the payment reached a block
                # this node holds, is verified again (responses/reopening.py).
                named.update(responses_reopen_found(transaction_hash=transfer.transaction_hash, commitment=commitment))
                claim = payment_claim(transaction_hash=transfer.transaction_hash, commitment=commitment)
            payment_upsert(
                transfer,
                block_number=number,
                block_hash=transfer.block_hash,
                transaction_index=int(transfer.transaction_index or 0),
                block_time=block_times[number],
                decoded_input=decoded,
                response=claim,
            )
            recorded += 1
        # Ledger rows in the scanned range that the canonical chain no longer holds.
        gone = [
            p.pk
            for p in Payment.objects.filter(block_number__gte=from_block, block_number__lte=to_block, removed=False)
            if (p.transaction_hash, p.log_index) not in seen
        ]
        removed = Payment.objects.filter(pk__in=gone).update(removed=True)
        ChainCursor.objects.update_or_create(
            name=INDEX_CURSOR, defaults={"block_number": to_block, "block_time": block_times[to_block]}
        )
    on_fresh = Response.objects.filter(transaction_hash__in=fresh_hashes, status=ResponseStatus.PENDING)
    by_id = Response.objects.filter(pk__in=named, status=ResponseStatus.PENDING)
    pending = sorted(set(on_fresh.values_list("pk", flat=True)) | set(by_id.values_list("pk", flat=True)))
    return IndexResult(from_block, to_block, recorded, removed, pending)


def ledger_read_until() -> datetime | None:
    """The time of the last block the indexer has read (registered in responses/hooks.py by
    chain/apps.py): every payment mined up to then is in the ledger."""
    cursor = ChainCursor.objects.filter(name=INDEX_CURSOR).first()
    return cursor.block_time if cursor is not None else None


def _stake_calldata(client: ChainClient, transfer: Transfer) -> DecodedTransfer | RelayedWords | None:
    """The calldata of a direct USDC call, read back for its words: a transfer's, or a relayed
    stake's when it is the token's own transferWithAuthorization call that made this transfer;
    None for any other call."""
    tx = client.get_transaction(transfer.transaction_hash)
    if tx is None or str(tx.get("to") or "").lower() != settings.USDC_ADDRESS.lower():
        return None
    try:
        return decode_transfer(bytes(tx["input"]))
    except CalldataError:
        return relayed_words(tx, transfer)


def _ledger_commitment(existing: Payment | None, decoded: DecodedTransfer | RelayedWords | None) -> str:
    if decoded is not None and decoded.commitment:
        return decoded.commitment
    return existing.commitment if existing is not None else ""


def _relayed(existing: Payment | None, decoded: DecodedTransfer | RelayedWords | None) -> bool:
    """A relayed stake: read now from its calldata, or recorded so before (chain/ledger.py,
    RELAYED_PAYMENT: a nonce and no timestamp word), by this indexer or by verification."""
    if decoded is not None:
        return isinstance(decoded, RelayedWords)
    return existing is not None and bool(existing.commitment) and existing.timestamp_word is None


def _relayed_claim(transfer: Transfer, nonce: str) -> tuple[Response | None, bool]:
    """The claim paid by this authorization of the payer (never a stranger's: only the payer's
    signature makes one), and whether it was re-opened now: when it was rejected `reorged` and its
    use is back on chain (docs/protocol.md 3.3, "A claim found late")."""
    claim = authorization_claim(payer=transfer.from_, commitment=nonce)
    reopened = False
    if claim is not None and claim.status == ResponseStatus.REJECTED:
        reopened = response_reopen(response=claim)  # conditional: only a claim rejected reorged (or not_found)
        claim.refresh_from_db()
    return claim, bool(reopened)
