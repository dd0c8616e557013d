"""What every benchmark shares: its own PostgreSQL database and Redis DB, the production settings made
runnable on loopback, the Django processes it runs its preparations in, the one JSON-RPC batch helper
of bench/ (plain urllib: this process never sets Django up, each benchmark's chain has its own port),
the CPU time of a process group, percentiles, and one JSON file of results per benchmark.

Nothing here imports Django or an app at module level: `make bench` drives processes that each have
an environment of their own (a database, a chain, a web line), and only those processes set Django up."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from devtools import processes

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PY = str(ROOT / ".venv" / "bin" / "python")
# Where the npm tools are (anvil, forge, lighthouse, solc): the repository's node_modules, or another
# checkout's for a git worktree that has none of its own (BENCH_NODE_MODULES; forge then compiles
# that checkout's contracts).
NODE_MODULES = Path(os.environ.get("BENCH_NODE_MODULES") or ROOT / "node_modules")
PG_BASE = os.environ.get("BENCH_PG_BASE", "postgres://postgres@127.0.0.1:5432")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/8")
# One database for every benchmark, dropped and created afresh by each (they run one after another).
DATABASE = os.environ.get("BENCH_DATABASE", "geopoem_bench")
STATIC_ROOT = ROOT / "var" / "bench-static"  # collectstatic of the built bundle, for whitenoise
BUNDLE = ROOT / "var" / "bench-bundle"  # a snapshot of frontend/build and its webpack-stats.json
LOGS = ROOT / "var" / "bench-logs"  # every process's log, one folder per benchmark (not committed)
# How long a server a benchmark starts may take to answer (gunicorn beside a worker and beat on a
# loaded 2-core machine took over 30 s at load average 14).
START_SECONDS = float(os.environ.get("BENCH_START_SECONDS", "90"))


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", flush=True)


def command(name: str, *env_names: str) -> str:
    """The command that produced a result, with the environment it was given, so a figure can be
    reproduced exactly."""
    names = ("BENCH_DATABASE", "BENCH_REDIS_URL", *env_names)
    given = [f"{n}={os.environ[n]}" for n in names if n in os.environ]
    return " ".join([*given, f".venv/bin/python -m bench.run {name}"])


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def log_dir(name: str) -> Path:
    folder = LOGS / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


# --- The database, Redis and the Django processes --------------------------------------------


def recreate_database(name: str = DATABASE) -> str:
    """A fresh, dedicated database (benchmarks own it whole) and its URL."""
    import psycopg

    with psycopg.connect(f"{PG_BASE}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{PG_BASE}/{name}"


def flush_redis() -> None:
    """Empty the benchmark's own Redis DB number (never another one)."""
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()


def queued_messages(queue: str) -> int:
    """Celery messages waiting in the broker's queue `queue`."""
    import redis

    return int(redis.Redis.from_url(REDIS_URL).llen(queue))


def django_env(database_url: str, **extra: str) -> dict[str, str]:
    """The production settings (through bench.settings, which adds the floor view) on loopback."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        SECRET_KEY="bench-only-" + "k" * 50,
        ALLOWED_HOSTS="127.0.0.1,localhost,testserver",
        SECURE_SSL_REDIRECT="False",
        DATABASE_URL=database_url,
        REDIS_URL=REDIS_URL,
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(ROOT),
        STATIC_ROOT=str(STATIC_ROOT),
        BENCH_WEBPACK_STATS=str(BUNDLE / "webpack-stats.json"),
        BENCH_BUNDLE_DIR=str(BUNDLE / "build"),
    )
    env.pop("BENCH_NO_CACHE", None)
    # Production refuses to start without a chain, a pot and its operator key; the benchmarks with a
    # chain give their own (scripts/devchain.py, chain_env), the others these, which no node answers.
    env.setdefault("CHAIN_RPC_URLS", "http://127.0.0.1:9")
    env.setdefault("CHAIN_ID", "31337")
    env.setdefault("USDC_ADDRESS", "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512")
    env.setdefault("POT_ADDRESS", "0x46DDdae9F667Cc93eB0796652a39AbDFb4598245")
    env.setdefault("POT_OPERATOR_KEY", "0x" + "5e" * 32)
    env.update(extra)
    return env


def fresh_database(**extra: str) -> dict[str, str]:
    """The benchmarks' database dropped, created and migrated afresh, their Redis DB emptied; returns
    the production environment (django_env, with `extra`) that points at both."""
    env = django_env(recreate_database(), **extra)
    manage(env, "migrate", "--noinput", "-v", "0")
    flush_redis()
    return env


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=env, check=True)


def in_django(module: str, env: dict[str, str], *args: str) -> Any:
    """`python -m module args` under Django's env: its last line of stdout, parsed as JSON."""
    done = subprocess.run([PY, "-m", module, *args], cwd=ROOT, env=env, check=True, stdout=subprocess.PIPE, text=True)
    sys.stdout.write(done.stdout)
    return json.loads(done.stdout.strip().splitlines()[-1])


def django_main(commands: dict, argv: list[str]) -> None:
    """The entry of a module run by in_django: Django set up, then `commands[argv[0]](*argv[1:])`,
    its answer printed as JSON on the last line."""
    import django

    django.setup()
    if not argv or argv[0] not in commands:
        raise SystemExit(f"usage: one of {', '.join(commands)}")
    print(json.dumps(commands[argv[0]](*argv[1:])))


# --- JSON-RPC ---------------------------------------------------------------------------------


def rpc_batch(url: str, calls: Sequence[tuple[str, list]], *, timeout: float = 120.0) -> list:
    """One JSON-RPC batch request to our own loopback node; results in call order (an error fails).
    The one batch helper of bench/: the Django processes read the chain through the site's client."""
    if not calls:
        return []
    payload = [{"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(calls)]
    headers = {"Content-Type": "application/json"}
    request = urllib.request.Request(url, data=json.dumps(payload).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        replies = {item["id"]: item for item in json.loads(answer.read())}
    results = []
    for i, (method, _) in enumerate(calls):
        if "error" in replies[i]:
            raise RuntimeError(f"{method}: {replies[i]['error']}")
        results.append(replies[i]["result"])
    return results


def rpc(url: str, method: str, params: list | None = None) -> Any:
    return rpc_batch(url, [(method, params or [])])[0]


@contextlib.contextmanager
def anvil(*args: str) -> Iterator[tuple[str, Any]]:
    """anvil (NODE_MODULES's platform binary) on a free loopback port; yields (url, process), stopped
    by its PID."""
    binaries = sorted((NODE_MODULES / "@foundry-rs").glob("anvil-*/bin/anvil"))
    binary = str(binaries[0] if binaries else NODE_MODULES / ".bin" / "anvil")
    port = processes.free_port()
    cmd = [binary, "--host", "127.0.0.1", "--port", str(port), "--chain-id", str(processes.ANVIL_CHAIN_ID),
           "--silent", *args]  # fmt: skip
    process = processes.start(cmd, log=subprocess.DEVNULL, cwd=None)
    url = f"http://127.0.0.1:{port}"
    try:
        processes.wait_rpc(url, process=process)
        yield url, process
    finally:
        processes.stop(process, timeout=20)


# --- Measures ---------------------------------------------------------------------------------


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


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest rank; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def stats(values: Sequence[float]) -> dict:
    return {
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "max": max(values) if values else None,
    }


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


# --- The built page (the page and API benchmarks) ----------------------------------------------


def snapshot_bundle(timeout: float = 180.0) -> Path:
    """Copy the built bundle (frontend/build + webpack-stats.json) once the stats say "done" and every
    file they name exists, so the benchmark reads one consistent build. Returns the stats' path."""
    stats_file = ROOT / "frontend" / "webpack-stats.json"
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = json.loads(stats_file.read_text())
            names = list(found["assets"])
            if found.get("status") == "done" and all((ROOT / "frontend" / "build" / n).exists() for n in names):
                shutil.rmtree(BUNDLE, ignore_errors=True)
                (BUNDLE / "build").mkdir(parents=True)
                for name in names:
                    shutil.copy2(ROOT / "frontend" / "build" / name, BUNDLE / "build" / name)
                for asset in found["assets"].values():
                    asset["path"] = str(BUNDLE / "build" / asset["name"])
                (BUNDLE / "webpack-stats.json").write_text(json.dumps(found))
                return BUNDLE / "webpack-stats.json"
        except (ValueError, KeyError, OSError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the front-end bundle is not built (run `make build`)")
        time.sleep(1)


def collectstatic(env: dict[str, str]) -> None:
    """The bundle snapshot into STATIC_ROOT, hashed and compressed as production serves it."""
    if not (BUNDLE / "webpack-stats.json").exists():
        snapshot_bundle()
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
    manage(env, "collectstatic", "--noinput", "--clear", "-v", "0")


@contextlib.contextmanager
def gunicorn(env: dict[str, str], workers: int = 2) -> Iterator[str]:
    """gunicorn serving config.wsgi (sync workers) on a free loopback port, ready once the resolved
    list answers 200; stopped by its own PID, also when the benchmark fails."""
    with processes.gunicorn(env, workers=workers, options=["--log-level", "warning"],
                            ready_path="/api/challenges/resolved", timeout=START_SECONDS,
                            stop_timeout=20.0) as base:  # fmt: skip
        yield base


# --- Results ----------------------------------------------------------------------------------


def write_result(name: str, data: dict, *, load_before: list[float] | None = None) -> dict:
    """bench/results/<name>.json: when, the load averages (1/5/15 min) before and at the end (the
    machine is shared), and the benchmark's own figures. Returns what was written."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    result = {
        "benchmark": name,
        "measuredAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "loadAverageBefore": load_before,
        "loadAverage": load_average(),
        "cores": os.cpu_count(),
        **data,
    }
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(result, indent=1) + "\n")
    log(f"wrote {path.relative_to(ROOT)}")
    return result


def read_result(name: str) -> dict | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None
