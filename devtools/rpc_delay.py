"""A JSON-RPC node far away: a loopback HTTP endpoint in front of a real node (anvil) that waits a
fixed time before forwarding each request, as a hosted provider's round trip does (about 200 ms).
The answer is the node's own, byte for byte; a batch is one HTTP request and waits once.

Run as its own process, on a free loopback port, and stopped by its PID (`delaying_proxy`):

    python -m devtools.rpc_delay --upstream http://127.0.0.1:8545 --port 9000 --delay-ms 200

Two control paths, never forwarded: `PUT /delay` with a number of milliseconds as the body changes
the delay from the next request on (a benchmark compares the same server at 0 and 200 ms), and
`GET /stats` answers {"requests": forwarded so far, "delayMs": the delay}.

Nothing here imports Django or an app (docs/architecture.md): the benchmarks start it before
Django is set up."""

from __future__ import annotations

import argparse
import http.client
import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from . import processes


class _State:
    def __init__(self, delay_ms: float) -> None:
        self.lock = threading.Lock()
        self.delay_ms = delay_ms
        self.requests = 0


def _handler(upstream: str, state: _State) -> type[BaseHTTPRequestHandler]:
    parts = urlsplit(upstream)
    host, port, path = parts.hostname or "127.0.0.1", parts.port or 80, parts.path or "/"
    local = threading.local()  # one kept-alive connection to the node per serving thread

    def forward(body: bytes) -> tuple[int, bytes]:
        for attempt in (1, 2):  # a kept-alive connection the node closed meanwhile: once more, fresh
            conn = getattr(local, "conn", None) or http.client.HTTPConnection(host, port, timeout=30)
            local.conn = conn
            try:
                conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
                answer = conn.getresponse()
                return answer.status, answer.read()
            except (OSError, http.client.HTTPException):
                conn.close()
                local.conn = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a provider's HTTPS endpoint offers

        def _answer(self, status: int, body: bytes, content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def do_POST(self) -> None:
            body = self._body()
            with state.lock:
                delay = state.delay_ms / 1000
                state.requests += 1
            time.sleep(delay)
            try:
                status, answer = forward(body)
            except (OSError, http.client.HTTPException) as exc:
                self._answer(502, json.dumps({"error": f"upstream: {exc}"}).encode())
                return
            self._answer(status, answer)

        def do_PUT(self) -> None:
            body = self._body()
            if self.path != "/delay":
                self._answer(404, b"{}")
                return
            with state.lock:
                state.delay_ms = float(body.decode().strip())
            self._answer(204, b"")

        def do_GET(self) -> None:
            if self.path != "/stats":
                self._answer(404, b"{}")
                return
            with state.lock:
                stats = {"requests": state.requests, "delayMs": state.delay_ms}
            self._answer(200, json.dumps(stats).encode())

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver listens with a backlog of 5: a burst of connections from many web threads would
    # see SYN retries (a second each) that no provider adds. The kernel caps it at somaxconn.
    request_queue_size = 1024


def serve(upstream: str, port: int, delay_ms: float) -> None:
    server = _Server(("127.0.0.1", port), _handler(upstream, _State(delay_ms)))
    server.serve_forever()


@dataclass(frozen=True)
class Proxy:
    """A running delaying proxy: its URL (give it as CHAIN_RPC_URLS) and its controls."""

    url: str
    pid: int

    def set_delay(self, milliseconds: float) -> None:
        request = urllib.request.Request(f"{self.url}/delay", data=str(milliseconds).encode(), method="PUT")  # noqa: S310
        with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310 - our own loopback proxy
            assert answer.status == 204

    def stats(self) -> dict:
        with urllib.request.urlopen(f"{self.url}/stats", timeout=10) as answer:  # noqa: S310
            return json.loads(answer.read())


@contextmanager
def delaying_proxy(
    upstream: str, *, delay_ms: float = 200.0, log: processes.Output = None, timeout: float = 30.0
) -> Iterator[Proxy]:
    """The proxy in its own process on a free loopback port, in front of `upstream`; stopped by its
    PID on the way out, also when the caller fails."""
    port = processes.free_port()
    cmd = [processes.PYTHON, "-m", "devtools.rpc_delay", "--upstream", upstream, "--port", str(port),
           "--delay-ms", str(delay_ms)]  # fmt: skip
    with processes.running(cmd, log=log, port=port, timeout=timeout) as process:
        yield Proxy(f"http://127.0.0.1:{port}", process.pid)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="the node's JSON-RPC URL")
    parser.add_argument("--port", type=int, required=True, help="the loopback port to listen on")
    parser.add_argument("--delay-ms", type=float, default=200.0, help="added before each request is forwarded")
    args = parser.parse_args(argv)
    serve(args.upstream, args.port, args.delay_ms)


if __name__ == "__main__":
    main()
