"""Reorgs (beat: chain/tasks.py, recheck_confirmed): a confirmed claim whose block left the
canonical chain goes back to pending, and its verification runs again (docs/chain.md). Once its
challenge's resolution has started it stays confirmed and counted instead, and an exception of kind
`reorged` is recorded for staff and the published outcome (responses/services.py,
response_unconfirm; responses/barrier.py)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction

from responses.models import Response, ResponseStatus
from responses.services import response_unconfirm

from .client import ChainClient, get_client
from .ledger import payments_mark_removed
from .transfers import to_hex

logger = logging.getLogger(__name__)


def response_unconfirm_reorged(*, response: Response) -> bool:
    """A confirmed claim whose block left the canonical chain goes back to pending; its stake
    leaves the challenge's sums in the same transaction. Conditional on the block hash it was
    confirmed in, so a claim re-confirmed meanwhile in a new block is left alone."""
    with transaction.atomic():
        changed = response_unconfirm(response=response)
        if changed:
            payments_mark_removed(transaction_hash=response.transaction_hash, block_hash=response.block_hash)
    if changed:
        logger.warning("response %s: block %s left the chain; pending again", response.pk, response.block_hash)
    return changed


def confirmed_recheck(*, client: ChainClient | None = None) -> list[int]:
    """Check the confirmed claims of the last CHAIN_REORG_DEPTH_BLOCKS blocks against the canonical
    chain; returns the ids moved back to pending (the caller queues their verification).

    A claim is moved only on a node's own word that its block was replaced: the same node answered
    a head at or above the claim's block and another block (another hash) at that height. A node
    that has no block there yet (it lags, or the client failed over to one that has not caught up)
    says nothing about the claim (docs/chain.md, "A node that lags"); every answer comes from one
    node (a node failing midway: the re-check starts again on the next one)."""
    client = client or get_client()
    return client.on_one_node(_recheck_on)


def _recheck_on(client: ChainClient) -> list[int]:
    head = client.block_number()
    since = max(0, head - settings.CHAIN_REORG_DEPTH_BLOCKS)
    moved = []
    # Demo claims (seed_demo) were never on a chain: there is nothing to re-check them against.
    # Claims above this node's head: it has not reached them, so it cannot have replaced them.
    recent = Response.objects.filter(
        status=ResponseStatus.CONFIRMED, block_number__gte=since, block_number__lte=head, is_demo=False
    ).order_by("block_number")
    canonical: dict[int, str | None] = {}
    for response in recent:
        number = response.block_number
        if number is None:  # excluded by the filter (block_number__gte); narrows the type
            continue
        if number not in canonical:
            block = client.get_block(number)
            canonical[number] = to_hex(block["hash"]) if block is not None else None
        replaced = canonical[number] is not None and canonical[number] != response.block_hash.lower()
        if replaced and response_unconfirm_reorged(response=response):
            moved.append(response.pk)
    return moved
