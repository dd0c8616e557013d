"""Running verify_challenge.py in the tests as a player runs it, and the real payments it checks.

`run_verifier` starts the script as a separate Python process without site-packages (`python -S`:
the standard library only) against pytest-django's live server and the session anvil. With
VERIFY_IN_PROCESS=1 in the environment (scripts/mutate.py sets it for verify_challenge.py) it calls
the script's `main()` in the test's own process instead, so that a mutant of the script is what runs:
the same arguments, the same HTTP and JSON-RPC, its stdout and stderr captured.

The helpers below serve the verifier's cases (chain/tests/test_verify_*.py), most of which start from
`played` (chain/tests/conftest.py): an anchored challenge three players paid. Each case asserts the
DIFFERENCE line of the check that must catch it, so that a verifier without that check fails its
test (scripts/mutate.py runs these against mutants of the script)."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from web3 import Web3

from chain.contracts import contract_at
from chain.verification import payment_verify
from challenges.models import Challenge, Payout
from config.public_cache import public_answers_mark_stale
from responses.models import Response, ResponseStatus
from responses.reasons import REASON_SENTENCES
from responses.resolution import challenge_resolve

SCRIPT = Path(settings.BASE_DIR) / "verify_challenge.py"
GIZA = "29.979175, 31.134258"


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


@functools.cache
def page_verifier_bundle() -> str:
    """frontend/test/verifyOnNode.ts and the page's verifier it runs, bundled once per process by
    esbuild (what the page's own build uses to compile TypeScript) into a file node runs."""
    root = Path(settings.BASE_DIR)
    out = Path(tempfile.mkdtemp(prefix="geopoem-page-verifier-")) / "verify-on-node.mjs"
    subprocess.run(
        [
            str(root / "node_modules" / ".bin" / "esbuild"),
            str(root / "frontend" / "test" / "verifyOnNode.ts"),
            "--bundle",
            "--platform=node",
            "--format=esm",
            f"--alias:@={root / 'frontend' / 'src'}",
            f"--outfile={out}",
            "--log-level=warning",
        ],
        check=True,
        timeout=120,
    )
    return str(out)


def run_page_verifier(site: str, *, rpc: str, challenge_id: int) -> dict:
    """The page's verifier ("Verify every outcome", frontend/src/lib/verify-outcomes.ts) on the same
    site and chain as `run_verifier`: its report as JSON (frontend/test/verifyOnNode.ts, `summary`)."""
    done = subprocess.run(
        [shutil.which("node") or "node", page_verifier_bundle(), site, rpc, str(challenge_id)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


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


# --- The played challenge ------------------------------------------------------------------------


@dataclass
class Played:
    challenge: Challenge
    right: Response  # correct, the earliest
    also_right: Response  # correct, the highest stake
    wrong: Response
    drafts: dict

    def refresh(self) -> Played:
        self.challenge.refresh_from_db()
        for claim in (self.right, self.also_right, self.wrong):
            claim.refresh_from_db()
        return self


def pay(chain, d, **overrides) -> str:
    return chain.pay(chain.stake_calldata(d, **overrides), sender=d.address)


def confirm(chain, *claims) -> None:
    chain.mine(2)
    for claim in claims:
        assert payment_verify(response_id=claim.pk).status == ResponseStatus.CONFIRMED


def resolve(chain, challenge) -> Challenge:
    """Staff resolve in real time after the payments' blocks; the next block is then mined after the
    close, as on a real chain. anvil's clock may lag the wall clock (an evm_revert of an earlier test
    winds it back), and a payment made after resolution must not land in a block stamped before the
    close, where it would count as paid in time."""
    wait_for_wall_clock_past_head(chain)
    resolved = challenge_resolve(challenge=Challenge.objects.get(pk=challenge.pk))
    if resolved.closed_at is not None:
        latest = chain.w3.eth.get_block("latest")["timestamp"]
        next_block = max(latest + 1, math.floor(resolved.closed_at.timestamp()) + 1)
        chain.w3.provider.make_request("evm_setNextBlockTimestamp", [next_block])
    return resolved


def verify(live_server, chain, challenge, *args) -> Run:
    result = run_verifier(
        live_server.url, "--challenge", str(challenge.pk), *args, rpc=chain.url, registry=chain.registry
    )
    print(result.stdout, result.stderr)  # for a reader of `pytest -s`
    return result


def assert_differs(result, *expected: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.last_line.startswith("DIFFERENCES FOUND: "), result.stdout
    text = "\n".join(result.differences())
    for needle in expected:
        assert needle in text, (needle, result.stdout)


def pay_out(chain, payout: Payout, *, to: str | None = None, units: int | None = None) -> str:
    tx_hash = treasury_transfer(
        chain, to=to or payout.address, units=units if units is not None else int(payout.amount * 10**6)
    )
    chain.mine(2)
    return tx_hash


# --- Stakes paid by authorization (docs/protocol.md section 2a) ----------------------------------


def sign_stake(chain, d, valid_before: int) -> str:
    """The payer of draft `d` signs the authorization of its stake to the treasury, its nonce the
    guess commitment (docs/protocol.md section 2a), through anvil's eth_signTypedData_v4 as a wallet
    signs."""
    return chain.sign_authorization(
        signer=d.address,
        to=chain.treasury,
        value=int(d.stake * 10**6),
        valid_after=0,
        valid_before=valid_before,
        nonce="0x" + d.commitment,
    )


def relay(chain, d, *, sender: str, valid_before: int, signature: str | None = None, word: bool = True) -> str:
    """`sender` (the relayer, or anyone) puts the payer's signed authorization on chain with the
    challenge word appended (docs/protocol.md section 2a, "The relayed transaction"; without `word`,
    the bare call). Returns the transaction's hash."""
    signature = signature or sign_stake(chain, d, valid_before)
    tx_hash = chain.submit_authorization(
        signer=d.address,
        to=chain.treasury,
        value=int(d.stake * 10**6),
        valid_after=0,
        valid_before=valid_before,
        nonce="0x" + d.commitment,
        signature=signature,
        sender=sender,
        trailing=d.challenge_id.to_bytes(32, "big") if word else b"",
    )
    assert chain.w3.eth.get_transaction_receipt(tx_hash)["status"] == 1
    return tx_hash


def operator_rejects(claim: Response, code: str) -> Response:
    """A dishonest operator's UPDATE: the claim rejected with `code` and its sentence, behind the
    services (the public answers then stale, as a service's write makes them)."""
    Response.objects.filter(pk=claim.pk).update(
        status=ResponseStatus.REJECTED, rejection_code=code, rejection_reason=REASON_SENTENCES[code]
    )
    public_answers_mark_stale()
    claim.refresh_from_db()
    return claim
