"""The shapes of what the JSON-RPC nodes answer, as the chain app reads them. web3's answers
(AttributeDict, chain/node/client.py) and the formatted results of JSON-RPC batches (chain/node/calls.py) are both
mappings with these keys; only the keys the app reads are listed. Numbers are ints (web3's
formatters convert them); hashes are bytes (web3's HexBytes) or 0x text."""

from __future__ import annotations

from typing import Literal, TypedDict

HexData = bytes | str

# The block tags the app asks for by name (a subset of web3.types.BlockParams).
BlockTag = Literal["latest", "finalized"]

# "from" is a Python keyword: the functional form of TypedDict.
Transaction = TypedDict(
    "Transaction",
    {
        "hash": HexData,
        "from": str,
        "to": str | None,
        "input": bytes,
        "value": int,
        "nonce": int,
        "blockNumber": int | None,  # None while the transaction waits in the node's pool
    },
)


class Log(TypedDict, total=False):
    address: str
    topics: list[HexData]
    data: HexData
    logIndex: int
    transactionHash: HexData
    transactionIndex: int
    blockNumber: int
    blockHash: HexData
    removed: bool


class Receipt(TypedDict):
    transactionHash: HexData
    status: int
    blockNumber: int
    blockHash: HexData
    transactionIndex: int
    logs: list[Log]
    contractAddress: str | None


class Block(TypedDict):
    number: int
    hash: HexData
    timestamp: int
