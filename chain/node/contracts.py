"""The project's compiled contracts (contracts/build/*.json, rebuilt by `node contracts/compile.js`)
and helpers to deploy and mint on a local node. Used by the deploy command and the tests."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from web3 import Web3

BUILD_DIR = Path(__file__).resolve().parents[2] / "contracts" / "build"


@cache
def load_artifact(name: str) -> dict[str, Any]:
    """{abi, bytecode} of a compiled contract, e.g. load_artifact("TestUSDC")."""
    return json.loads((BUILD_DIR / f"{name}.json").read_text())


def contract_at(w3: Web3, name: str, address: str):
    return w3.eth.contract(address=Web3.to_checksum_address(address), abi=load_artifact(name)["abi"])


def deploy(w3: Web3, name: str, *args: Any, sender: str, timeout: float = 30) -> str:
    """Deploy from an account the node holds unlocked (anvil's); returns the checksummed address."""
    artifact = load_artifact(name)
    factory = w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
    tx_hash = factory.constructor(*args).transact({"from": sender})
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=timeout)
    if receipt["status"] != 1 or receipt["contractAddress"] is None:
        raise RuntimeError(f"deploying {name} failed in {tx_hash.hex()}")
    return Web3.to_checksum_address(receipt["contractAddress"])


def mint(w3: Web3, token: str, to: str, amount_units: int, *, sender: str, timeout: float = 30) -> str:
    tx_hash = (
        contract_at(w3, "TestUSDC", token)
        .functions.mint(Web3.to_checksum_address(to), amount_units)
        .transact({"from": sender})
    )
    w3.eth.wait_for_transaction_receipt(tx_hash, timeout=timeout)
    return "0x" + bytes(tx_hash).hex()
