"""Payment verification (docs/protocol.md section 2) and the ledger's writes.

`payment_verify` reads one claim's transaction from the chain and decides: confirmed, rejected
with a reason code, or "not yet" (raises VerificationPending; the task retries). The claim's
services write the decision (responses/services.py: response_confirm, response_reject,
response_unconfirm): each is a conditional UPDATE on the current status, so two workers verifying
the same claim at once cannot count its stake twice. The ledger (Payment) moves here, in the same
database transaction."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from challenges.models import AnchorStatus, Challenge, ChallengeAnchor
from challenges.money import token_units
from responses.models import Response, ResponseStatus
from responses.reasons import NOT_THE_PAYERS_CLAIM, Reason
from responses.services import response_confirm, response_reject, response_unconfirm

from .calldata import TRANSFER_SELECTOR, CalldataError, decode_transfer
from .client import ChainClient, ChainUnavailable, get_client
from .models import ChainCursor, Payment
from .transfers import (
    TRANSFER_TOPIC,
    Transfer,
    depth_reached,
    field,
    finality_by_tag,
    find_transfer,
    is_deep_enough,
    to_hex,
    transfer_from_log,
)

logger = logging.getLogger(__name__)


class VerificationPending(Exception):
    """No verdict yet (unknown transaction, not deep enough, block being replaced): retry later."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@dataclass(frozen=True)
class Outcome:
    status: str  # the claim's status after this call
    code: str = ""
    changed: bool = False  # whether this call made the change (False: someone else did, or no-op)


def _now() -> datetime:
    return timezone.now()


def _block_time(block: Any) -> datetime:
    return datetime.fromtimestamp(int(field(block, "timestamp")), tz=UTC)


def _in_open_window(challenge: Challenge, block_time: datetime) -> bool:
    if challenge.start_timestamp is None:
        return False
    # Block times are whole seconds; the challenge opened at a sub-second server time. A block of the
    # opening second counts as open (it cannot carry a commitment made before the id was public).
    opened = challenge.start_timestamp.replace(microsecond=0)
    return opened <= block_time and (challenge.closed_at is None or block_time <= challenge.closed_at)


def _after_anchor(challenge: Challenge, block_number: int, block_time: datetime) -> bool:
    """A stake counts only in a block after the anchor's block and at or after the anchored opensAt
    (docs/protocol.md section 6). A demonstration challenge has no anchor and this does not apply;
    any other challenge without a confirmed anchor was never open, so no stake of it counts."""
    if challenge.is_demo:
        return True
    try:
        anchor = challenge.anchor  # joined by the callers' select_related
    except ChallengeAnchor.DoesNotExist:
        return False
    if anchor.status != AnchorStatus.CONFIRMED:
        return False
    return block_number > anchor.block_number and int(block_time.timestamp()) >= anchor.opens_at


# --- Status changes (conditional, idempotent) ------------------------------------------------


def _reject(response: Response, code: str) -> Outcome:
    with transaction.atomic():
        changed = response_reject(response=response, code=code)
        if code not in NOT_THE_PAYERS_CLAIM:
            Payment.objects.filter(transaction_hash=response.transaction_hash, response__isnull=True).update(
                response=response
            )
    if changed:
        logger.info("response %s rejected: %s", response.pk, code)
    return _current(response.pk, code, bool(changed))


def _current(response_id: int, code: str, changed: bool) -> Outcome:
    status = Response.objects.values_list("status", flat=True).get(pk=response_id)
    return Outcome(status=status, code=code if status == ResponseStatus.REJECTED else "", changed=changed)


def _confirm(response: Response, *, receipt: Any, block: Any, tx: Any, transfer: Transfer) -> Outcome:
    block_time = _block_time(block)
    block_number = int(field(receipt, "blockNumber"))
    block_hash = to_hex(field(receipt, "blockHash"))
    tx_index = int(field(receipt, "transactionIndex"))
    decoded = decode_transfer(bytes(field(tx, "input")))
    with transaction.atomic():
        # The claim and the challenge's sums move together, exactly once (responses/services.py).
        changed = response_confirm(
            response=response,
            submission_timestamp=block_time,
            block_number=block_number,
            block_hash=block_hash,
            transaction_index=tx_index,
            log_index=transfer.log_index,
        )
        if changed:
            _payment_upsert(
                transfer,
                block_number=block_number,
                block_hash=block_hash,
                transaction_index=tx_index,
                block_time=block_time,
                decoded_input=decoded,
                response=response,
            )
    if changed:
        logger.info("response %s confirmed in block %s", response.pk, block_number)
    return _current(response.pk, "", bool(changed))


def _payment_upsert(
    transfer: Transfer,
    *,
    block_number: int,
    block_hash: str,
    transaction_index: int,
    block_time: datetime | None,
    decoded_input: Any | None,
    response: Response | None,
) -> Payment:
    defaults: dict[str, Any] = {
        "block_number": block_number,
        "block_hash": block_hash,
        "transaction_index": transaction_index,
        "from_address": transfer.from_,
        "to_address": transfer.to,
        "amount_units": Decimal(transfer.amount_units),
        "removed": False,
    }
    if block_time is not None:
        defaults["block_timestamp"] = block_time
    if decoded_input is not None and decoded_input.commitment is not None:
        defaults["commitment"] = decoded_input.commitment
        defaults["challenge_id_word"] = Decimal(decoded_input.challenge_id)
        defaults["timestamp_word"] = Decimal(decoded_input.timestamp)
    if response is not None:
        defaults["response"] = response
    payment, _ = Payment.objects.update_or_create(
        transaction_hash=transfer.transaction_hash, log_index=transfer.log_index, defaults=defaults
    )
    return payment


def _touch(response: Response) -> None:
    """Record that a check ran, so the sweeper leaves a claim alone while its retries are alive."""
    Response.objects.filter(pk=response.pk, status=ResponseStatus.PENDING).update(updated_at=_now())


# --- Verification ------------------------------------------------------------------------------


def claim_check_at_post(
    *, transaction_hash: str, submitter_address: str, commitment: str, challenge_id: int, client: ChainClient
) -> str | None:
    """The part of verification that tells a payer's claim from a stranger's, run while the POST waits.

    Returns the reason code of a claim that can never be confirmed by this transaction (another
    sender, another guess's commitment, another challenge), or None when it may match or the chain
    cannot say (no node answered in time, the node does not know the hash, a payment the full
    verification must judge). The sender and calldata are fixed by the transaction's hash, so a
    transaction still in the node's mempool is judged as safely as a mined one. One RPC call."""
    try:
        tx = client.get_transaction(transaction_hash)
    except ChainUnavailable:
        return None
    if tx is None or str(field(tx, "to") or "").lower() != settings.USDC_ADDRESS.lower():
        return None
    if str(field(tx, "from")).lower() != submitter_address.lower():
        return Reason.WRONG_SENDER
    try:
        decoded = decode_transfer(bytes(field(tx, "input")))
    except CalldataError:
        return None
    if decoded.commitment is None or decoded.commitment != commitment.lower():
        return Reason.COMMITMENT_MISMATCH
    if decoded.challenge_id != challenge_id:
        return Reason.CHALLENGE_MISMATCH
    return None


def claim_check_for_post(
    *, transaction_hash: str, submitter_address: str, commitment: str, challenge_id: int, client: Any = None
) -> str | None:
    """claim_check_at_post with the bounded client by default: what response_create runs while the
    POST waits (registered in responses/hooks.py by chain/apps.py)."""
    return claim_check_at_post(
        transaction_hash=transaction_hash,
        submitter_address=submitter_address,
        commitment=commitment,
        challenge_id=challenge_id,
        client=client or post_check_client(),
    )


def post_check_client() -> ChainClient:
    """The client of claim_check_at_post: short timeouts, so a slow node cannot hold the POST."""
    return _client_for(tuple(settings.CHAIN_RPC_URLS), settings.CHAIN_POST_CHECK_TIMEOUT_SECONDS)


@functools.lru_cache(maxsize=4)
def _client_for(urls: tuple[str, ...], timeout: float) -> ChainClient:
    # Built once per configuration: building the web3 nodes costs about 5 ms, on every POST otherwise.
    return ChainClient(urls, timeout=timeout)


def payment_verify(*, response_id: int, client: ChainClient | None = None) -> Outcome:
    """Decide one claim. Returns the outcome; raises VerificationPending when the chain cannot say
    yet, and client.ChainUnavailable when no RPC node answers (both mean: try again later)."""
    response = Response.objects.select_related("challenge", "challenge__anchor").get(pk=response_id)
    if response.status != ResponseStatus.PENDING:
        return Outcome(status=response.status, code=response.rejection_code)
    return payment_decide(response=response, chain=client or get_client())


def payment_decide(*, response: Response, chain: ChainClient | ChainReads, touch: bool = True) -> Outcome:
    """The decision on one pending claim, from what `chain` answers: the live client (one claim's
    own calls, payment_verify) or the head watcher's batch of one block (ChainReads). One place
    decides, whichever way the facts were fetched. touch=False: the caller records the check of
    every claim left pending itself (the head watcher, in one UPDATE per round)."""
    client = chain
    tx_hash = response.transaction_hash

    def wait(why: str) -> VerificationPending:
        if touch:
            _touch(response)
        return VerificationPending(why)

    # 1. Receipt present and status 1.
    receipt = client.get_receipt(tx_hash)
    if receipt is None:
        return _unknown_transaction(response, touch=touch)
    if int(field(receipt, "status")) != 1:
        return _reject(response, Reason.TX_FAILED)

    # 2. Deep enough, and the receipt's block is still the canonical one at its height.
    block_number = int(field(receipt, "blockNumber"))
    if not is_deep_enough(client, block_number):
        raise wait("not deep enough yet")
    block = client.get_block(block_number)
    if block is None or to_hex(field(block, "hash")) != to_hex(field(receipt, "blockHash")):
        raise wait("block replaced: the node is switching chains")
    tx = client.get_transaction(tx_hash)
    if tx is None:
        raise wait("receipt without transaction: inconsistent node")

    # 3. A direct call of the USDC contract with value 0.
    usdc = settings.USDC_ADDRESS.lower()
    to = str(field(tx, "to") or "").lower()
    data = bytes(field(tx, "input"))
    if to != usdc:
        # Our calldata sent to another contract is another token; anything else is a wallet/router.
        code = Reason.WRONG_TOKEN if data[:4] == TRANSFER_SELECTOR else Reason.UNSUPPORTED_TRANSACTION
        if code == Reason.WRONG_TOKEN and int(field(tx, "value")) != 0:
            code = Reason.UNSUPPORTED_TRANSACTION
        return _reject(response, code)
    if int(field(tx, "value")) != 0:
        return _reject(response, Reason.UNSUPPORTED_TRANSACTION)

    # 4. The sender is the claimed address.
    sender = str(field(tx, "from")).lower()
    if sender != response.submitter_address.lower():
        return _reject(response, Reason.WRONG_SENDER)

    # 5. The calldata: treasury, exact amount, this guess's commitment, this challenge.
    try:
        decoded = decode_transfer(data)
    except CalldataError:
        return _reject(response, Reason.UNSUPPORTED_TRANSACTION)
    treasury = settings.TREASURY_ADDRESS.lower()
    if decoded.to.lower() != treasury:
        return _reject(response, Reason.WRONG_RECIPIENT)
    units = token_units(response.submission_stake)
    if decoded.amount_units != units:
        return _reject(response, Reason.AMOUNT_MISMATCH)
    if decoded.commitment is None or decoded.commitment != response.commitment.lower():
        return _reject(response, Reason.COMMITMENT_MISMATCH)
    if decoded.challenge_id != response.challenge_id:
        return _reject(response, Reason.CHALLENGE_MISMATCH)

    # 6. The money itself: a Transfer(sender, treasury, amount) that the USDC contract emitted.
    transfer = find_transfer(receipt, usdc=settings.USDC_ADDRESS, sender=sender, recipient=treasury, units=units)
    if transfer is None:
        return _reject(response, Reason.NO_TRANSFER_LOG)
    if not transfer.transaction_hash:
        transfer = Transfer(**{**transfer.__dict__, "transaction_hash": tx_hash})

    # 7. Mined after the terms were anchored (docs/protocol.md section 6), and while the challenge
    # was open.
    if not _after_anchor(response.challenge, block_number, _block_time(block)):
        return _reject(response, Reason.EARLY)
    if not _in_open_window(response.challenge, _block_time(block)):
        return _reject(response, Reason.LATE)

    return _confirm(response, receipt=receipt, block=block, tx=tx, transfer=transfer)


def _unknown_transaction(response: Response, *, touch: bool = True) -> Outcome:
    """No receipt: pending until the deadline, then not_found (or reorged for a claim that was
    confirmed once and whose transaction never came back)."""
    code = Reason.REORGED if response.reorged_at is not None else Reason.NOT_FOUND
    if _now() >= verification_deadline(response):
        return _reject(response, code)
    if touch:
        _touch(response)
    raise VerificationPending("transaction not found yet")


def verification_deadline(response: Response) -> datetime:
    """When a claim whose transaction no node knows is rejected: CHAIN_NOT_FOUND_TIMEOUT_SECONDS
    after it was posted, or CHAIN_REORG_TIMEOUT_SECONDS after its block left the chain."""
    if response.reorged_at is not None:
        return response.reorged_at + timedelta(seconds=settings.CHAIN_REORG_TIMEOUT_SECONDS)
    return response.created_at + timedelta(seconds=settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS)


# --- Head watcher: every pending claim re-checked once per block ------------------------------

HEAD_SEEN_KEY = "chain:head-watcher:seen"


class ChainReads:
    """What one batch round read for one head: answers the calls payment_decide makes, as
    ChainClient would, without asking the node again. The round reads the receipt of every claim it
    decides (None: the node does not know it, as for the live client); a block or transaction it did
    not read answers None, which payment_decide treats as "not yet", never as a verdict."""

    def __init__(
        self,
        *,
        head: int,
        receipts: dict[str, Any | None],
        blocks: dict[Any, Any | None],
        transactions: dict[str, Any | None],
    ) -> None:
        self.head = head
        self._receipts = receipts
        self._blocks = blocks
        self._transactions = transactions

    def block_number(self) -> int:
        return self.head

    def get_receipt(self, tx_hash: str) -> Any | None:
        return self._receipts.get(tx_hash)

    def get_block(self, block: int | str) -> Any | None:
        return self._blocks.get(block)

    def get_transaction(self, tx_hash: str) -> Any | None:
        return self._transactions.get(tx_hash)


@dataclass(frozen=True)
class HeadRound:
    head: int
    claims: int  # pending claims re-checked
    decided: int  # of which confirmed or rejected in this round
    http_requests: int  # RPC requests of the round, eth_blockNumber included


def _needs_block_and_transaction(receipt: Any, head: int, finalized: int | None) -> int | None:
    """The block number whose block and transaction payment_decide will read for this receipt, or
    None when it stops before (unknown, failed, or not deep enough yet)."""
    if receipt is None or int(field(receipt, "status")) != 1:
        return None
    number = int(field(receipt, "blockNumber"))
    return number if depth_reached(number, head=head, finalized=finalized) else None


def pending_claims_on_head(*, client: ChainClient | None = None, last_head: int | None) -> HeadRound | None:
    """When the head is not `last_head`, re-check every pending claim (oldest check first, up to
    CHAIN_HEAD_MAX_CLAIMS) in one round: one eth_blockNumber, the receipts in batches, then the
    blocks and transactions of the receipts deep enough in batches — so
    1 + ceil(claims / B) + ceil((deep claims + their blocks) / B) requests with B =
    CHAIN_RPC_BATCH_SIZE, however the claims are spread. Returns None when the head is still
    `last_head` (one request spent). Raises ChainUnavailable when a node fails: the caller tries at the next beat."""
    client = client or get_client()
    head = client.block_number()
    # Only the same head is skipped: a lower one (a node behind the last one asked, a development
    # chain started afresh) is a head to check too, or the watcher would wait for a height that may
    # never come back.
    if head == last_head:
        return None
    claims = list(
        Response.objects.select_related("challenge", "challenge__anchor")
        .filter(status=ResponseStatus.PENDING)
        .order_by("updated_at")[: settings.CHAIN_HEAD_MAX_CLAIMS]
    )
    if not claims:
        return HeadRound(head, 0, 0, client.http_requests)
    hashes = sorted({c.transaction_hash for c in claims})
    receipts = client.receipts(hashes)
    finalized = None
    extra_blocks: dict[Any, Any | None] = {}
    if finality_by_tag():
        block = client.get_block("finalized")
        extra_blocks["finalized"] = block
        finalized = int(field(block, "number")) if block is not None else -1
    deep = {h: n for h, r in receipts.items() if (n := _needs_block_and_transaction(r, head, finalized)) is not None}
    blocks: dict[Any, Any | None] = {}
    transactions: dict[str, Any | None] = {}
    if deep:
        blocks, transactions = client.blocks_and_transactions(sorted(set(deep.values())), sorted(deep))
    reads = ChainReads(head=head, receipts=receipts, blocks={**blocks, **extra_blocks}, transactions=transactions)
    decided = 0
    for response in claims:
        try:
            outcome = payment_decide(response=response, chain=reads, touch=False)
        except VerificationPending:
            continue
        decided += outcome.status != ResponseStatus.PENDING
    # Every claim of the round is recorded as checked in one UPDATE (not one per claim): the sweeper
    # leaves them alone while blocks come, and the next round starts with the claims checked least
    # recently when more than CHAIN_HEAD_MAX_CLAIMS wait.
    Response.objects.filter(pk__in=[c.pk for c in claims], status=ResponseStatus.PENDING).update(updated_at=_now())
    return HeadRound(head, len(claims), decided, client.http_requests)


# --- Reorgs ------------------------------------------------------------------------------------


def response_unconfirm_reorged(*, response: Response) -> bool:
    """A confirmed claim whose block left the canonical chain goes back to pending; its stake
    leaves the challenge's sums in the same transaction. Conditional on the block hash it was
    confirmed in, so a claim re-confirmed meanwhile in a new block is left alone."""
    with transaction.atomic():
        changed = response_unconfirm(response=response)
        if changed:
            Payment.objects.filter(transaction_hash=response.transaction_hash, block_hash=response.block_hash).update(
                removed=True
            )
    if changed:
        logger.warning("response %s: block %s left the chain; pending again", response.pk, response.block_hash)
    return changed


def confirmed_recheck(*, client: ChainClient | None = None) -> list[int]:
    """Check the confirmed claims of the last CHAIN_REORG_DEPTH_BLOCKS blocks against the canonical
    chain; returns the ids moved back to pending (the caller queues their verification)."""
    client = client or get_client()
    head = client.block_number()
    since = max(0, head - settings.CHAIN_REORG_DEPTH_BLOCKS)
    moved = []
    # Demo claims (seed_demo) were never on a chain: there is nothing to re-check them against.
    recent = Response.objects.filter(status=ResponseStatus.CONFIRMED, block_number__gte=since, is_demo=False).order_by(
        "block_number"
    )
    canonical: dict[int, str | None] = {}
    for response in recent:
        number = response.block_number
        if number not in canonical:
            block = client.get_block(number)
            canonical[number] = to_hex(field(block, "hash")) if block is not None else None
        if canonical[number] != response.block_hash.lower() and response_unconfirm_reorged(response=response):
            moved.append(response.pk)
    return moved


# --- Indexer -----------------------------------------------------------------------------------

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
    moved to another block gets its new position. Returns the pending claims the new logs name,
    for the caller to verify now rather than at their next retry."""
    client = client or get_client()
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
            "address": _checksum(settings.USDC_ADDRESS),
            "topics": [to_hex(TRANSFER_TOPIC), None, _address_topic(settings.TREASURY_ADDRESS)],
            "fromBlock": from_block,
            "toBlock": to_block,
        }
    )
    seen: set[tuple[str, int]] = set()
    tx_hashes: set[str] = set()
    recorded = 0
    block_times: dict[int, datetime | None] = {}
    with transaction.atomic():
        for log in logs:
            if log.get("removed"):
                continue
            transfer = transfer_from_log(log)
            if transfer is None or transfer.token.lower() != settings.USDC_ADDRESS.lower():
                continue
            key = (transfer.transaction_hash, transfer.log_index)
            seen.add(key)
            tx_hashes.add(transfer.transaction_hash)
            number = int(transfer.block_number or 0)
            if number not in block_times:
                block = client.get_block(number)
                block_times[number] = _block_time(block) if block is not None else None
            existing = Payment.objects.filter(transaction_hash=key[0], log_index=key[1]).first()
            decoded = None
            if existing is None or not existing.commitment:
                tx = client.get_transaction(transfer.transaction_hash)
                if tx is not None and str(field(tx, "to") or "").lower() == settings.USDC_ADDRESS.lower():
                    try:
                        decoded = decode_transfer(bytes(field(tx, "input")))
                    except CalldataError:
                        decoded = None
            _payment_upsert(
                transfer,
                block_number=number,
                block_hash=transfer.block_hash,
                transaction_index=int(transfer.transaction_index or 0),
                block_time=block_times[number],
                decoded_input=decoded,
                response=_payer_claim(transfer.transaction_hash, _ledger_commitment(existing, decoded)),
            )
            recorded += 1
        # Ledger rows in the scanned range that the canonical chain no longer holds.
        gone = [
            p.pk
            for p in Payment.objects.filter(block_number__gte=from_block, block_number__lte=to_block, removed=False)
            if (p.transaction_hash, p.log_index) not in seen
        ]
        removed = Payment.objects.filter(pk__in=gone).update(removed=True)
        ChainCursor.objects.update_or_create(name=INDEX_CURSOR, defaults={"block_number": to_block})
    pending = list(
        Response.objects.filter(transaction_hash__in=tx_hashes, status=ResponseStatus.PENDING).values_list(
            "pk", flat=True
        )
    )
    return IndexResult(from_block, to_block, recorded, removed, pending)


def _ledger_commitment(existing: Payment | None, decoded: Any | None) -> str:
    if decoded is not None and decoded.commitment:
        return decoded.commitment
    return existing.commitment if existing is not None else ""


def _payer_claim(transaction_hash: str, commitment: str) -> Response | None:
    """The claim a ledger row links to: the one carrying the commitment the calldata holds (the
    confirmed claim, when there is one). Several claims can name one hash; a stranger's never
    carries the payment's commitment, so it is never linked."""
    claims = Response.objects.filter(transaction_hash=transaction_hash)
    confirmed = claims.filter(status=ResponseStatus.CONFIRMED).first()
    if confirmed is not None or not commitment:
        return confirmed
    return claims.filter(commitment=commitment).first()


def _checksum(address: str) -> str:
    from eth_utils import to_checksum_address

    return to_checksum_address(address)


# --- Sweeper -----------------------------------------------------------------------------------


def stale_pending_claims(*, limit: int = 500) -> list[int]:
    """Pending claims that no check has touched for CHAIN_SWEEP_STALE_SECONDS: their message was
    lost (broker down at POST time, worker killed mid-task) or their retries ran out. Touched here so
    the next sweep does not queue them again while this round's message is on its way."""
    cutoff = _now() - timedelta(seconds=settings.CHAIN_SWEEP_STALE_SECONDS)
    ids = list(
        Response.objects.filter(status=ResponseStatus.PENDING, updated_at__lt=cutoff)
        .order_by("updated_at")
        .values_list("pk", flat=True)[:limit]
    )
    if ids:
        Response.objects.filter(pk__in=ids, status=ResponseStatus.PENDING).update(updated_at=_now())
    return ids
