"""Real Celery processes for the tests that need them (chain/tests/test_worker.py,
responses/tests/test_resolve_worker.py): a module's own redis-server as the broker, which a test
may stop and start again on the same port, and the `celery worker` / `celery beat` processes of one
test, each logging to a file in the test's tmp_path and stopped by its own PID, also on failure.

A test module takes the fixture by importing it: `from devtools.workers import broker`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from . import processes


class Broker:
    """A private redis-server: stopped and started again on the same port by its PID."""

    def __init__(self) -> None:
        self.port = processes.free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = processes.start_redis(self.port)

    def stop(self) -> None:
        if self.proc is not None:
            processes.stop(self.proc, timeout=10)
            self.proc = None


def point_app_at(url: str) -> None:
    """Send this process's tasks (the API's on-commit enqueue) to `url`: the Celery app read its
    broker from settings once, so set it on the app and let it pick the pools of the new one (kombu
    keeps each broker's pool in a registry: closing the old one would break the next test using it)."""
    from config.celery_app import app

    app._pool = None
    app.amqp._producer_pool = None
    app.conf.broker_url = url
    app.conf.broker_transport_options = {"visibility_timeout": 3600}


@pytest.fixture(scope="module")
def broker():
    """The module's own broker, and the project's Celery app pointed at it meanwhile."""
    from config.celery_app import app

    # The project's app must be the current one: shared tasks (`verify_response.delay` in the POST's
    # on-commit hook) send through the current app, and any bare Celery() made earlier in the same
    # process would have taken that place.
    app.set_current()
    saved = (app.conf.broker_url, app.conf.broker_transport_options)
    redis = Broker()
    redis.start()
    point_app_at(redis.url)
    try:
        yield redis
    finally:
        point_app_at(saved[0])
        app.conf.broker_transport_options = saved[1]
        redis.stop()


def anvil_chain_settings(
    *,
    rpc_url: str,
    usdc: str,
    treasury: str,
    rpc_timeout_seconds: str,
    registry: str = "",
    operator_key: str = "",
) -> dict[str, str]:
    """The chain settings of worker processes on the tests' anvil (chain id 31337, the test USDC,
    2 confirmations): the sweeper on beat every second for claims no check touched for 2 s; the
    indexer and the reorg re-check out of the way, so only the sweeper can re-queue a claim. With a
    registry and its operator key, the worker anchors published challenges there (chain/anchors.py)."""
    return {
        "ANCHOR_REGISTRY_ADDRESS": registry,
        "ANCHOR_OPERATOR_KEY": operator_key,
        "ANCHOR_POLL_SECONDS": "0.5",
        "CHAIN_RPC_URLS": rpc_url,
        "CHAIN_ID": str(processes.ANVIL_CHAIN_ID),
        "USDC_ADDRESS": usdc,
        "TREASURY_ADDRESS": treasury,
        "OPERATIONS_ADDRESS": "",
        "CHAIN_CONFIRMATIONS": "2",
        "CHAIN_RPC_TIMEOUT_SECONDS": rpc_timeout_seconds,
        "CHAIN_SWEEP_INTERVAL_SECONDS": "1",
        "CHAIN_SWEEP_STALE_SECONDS": "2",
        "CHAIN_INDEX_INTERVAL_SECONDS": "3600",
    }


def database_url() -> str:
    """The URL of the database the tests use (pytest-django's test database), for other processes."""
    from django.db import connection

    db = connection.settings_dict
    if not db["ENGINE"].endswith("postgresql"):
        raise RuntimeError("this test needs PostgreSQL (make test uses it)")
    name = db["NAME"]
    if not name.startswith("test_"):
        # Outside a test function the connection may still carry the configured name.
        name = connection.creation._get_test_db_name()
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return (
        f"postgres://{db.get('USER') or 'postgres'}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name}"
    )


class CeleryProcesses:
    """`celery worker` / `celery beat` processes of one test (test settings, the test database,
    the module's broker, and `env` over those), each logging to a file, stopped by PID."""

    def __init__(self, tmp_path: Path, broker: Broker, **env: str) -> None:
        self.tmp_path = tmp_path
        self.broker = broker
        self.procs: list[tuple[str, subprocess.Popen, Path]] = []
        self.nodes: dict[int, str] = {}
        self.env: dict[str, str] = {}
        self.configure(**env)

    def configure(self, **env: str) -> None:
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": database_url(),  # the test database pytest-django created
            "REDIS_URL": self.broker.url,
            **env,
        }

    def spawn(self, name: str, args: list[str]) -> subprocess.Popen:
        log = self.tmp_path / f"{name}-{len(self.procs)}.log"
        proc = processes.start(processes.celery(*args), log=log, env=self.env)
        self.procs.append((name, proc, log))
        return proc

    def worker(self, name: str = "worker", *, node: str | None = None) -> subprocess.Popen:
        """A worker as the Procfile runs it (acks_late, prefetch 1 from settings, the default and
        the relayer's queues), solo pool, returned once it answers a ping."""
        from config.celery_app import app

        node = node or f"{name}{len(self.procs)}-{os.getpid()}@127.0.0.1"
        proc = self.spawn(name, ["worker", *processes.SOLO_WORKER, *processes.WORKER_QUEUES, "-n", node, "-l", "INFO"])
        processes.wait_for_worker(app.control, node, proc, timeout=30, logs=self.logs)
        self.nodes[proc.pid] = node
        return proc

    def beat(self) -> subprocess.Popen:
        return self.spawn(
            "beat", ["beat", "-s", str(self.tmp_path / "beat-schedule"), "--pidfile=", "-l", "INFO", "--max-interval=1"]
        )

    def logs(self) -> str:
        return processes.tail(log for _, _, log in self.procs)

    def wait_for_log(self, text: str, *, within: float = 10.0) -> None:
        """Until one of the processes has logged `text` (a process logs a step just after the
        database commit a test may already have seen)."""

        def logged() -> bool:
            return any(text in log.read_text(errors="replace") for _, _, log in self.procs if log.exists())

        try:
            processes.wait_until(logged, f"{text!r} in the logs", timeout=within, interval=0.1)
        except TimeoutError:
            raise AssertionError(f"never logged {text!r}:\n{self.logs()}") from None

    def stop_all(self) -> None:
        processes.stop_all((proc for _, proc, _ in self.procs), timeout=10)
