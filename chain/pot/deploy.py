"""Deploying the pot where its address follows from its code (docs/protocol.md section 2, "One pot per
chain, pinned"): through the deterministic CREATE2 factory present on Ethereum, Sepolia and anvil, with
a fixed salt, so the address is keccak(0xff ‖ factory ‖ salt ‖ keccak(initcode))[12:], initcode being
the compiled contract (contracts/build/GeopoemPot.json) and its constructor's four values. The same
computation pins the local chain's pot in the repository (verify_challenge.py and
frontend/src/config.ts, PINNED_POTS), and a test keeps those pins equal to it.

Pure: no Django, no node. scripts/devchain.py and manage.py pot_deploy send the transaction."""

from __future__ import annotations

import json
from pathlib import Path

from eth_abi import encode
from eth_utils import keccak, to_checksum_address

CREATE2_FACTORY = "0x4e59b44847b379578588920ca78fbf26c0b4956c"
SALT = "00" * 32
ARTIFACT = Path(__file__).resolve().parents[2] / "contracts" / "build" / "GeopoemPot.json"


def initcode(*, token: str, operator: str, share_receiver: str, sweep_receiver: str) -> str:
    """The pot's creation code with its constructor's arguments, 0x hex."""
    bytecode = json.loads(ARTIFACT.read_text())["bytecode"]
    args = encode(
        ["address", "address", "address", "address"],
        [to_checksum_address(a) for a in (token, operator, share_receiver, sweep_receiver)],
    )
    return bytecode + args.hex()


def pot_address(code: str, *, salt: str = SALT, factory: str = CREATE2_FACTORY) -> str:
    """Where the factory deploys `code` with `salt`, checksummed."""
    digest = keccak(
        b"\xff" + bytes.fromhex(factory[2:]) + bytes.fromhex(salt) + keccak(bytes.fromhex(code.removeprefix("0x")))
    )
    return to_checksum_address(digest[12:])


def factory_calldata(code: str, *, salt: str = SALT) -> str:
    """What is sent to the factory: the salt, then the creation code."""
    return "0x" + salt + code.removeprefix("0x")
