"""Servers the tests put where a network peer would be, on real loopback sockets, each in daemon
threads of its own: one that accepts connections and never answers (a node that hangs, a stalled
Redis, a half-open network), and an HTTP server that answers each POST as the test says. No app is
imported (docs/architecture.md)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class SilentServer:
    """A TCP server that accepts connections and never answers: the fault a stopped server does not
    show (connections are refused at once there). On `port`, or a free one."""

    def __init__(self, port: int = 0) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(128)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.held: list[socket.socket] = []
        self.accepted = 0
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self.held.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


# What a PostServer is told to answer: from the request (its path and headers) and its body, a status
# and a body (sent as JSON; none with an empty one).
Answer = Callable[[BaseHTTPRequestHandler, bytes], tuple[int, bytes]]


class PostServer:
    """An HTTP server on a free loopback port answering each POST with `answer`; `hits` counts the
    POSTs answered."""

    def __init__(self, answer: Answer) -> None:
        owner = self
        self.hits = 0

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                status, body = answer(self, self.rfile.read(int(self.headers.get("Content-Length", 0))))
                self.send_response(status)
                if body:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                owner.hits += 1

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
