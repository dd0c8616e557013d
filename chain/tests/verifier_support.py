"""Running verify_challenge.py in the tests as a player runs it, and the real payments it checks.

`run_verifier` starts the script as a separate Python process without site-packages (`python -S`:
the standard library only) against pytest-django's live server and the session anvil. With
VERIFY_IN_PROCESS=1 in the environment (scripts/mutate.py sets it for verify_challenge.py) it calls
the script's `main()` in the test's own process instead, so that a mutant of the script is what runs:
the same arguments, the same HTTP and JSON-RPC, its stdout and stderr captured."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from web3 import Web3

from chain.contracts import contract_at

SCRIPT = Path(settings.BASE_DIR) / "verify_challenge.py"


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def last_line(self) -> str:
        return self.stdout.rstrip().splitlines()[-1] if self.stdout.strip() else ""

    def differences(self) -> list[str]:
        return [line for line in self.stdout.splitlines() if line.startswith("DIFFERENCE")]


def run_verifier(site: str, *args: str, rpc: str | None = None, registry: str | None = None, quiet: bool = True) -> Run:
    argv = ["--site", site, *args] + (["--quiet"] if quiet else [])
    if rpc:
        argv += ["--rpc", rpc]
    if registry:
        argv += ["--registry", registry]
    if os.environ.get("VERIFY_IN_PROCESS") == "1":
        import verify_challenge

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = verify_challenge.main(argv)
            except SystemExit as exc:  # argparse
                code = int(exc.code or 0)
        return Run(code, out.getvalue(), err.getvalue())
    done = subprocess.run(
        [sys.executable, "-S", str(SCRIPT), *argv], capture_output=True, text=True, timeout=120, check=False
    )
    return Run(done.returncode, done.stdout, done.stderr)


def treasury_transfer(chain, *, to: str, units: int) -> str:
    """A USDC transfer from the treasury (an unlocked anvil account here): a payout."""
    contract = contract_at(chain.w3, "TestUSDC", chain.usdc)
    data = contract.encode_abi("transfer", args=[Web3.to_checksum_address(to), units])
    return chain.send({"from": chain.treasury, "to": chain.usdc, "data": data})


def wait_for_wall_clock_past_head(chain) -> None:
    """keep_clock runs anvil a second ahead of the wall clock; staff close or resolve after the
    payments' blocks in real time, as on a real chain, so the closing time is not before them."""
    last_block_time = chain.w3.eth.get_block("latest")["timestamp"]
    while time.time() <= last_block_time:
        time.sleep(0.1)


def mine_at(chain, timestamp: int, blocks: int = 1) -> None:
    chain.w3.provider.make_request("evm_setNextBlockTimestamp", [timestamp])
    chain.mine(blocks)


def send_unmined(chain, tx: dict) -> str:
    """A transaction left in anvil's mempool (automine off until `mine_pending`)."""
    chain.w3.provider.make_request("evm_setAutomine", [False])
    return "0x" + bytes(chain.w3.eth.send_transaction({"value": 0, "gas": 200_000, **tx})).hex()


def mine_pending(chain, *, at: int | None = None) -> None:
    try:
        if at is not None:
            mine_at(chain, at)
        else:
            chain.mine(1)
    finally:
        chain.w3.provider.make_request("evm_setAutomine", [True])
