"""Reading ERC-20 Transfer logs out of a receipt. Pure: give it a receipt (web3's AttributeDict or
plain JSON-RPC dicts, chain/rpc.py) and it returns the transfers that a given token contract emitted.

web3's `contract.events.Transfer().process_receipt()` decodes every log whose topics match, no
matter which contract emitted it: any contract can emit `Transfer(from, treasury, amount)`. So the
emitter is checked first, and only logs of the token itself count."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from eth_utils import keccak, to_checksum_address

from .rpc import Block, ChainReader, HexData, Log, Receipt

TRANSFER_TOPIC = keccak(text="Transfer(address,address,uint256)")


@dataclass(frozen=True)
class Transfer:
    from_: str  # checksummed
    to: str  # checksummed
    amount_units: int
    log_index: int
    token: str  # checksummed emitter
    transaction_hash: str = ""  # 0x-prefixed lowercase
    block_number: int | None = None
    block_hash: str = ""
    transaction_index: int | None = None


def to_bytes(value: HexData) -> bytes:
    """The bytes of a hash or data given as bytes or 0x text."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    text = str(value)
    return bytes.fromhex(text[2:] if text[:2] in ("0x", "0X") else text)


def _int(value: int | str | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, int):
        return value
    return int(str(value), 16) if str(value).startswith(("0x", "0X")) else int(value)


def _hex(value: HexData | None) -> str:
    if value is None:
        return ""
    return "0x" + to_bytes(value).hex()


def transfer_from_log(log: Log) -> Transfer | None:
    """The Transfer a log records, or None when the log is not an ERC-20 Transfer."""
    topics = [to_bytes(t) for t in log.get("topics", [])]
    # ERC-20 Transfer: 3 topics (signature, from, to) and the amount as the 32-byte data.
    if len(topics) != 3 or topics[0] != TRANSFER_TOPIC:
        return None
    data = to_bytes(log.get("data", b""))
    if len(data) != 32 or any(topics[1][:12]) or any(topics[2][:12]):
        return None
    return Transfer(
        from_=to_checksum_address(topics[1][12:]),
        to=to_checksum_address(topics[2][12:]),
        amount_units=int.from_bytes(data, "big"),
        log_index=_int(log.get("logIndex")) or 0,
        token=to_checksum_address(log["address"]),
        transaction_hash=_hex(log.get("transactionHash")),
        block_number=_int(log.get("blockNumber")),
        block_hash=_hex(log.get("blockHash")),
        transaction_index=_int(log.get("transactionIndex")),
    )


def token_transfers(logs: Iterable[Log], token_address: str) -> list[Transfer]:
    """Transfers emitted by token_address (compared case-insensitively), in log order."""
    token = token_address.lower()
    result = []
    for log in logs:
        if str(log.get("address", "")).lower() != token:
            continue  # emitted by another contract: not a movement of this token
        transfer = transfer_from_log(log)
        if transfer is not None:
            result.append(transfer)
    return result


def usdc_transfers(receipt: Receipt, usdc_address: str | None = None) -> list[Transfer]:
    """USDC Transfers in a receipt. usdc_address defaults to settings.USDC_ADDRESS.

    Example (verifying a payout): any(t.from_ == treasury and t.to == winner and
    t.amount_units == units for t in usdc_transfers(receipt))."""
    if usdc_address is None:
        from django.conf import settings

        usdc_address = settings.USDC_ADDRESS
    return token_transfers(receipt.get("logs", []), usdc_address)


# --- What stake and payout verification share (chain/verification.py, chain/payouts.py) -----------


def to_hex(value: HexData) -> str:
    """Lowercase 0x hex of a hash given as bytes or text."""
    if isinstance(value, bytes | bytearray):
        return "0x" + bytes(value).hex()
    text = str(value).lower()
    return text if text.startswith("0x") else "0x" + text


def depth_reached(block_number: int, *, head: int | None = None, finalized: int | None = None) -> bool:
    """The one "deep enough" rule (CHAIN_CONFIRMATIONS): with "finalized", the node's finalized
    block has reached `block_number`; else the block holding the transaction is its first
    confirmation and `head` must give CHAIN_CONFIRMATIONS of them."""
    from django.conf import settings

    if finality_by_tag():
        return finalized is not None and finalized >= block_number
    return head is not None and head - block_number + 1 >= int(str(settings.CHAIN_CONFIRMATIONS).strip())


def finality_by_tag() -> bool:
    from django.conf import settings

    return str(settings.CHAIN_CONFIRMATIONS).strip().lower() == "finalized"


def is_deep_enough(client: ChainReader, block_number: int) -> bool:
    """depth_reached, asking `client` (chain/client.py's ChainClient, or a batch's ChainReads)."""
    if finality_by_tag():
        block = client.get_block("finalized")
        return block is not None and depth_reached(block_number, finalized=int(block["number"]))
    return depth_reached(block_number, head=client.block_number())


def block_time(block: Block) -> datetime:
    """When a block was mined (whole seconds, UTC)."""
    return datetime.fromtimestamp(int(block["timestamp"]), tz=UTC)


def find_transfer(receipt: Receipt, *, usdc: str, sender: str, recipient: str, units: int) -> Transfer | None:
    """The one transfer check: a Transfer(sender, recipient, units) the USDC contract itself
    emitted in this receipt (any contract can emit a Transfer event), or None."""
    sender, recipient = sender.lower(), recipient.lower()
    return next(
        (
            t
            for t in usdc_transfers(receipt, usdc)
            if t.from_.lower() == sender and t.to.lower() == recipient and t.amount_units == units
        ),
        None,
    )
