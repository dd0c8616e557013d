"""Benchmark 6: the players' verifier at scale. verify_challenge.py, run as a player runs it (a
separate `python -S`: the standard library only), against the site served by gunicorn under the
production settings and a local anvil holding every stake payment for real: the anchor on the
terms registry, the stake transfers with their 164-byte calldata, and the completeness scan of the
treasury's transfers (docs/protocol.md section 6).

Each size is its own challenge: published, anchored by the worker's own step (chain/anchors.py),
paid by anvil's development accounts (blocks of a few hundred transfers each), its claims stored as
verification leaves them (the positions read back from the receipts), closed and resolved through
the services. The figure is the verifier's wall time per size, side by side in one run, with the
machine's load average before and after each. Goal: 10,000 responses in at most 60 s.
BENCH_VERIFIER_SIZES=100,10000 (the default) sets the sizes."""

import json
import os
import subprocess
import sys
import time

from devtools import processes

from .common import (
    DATABASE,
    PY,
    ROOT,
    collectstatic,
    command,
    django_env,
    flush_redis,
    gunicorn,
    log,
    manage,
    python_module,
    recreate_database,
    write_result,
)

SIZES = [int(n) for n in os.environ.get("BENCH_VERIFIER_SIZES", "100,10000").split(",")]
GOAL_SECONDS = 60.0
GOAL_SIZE = 10_000
VERIFY_TIMEOUT = 600.0

sys.path.insert(0, str(ROOT / "scripts"))
import devchain  # noqa: E402 - scripts/ is not a package


def run() -> dict:
    url = recreate_database(DATABASE)
    flush_redis()
    rows = []
    with processes.anvil(chain_id=devchain.DEFAULT_CHAIN_ID, log=None, stop_timeout=20) as (rpc_url, _proc):
        info = devchain.setup_chain(rpc_url)
        env = django_env(url, **{**devchain.chain_env(info, rpc_url), "CHAIN_CONFIRMATIONS": "1"})
        manage(env, "migrate", "--noinput", "-v", "0")
        collectstatic(env)  # the verifier reads the public configuration the page embeds
        for size in SIZES:
            log(f"verifier: building a resolved challenge of {size:,} paid responses")
            built = json.loads(python_module("bench.data", env, "verifier", rpc_url, json.dumps(info), str(size)))
            with gunicorn(env) as base:
                load_before = [round(x, 1) for x in os.getloadavg()]
                started = time.monotonic()
                done = subprocess.run(
                    [PY, "-S", str(ROOT / "verify_challenge.py"), "--site", base, "--rpc", rpc_url,
                     "--challenge", str(built["challenge"]), "--quiet"],
                    cwd=ROOT, capture_output=True, text=True, timeout=VERIFY_TIMEOUT, check=False,
                )  # fmt: skip
                seconds = time.monotonic() - started
                load_after = [round(x, 1) for x in os.getloadavg()]
            last = (done.stdout.strip().splitlines() or [""])[-1]
            log(f"verifier: {size:,} responses in {seconds:.1f} s, exit {done.returncode}: {last}")
            if done.returncode != 0:
                log(done.stdout[-3000:] + done.stderr[-2000:])
            rows.append(
                {
                    **built,
                    "seconds": round(seconds, 2),
                    "exitStatus": done.returncode,
                    "lastLine": last,
                    "loadAverageBefore": load_before,
                    "loadAverageAfter": load_after,
                }
            )
    goal = next((r for r in rows if r["responses"] == GOAL_SIZE), None)
    figures = {
        "command": command("verifier", "BENCH_VERIFIER_SIZES"),
        "setup": {
            "chain": "anvil, automine, CHAIN_CONFIRMATIONS=1, the test USDC and the terms registry",
            "site": "gunicorn (2 sync workers), production settings, PostgreSQL",
            "verifier": "python -S verify_challenge.py --quiet, default batch (100 calls) and page size (1,000)",
        },
        "goals": {"size": GOAL_SIZE, "secondsAtMost": GOAL_SECONDS},
        "rows": rows,
        "meetsGoal": goal is not None and goal["exitStatus"] == 0 and goal["seconds"] <= GOAL_SECONDS,
    }
    return write_result("verifier", figures)


if __name__ == "__main__":
    run()
