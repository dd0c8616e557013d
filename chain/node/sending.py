"""Sending a transaction signed with a local key (eth-account; no node ever holds a key): EIP-1559
fees from the market, a replacement's bumped fees, and broadcasting with the node's refusal sorted
into what the sender does next. The relayer (chain/relayer/) and the operator's `open`
(chain/pot/opening.py) both send through here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from django.conf import settings
from eth_account.signers.local import LocalAccount
from eth_account.types import TransactionDictType
from eth_typing import HexStr
from eth_utils import keccak, to_checksum_address
from web3 import HTTPProvider, Web3
from web3.types import RPCEndpoint

from .calls import as_int, rpc_batch
from .client import ChainClient, ChainUnavailable

# A node's floor for the tip (Sepolia's usual minimum).
MIN_TIP_WEI = 10**9


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


@dataclass(frozen=True)
class Signed:
    hash: str
    raw: str
    nonce: int
    gas: int
    fees: Fees


def sign(account: LocalAccount, *, nonce: int, to: str, data: str, gas: int, fees: Fees, value: int = 0) -> Signed:
    """A type-2 transaction of this chain (CHAIN_ID), signed locally."""
    tx: TransactionDictType = {
        "type": 2,
        "chainId": settings.CHAIN_ID,
        "nonce": nonce,
        "to": to_checksum_address(to),
        "value": value,
        "data": HexStr(data),
        "gas": gas,
        "maxFeePerGas": fees.max_fee,
        "maxPriorityFeePerGas": fees.tip,
    }
    raw = bytes(account.sign_transaction(tx).raw_transaction)
    return Signed(hash="0x" + keccak(raw).hex(), raw="0x" + raw.hex(), nonce=nonce, gas=gas, fees=fees)


def read_account(client: ChainClient, *, address: str) -> tuple[int, int, Fees, int]:
    """(pending nonce, balance in wei, market fees, latest block time) of an account, in one batch."""
    pending, balance, block, tip = rpc_batch(
        client,
        [
            ("eth_getTransactionCount", [address, "pending"]),
            ("eth_getBalance", [address, "latest"]),
            ("eth_getBlockByNumber", ["latest", False]),
            ("eth_maxPriorityFeePerGas", []),
        ],
    )
    fees = market_fees(base_fee=as_int(block.get("baseFeePerGas") or "0x0"), suggested_tip=as_int(tip))
    return as_int(pending), as_int(balance), fees, as_int(block["timestamp"])
