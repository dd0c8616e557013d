"""The chain side of the benchmarks, read and driven from the benchmark's own process (no Django):
the local chain of scripts/devchain.py (the test USDC behind its proxy, the pot at its pinned address,
the development operator and relayer keys), payers with keys of their own funded with test USDC and
no ETH, the block pace, a head watcher, and what the chain holds afterwards (receipts, the pot's
Staked logs, its `owed`). Every read goes through bench/common.py's rpc_batch."""

from __future__ import annotations

import http.client
import json
import sys
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from eth_utils import keccak

from .common import ROOT, rpc, rpc_batch

sys.path.insert(0, str(ROOT / "scripts"))
import devchain

PAYER_SEED = b"geopoem bench payer"
MINT = "0x" + keccak(text="mint(address,uint256)")[:4].hex()
OWED = "0x" + keccak(text="owed()")[:4].hex()
STAKED_TOPIC = "0x" + keccak(text="Staked(uint256,address,uint256,uint256,bytes32)").hex()
MINTS_PER_BLOCK = 200


def setup_chain(url: str) -> dict:
    """The test USDC and the pot deployed as `make run` deploys them (scripts/devchain.py)."""
    return devchain.setup_chain(url)


def chain_env(info: dict, url: str, **extra: str) -> dict[str, str]:
    """The chain settings of the site for this node (scripts/devchain.py), and `extra`."""
    return {**devchain.chain_env(info, url), **extra}


def word(value: int | str) -> str:
    if isinstance(value, str):
        return value.lower().removeprefix("0x").rjust(64, "0")
    return f"{value:064x}"


@dataclass(frozen=True)
class Payer:
    key: str
    address: str


def payers(count: int, *, start: int = 0) -> list[Payer]:
    """Payers with keys of their own, derived from PAYER_SEED (a run is reproducible, and none is one
    of anvil's funded accounts): they hold no ETH."""
    from eth_account import Account

    out = []
    for n in range(start, start + count):
        key = "0x" + keccak(PAYER_SEED + n.to_bytes(4, "big")).hex()
        out.append(Payer(key=key, address=Account.from_key(key).address))
    return out


def fund(url: str, info: dict, addresses: list[str], units: int) -> None:
    """Mint `units` of test USDC to each address (the deployer's mints, MINTS_PER_BLOCK a block), and
    check each holds at least that."""
    deployer = rpc(url, "eth_accounts")[0]
    nonce = int(rpc(url, "eth_getTransactionCount", [deployer, "pending"]), 16)
    hashes: list[str] = []
    automine = rpc(url, "anvil_getAutomine")
    rpc(url, "evm_setAutomine", [False])
    try:
        for start in range(0, len(addresses), MINTS_PER_BLOCK):
            sends = []
            for address in addresses[start : start + MINTS_PER_BLOCK]:
                tx = {"from": deployer, "to": info["usdcAddress"], "data": MINT + word(address) + word(units),
                      "gas": hex(100_000), "nonce": hex(nonce)}  # fmt: skip
                sends.append(("eth_sendTransaction", [tx]))
                nonce += 1
            hashes += rpc_batch(url, sends)
            rpc(url, "evm_mine")
    finally:
        rpc(url, "evm_setAutomine", [automine])
    found = receipts(url, hashes)
    if any(r is None or r["status"] != "0x1" for r in found.values()):
        raise RuntimeError("a mint was not mined")


def balance_of(url: str, token: str, owner: str, block: int | str = "latest") -> int:
    tag = hex(block) if isinstance(block, int) else block
    data = "0x" + keccak(text="balanceOf(address)")[:4].hex() + word(owner)
    return int(rpc(url, "eth_call", [{"to": token, "data": data}, tag]), 16)


def owed(url: str, pot: str, block: int | str = "latest") -> int:
    tag = hex(block) if isinstance(block, int) else block
    return int(rpc(url, "eth_call", [{"to": pot, "data": OWED}, tag]), 16)


def set_pace(url: str, seconds: int) -> None:
    """Interval mining every `seconds` (what `anvil --block-time` sets at start); 0: automine."""
    if seconds:
        rpc(url, "evm_setIntervalMining", [seconds])
    else:
        rpc(url, "evm_setIntervalMining", [0])
        rpc(url, "evm_setAutomine", [True])


def receipts(url: str, hashes: list[str]) -> dict[str, dict | None]:
    found: list = []
    for start in range(0, len(hashes), 500):
        found += rpc_batch(url, [("eth_getTransactionReceipt", [h]) for h in hashes[start : start + 500]])
    return dict(zip(hashes, found, strict=True))


def transactions(url: str, hashes: list[str]) -> dict[str, dict | None]:
    found: list = []
    for start in range(0, len(hashes), 500):
        found += rpc_batch(url, [("eth_getTransactionByHash", [h]) for h in hashes[start : start + 500]])
    return dict(zip(hashes, found, strict=True))


def staked_logs(url: str, pot: str, challenge_id: int, *, from_block: int, to_block: int) -> list[dict]:
    """The pot's Staked logs of one challenge in the blocks, decoded: seq, payer, amount, commitment,
    transaction, block."""
    logs = rpc(url, "eth_getLogs", [{"address": pot, "fromBlock": hex(from_block), "toBlock": hex(to_block),
                                     "topics": [STAKED_TOPIC, "0x" + word(challenge_id)]}])  # fmt: skip
    out = []
    for entry in logs:
        data = entry["data"].removeprefix("0x")
        out.append(
            {
                "payer": "0x" + entry["topics"][2][-40:].lower(),
                "seq": int(data[0:64], 16),
                "amount": int(data[64:128], 16),
                "commitment": data[128:192],
                "transactionHash": entry["transactionHash"].lower(),
                "blockNumber": int(entry["blockNumber"], 16),
            }
        )
    return out


class HeadWatch:
    """The head polled every `interval` seconds on one kept-alive connection, in a thread: when each
    block was first seen (time.time()), taken as when the node produced it."""

    def __init__(self, url: str, interval: float = 0.02) -> None:
        self.url = urlsplit(url)
        self.interval = interval
        self.blocks: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        conn = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=5)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []})
        last = -1
        while not self._stop.is_set():
            try:
                conn.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
                head = int(json.loads(conn.getresponse().read())["result"], 16)
            except (OSError, http.client.HTTPException, ValueError, KeyError):
                conn.close()
                conn = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=5)
                continue
            now = time.time()
            for n in range(head if last < 0 else last + 1, head + 1):
                self.blocks.setdefault(n, now)
            last = max(last, head)
            time.sleep(self.interval)
        conn.close()

    def head(self) -> int:
        return max(self.blocks) if self.blocks else -1

    def next_block(self, timeout: float = 60.0) -> tuple[int, float]:
        """Waits for a block after the present head; returns it and when it was first seen."""
        start, deadline = self.head(), time.monotonic() + timeout
        while self.head() <= start:
            if time.monotonic() > deadline:
                raise RuntimeError(f"no block after {start} within {timeout:.0f} s")
            time.sleep(0.005)
        head = self.head()
        return head, self.blocks[head]

    def __enter__(self) -> HeadWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
