"""What every benchmark shares: its own PostgreSQL database, Redis DB, free loopback ports, a
gunicorn started and stopped by its own PID (the process helpers of devtools/processes.py, with the
benchmarks' timeouts), and one JSON file of results per benchmark."""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from devtools import processes
from devtools.processes import free_port  # noqa: F401 - the benchmarks take it from here

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PY = str(ROOT / ".venv" / "bin" / "python")
PG_BASE = os.environ.get("BENCH_PG_BASE", "postgres://postgres@127.0.0.1:5432")
STATIC_ROOT = ROOT / "var" / "bench-static"  # collectstatic of the built bundle, for whitenoise
BUNDLE = ROOT / "var" / "bench-bundle"  # a snapshot of frontend/build and its webpack-stats.json
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/8")
# One database for every benchmark, dropped and created afresh by each (they run one after another).
DATABASE = os.environ.get("BENCH_DATABASE", "geopoem_bench")
# The beat's head watcher interval the chain benchmarks run with (and report): config/settings/chain.py's
# default unless the environment says otherwise; passed to their stacks explicitly.
HEAD_INTERVAL_SECONDS = os.environ.get("CHAIN_HEAD_INTERVAL_SECONDS", "0.5")


def command(name: str, *env_names: str) -> str:
    """The command that produced a result, with the environment it was given (database, Redis,
    counts), so a figure can be reproduced exactly."""
    given = [f"{n}={os.environ[n]}" for n in ("BENCH_DATABASE", "BENCH_REDIS_URL", *env_names) if n in os.environ]
    return " ".join([*given, f".venv/bin/python -m bench.run {name}"])


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", flush=True)


def recreate_database(name: str) -> str:
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


def fresh_database(**extra: str) -> dict[str, str]:
    """The benchmarks' database dropped, created and migrated afresh, their Redis DB emptied; returns
    the production environment (django_env, with `extra`) that points at both."""
    env = django_env(recreate_database(DATABASE), **extra)
    manage(env, "migrate", "--noinput", "-v", "0")
    flush_redis()
    return env


def django_env(database_url: str, **extra: str) -> dict[str, str]:
    """The production settings (through bench.settings) made runnable on loopback."""
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
    # Production refuses to start without a chain and a treasury; the benchmark's chain parts set their own.
    env.setdefault("CHAIN_RPC_URLS", "http://127.0.0.1:9")
    env.setdefault("CHAIN_ID", "11155111")
    env.setdefault("TREASURY_ADDRESS", "0x000000000000000000000000000000000000dEaD")
    # ... nor without a terms registry and its operator key (made up: bench/verify.py sets its chain's).
    env.setdefault("ANCHOR_REGISTRY_ADDRESS", "0x5FbDB2315678afecb367f032d93F642f64180aa3")
    env.setdefault("ANCHOR_OPERATOR_KEY", "0x" + "5e" * 32)
    env.update(extra)
    return env


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=env, check=True)


def snapshot_bundle(timeout: float = 180.0) -> Path:
    """Copy the built bundle (frontend/build + webpack-stats.json) once the stats say "done" and every
    file they name exists, so the benchmark reads one consistent build. Returns the stats' path."""
    stats_file = ROOT / "frontend" / "webpack-stats.json"
    deadline = time.monotonic() + timeout
    while True:
        try:
            stats = json.loads(stats_file.read_text())
            names = list(stats["assets"])
            if stats.get("status") == "done" and all((ROOT / "frontend" / "build" / n).exists() for n in names):
                shutil.rmtree(BUNDLE, ignore_errors=True)
                (BUNDLE / "build").mkdir(parents=True)
                for name in names:
                    shutil.copy2(ROOT / "frontend" / "build" / name, BUNDLE / "build" / name)
                for asset in stats["assets"].values():
                    asset["path"] = str(BUNDLE / "build" / asset["name"])
                (BUNDLE / "webpack-stats.json").write_text(json.dumps(stats))
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


# How long a server the benchmark starts may take to answer (gunicorn beside a worker and beat on a
# loaded 2-core machine took over 30 s at load average 14).
START_SECONDS = float(os.environ.get("BENCH_START_SECONDS", "90"))


def wait_http(url: str, timeout: float = START_SECONDS) -> None:
    processes.wait_http(url, timeout=timeout)


def stop(proc: subprocess.Popen, timeout: float = 20.0) -> None:
    """Stop one process this benchmark started, by its own PID: SIGTERM, then SIGKILL if it hangs."""
    processes.stop(proc, timeout=timeout)


@contextlib.contextmanager
def gunicorn(env: dict[str, str], workers: int = 2) -> Iterator[str]:
    """gunicorn as the Procfile's `web` runs it (sync workers), on a free loopback port, ready once
    the resolved list answers 200 (within 30 s). Stopped by its own PID (SIGTERM to the master,
    which stops its workers), also when the benchmark fails. Its output is the benchmark's."""
    with processes.gunicorn(
        env,
        workers=workers,
        options=["--log-level", "warning"],
        ready_path="/api/challenges/resolved",
        timeout=30.0,
        stop_timeout=20.0,
    ) as base:
        yield base


def write_result(name: str, data: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    data = {
        "benchmark": name,
        "measuredAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        # The machine is shared: its 1/5/15-minute load averages when the benchmark ended, for the reader.
        "loadAverage": [round(x, 1) for x in os.getloadavg()],
        **data,
    }
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    log(f"wrote {path.relative_to(ROOT)}")
    return path


def uptime() -> str:
    return subprocess.run(["uptime"], stdout=subprocess.PIPE, text=True).stdout.strip()


def append_run(name: str, summary: dict) -> None:
    """One line for this run in bench/results/<name>-runs.json, oldest first: the report lists every
    full run of a benchmark, so a figure measured while other work loaded the shared machine stands
    beside the runs before it (with each run's load average)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}-runs.json"
    runs = json.loads(path.read_text()) if path.exists() else []
    runs.append(summary)
    path.write_text(json.dumps(runs, indent=1) + "\n")


def read_results() -> dict[str, dict | list]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(RESULTS.glob("*.json"))}


def python_module(module: str, env: dict[str, str], *args: str) -> str:
    """Run `python -m module` under Django's env and return its last stdout line (its JSON)."""
    done = subprocess.run([PY, "-m", module, *args], cwd=ROOT, env=env, check=True, stdout=subprocess.PIPE, text=True)
    sys.stdout.write(done.stdout)
    return done.stdout.strip().splitlines()[-1]
