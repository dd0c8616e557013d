"""Benchmark: a burst of claims at opening, with the chain provider far away (docs/performance.md).

The web process exactly as the Procfile runs it (bench/procfile.py: its own command line through
bash, bound to 127.0.0.1) with the production settings (bench.settings), PostgreSQL database
geopoem_bench, Redis DB 8 as cache and broker, and CHAIN_RPC_URLS pointing at a delaying JSON-RPC
proxy (devtools/rpc_delay.py) in front of anvil with the project's test USDC. No Celery worker: it
runs on its own dyno, and each stored claim's verification message waits in Redis (counted).

Every claim is a real stake transfer, paid and mined before the bursts, by one of CLAIMS distinct
development accounts; each player reaches the server through the router as its own address
(X-Forwarded-For with TRUSTED_PROXY_HOPS=1, as app.json sets it), so the claim throttle, CSRF and
the request log run as in production, at production's rates (nothing is raised for the benchmark).

A burst is CLAIMS claim POSTs released open-loop at RATE per second (bench/burst_load.py), while a
reader asks the public answers (active, resolved, a winners answer, in turn) at READ_RATE per second,
from READ_LEAD seconds before the burst (the reads alone) to its last answer (the reads during it).
The same burst runs with 0 ms and with 200 ms added to every RPC request, ROUNDS times each,
alternating which goes first, on the same server (the proxy's delay changes between bursts), so the
shared machine's load falls on both sides. After each burst: every claim answered 201 exactly once,
one row per claim, one verification message per row, one request-log line per answer."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from devtools import processes, procfile
from devtools.rpc_delay import delaying_proxy

from . import burst_load
from .common import (
    DATABASE,
    PG_BASE,
    REDIS_URL,
    ROOT,
    collectstatic,
    command,
    django_env,
    flush_redis,
    log,
    manage,
    python_module,
    recreate_database,
    write_result,
)
from .data import _rpc_batch, stake_payment

sys.path.insert(0, str(ROOT / "scripts"))
import devchain  # scripts/ is not a package

CLAIMS = int(os.environ.get("BENCH_BURST_CLAIMS", "300"))
RATE = float(os.environ.get("BENCH_BURST_RATE", "150"))  # claims released per second
ROUNDS = int(os.environ.get("BENCH_BURST_ROUNDS", "3"))
READ_RATE = float(os.environ.get("BENCH_BURST_READ_RATE", "40"))
READ_LEAD = 3.0  # seconds of reads alone before each burst
DELAYS_MS = (0, 200)
WARMUP_CLAIMS = 48  # each web worker's first claims import the chain code (web3): not measured
GOAL_PER_SECOND = 100.0
GOAL_P99_SECONDS = 1.5
PER_BLOCK = 200  # stake transfers mined per block while paying beforehand
# The result's name: "burst" (the report's section), or "burst-before" for a run on the web process as
# it was before a change (the section then shows both; docs/performance.md says which commit).
NAME = os.environ.get("BENCH_BURST_NAME", "burst")


def pay_stakes(rpc_url: str, info: dict, challenge_id: int, count: int) -> list[burst_load.Player]:
    """`count` stake transfers, player n % CLAIMS paying the n-th, mined and checked successful;
    their claims in order, so each burst's CLAIMS claims come from CLAIMS distinct players."""
    players = info["players"]
    counts = _rpc_batch(rpc_url, [("eth_getTransactionCount", [p, "pending"]) for p in players])
    nonces = {p: int(c, 16) for p, c in zip(players, counts, strict=True)}
    drafts, hashes = [], []
    _rpc_batch(rpc_url, [("evm_setAutomine", [False])])
    try:
        for start in range(0, count, PER_BLOCK):
            sends = []
            for n in range(start, min(count, start + PER_BLOCK)):
                player = players[n % len(players)]
                text, stake, salt, data = stake_payment(info, challenge_id, player, n)
                drafts.append((n, player, text, stake, salt))
                tx = {"from": player, "to": info["usdcAddress"], "data": data, "gas": hex(120_000),
                      "nonce": hex(nonces[player])}  # fmt: skip
                nonces[player] += 1
                sends.append(("eth_sendTransaction", [tx]))
            hashes += _rpc_batch(rpc_url, sends)
            _rpc_batch(rpc_url, [("evm_mine", [])])
        _rpc_batch(rpc_url, [("evm_mine", [])])
    finally:
        _rpc_batch(rpc_url, [("evm_setAutomine", [True])])
    for start in range(0, count, 500):
        receipts = _rpc_batch(rpc_url, [("eth_getTransactionReceipt", [h]) for h in hashes[start : start + 500]])
        bad = [r["transactionHash"] for r in receipts if r is None or r["status"] != "0x1"]
        if bad:
            raise RuntimeError(f"stake transfers not mined or reverted: {bad[:3]}")
    return [
        burst_load.Player(
            body={
                "challengeId": challenge_id,
                "submissionText": text,
                "submissionStake": str(stake),
                "transactionHash": tx_hash,
                "submitterAddress": player,
                "submissionSalt": salt,
            },
            address=f"10.{n % CLAIMS // 62500 + 1}.{n % CLAIMS // 250 % 250}.{n % 250 + 1}",
        )
        for (n, player, text, stake, salt), tx_hash in zip(drafts, hashes, strict=True)
    ]


class ConnectionWatch:
    """The most server connections the benchmark's database had at once, sampled every 50 ms
    (pg_stat_activity, this watcher's own connection left out)."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        import psycopg

        with psycopg.connect(f"{PG_BASE}/postgres", autocommit=True) as conn:
            while not self._stop.is_set():
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", [DATABASE]
                ).fetchone()
                self.peak = max(self.peak, row[0] if row else 0)
                time.sleep(0.05)

    def __enter__(self) -> ConnectionWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def cpu_seconds(*, group: int | None = None, pids: tuple[int, ...] = ()) -> float:
    """User + system CPU seconds of the processes `pids`, or of every process in process group
    `group` (the web process: bash, gunicorn's master and its workers), from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    stats = [Path(f"/proc/{pid}/stat") for pid in pids] if pids else Path("/proc").glob("[0-9]*/stat")
    for stat in stats:
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if pids or int(fields[2]) == group:  # pgrp
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def stored(challenge_id: int) -> dict[str, int]:
    """Rows per transaction hash of the challenge, read from PostgreSQL."""
    import psycopg

    with psycopg.connect(f"{PG_BASE}/{DATABASE}") as conn:
        rows = conn.execute(
            "SELECT transaction_hash, count(*) FROM responses_response WHERE challenge_id = %s GROUP BY 1",
            [challenge_id],
        ).fetchall()
    return {tx: n for tx, n in rows}


def machine_ticks() -> tuple[int, int]:
    """(busy, total) CPU ticks of the whole machine so far, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)


def queued_messages() -> int:
    """Celery messages waiting in the broker's default queue (the claims' verifications)."""
    import redis

    return int(redis.Redis.from_url(REDIS_URL).llen("celery"))


def logged_claims(web_log: Path) -> dict[str, int]:
    """The request log's lines for claim POSTs (config/request_log.py), by status."""
    counts: dict[str, int] = {}
    for status in re.findall(r"POST /api/responses (\d{3}) ", web_log.read_text(errors="replace")):
        counts[status] = counts.get(status, 0) + 1
    return counts


def one_burst(site: burst_load.Site, proxy, players, *, delay_ms: int, web_group: int, anvil_pid: int) -> dict:
    ticks: list[tuple[int, int]] = []
    proxy.set_delay(delay_ms)
    rpc_before = proxy.stats()["requests"]
    cpu_before = cpu_seconds(group=web_group)
    others_before = {"proxy": cpu_seconds(pids=(proxy.pid,)), "anvil": cpu_seconds(pids=(anvil_pid,))}
    client_before = time.process_time()
    load_before = os.getloadavg()
    with ConnectionWatch() as connections:
        measured = burst_load.measure(site, players, rate=RATE, read_rate=READ_RATE, lead_seconds=READ_LEAD,
                                      on_burst=lambda: ticks.append(machine_ticks()))  # fmt: skip
        ticks.append(machine_ticks())
    cpu = cpu_seconds(group=web_group) - cpu_before
    client = time.process_time() - client_before
    others = {
        "proxy": cpu_seconds(pids=(proxy.pid,)) - others_before["proxy"],
        "anvil": cpu_seconds(pids=(anvil_pid,)) - others_before["anvil"],
    }
    claims = burst_load.figures(measured.claims)
    end = max(a.done for a in measured.claims)
    alone = [a for a in measured.reads if a.scheduled < measured.burst_start]
    during = [a for a in measured.reads if measured.burst_start <= a.scheduled <= end]
    result = {
        "delayMs": delay_ms,
        "claims": claims,
        "readsAlone": burst_load.figures(alone, start=measured.reads_start),
        "readsDuring": burst_load.figures(during, start=measured.burst_start),
        "rpcRequests": proxy.stats()["requests"] - rpc_before,
        "webCpuSeconds": round(cpu, 2),
        "webCpuMsPerClaim": round(cpu / len(players) * 1000, 1),
        "clientCpuSeconds": round(client, 2),
        "proxyCpuSeconds": round(others["proxy"], 2),
        "anvilCpuSeconds": round(others["anvil"], 2),
        # The whole machine's busy share from the burst's release to its last answer: others' work too.
        "machineBusy": round((ticks[1][0] - ticks[0][0]) / max(1, ticks[1][1] - ticks[0][1]), 2),
        "peakDatabaseConnections": connections.peak,
        "loadAverageBefore": [round(x, 2) for x in load_before],
        "loadAverageAfter": [round(x, 2) for x in os.getloadavg()],
        "hashes": {a.what: a.status for a in measured.claims},
    }
    log(
        f"burst at {delay_ms} ms per RPC: {claims['perSecond']:.0f} claims/s, p50 {claims['p50']:.3f} s, "
        f"p99 {claims['p99']:.3f} s, statuses {claims['statuses']}; reads p99 alone "
        f"{result['readsAlone']['p99']:.3f} s, during {result['readsDuring']['p99']:.3f} s; web CPU "
        f"{result['webCpuMsPerClaim']} ms/claim; machine busy {result['machineBusy']:.0%}; peak DB connections "
        f"{connections.peak}; "
        f"load {result['loadAverageAfter']}"
    )
    return result


def reconcile(challenge_id: int, bursts: list[dict], warm: list[burst_load.Answer], web_log: Path, *,
              rows_before: dict[str, int], queued_before: int) -> dict:  # fmt: skip
    """Nothing lost: every claim answered 201, one row each, one verification message each, and
    the request log saw every answer (`rows_before`, `queued_before`: the seeded data's)."""
    answered: dict[str, int] = {}
    for b in bursts:
        for tx, status in b["hashes"].items():
            answered[tx] = status
    for a in warm:
        answered[a.what] = a.status
    rows = {tx: n for tx, n in stored(challenge_id).items() if tx not in rows_before}
    not_201 = {tx: s for tx, s in answered.items() if s != 201}
    missing = sorted(set(answered) - set(rows))
    doubled = sorted(tx for tx, n in rows.items() if n != 1)
    unexpected = sorted(set(rows) - set(answered))
    queued = queued_messages() - queued_before
    logged = logged_claims(web_log)
    return {
        "claims": len(answered),
        "rows": sum(rows.values()),
        "answeredNot201": len(not_201),
        "notAnswered201Sample": dict(list(not_201.items())[:5]),
        "missingRows": len(missing),
        "rowsNotOnce": len(doubled),
        "unexpectedRows": len(unexpected),
        "verificationMessagesQueued": queued,
        "requestLogClaims": logged,
        "nothingLost": not not_201 and not missing and not doubled and not unexpected
        and queued == len(answered) and logged == {"201": len(answered)},
    }  # fmt: skip


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def side(bursts: list[dict], delay_ms: int) -> dict:
    """One delay's figures: the median over its rounds of each figure."""
    mine = [b for b in bursts if b["delayMs"] == delay_ms]

    def m(get) -> float | None:
        values = [v for v in (get(b) for b in mine) if v is not None]
        return median(values) if values else None

    return {
        "delayMs": delay_ms,
        "rounds": len(mine),
        "claimsPerSecond": m(lambda b: b["claims"]["perSecond"]),
        "p50Seconds": m(lambda b: b["claims"]["p50"]),
        "p99Seconds": m(lambda b: b["claims"]["p99"]),
        "maxSeconds": m(lambda b: b["claims"]["max"]),
        "readsAloneP50Seconds": m(lambda b: b["readsAlone"]["p50"]),
        "readsAloneP99Seconds": m(lambda b: b["readsAlone"]["p99"]),
        "readsDuringP50Seconds": m(lambda b: b["readsDuring"]["p50"]),
        "readsDuringP99Seconds": m(lambda b: b["readsDuring"]["p99"]),
        "readsDuringPerSecond": m(lambda b: b["readsDuring"]["perSecond"]),
        "readsNot200": sum(n for b in mine for s, n in b["readsDuring"]["statuses"].items() if s != "200"),
        "claimsNot201": sum(n for b in mine for s, n in b["claims"]["statuses"].items() if s != "201"),
        "rpcRequestsPerClaim": m(lambda b: b["rpcRequests"] / b["claims"]["count"]),
        "webCpuMsPerClaim": m(lambda b: b["webCpuMsPerClaim"]),
        "peakDatabaseConnections": max(b["peakDatabaseConnections"] for b in mine),
    }


def csrf_token(base: str) -> str:
    import urllib.request

    request = urllib.request.Request(base + "/", headers={"X-Forwarded-Proto": "https"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return answer.headers["Set-Cookie"].split("csrftoken=")[1].split(";")[0]


def run() -> Path:
    web_line = procfile.procfile_command("web")  # as the server below is started (the file may change meanwhile)
    bursts_count = ROUNDS * len(DELAYS_MS)
    url = recreate_database(DATABASE)
    flush_redis()
    workdir = Path(tempfile.mkdtemp(prefix="bench-burst-"))
    # CLAIMS players (anvil's account 9 is the treasury, devchain.TREASURY_INDEX).
    with processes.anvil("--accounts", str(CLAIMS + 1), chain_id=devchain.DEFAULT_CHAIN_ID, log=None,
                         stop_timeout=20) as (rpc_url, anvil):  # fmt: skip
        log(f"anvil with {CLAIMS} players: minting their test USDC; logs in {workdir}")
        info = devchain.setup_chain(rpc_url)
        with delaying_proxy(rpc_url, delay_ms=0, log=workdir / "proxy.log") as proxy:
            env = django_env(url, **devchain.chain_env(info, proxy.url), TRUSTED_PROXY_HOPS="1", LOG_LEVEL="INFO")
            manage(env, "migrate", "--noinput", "-v", "0")
            collectstatic(env)  # the page sets the CSRF cookie the POSTs carry
            seeded = json.loads(python_module("bench.data", env, "api"))
            challenge_id = seeded["active"]
            log(f"paying {WARMUP_CLAIMS + bursts_count * CLAIMS} stakes for challenge {challenge_id}")
            players = pay_stakes(rpc_url, info, challenge_id, WARMUP_CLAIMS + bursts_count * CLAIMS)
            warmup, rest = players[:WARMUP_CLAIMS], players[WARMUP_CLAIMS:]
            reads = [
                "/api/challenges/active",
                "/api/challenges/resolved",
                f"/api/challenges/{seeded['resolved'][-1]}/winners",
            ]
            web_log = workdir / "web.log"
            rows_before, queued_before = stored(challenge_id), queued_messages()
            with procfile.web(env, log=web_log) as web:
                site = burst_load.Site(base=web.base, csrf=csrf_token(web.base), reads=reads)
                warm = burst_load.post_all(site, warmup, concurrency=12)
                log(f"warm-up: {len(warm)} claims, statuses {burst_load.figures(warm)['statuses']}")
                bursts = []
                for number in range(bursts_count):
                    round_, position = divmod(number, len(DELAYS_MS))
                    order = DELAYS_MS if round_ % 2 == 0 else DELAYS_MS[::-1]
                    chunk = rest[number * CLAIMS : (number + 1) * CLAIMS]
                    bursts.append(
                        one_burst(
                            site, proxy, chunk, delay_ms=order[position], web_group=web.group, anvil_pid=anvil.pid
                        )
                    )
                    time.sleep(2)  # the last answers' connections closed, the server idle again
            checked = reconcile(challenge_id, bursts, warm, web_log, rows_before=rows_before,
                                queued_before=queued_before)  # fmt: skip
            flush_redis()  # the verification messages no worker will take
    log(f"reconciled: {checked}")
    sides = [side(bursts, d) for d in DELAYS_MS]
    far = sides[-1]
    for b in bursts:
        b.pop("hashes")
    return write_result(
        NAME,
        {
            "command": command(
                "burst",
                "BENCH_BURST_CLAIMS",
                "BENCH_BURST_RATE",
                "BENCH_BURST_ROUNDS",
                "BENCH_BURST_READ_RATE",
                "BENCH_BURST_NAME",
                "WEB_CONCURRENCY",
                "WEB_THREADS",
            ),
            "setup": setup(web_line),
            "webCommand": web_line,
            "goals": {
                "claimsPerSecondAtLeast": GOAL_PER_SECOND,
                "p99SecondsAtMost": GOAL_P99_SECONDS,
                "delayMs": DELAYS_MS[-1],
            },
            "meetsGoal": bool(
                far["claimsPerSecond"]
                and far["claimsPerSecond"] >= GOAL_PER_SECOND
                and far["p99Seconds"] is not None
                and far["p99Seconds"] <= GOAL_P99_SECONDS
                and checked["nothingLost"]
                and far["readsNot200"] == 0
            ),
            "sides": sides,
            "reconciled": checked,
            "bursts": bursts,
            "uptime": subprocess.run(["uptime"], stdout=subprocess.PIPE, text=True).stdout.strip(),
        },
    )


def setup(web_line: str) -> dict:
    return {
        "web": f"the Procfile's `web` command line ({web_line}), run by bash with its bind on 127.0.0.1 "
        f"and WEB_CONCURRENCY {os.environ.get('WEB_CONCURRENCY', 'unset')}, WEB_THREADS "
        f"{os.environ.get('WEB_THREADS', 'unset')} (unset: the Procfile's defaults); production settings "
        "(bench.settings), LOG_LEVEL INFO (the request log), TRUSTED_PROXY_HOPS 1",
        "chain": f"anvil with the test USDC behind devtools/rpc_delay.py (a loopback JSON-RPC proxy adding its delay "
        f"before each HTTP request it forwards); {CLAIMS} players, every claim a real stake transfer mined beforehand",
        "burst": f"{CLAIMS} claim POSTs, one per player, released open-loop at {RATE:g} per second, each on a new "
        "connection, each player through the router as its own address (X-Forwarded-For), the claim throttle at "
        "its production rate; latency from each claim's scheduled release to its answer",
        "reads": f"GET active, resolved and a winners answer in turn, {READ_RATE:g} per second open-loop, from "
        f"{READ_LEAD:g} s before the burst (alone) to the burst's last answer (during)",
        "rounds": f"{ROUNDS} rounds of the burst at {DELAYS_MS[0]} and at {DELAYS_MS[1]} ms per RPC request, "
        "alternating which goes first, on one server; each figure the median of its rounds",
        "database": f"PostgreSQL {DATABASE}; Redis {REDIS_URL} (cache, throttle counters, broker); no Celery worker "
        "(its dyno is separate: the verification messages are counted in the queue)",
        "cpu": subprocess.run(["nproc"], stdout=subprocess.PIPE, text=True).stdout.strip() + " cores, shared",
    }


if __name__ == "__main__":
    run()
