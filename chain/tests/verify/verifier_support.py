"""Running both verifiers in the tests as a player runs them, on a game played through the real site.

`run_verifier` starts verify_challenge.py as a separate Python process without site-packages
(`python -S`: the standard library only) against pytest-django's live server and the session anvil.
With VERIFY_IN_PROCESS=1 in the environment (scripts/mutate.py sets it for verify_challenge.py) it
calls the script's `main()` in the test's own process instead, so that a mutant of the script is what
runs: the same arguments, the same HTTP and JSON-RPC, its output captured.

`run_page_verifier` runs the page's verifier (frontend/src/lib/verify/, what "Verify every outcome"
runs) under node: frontend/test/verifyOnNode.ts bundled once per test process by esbuild, the
compiler of the page's own build, then one node process per run (a fraction of a second each; a
vitest start costs more than all the runs together on this machine).

`verify_both` runs the two on the same challenge, site and chain, and `assert_both_reproduced` and
`assert_both_differ` hold them to the same findings: a whole case checks both verifiers.

`play` plays a challenge from publish to paid winners with the site's own code (chain/tests/
pot_support.py): three players stake by signature through the relayer, send their guesses once
confirmed, and the worker reveals the solution and the winners, finalizes and pays."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from chain.pot import steps
from challenges.models import Challenge, PotOpening
from responses.models import Stake

from ..pot_support import SignedStake, follow, relay, settle, sign_stake

SCRIPT = Path(settings.BASE_DIR) / "verify_challenge.py"
GIZA = "29.979175, 31.134258"
NEAR = "29.979, 31.134"  # about 30 m from GIZA: correct within 150 m
FAR = "48.8584, 2.2945"
# (player, guess, USDC): stake 1 wrong, stake 2 correct and the earliest, stake 3 correct and the highest.
STAKES = ((0, FAR, "5"), (1, NEAR, "3"), (2, NEAR, "7"))


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def last_line(self) -> str:
        return self.stdout.rstrip().splitlines()[-1] if self.stdout.strip() else ""

    def differences(self) -> list[str]:
        return [line for line in self.stdout.splitlines() if line.startswith(("DIFFERENCE ", "DIFFERENCE:"))]


def run_verifier(site: str, *args: str, rpc: str, pot: str | None = None) -> Run:
    argv = ["--site", site, "--rpc", rpc, "--quiet", *args] + (["--pot", pot] if pot else [])
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


def verify(live_server, chain, challenge, *args: str) -> Run:
    result = run_verifier(live_server.url, "--challenge", str(challenge.pk), *args, rpc=chain.url, pot=chain.pot)
    print(result.stdout, result.stderr)  # for a reader of `pytest -s`
    return result


def assert_reproduced(result: Run) -> None:
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.differences() == []


def assert_differs(result: Run, *expected: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.last_line.startswith("DIFFERENCES FOUND: "), result.stdout
    text = "\n".join(result.differences())
    for needle in expected:
        assert needle in text, (needle, result.stdout)


@functools.cache
def page_verifier_bundle() -> str:
    """frontend/test/verifyOnNode.ts and the page's verifier it runs, bundled by esbuild into one file
    node runs."""
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


def run_page_verifier(
    live_server, chain, challenge, record: str | None = None, *, rpc: str | None = None, pin: str | None = None
) -> dict:
    """The page's verifier on the same site and chain as `verify` (or another node of it), with a
    record file or none, the chain's pot pinned (or `pin`): its report as JSON
    (frontend/test/verifyOnNode.ts)."""
    done = subprocess.run(
        [
            shutil.which("node") or "node",
            page_verifier_bundle(),
            live_server.url,
            rpc or chain.url,
            str(challenge.pk),
            pin or chain.pot,
            *([record] if record else []),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@dataclass
class Both:
    """What the two verifiers found on the same site and chain: the script's run and the page's report."""

    script: Run
    page: dict

    def differences(self) -> list[str]:
        """The script's DIFFERENCE lines, once both are known to have found the same ones."""
        assert sorted(self.script.differences()) == sorted(self.page["differences"]), (
            self.script.stdout,
            self.page["differences"],
        )
        return self.script.differences()

    def says(self, text: str) -> bool:
        """Both reported a line with this text."""
        lines = (self.script.stdout.splitlines(), self.page["lines"])
        return all(any(text in line for line in found) for found in lines)


def verify_both(live_server, chain, challenge, record: str | None = None, *, pinned: bool = False) -> Both:
    """verify_challenge.py and the page's verifier on the same challenge, site and chain, with the same
    record or none. The pot checked is the chain's, named with --pot and pinned for the page; with
    `pinned` the script gets no --pot and checks the pot it pins for the chain, and the page pins
    that one too."""
    args = ("--record", record) if record else ()
    if pinned:
        import verify_challenge

        pin = verify_challenge.PINNED_POTS[chain.w3.eth.chain_id][0].lower()
        script = run_verifier(live_server.url, "--challenge", str(challenge.pk), *args, rpc=chain.url)
    else:
        pin = chain.pot
        script = verify(live_server, chain, challenge, *args)
    return Both(script, run_page_verifier(live_server, chain, challenge, record, pin=pin))


def assert_both_reproduced(both: Both) -> None:
    """Both reproduced every outcome, and counted the same outcomes."""
    assert_reproduced(both.script)
    assert both.page["ok"] is True, both.page["differences"]
    total = both.page["total"]
    assert both.page["reproduced"] == total
    assert both.script.last_line == f"{total} of {total} outcomes reproduced", both.script.stdout


def assert_both_differ(both: Both, *expected: str) -> None:
    """Both found differences, the same ones, and among them each of `expected`."""
    assert_differs(both.script, *expected)
    assert both.page["ok"] is False, both.page
    both.differences()


# --- The game ----------------------------------------------------------------------------------


@dataclass
class Game:
    challenge: Challenge
    stakes: list[SignedStake]  # in sequence order: stake i + 1 is stakes[i]
    seqs: dict[str, int] = field(default_factory=dict)  # commitment -> sequence

    def refresh(self) -> Game:
        self.challenge.refresh_from_db()
        return self


def hold_reveals(monkeypatch, challenge_id: int, seqs: set[int]) -> None:
    """The worker's reveal step leaves these stakes' guesses unrevealed (the site holds them back)."""
    queue = steps._queue

    def held(challenge, kind, key, data):
        if any(key == f"reveal_guess:{challenge_id}:{seq}" for seq in seqs):
            return []
        return queue(challenge, kind, key, data)

    monkeypatch.setattr(steps, "_queue", held)


def play(
    chain,
    make_challenge,
    api,
    *,
    monkeypatch=None,
    held: Collection[int] = frozenset(),
    secret: Collection[int] = frozenset(),
) -> Game:
    """Publish, stake (STAKES), send the guesses (but those of the stakes in `secret`), close, reveal
    (but the stakes in `held`), finalize and pay: the whole game, through the site and the worker."""
    challenge = make_challenge(solution=GIZA, threshold=150, closes_at=timezone.now() + timedelta(hours=1))
    signed = [sign_stake(chain, challenge, player=p, text=t, stake=s) for p, t, s in STAKES]
    for stake in signed:
        posted = api.post("/api/responses", stake.body(challenge.pk), format="json")
        assert posted.status_code == 201, posted.json()
        relay()  # one at a time, so the sequences follow STAKES
    chain.mine(2)
    follow()
    seqs = dict(Stake.objects.filter(challenge=challenge).values_list("commitment", "seq"))
    assert [seqs[s.commitment] for s in signed] == [1, 2, 3]
    for index, stake in enumerate(signed, start=1):
        if index not in secret:
            guess = api.post("/api/responses/guess", stake.guess_body(challenge.pk), format="json")
            assert guess.status_code == 201, guess.json()
    if held:
        assert monkeypatch is not None
        hold_reveals(monkeypatch, challenge.pk, set(held))
    chain.warp(3_600 + 60)
    settle(chain)
    chain.warp(86_400 + 60)
    settle(chain)
    return Game(challenge=challenge, stakes=signed, seqs=seqs).refresh()


def record_of(live_server, chain, game: Game, seq: int) -> dict:
    """The record the player's page offers for download (docs/protocol.md 3.7)."""
    stake = game.stakes[seq - 1]
    row = Stake.objects.get(challenge=game.challenge, seq=seq)
    opening = PotOpening.objects.get(challenge=game.challenge)
    return {
        "version": 2,
        "site": live_server.url,
        "chainId": settings.CHAIN_ID,
        "pot": chain.pot,
        "challengeId": game.challenge.pk,
        "termsDigest": game.challenge.pot.terms_digest,
        "termsSha256": opening.terms_sha256,
        "submitterAddress": stake.payer,
        "stakeUsdc": f"{Decimal(stake.amount).scaleb(-6):.2f}",
        "amountUnits": str(stake.amount),
        "coordinates": stake.text,
        "latE6": stake.lat_e6,
        "lonE6": stake.lon_e6,
        "salt": stake.salt,
        "commitment": stake.commitment,
        "paymentMethod": "authorization",
        "authorization": {
            "validAfter": stake.valid_after,
            "validBefore": stake.valid_before,
            "nonce": None,
            "signature": stake.signature,
        },
        "transactionHash": row.transaction_hash,
        "seq": seq,
    }


def write_record(tmp_path: Path, record: dict) -> str:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return str(path)
