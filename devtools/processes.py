"""The processes tests, the reliability stack and the benchmarks start: a free loopback port each, a
log file each (or the caller's terminal), a wait until the port or URL answers, and a stop by the
process's own PID (SIGTERM, a wait, then SIGKILL; to the process group when it was started in a
session of its own). Never by name: other engineers run the same programs on this machine.

No Django and no app is imported at module level: `bench/` runs it before Django is set up, and
nothing here may depend on an app layer (docs/architecture.md)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
BIN = Path(sys.executable).parent  # the virtualenv's scripts: gunicorn, celery, locust
CELERY = str(BIN / "celery")
# The platform's anvil binary, not node_modules/.bin/anvil: that Node wrapper forwards SIGTERM and
# exits at once, so waiting for its PID would not wait for anvil itself (to write its state, to
# close its port).
_ANVILS = sorted((ROOT / "node_modules" / "@foundry-rs").glob("anvil-*/bin/anvil"))
ANVIL = _ANVILS[0] if _ANVILS else ROOT / "node_modules" / ".bin" / "anvil"
ANVIL_CHAIN_ID = 31337
# A `celery worker` as the tests run it: one task at a time in the worker's own process, and no
# chatter between workers (each test's workers are alone on their broker).
SOLO_WORKER = ["--pool=solo", "--without-heartbeat", "--without-gossip", "--without-mingle"]
# The queues every worker consumes, as the Procfile's `worker` does: Celery's default one and the
# relayer's own (config/settings/chain.py, CELERY_TASK_ROUTES).
WORKER_QUEUES = ["-Q", "celery,relay"]

Output = Path | int | None  # a log file (appended to), subprocess.DEVNULL, or None: the caller's own


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(
    answers, what: str, *, timeout: float = 30.0, process: subprocess.Popen | None = None, interval: float = 0.1
) -> None:
    """Until `answers()` is true (an OSError counts as "not yet"); fails if `process` exits first or
    after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"process {process.pid} exited with {process.returncode} before {what}")
        try:
            if answers():
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {what} after {timeout} s")
        time.sleep(interval)


def _accepts(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True


def _answers_200(url: str, body: bytes | None = None, timeout: float = 2) -> bool:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})  # noqa: S310
    with urllib.request.urlopen(request, timeout=timeout) as answer:  # noqa: S310 - loopback URLs we started
        return answer.status == 200


def _pong(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
        sock.sendall(b"PING\r\n")
        return sock.recv(16).startswith(b"+PONG")


def wait_for_port(port: int, *, timeout: float = 30.0, process: subprocess.Popen | None = None) -> None:
    """Until something accepts a connection on 127.0.0.1:`port`."""
    wait_until(lambda: _accepts(port), f"listener on 127.0.0.1:{port}", timeout=timeout, process=process)


def wait_http(url: str, *, timeout: float = 30.0, process: subprocess.Popen | None = None) -> None:
    """Until GET `url` answers 200."""
    wait_until(lambda: _answers_200(url), f"200 from {url}", timeout=timeout, process=process, interval=0.2)


_CHAIN_ID_CALL = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}).encode()


def wait_rpc(url: str, *, timeout: float = 30.0, process: subprocess.Popen | None = None) -> None:
    """Until the JSON-RPC node at `url` answers eth_chainId."""
    what = f"JSON-RPC node at {url}"
    wait_until(lambda: _answers_200(url, _CHAIN_ID_CALL, timeout=1), what, timeout=timeout, process=process)


def start(
    cmd: Sequence[str],
    *,
    log: Output = None,
    env: dict | None = None,
    cwd: Path | None = ROOT,
    new_session: bool = False,
) -> subprocess.Popen:
    """`cmd` started with its output (stdout and stderr) appended to `log`. `new_session`: in a
    process group of its own, so that `stop(..., group=True)` also stops what it started."""
    if isinstance(log, Path):
        with open(log, "ab") as out:
            return subprocess.Popen(  # noqa: S603
                list(cmd), env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=new_session
            )
    return subprocess.Popen(list(cmd), env=env, cwd=cwd, stdout=log, stderr=log, start_new_session=new_session)  # noqa: S603


def _signal(process: subprocess.Popen, sig: int, group: bool) -> None:
    if group:
        os.killpg(process.pid, sig)
    else:
        os.kill(process.pid, sig)


def stop(process: subprocess.Popen | None, *, timeout: float = 15.0, group: bool = False) -> None:
    """Stop one process we started, by its PID: SIGTERM (gunicorn's master, Celery and anvil stop
    their own children and write their state), SIGKILL if it is still up after `timeout`. With
    `group`, the signals go to its process group (started with `new_session`), and whatever the
    group still holds once the process itself has exited is killed too."""
    if process is None:
        return
    if process.poll() is None:
        try:
            _signal(process, signal.SIGTERM, group)
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _signal(process, signal.SIGKILL, group)
            process.wait(timeout=timeout)
        except ProcessLookupError:
            pass
    elif group:
        try:  # the leader exited; anything it left in the group goes too
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def stop_all(processes: Iterable[subprocess.Popen], *, timeout: float = 10.0) -> None:
    """SIGTERM to each at once (they shut down side by side), SIGKILL to any still up after `timeout`."""
    running = [process for process in processes if process.poll() is None]
    for process in running:
        try:
            os.kill(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    for process in running:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            stop(process, timeout=timeout)  # SIGTERM again is harmless; then SIGKILL


@contextmanager
def running(
    cmd: Sequence[str],
    *,
    log: Output = None,
    env: dict | None = None,
    port: int | None = None,
    url: str | None = None,
    timeout: float = 30.0,
    stop_timeout: float = 15.0,
) -> Iterator[subprocess.Popen]:
    """`cmd` started, ready once `port` accepts (or `url` answers 200), stopped by its PID on the
    way out, also when the caller fails."""
    process = start(cmd, log=log, env=env)
    try:
        if port is not None:
            wait_for_port(port, timeout=timeout, process=process)
        if url is not None:
            wait_http(url, timeout=timeout, process=process)
        yield process
    finally:
        stop(process, timeout=stop_timeout)


@contextmanager
def gunicorn(
    env: dict,
    *,
    workers: int = 2,
    options: Sequence[str] = (),
    log: Output = None,
    ready_path: str | None = None,
    timeout: float = 60.0,
    stop_timeout: float = 15.0,
) -> Iterator[str]:
    """gunicorn serving config.wsgi as the Procfile's `web` does (sync workers), with `env`, on a
    free loopback port; yields its base URL once the port accepts (or GET `ready_path` answers
    200). Stopped by the master's PID, which stops its workers."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [str(BIN / "gunicorn"), "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
           "--workers", str(workers), *options]  # fmt: skip
    ready = {"url": base + ready_path} if ready_path is not None else {"port": port}
    with running(cmd, env=env, log=log, timeout=timeout, stop_timeout=stop_timeout, **ready):
        yield base


def start_anvil(
    port: int, *args: str, chain_id: int = ANVIL_CHAIN_ID, log: Output = subprocess.DEVNULL, timeout: float = 30.0
) -> subprocess.Popen:
    """anvil on 127.0.0.1:`port`, returned once it answers JSON-RPC (stopped if it never does)."""
    cmd = [str(ANVIL), "--host", "127.0.0.1", "--port", str(port), "--chain-id", str(chain_id), "--silent", *args]
    process = start(cmd, log=log, cwd=None)
    try:
        wait_rpc(f"http://127.0.0.1:{port}", timeout=timeout, process=process)
    except BaseException:
        stop(process)
        raise
    return process


@contextmanager
def anvil(
    *args: str,
    port: int | None = None,
    chain_id: int = ANVIL_CHAIN_ID,
    log: Output = subprocess.DEVNULL,
    stop_timeout: float = 10.0,
) -> Iterator[tuple[str, subprocess.Popen]]:
    """An anvil node on a free loopback port (or `port`); yields (url, process), stopped by its PID."""
    port = port or free_port()
    process = start_anvil(port, *args, chain_id=chain_id, log=log)
    try:
        yield f"http://127.0.0.1:{port}", process
    finally:
        stop(process, timeout=stop_timeout)


def start_redis(
    port: int, *, workdir: Path | None = None, log: Output = subprocess.DEVNULL, timeout: float = 15.0
) -> subprocess.Popen:
    """A private redis-server on 127.0.0.1:`port`, no persistence; returned once it answers PING."""
    cmd = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    if workdir is not None:
        cmd += ["--dir", str(workdir)]
    process = start(cmd, log=log, cwd=None)
    try:
        wait_until(lambda: _pong(port), f"PONG from redis-server on {port}", timeout=timeout, process=process)
    except BaseException:
        stop(process)
        raise
    return process


def celery(*args: str, app: str = "config.celery_app") -> list[str]:
    """The command line of `celery -A app ...` from this virtualenv."""
    return [CELERY, "-A", app, *args]


def wait_for_worker(
    control, node: str, process: subprocess.Popen, *, timeout: float = 30.0, logs=lambda: ""
) -> subprocess.Popen:
    """Until the worker `node` answers a ping through `control` (a Celery app's control); a broker
    connection that drops meanwhile is asked again. Fails with `logs()` if the worker exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the worker {node} exited:\n{logs()}"
        try:
            if control.ping(destination=[node], timeout=0.5, limit=1):
                return process
        except Exception:  # noqa: BLE001 - a broker connection that dropped: ask again
            time.sleep(0.2)
    raise AssertionError(f"the worker {node} never answered a ping:\n{logs()}")


def tail(logs: Iterable[Path], chars: int = 3000) -> str:
    """The end of each log that exists, for a failure message."""
    return "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')[-chars:]}" for log in logs if log.exists())
