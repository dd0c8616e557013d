"""Processes the chain tests start: anvil, redis-server and celery workers, each on a free
loopback port and stopped by its own PID (never by name: other engineers run the same programs)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
ANVIL = ROOT / "node_modules" / ".bin" / "anvil"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen, *, sig: int = signal.SIGTERM, timeout: float = 10) -> None:
    """Stop one process we started, by its PID."""
    if proc.poll() is not None:
        return
    try:
        os.kill(proc.pid, sig)
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=timeout)
    except ProcessLookupError:
        pass


def _wait_rpc(url: str, proc: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"anvil exited with {proc.returncode}")
        try:
            r = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}, timeout=1)
            if r.ok:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"anvil did not answer at {url}")


@contextmanager
def anvil(*extra: str, port: int | None = None):
    """An anvil node on a free loopback port; yields (url, process)."""
    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [str(ANVIL), "--host", "127.0.0.1", "--port", str(port), "--chain-id", "31337", "--silent", *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_rpc(url, proc)
        yield url, proc
    finally:
        stop(proc)


def start_redis(port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return proc
        except OSError:
            pass
        time.sleep(0.05)
    stop(proc)
    raise RuntimeError("redis-server did not start")
