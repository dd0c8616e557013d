"""What the relayer reads from the chain before it spends gas, for many calls at once in JSON-RPC
batches: its own pending nonce, balance and the fees, and per call a simulation of it from the
relayer's address (eth_call), whose refusal says it must not be sent (chain/pot/errors.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings

from ..models import PotCall
from ..node.calls import Call, as_int, rpc_batch, simulation_call
from ..node.client import ChainClient, ChainUnavailable, Reverted
from ..node.sending import Fees, market_fees
from ..pot.errors import Refusal, refusal


@dataclass(frozen=True)
class RelayerFacts:
    pending_nonce: int
    balance: int  # wei
    fees: Fees
    block_time: int  # the latest block's timestamp
    refusals: dict[int, Refusal]  # by call id: what a simulation of the call reverts with


def relayer_calls(address: str) -> list[Call]:
    return [
        ("eth_getTransactionCount", [address, "pending"]),
        ("eth_getBalance", [address, "latest"]),
        ("eth_getBlockByNumber", ["latest", False]),
        ("eth_maxPriorityFeePerGas", []),
    ]


def read_fees(block: dict, suggested_tip: str) -> Fees:
    return market_fees(base_fee=as_int(block.get("baseFeePerGas") or "0x0"), suggested_tip=as_int(suggested_tip))


def read_facts(client: ChainClient, *, address: str, calls: Sequence[PotCall]) -> RelayerFacts:
    """One round of batches for the relayer and `calls` (one simulation each)."""
    batch = relayer_calls(address) + [
        simulation_call(to=settings.POT_ADDRESS, sender=address, data=call.data, gas=call.gas) for call in calls
    ]
    answers = rpc_batch(client, batch)
    pending, balance, block, tip = answers[:4]
    refusals = {
        call.pk: refusal(answer.data, answer.message)
        for call, answer in zip(calls, answers[4:], strict=True)
        if isinstance(answer, Reverted)
    }
    return RelayerFacts(
        pending_nonce=as_int(pending),
        balance=as_int(balance),
        fees=read_fees(block, tip),
        block_time=as_int(block["timestamp"]),
        refusals=refusals,
    )


def read_next_block_fees(client: ChainClient) -> Fees:
    """The market's fees for the block being built: the pending block's base fee where the node
    gives one (a node refused a transaction under the latest block's), else the latest block's."""
    block, tip = rpc_batch(client, [("eth_getBlockByNumber", ["latest", False]), ("eth_maxPriorityFeePerGas", [])])
    try:
        pending = rpc_batch(client, [("eth_getBlockByNumber", ["pending", False])])[0]
    except ChainUnavailable:  # a provider without the pending tag
        pending = None
    base = max(as_int(block.get("baseFeePerGas") or "0x0"), as_int((pending or {}).get("baseFeePerGas") or "0x0"))
    return market_fees(base_fee=base, suggested_tip=as_int(tip))


def read_relayer(client: ChainClient, *, address: str) -> tuple[int, int, Fees, int]:
    """(pending nonce, balance, market fees, latest block time) of the relayer, in one batch."""
    pending, balance, block, tip = rpc_batch(client, relayer_calls(address))
    return as_int(pending), as_int(balance), read_fees(block, tip), as_int(block["timestamp"])
