"""JSON-RPC nodes that do not work, each in its own way, on real loopback sockets: one that accepts
connections and never answers, one that answers HTTP 503, one a JSON-RPC error, one garbage."""

from __future__ import annotations

import socket
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class SilentServer:
    """Accepts connections and never answers (a node that hangs, a half-open network)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.held: list[socket.socket] = []
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

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


def answering(status: int, body: bytes) -> ThreadingHTTPServer:
    """Answers every POST with `status` and `body`; counts them in `hits`."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.server.hits += 1  # type: ignore[attr-defined]

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.hits = 0  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@contextmanager
def bad_nodes():
    """(the silent one, the answering ones, all their URLs), stopped on the way out."""
    hang = SilentServer()
    servers = [
        answering(503, b'{"message": "upstream unavailable"}'),
        answering(200, b'{"jsonrpc": "2.0", "id": 0, "error": {"code": -32603, "message": "internal error"}}'),
        answering(200, b"<html>not json</html>"),
    ]
    try:
        yield hang, servers, [hang.url] + [f"http://127.0.0.1:{s.server_address[1]}" for s in servers]
    finally:
        hang.close()
        for server in servers:
            server.shutdown()
            server.server_close()
