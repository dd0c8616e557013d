"""The head watcher (beat: chain/tasks.py, watch_head): every pending claim re-checked once per new
block, in one round of batched RPC requests (docs/chain.md, "Verification driven by blocks"). The
round decides each claim through the same decision as a single check (chain/verification.py,
payment_decide), from what it read in its batches. A claim paid by authorization has no
transaction to read until its authorization is used: its token logs are searched in the round's
first batch beside the receipts of the others (chain/authorization_verification.py)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from django.conf import settings
from django.utils import timezone
from web3.types import FilterParams

from responses.models import PaymentMethod, Response, ResponseStatus

from .authorization import AUTHORIZATION_USED_TOPIC
from .authorization_verification import authorization_log_filter, expiry_block, first_event, log_filter_key
from .client import ChainClient, get_client
from .heights import head_is_current
from .rpc import Block, BlockTag, Log, Receipt, Transaction
from .transfers import depth_reached, finality_by_tag, to_hex
from .verification import VerificationPending, payment_decide

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
        receipts: dict[str, Receipt | None],
        blocks: dict[int | BlockTag, Block | None],
        transactions: dict[str, Transaction | None],
        logs: dict[str, list[Log]] | None = None,
        head_current: bool = True,
    ) -> None:
        self.head = head
        # Whether the node of this round is at the highest head seen (chain/heights.py): a node
        # behind gives no verdict that rests on a transaction being unknown (chain/verification.py).
        self.head_current = head_current
        self._receipts = receipts
        self._blocks = blocks
        self._transactions = transactions
        self._logs = logs or {}

    def block_number(self) -> int:
        return self.head

    def get_receipt(self, tx_hash: str) -> Receipt | None:
        return self._receipts.get(tx_hash)

    def get_block(self, block: int | BlockTag) -> Block | None:
        return self._blocks.get(block)

    def get_transaction(self, tx_hash: str) -> Transaction | None:
        return self._transactions.get(tx_hash)

    def get_logs(self, filter_params: FilterParams) -> list[Log]:
        """The logs of a filter the round searched; one it did not is no answer ("not yet")."""
        logs = self._logs.get(log_filter_key(filter_params))
        if logs is None:
            raise VerificationPending("logs not read in this round")
        return logs


@dataclass(frozen=True)
class HeadRound:
    head: int
    claims: int  # pending claims re-checked
    decided: int  # of which confirmed or rejected in this round
    http_requests: int  # RPC requests of the round, eth_blockNumber included


def _needs_block_and_transaction(receipt: Receipt | None, head: int, finalized: int | None) -> int | None:
    """The block number whose block and transaction payment_decide will read for this receipt, or
    None when it stops before (unknown, failed, or not deep enough yet)."""
    if receipt is None or int(receipt["status"]) != 1:
        return None
    number = int(receipt["blockNumber"])
    return number if depth_reached(number, head=head, finalized=finalized) else None


def pending_claims_on_head(*, client: ChainClient | None = None, last_head: int | None) -> HeadRound | None:
    """When the head is not `last_head`, re-check every pending claim (oldest check first, up to
    CHAIN_HEAD_MAX_CLAIMS) in one round: one eth_blockNumber; the receipts of transfers, the token
    logs of authorizations (one eth_getLogs each) and, when any authorization waits, the block its
    expiry is judged by, in batches; then the blocks and transactions of what is deep enough (and
    the receipts of deep authorization uses) in batches — so
    1 + ceil((claims + 1) / B) + ceil((deep claims + deep uses + their blocks) / B) requests with
    B = CHAIN_RPC_BATCH_SIZE, the last term only when something is deep enough, however the claims
    are spread. Returns None when the head is still
    `last_head` (one request spent). Every answer of a round comes from one node (a node failing
    mid-round: the round starts again on the next one), so that a lagging node's "unknown" is never
    read beside another node's head. Raises ChainUnavailable when no node answers all of it: the
    caller tries at the next beat."""
    client = client or get_client()
    return client.on_one_node(lambda node: _round_on(node, last_head))


def _round_on(client: ChainClient, last_head: int | None) -> HeadRound | None:
    head = client.block_number()
    # Only the same head is skipped: a lower one (a node behind the last one asked, a development
    # chain started afresh) is a head to check too, or the watcher would wait for a height that may
    # never come back.
    if head == last_head:
        return None
    current = head_is_current(head)
    claims = list(
        Response.objects.select_related("challenge", "challenge__anchor", "authorization")
        .filter(status=ResponseStatus.PENDING)
        .order_by("updated_at")[: settings.CHAIN_HEAD_MAX_CLAIMS]
    )
    if not claims:
        return HeadRound(head, 0, 0, client.http_requests)
    by_authorization = [c for c in claims if c.payment_method == PaymentMethod.AUTHORIZATION]
    hashes = sorted({c.transaction_hash for c in claims if c.payment_method != PaymentMethod.AUTHORIZATION})
    searches = {c.pk: authorization_log_filter(c, to_block=head) for c in by_authorization}
    finalized = None
    blocks: dict[int | BlockTag, Block | None] = {}
    if finality_by_tag():
        block = client.get_block("finalized")
        blocks["finalized"] = block
        finalized = int(block["number"]) if block is not None else -1
    # The first batch: the receipts of transfers, the token logs of authorizations, and the block
    # whose time says whether an unused authorization has expired.
    expiry = expiry_block(head) if by_authorization else None
    first = _reads(
        client,
        receipts=hashes,
        logs={log_filter_key(f): f for f in searches.values()},
        blocks=[expiry] if isinstance(expiry, int) else [],
    )
    receipts, logs = first.receipts, first.logs
    blocks.update(first.blocks)
    # The second, only for what is deep enough: blocks and transactions of the transfers, and of each
    # authorization's use its receipt too; the blocks of deep cancels.
    deep = {h: n for h, r in receipts.items() if (n := _needs_block_and_transaction(r, head, finalized)) is not None}
    uses: dict[str, int] = {}
    cancels: set[int] = set()
    for claim in by_authorization:
        event = first_event(logs.get(log_filter_key(searches[claim.pk]), []), claim)
        if event is None or not depth_reached(int(event[1]["blockNumber"]), head=head, finalized=finalized):
            continue
        if event[0] == AUTHORIZATION_USED_TOPIC:
            uses[to_hex(event[1]["transactionHash"])] = int(event[1]["blockNumber"])
        else:
            cancels.add(int(event[1]["blockNumber"]))
    if deep or uses or cancels:
        second = _reads(
            client,
            receipts=sorted(uses),
            blocks=sorted(set(deep.values()) | set(uses.values()) | cancels),
            transactions=sorted(set(deep) | set(uses)),
        )
        receipts.update(second.receipts)
        blocks.update(second.blocks)
        transactions = second.transactions
    else:
        transactions = {}
    reads = ChainReads(
        head=head, receipts=receipts, blocks=blocks, transactions=transactions, logs=logs, head_current=current
    )
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
    Response.objects.filter(pk__in=[c.pk for c in claims], status=ResponseStatus.PENDING).update(
        updated_at=timezone.now()
    )
    return HeadRound(head, len(claims), decided, client.http_requests)


@dataclass
class _Read:
    receipts: dict[str, Receipt | None]
    blocks: dict[int | BlockTag, Block | None]
    transactions: dict[str, Transaction | None]
    logs: dict[str, list[Log]]


def _reads(
    client: ChainClient,
    *,
    receipts: Sequence[str] = (),
    blocks: Sequence[int] = (),
    transactions: Sequence[str] = (),
    logs: dict[str, FilterParams] | None = None,
) -> _Read:
    """Receipts, blocks by number, transactions and logs together, in JSON-RPC batches of
    CHAIN_RPC_BATCH_SIZE calls (chain/client.py, ChainClient.batch)."""
    calls: list[tuple[str, list[Any], Hashable]] = []
    calls += [("eth_getTransactionReceipt", [h], ("receipt", h)) for h in receipts]
    calls += [("eth_getBlockByNumber", [hex(n), False], ("block", n)) for n in blocks]
    calls += [("eth_getTransactionByHash", [h], ("tx", h)) for h in transactions]
    calls += [("eth_getLogs", [_rpc_filter(f)], ("logs", key)) for key, f in (logs or {}).items()]
    found = cast(dict[tuple[str, Any], Any], client.batch(calls)) if calls else {}
    read = _Read({}, {}, {}, {})
    for (kind, key), value in found.items():
        if kind == "receipt":
            read.receipts[key] = value
        elif kind == "block":
            read.blocks[key] = value
        elif kind == "tx":
            read.transactions[key] = value
        else:
            read.logs[key] = list(value or [])
    return read


def _rpc_filter(params: FilterParams) -> dict[str, Any]:
    """A filter as the raw JSON-RPC call takes it: block numbers in hex."""
    raw: dict[str, Any] = dict(params)
    for bound in ("fromBlock", "toBlock"):
        if isinstance(raw.get(bound), int):
            raw[bound] = hex(raw[bound])
    return raw
