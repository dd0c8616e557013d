"""Raw JSON-RPC calls in batches (ChainClient.batch with `raw`), where an `eth_call` that reverts is an
answer rather than a node failure, and the few words and quantities the callers read. The one batch
helper of the repository: the follower, the relayer, the opening and the POST's checks use it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eth_utils import keccak

from .client import ChainClient

BALANCE_OF = keccak(text="balanceOf(address)")[:4].hex()

Call = tuple[str, list[Any]]


def rpc_batch(client: ChainClient, calls: Sequence[Call]) -> list[Any]:
    """Each call's raw result, in order; an eth_call that reverted gives a Reverted (chain/node/client.py).
    Any other error fails the chunk on that node and the next node is asked."""
    keyed = [(method, params, index) for index, (method, params) in enumerate(calls)]
    simulations = {index for index, (method, _) in enumerate(calls) if method == "eth_call"}
    found = client.batch(keyed, reverts_answer=simulations, raw=True)
    return [found[index] for index in range(len(calls))]


def word(value: int | str) -> str:
    """A 32-byte ABI word as hex (an address or an integer)."""
    if isinstance(value, str):
        return value.lower().removeprefix("0x").rjust(64, "0")
    return f"{value:064x}"


def balance_of_call(*, token: str, owner: str) -> Call:
    return "eth_call", [{"to": token, "data": "0x" + BALANCE_OF + word(owner)}, "latest"]


def simulation_call(*, to: str, sender: str, data: str, gas: int) -> Call:
    """The call as `sender` would send it, executed on the latest block: its revert is the answer."""
    return "eth_call", [{"from": sender, "to": to, "data": data, "gas": hex(gas)}, "latest"]


def as_int(value: Any) -> int:
    """A JSON-RPC quantity or a 32-byte word ("0x..."), as an int; a Reverted or null is an error."""
    if not isinstance(value, str):
        raise ValueError(f"not a quantity: {value!r}")
    return int(value, 16) if value not in ("0x", "") else 0
