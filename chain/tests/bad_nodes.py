"""JSON-RPC nodes on real loopback sockets (devtools/loopback.py): one that answers as a test says and
records what it was sent, and ones that do not work, each in its own way: one that accepts
connections and never answers, one that answers HTTP 503, one a JSON-RPC error, one garbage."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

from devtools.loopback import PostServer, SilentServer

# What a test clears so that the client meets no proxy but the one the test names.
PROXY_VARIABLES = ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY")


class Node(PostServer):
    """Answers each request with `answer(request's JSON)`: an HTTP status alone, bytes, or JSON to
    send; records each request's target (an absolute URL when it was sent to it as a proxy) and its
    Authorization header."""

    def __init__(self, answer: Callable[[Any], int | bytes | object]) -> None:
        self.targets: list[str] = []
        self.authorizations: list[str | None] = []

        def post(request, body: bytes) -> tuple[int, bytes]:
            self.targets.append(request.path)
            self.authorizations.append(request.headers.get("Authorization"))
            reply = answer(json.loads(body))
            if isinstance(reply, int):
                return reply, b""
            return 200, reply if isinstance(reply, bytes) else json.dumps(reply).encode()

        super().__init__(post)


def answering(status: int, body: bytes) -> PostServer:
    """Answers every POST with `status` and `body`; counts them in `hits`."""
    return PostServer(lambda _request, _body: (status, body))


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
        yield hang, servers, [hang.url] + [server.url for server in servers]
    finally:
        hang.close()
        for server in servers:
            server.stop()
