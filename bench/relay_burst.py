"""Benchmark: 100 claims paid by authorization posted at once (docs/performance.md, "Relayed stakes
in a burst"; docs/protocol.md sections 2a and 3.3a).

The Procfile's own processes, each its own command line run by bash (devtools/procfile.py for the
web, bound to 127.0.0.1): `web`, `worker` (the default queue and the relayer's `relay`) and `beat`,
under the production settings (bench.settings), on PostgreSQL database geopoem_bench and the
benchmarks' Redis DB, with anvil and the project's test USDC (EIP-3009), CHAIN_CONFIRMATIONS=2, and
the development relayer key (ETH only) as RELAYER_KEY.

Each burst: CLAIMS payers with keys of their own, holding test USDC and not a wei of ETH, each sign
one authorization of their stake (the nonce is their guess commitment) and all POST their claims at
the same instant, each on its own connection from its own address (through the router:
X-Forwarded-For), open-loop (bench/burst_load.py), released in the middle of a block interval. Then,
until every claim is settled and the relayer's transactions are mined: the head polled every 20 ms
(when each block was first seen). Afterwards everything is reconciled (bench/relay_figures.py): the
POST answers, the stored claims, the relayer's transactions (one per claim, consecutive nonces), the
token's AuthorizationUsed logs (each nonce once) and the Transfer right after each, the treasury's
balance delta against the sum of the stakes, every claim confirmed. The burst runs on 12-second
blocks (Sepolia's pace) and then on 1-second blocks, on the same servers (BENCH_RELAY_BLOCKS)."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from devtools import processes, procfile

from . import burst_load, relay_chain
from .burst import csrf_token
from .common import (
    DATABASE,
    HEAD_INTERVAL_SECONDS,
    PG_BASE,
    REDIS_URL,
    append_run,
    collectstatic,
    command,
    django_env,
    flush_redis,
    log,
    manage,
    python_module,
    recreate_database,
    uptime,
    write_result,
)
from .relay_figures import Expected, blocks_from, reconcile, stats
from .verify import set_pace, wait_open
from .worker_log import task_stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import devchain  # scripts/ is not a package

CLAIMS = int(os.environ.get("BENCH_RELAY_CLAIMS", "100"))
BLOCKS = [int(s) for s in os.environ.get("BENCH_RELAY_BLOCKS", "12,1").split(",")]
WARMUP = 6  # claims that warm each web worker and the worker's relay path (not measured)
CONFIRMATIONS = 2
PHASE = 0.5  # the release, as a share of the block interval after a block was first seen
GOAL_BLOCKS = 3
PROFILE_CLAIMS = 100  # claims of the relayer's sending run timed by part (bench/relay_profile.py)
HEAD_POLL_SECONDS = 0.02
# The relayer's daily budget, raised for the benchmark: it relays over 300 stakes within minutes
# (config/settings/chain.py's default, 0.05 ETH a day, is an operator's limit for a day of players;
# what one burst reserves against it is reported).
RELAY_BUDGET_WEI = str(10**18)


class HeadWatch:
    """anvil's head polled every HEAD_POLL_SECONDS on one kept-alive connection, in a thread:
    when each block was first seen (time.time()), taken as when the node produced it."""

    def __init__(self, rpc_url: str) -> None:
        self.url = urlsplit(rpc_url)
        self.blocks: dict[int, float] = {}
        self.gaps: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        conn = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=5)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []})
        last, previous = -1, time.time()
        while not self._stop.is_set():
            try:
                conn.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
                head = int(json.loads(conn.getresponse().read())["result"], 16)
            except (OSError, http.client.HTTPException, ValueError, KeyError):
                conn.close()
                conn = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=5)
                continue
            now = time.time()
            self.gaps.append(now - previous)
            previous = now
            for n in range(head if last < 0 else last + 1, head + 1):
                self.blocks.setdefault(n, now)
            last = max(last, head)
            time.sleep(HEAD_POLL_SECONDS)
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


@contextlib.contextmanager
def procfile_process(name: str, env: dict[str, str], *, log: Path, cwd: Path, ready: str) -> Iterator[None]:
    """The Procfile's process `name`, its own command line run by bash in a session of its own
    (the virtualenv's programs first on PATH), once its log shows `ready`; stopped by its process
    group's id. `cwd`: where it runs (the beat writes its schedule file there)."""
    env = {**env, "PATH": f"{processes.BIN}{os.pathsep}{env.get('PATH', '')}"}
    line = procfile.procfile_command(name)
    process = processes.start(["/bin/bash", "-c", line], log=log, env=env, cwd=cwd, new_session=True)
    try:
        processes.wait_until(lambda: ready in log.read_text(errors="replace"), f"{name}: {ready!r}", timeout=90,
                             process=process)  # fmt: skip
        yield
    finally:
        processes.stop(process, timeout=30, group=True)


def post_at_once(site: burst_load.Site, claims: list[relay_chain.SignedClaim], at: float) -> list[burst_load.Answer]:
    """Every claim POSTed at the monotonic instant `at`, each on a connection of its own."""

    async def run() -> list[burst_load.Answer]:
        await burst_load._at(at)
        return list(
            await asyncio.gather(*(
                burst_load._request(site.base, "POST", "/api/responses", c.commitment, at, body=c.body,
                                    headers=site.headers(c.address))
                for c in claims
            ))
        )  # fmt: skip

    return asyncio.run(run())


def db_rows(sql: str, params: list) -> list[tuple]:
    import psycopg

    with psycopg.connect(f"{PG_BASE}/{DATABASE}") as conn:
        return conn.execute(sql, params).fetchall()


def stored_claims(commitments: list[str]) -> list[dict]:
    rows = db_rows(
        "SELECT r.commitment, r.submitter_address, r.status, r.transaction_hash, r.payment_method, "
        "extract(epoch FROM r.created_at)::float8, extract(epoch FROM r.updated_at)::float8, r.block_number, "
        "a.relay_status, a.relay_transaction_hash, r.rejection_code "
        "FROM responses_response r LEFT JOIN responses_stakeauthorization a ON a.response_id = r.id "
        "WHERE r.commitment = ANY(%s)",
        [commitments],
    )
    keys = ("commitment", "submitter", "status", "transactionHash", "paymentMethod", "createdAt", "updatedAt",
            "blockNumber", "relayStatus", "relayTransactionHash", "rejectionCode")  # fmt: skip
    return [dict(zip(keys, row, strict=True)) for row in rows]


def relay_transactions(since: float) -> list[dict]:
    """The relayer's transactions first sent from `since` (epoch seconds) on, with their claim."""
    rows = db_rows(
        "SELECT r.commitment, t.nonce, t.transaction_hash, t.status, t.kind, jsonb_array_length(t.attempts), "
        "extract(epoch FROM t.sent_at)::float8, t.block_number, t.gas_used, t.effective_gas_price::text, "
        "t.cost_wei::text, t.max_cost_wei::text FROM chain_relaytransaction t "
        "LEFT JOIN responses_response r ON r.id = t.response_id WHERE t.sent_at >= to_timestamp(%s) ORDER BY t.nonce",
        [since],
    )
    keys = ("commitment", "nonce", "transactionHash", "status", "kind", "attempts", "sentAt", "blockNumber",
            "gasUsed", "effectiveGasPrice", "costWei", "maxCostWei")  # fmt: skip
    return [dict(zip(keys, row, strict=True)) for row in rows]


RELAY_TASK = re.compile(r"Task chain\.relay_send\[[^\]]+\] succeeded in ([\d.]+)s: (\d+)")


def relay_runs(worker_log: Path, offset: int) -> list[dict]:
    """The relayer's sending runs the worker logged from `offset` on: seconds and stakes sent."""
    with open(worker_log, "rb") as f:
        f.seek(offset)
        text = f.read().decode(errors="replace")
    return [{"seconds": float(s), "sent": int(n)} for s, n in RELAY_TASK.findall(text)]


def wait_settled(commitments: list[str], *, since: float, timeout: float) -> None:
    """Until every claim is confirmed or rejected and none of the relayer's transactions sent from
    `since` on is still in flight (its watcher has recorded the receipts)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = stored_claims(commitments)
        settled = len(rows) == len(commitments) and all(r["status"] != "pending" for r in rows)
        if settled and all(t["status"] != "sent" for t in relay_transactions(since)):
            return
        time.sleep(0.25)
    log(f"not settled within {timeout:.0f} s")


def one_burst(site, rpc_url: str, info: dict, domain, challenge_id: int, head: HeadWatch, worker_log: Path,
              payers: list[relay_chain.Payer], *, block_seconds: int, first: int) -> dict:  # fmt: skip
    set_pace(rpc_url, block_seconds)
    claims = [
        relay_chain.signed_claim(domain=domain, info=info, challenge_id=challenge_id, payer=p, n=first + i)
        for i, p in enumerate(payers)
    ]
    log_offset = worker_log.stat().st_size
    block, seen = head.next_block()
    relayer_before = relay_chain.eth_balance(rpc_url, info["relayerAddress"], block)
    treasury_before = relay_chain.balances_of(rpc_url, info["usdcAddress"], [info["treasuryAddress"]], block)[0]
    release_wall = seen + PHASE * block_seconds
    offset = time.time() - time.monotonic()
    answers = post_at_once(site, claims, release_wall - offset)
    release_head = max(n for n, at in head.blocks.items() if at <= release_wall)
    log(f"{block_seconds}-s blocks: {len(claims)} claims POSTed at once after block {release_head}; "
        f"statuses {burst_load.figures(answers)['statuses']}")  # fmt: skip
    commitments = [c.commitment for c in claims]
    wait_settled(commitments, since=release_wall - 1, timeout=max(60.0, 12 * block_seconds + 30))
    time.sleep(2 * HEAD_POLL_SECONDS)
    stored = stored_claims(commitments)
    relayed = relay_transactions(release_wall - 1)
    hashes = [t["transactionHash"] for t in relayed]
    found = relay_chain.receipts(rpc_url, hashes)
    last_block = max([int(r["blockNumber"], 16) for r in found.values() if r] or [release_head])
    logs = relay_chain.token_logs(rpc_url, info, from_block=release_head + 1, to_block=last_block)
    treasury_after = relay_chain.balances_of(rpc_url, info["usdcAddress"], [info["treasuryAddress"]], last_block)[0]
    relayer_after = relay_chain.eth_balance(rpc_url, info["relayerAddress"], last_block)
    checked = reconcile(
        expected=[Expected(c.payer, c.commitment, c.stake_units) for c in claims],
        answers={a.what: a.status for a in answers},
        stored=stored,
        relayed=relayed,
        used_logs=logs["used"],
        transfer_logs=logs["transfers"],
        receipt_status={h.lower(): int(r["status"], 16) for h, r in found.items() if r},
        treasury=info["treasuryAddress"],
        treasury_delta=treasury_after - treasury_before,
    )
    worker = task_stats(worker_log.read_text(errors="replace"), release_wall * 1000, time.time() * 1000)
    return {
        "blockSeconds": block_seconds,
        **figures(answers, offset, release_wall, release_head, head, stored, relayed, found),
        "worker": worker,
        "relayerBalanceDeltaWei": relayer_before - relayer_after,
        "relayRuns": relay_runs(worker_log, log_offset),
        "relayStatusAtPost": _relay_statuses(answers),
        "reconciled": checked,
        "loadAverageAfter": [round(x, 2) for x in os.getloadavg()],
    }


def _relay_statuses(answers: list[burst_load.Answer]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for a in answers:
        try:
            status = json.loads(a.body)["authorization"]["relayStatus"]
        except (ValueError, KeyError, TypeError):
            status = "(no claim in the answer)"
        counts[status] = counts.get(status, 0) + 1
    return counts


def figures(answers, offset: float, release: float, release_head: int, head: HeadWatch, stored: list[dict],
            relayed: list[dict], found: dict) -> dict:  # fmt: skip
    """The burst's timings (seconds from the release), blocks and gas."""
    answered = [a.done + offset - release for a in answers]
    stakes = [t for t in relayed if t["kind"] == "stake"]
    sent = sorted(t["sentAt"] - release for t in stakes)
    inclusion = {h.lower(): int(r["blockNumber"], 16) for h, r in found.items() if r}
    blocks = [inclusion[t["transactionHash"].lower()] for t in stakes if t["transactionHash"].lower() in inclusion]
    receipts = [r for r in found.values() if r]
    gas = [int(r["gasUsed"], 16) for r in receipts]
    price = [int(r["effectiveGasPrice"], 16) for r in receipts]
    cost = [g * p for g, p in zip(gas, price, strict=True)]
    confirmed = [r["updatedAt"] - release for r in stored if r["status"] == "confirmed"]
    last_block = max(blocks) if blocks else None
    return {
        "releasedAfterBlockSeconds": release - head.blocks[release_head],
        "headAtRelease": release_head,
        "postAnsweredSeconds": stats(answered),
        "relaySentSeconds": {"first": sent[0] if sent else None, **stats(sent)},
        "sendSpacingMs": stats([(b - a) * 1000 for a, b in zip(sent, sent[1:], strict=False)]),
        "blocksUsed": blocks_from(release_head, blocks),
        "blockSeenSeconds": {
            str(n - release_head): head.blocks[n] - release for n in sorted(set(blocks)) if n in head.blocks
        },
        "lastInclusionSeconds": head.blocks[last_block] - release if last_block in head.blocks else None,
        "lastConfirmedSeconds": max(confirmed) if confirmed else None,
        "confirmedSeconds": stats(confirmed),
        "gasUsed": stats(gas),
        "gasUsedAll": sorted(gas),
        "effectiveGasPriceWei": stats(price),
        "costWei": {**stats(cost), "sum": sum(cost)},
        "reservedInFlightWei": sum(int(t["maxCostWei"]) for t in stakes),
        "headPollGapMs": stats([g * 1000 for g in head.gaps[1:]]),
    }


def run() -> Path:
    url = recreate_database(DATABASE)
    flush_redis()
    workdir = Path(tempfile.mkdtemp(prefix="bench-relay-"))
    load_before, uptime_before = [round(x, 2) for x in os.getloadavg()], uptime()
    with processes.anvil(chain_id=devchain.DEFAULT_CHAIN_ID, log=None, stop_timeout=20) as (rpc_url, _anvil):
        info = devchain.setup_chain(rpc_url)
        domain = relay_chain.token_domain(rpc_url, info)
        everyone = relay_chain.payers(WARMUP + CLAIMS * len(BLOCKS))
        log(f"minting test USDC to {len(everyone)} payers (no ETH); logs in {workdir}")
        relay_chain.fund(rpc_url, info, everyone)
        chain = {
            **devchain.chain_env(info, rpc_url),
            "CHAIN_CONFIRMATIONS": str(CONFIRMATIONS),
            "CHAIN_HEAD_INTERVAL_SECONDS": HEAD_INTERVAL_SECONDS,
            "RELAY_MAX_WEI_PER_DAY": RELAY_BUDGET_WEI,
        }
        env = django_env(url, **chain, TRUSTED_PROXY_HOPS="1", LOG_LEVEL="INFO")
        manage(env, "migrate", "--noinput", "-v", "0")
        collectstatic(env)  # the page sets the CSRF cookie the POSTs carry
        challenge_id = json.loads(python_module("bench.data", env, "verify"))["challenge"]
        worker_log = workdir / "worker.log"
        with (
            HeadWatch(rpc_url) as head,
            procfile.web(env, log=workdir / "web.log") as web,
            procfile_process("worker", env, log=worker_log, cwd=processes.ROOT, ready=" ready."),
            procfile_process("beat", env, log=workdir / "beat.log", cwd=workdir, ready="beat: Starting"),
        ):
            wait_open(web.base, rpc_url, challenge_id)
            site = burst_load.Site(base=web.base, csrf=csrf_token(web.base), reads=[])
            warm = [
                relay_chain.signed_claim(domain=domain, info=info, challenge_id=challenge_id, payer=p, n=90_000 + i)
                for i, p in enumerate(everyone[:WARMUP])
            ]
            started = time.time()
            answers = post_at_once(site, warm, time.monotonic())
            wait_settled([c.commitment for c in warm], since=started - 1, timeout=60)
            log(f"warm-up: {len(warm)} claims, statuses {burst_load.figures(answers)['statuses']}")
            bursts = []
            for i, block_seconds in enumerate(BLOCKS):
                chunk = everyone[WARMUP + i * CLAIMS : WARMUP + (i + 1) * CLAIMS]
                bursts.append(one_burst(site, rpc_url, info, domain, challenge_id, head, worker_log, chunk,
                                        block_seconds=block_seconds, first=i * CLAIMS))  # fmt: skip
                b = bursts[-1]
                log(
                    f"{block_seconds}-s blocks: blocks used {b['blocksUsed']}, last inclusion "
                    f"{b['lastInclusionSeconds']:.2f} s, last confirmed {b['lastConfirmedSeconds']:.2f} s after the "
                    f"POSTs; gas p50 {b['gasUsed']['p50']}; reconciled: {b['reconciled']['nothingLostOrDoubled']} "
                    f"{b['reconciled']['problems']}"
                )
        # The servers stopped (no worker may send them): where the relayer's time goes per stake.
        extra = relay_chain.payers(PROFILE_CLAIMS, start=len(everyone))
        relay_chain.fund(rpc_url, info, extra)
        log(f"the relayer's sending run over {PROFILE_CLAIMS} queued claims, timed by part in one process")
        profile = json.loads(python_module("bench.relay_profile", env, rpc_url, json.dumps(info), str(challenge_id),
                                           str(len(everyone)), str(PROFILE_CLAIMS)))  # fmt: skip
        direct = relay_chain.direct_transfer_gas(rpc_url, info, challenge_id, 20)
    path = write_result(
        "relay_burst",
        {
            "command": command("relay_burst", "BENCH_RELAY_CLAIMS", "BENCH_RELAY_BLOCKS"),
            "setup": setup(),
            "goals": {"blocksAtMost": GOAL_BLOCKS, "claims": CLAIMS},
            "meetsGoal": meets_goal(bursts),
            "bursts": bursts,
            "directTransferGas": {**stats(direct), "all": sorted(direct)},
            "relayProfile": profile,
            "loadAverageBefore": load_before,
            "uptimeBefore": uptime_before,
            "uptime": uptime(),
        },
    )
    if not any(name in os.environ for name in ("BENCH_RELAY_CLAIMS", "BENCH_RELAY_BLOCKS")):
        append_run("relay_burst", summary(json.loads(path.read_text())))
    return path


def summary(result: dict) -> dict:
    """This run in a line (bench/results/relay_burst-runs.json, docs/performance.md section 7)."""
    return {
        "measuredAt": result["measuredAt"],
        "command": result["command"],
        "loadAverageBefore": result["loadAverageBefore"],
        "loadAverage": result["loadAverage"],
        "meetsGoal": result["meetsGoal"],
        "bursts": [
            {
                "blockSeconds": b["blockSeconds"],
                "blocksUsed": b["blocksUsed"],
                "lastInclusionSeconds": b["lastInclusionSeconds"],
                "lastConfirmedSeconds": b["lastConfirmedSeconds"],
                "sendSpacingMsP50": b["sendSpacingMs"]["p50"],
                "gasUsedP50": b["gasUsed"]["p50"],
                "nothingLostOrDoubled": b["reconciled"]["nothingLostOrDoubled"],
                "headWatcherExpired": b.get("worker", {}).get("discarded", {}).get("chain.watch_head", 0),
            }
            for b in result["bursts"]
        ],
    }


def meets_goal(bursts: list[dict]) -> bool:
    """Every stake of the 12-second burst mined within GOAL_BLOCKS blocks of the POSTs, and nothing
    lost or doubled in any burst."""
    twelve = [b for b in bursts if b["blockSeconds"] == 12]
    return (
        bool(twelve)
        and all(
            b["reconciled"]["nothingLostOrDoubled"] and max(map(int, b["blocksUsed"]), default=99) <= GOAL_BLOCKS
            for b in twelve
        )
        and all(b["reconciled"]["nothingLostOrDoubled"] for b in bursts)
    )


def setup() -> dict:
    return {
        "processes": "the Procfile's `web`, `worker` and `beat` command lines, each run by bash (web bound to "
        "127.0.0.1; WEB_CONCURRENCY, WEB_THREADS and WORKER_CONCURRENCY unset: the Procfile's defaults, 2 x 24 "
        "threads and 2 worker processes consuming `celery,relay`); production settings (bench.settings), "
        f"TRUSTED_PROXY_HOPS 1, head watcher every {HEAD_INTERVAL_SECONDS} s, the relayer's watcher every 2 s",
        "chain": f"anvil with the test USDC (EIP-3009), CHAIN_CONFIRMATIONS={CONFIRMATIONS}, interval mining set per "
        "burst (evm_setIntervalMining, as `anvil --block-time`); RELAYER_KEY the development relayer key (ETH only); "
        f"RELAY_MAX_WEI_PER_DAY raised to {int(RELAY_BUDGET_WEI) / 10**18:g} ETH (the run relays over "
        f"{CLAIMS * len(BLOCKS)} stakes in minutes), every other relay setting its default",
        "burst": f"{CLAIMS} payers with keys of their own, each holding 10 test USDC and no ETH, each signing one "
        "authorization of a stake of 1.01 to 1.97 USDC (nonce = its guess commitment, valid 30 minutes); all "
        f"{CLAIMS} claim POSTs released at one instant, {PHASE:g} of a block interval after a block, each on a "
        "connection of its own from its own address (X-Forwarded-For), the claim throttle at its production rate",
        "warm-up": f"{WARMUP} claims by other payers, relayed and confirmed before the bursts (each web worker's "
        "first claims import the chain code; the treasury's first USDC costs more gas)",
        "clock": f"time.time() on this machine: the head polled every {HEAD_POLL_SECONDS * 1000:.0f} ms (a block "
        "first seen = produced), the POSTs' answers, the relayer's sent_at and the claims' updated_at (confirmed) "
        "from PostgreSQL",
        "database": f"PostgreSQL {DATABASE}; Redis {REDIS_URL} (cache, throttle counters, broker)",
        "cpu": subprocess.run(["nproc"], stdout=subprocess.PIPE, text=True).stdout.strip() + " cores, shared",
    }


if __name__ == "__main__":
    run()
