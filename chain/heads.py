"""The head watcher (beat: chain/tasks.py, watch_head): every pending claim re-checked once per new
block, in one round of batched RPC requests (docs/chain.md, "Verification driven by blocks"). The
round decides each claim through the same decision as a single check (chain/verification.py,
payment_decide), from what it read in its batches."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from responses.models import Response, ResponseStatus

from .client import ChainClient, get_client
from .heights import head_is_current
from .rpc import Block, BlockTag, Receipt, Transaction
from .transfers import depth_reached, finality_by_tag
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
        head_current: bool = True,
    ) -> None:
        self.head = head
        # Whether the node of this round is at the highest head seen (chain/heights.py): a node
        # behind gives no verdict that rests on a transaction being unknown (chain/verification.py).
        self.head_current = head_current
        self._receipts = receipts
        self._blocks = blocks
        self._transactions = transactions

    def block_number(self) -> int:
        return self.head

    def get_receipt(self, tx_hash: str) -> Receipt | None:
        return self._receipts.get(tx_hash)

    def get_block(self, block: int | BlockTag) -> Block | None:
        return self._blocks.get(block)

    def get_transaction(self, tx_hash: str) -> Transaction | None:
        return self._transactions.get(tx_hash)


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
    CHAIN_HEAD_MAX_CLAIMS) in one round: one eth_blockNumber, the receipts in batches, then the
    blocks and transactions of the receipts deep enough in batches — so
    1 + ceil(claims / B) + ceil((deep claims + their blocks) / B) requests with B =
    CHAIN_RPC_BATCH_SIZE, however the claims are spread. Returns None when the head is still
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
        Response.objects.select_related("challenge", "challenge__anchor")
        .filter(status=ResponseStatus.PENDING)
        .order_by("updated_at")[: settings.CHAIN_HEAD_MAX_CLAIMS]
    )
    if not claims:
        return HeadRound(head, 0, 0, client.http_requests)
    hashes = sorted({c.transaction_hash for c in claims})
    receipts = client.receipts(hashes)
    finalized = None
    extra_blocks: dict[BlockTag, Block | None] = {}
    if finality_by_tag():
        block = client.get_block("finalized")
        extra_blocks["finalized"] = block
        finalized = int(block["number"]) if block is not None else -1
    deep = {h: n for h, r in receipts.items() if (n := _needs_block_and_transaction(r, head, finalized)) is not None}
    blocks: dict[int, Block | None] = {}
    transactions: dict[str, Transaction | None] = {}
    if deep:
        blocks, transactions = client.blocks_and_transactions(sorted(set(deep.values())), sorted(deep))
    read_blocks: dict[int | BlockTag, Block | None] = dict(blocks.items())
    read_blocks.update(extra_blocks.items())
    reads = ChainReads(
        head=head, receipts=receipts, blocks=read_blocks, transactions=transactions, head_current=current
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
