"""How deep a block must be to count (CHAIN_CONFIRMATIONS: a number of blocks, or "finalized"): the
pot's follower counts events only up to this height, and the relayer follows its transactions until
they reach it, so that a reorg before then finds them still watched."""

from __future__ import annotations

from django.conf import settings

from .calls import as_int, rpc_batch
from .client import ChainClient


def confirmed_height(client: ChainClient, head: int) -> int:
    """The highest block deep enough to count, given the head: CHAIN_CONFIRMATIONS blocks including
    the head (1 counts the head itself), or the node's finalized block (-1 when it has none)."""
    setting = str(settings.CHAIN_CONFIRMATIONS).strip()
    if setting.isdigit():
        return head - max(1, int(setting)) + 1
    (block,) = rpc_batch(client, [("eth_getBlockByNumber", ["finalized", False])])
    return as_int(block["number"]) if block else -1
