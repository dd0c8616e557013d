"""The relayer's conversation with the chain (docs/protocol.md section 2a, "The relayer"): raw
JSON-RPC batches in which an `eth_call` that reverts is an answer rather than a node failure, the
token's reads it re-checks before a send, the fees, and broadcasting a signed transaction with the
node's refusal sorted into what the relayer does next.

An error in a batch is the node failing (right for receipts and blocks), except a reverted eth_call:
the simulation of a stake that would revert is the very answer looked for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from eth_utils import keccak
from web3 import HTTPProvider, Web3
from web3.types import RPCEndpoint

from .authorization import nonce_topic
from .client import ChainClient, ChainUnavailable

AUTHORIZATION_STATE = keccak(text="authorizationState(address,bytes32)")[:4].hex()
BALANCE_OF = keccak(text="balanceOf(address)")[:4].hex()
# A node's floor for the tip (as chain/registry.py's anchors: Sepolia's usual minimum).
MIN_TIP_WEI = 10**9

Call = tuple[str, list[Any]]


def rpc_batch(client: ChainClient, calls: Sequence[Call]) -> list[Any]:
    """Each call's raw result, in order (ChainClient.batch with `raw`); an eth_call that reverted
    gives a Reverted. Any other error fails the chunk on that node and the next node is asked."""
    keyed = [(method, params, index) for index, (method, params) in enumerate(calls)]
    simulations = {index for index, (method, _) in enumerate(calls) if method == "eth_call"}
    found = client.batch(keyed, reverts_answer=simulations, raw=True)
    return [found[index] for index in range(len(calls))]


def word(value: int | str) -> str:
    """A 32-byte ABI word as hex (an address or an integer)."""
    if isinstance(value, str):
        return value.lower().removeprefix("0x").rjust(64, "0")
    return f"{value:064x}"


def authorization_state_call(*, token: str, authorizer: str, nonce: str) -> Call:
    data = "0x" + AUTHORIZATION_STATE + word(authorizer) + nonce_topic(nonce)[2:]
    return "eth_call", [{"to": token, "data": data}, "latest"]


def balance_of_call(*, token: str, owner: str) -> Call:
    return "eth_call", [{"to": token, "data": "0x" + BALANCE_OF + word(owner)}, "latest"]


def simulation_call(*, token: str, sender: str, data: str, gas: int) -> Call:
    return "eth_call", [{"from": sender, "to": token, "data": data, "gas": hex(gas)}, "latest"]


def as_int(value: Any) -> int:
    """A JSON-RPC quantity or a 32-byte word ("0x..."), as an int; a Reverted or null is an error."""
    if not isinstance(value, str):
        raise ValueError(f"not a quantity: {value!r}")
    return int(value, 16) if value not in ("0x", "") else 0


# --- Fees -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fees:
    max_fee: int
    tip: int

    def cost(self, gas: int) -> int:
        """The most a transaction of `gas` may cost at these fees."""
        return gas * self.max_fee


def market_fees(*, base_fee: int, suggested_tip: int) -> Fees:
    """EIP-1559 fees that stay includable while the base fee doubles: 2 x base fee + tip."""
    tip = max(suggested_tip, MIN_TIP_WEI)
    return Fees(max_fee=2 * base_fee + tip, tip=tip)


def bumped(previous: Fees, market: Fees, *, percent: int) -> Fees:
    """Fees for a replacement of the same nonce: both raised by `percent` (at least the 10 % nodes
    require of a replacement, rounded up) and never below the market's."""
    percent = max(percent, 10)
    tip = max(previous.tip + -(-previous.tip * percent // 100), market.tip)
    max_fee = max(previous.max_fee + -(-previous.max_fee * percent // 100), market.max_fee, tip)
    return Fees(max_fee=max_fee, tip=tip)


# --- Broadcasting -------------------------------------------------------------------------------

SENT = "sent"  # the node took it (or already holds it: the same bytes, so the same hash)
UNKNOWN = "unknown"  # no node answered: it may or may not have gone out; its hash is known
NONCE_USED = "nonce_used"  # the nonce is used (mined), or taken in the pool by another transaction
FEE_TOO_LOW = "fee_too_low"  # below the base fee
# The pool holds another transaction of this nonce with fees the new one does not beat by enough:
# for a first send, a transaction the relayer has no record of took the nonce.
REPLACEMENT_UNDERPRICED = "replacement_underpriced"
NO_FUNDS = "no_funds"  # the relayer cannot pay the gas
REJECTED = "rejected"  # any other refusal

# Lowercase fragments of the nodes' messages (geth, anvil, erigon, nethermind, hosted providers).
_MESSAGES = (
    (("already known", "already imported", "known transaction", "alreadyknown"), SENT),
    (("nonce too low", "nonce has already been used", "oldnonce", "old nonce"), NONCE_USED),
    (("insufficient funds",), NO_FUNDS),
    (("replacement transaction underpriced", "replacement underpriced", "replacetx"), REPLACEMENT_UNDERPRICED),
    (("underpriced", "less than block base fee", "fee cap less than", "feecap", "fee too low"), FEE_TOO_LOW),
)


def refusal_kind(message: str) -> str:
    text = message.lower()
    for fragments, kind in _MESSAGES:
        if any(fragment in text for fragment in fragments):
            return kind
    return REJECTED


@dataclass(frozen=True)
class Broadcast:
    outcome: str
    message: str = ""


def broadcast(client: ChainClient, raw: str) -> Broadcast:
    """eth_sendRawTransaction of `raw` (0x hex) through the nodes in order. A node's refusal is an
    answer (sorted by refusal_kind); a node that does not answer is skipped, and when none answers
    the outcome is UNKNOWN: the transaction may be in a pool, and its hash is keccak(raw) anyway."""

    def send(w3: Web3) -> Broadcast:
        answer = cast(HTTPProvider, w3.provider).make_request(RPCEndpoint("eth_sendRawTransaction"), [raw])
        error = answer.get("error")
        if error is None:
            return Broadcast(SENT)
        message = str(dict(error).get("message", error))
        kind = refusal_kind(message)
        if kind == REJECTED and "timeout" in message.lower():
            raise TimeoutError(message)  # a gateway's timeout says nothing of the transaction: next node
        return Broadcast(kind, message)

    try:
        return client.call("eth_sendRawTransaction", send)
    except ChainUnavailable as exc:
        return Broadcast(UNKNOWN, str(exc))
