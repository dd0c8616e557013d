"""Nodes that answer differently from the session anvil, built for real as loopback JSON-RPC
endpoints in front of it (anvil itself cannot lag behind itself or fail one method only).

`node_behind(upstream, head=H)` answers as a node whose chain stops at block H would: a node that
lags (a hosted provider's backend behind the others) or the node a client fails over to before it
caught up. Its head is H; a block above H, a receipt or a transaction mined above H and a log above
H are unknown to it; everything else is the upstream's own answer. `refuse=("eth_getBlockByNumber",)`
makes it answer those methods with an RPC error, as a node does that fails part of its calls (the
client then fails over to the next URL for that call)."""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REFUSED = {"code": -32603, "message": "internal error (refused by the test's node)"}


def _number(value: object) -> int | None:
    return int(str(value), 16) if isinstance(value, str) and value.startswith("0x") else None


class _Node:
    def __init__(self, upstream: str, head: int | None, refuse: tuple[str, ...]) -> None:
        self.upstream = upstream
        self.head = head
        self.refuse = refuse
        self.calls: list[str] = []
        self.url = ""  # set once the server listens

    def ask_upstream(self, call: dict) -> dict:
        body = json.dumps(call).encode()
        request = urllib.request.Request(self.upstream, data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def answer(self, call: dict) -> dict:
        method, params = call.get("method", ""), call.get("params") or []
        self.calls.append(method)
        reply = {"jsonrpc": "2.0", "id": call.get("id")}
        if method in self.refuse:
            return {**reply, "error": REFUSED}
        head = self.head
        if head is not None and method == "eth_blockNumber":
            return {**reply, "result": hex(head)}
        if head is not None and method == "eth_getBlockByNumber" and params and params[0] == "latest":
            call = {**call, "params": [hex(head), *params[1:]]}
        if head is not None and method == "eth_getBlockByNumber":
            number = _number(call["params"][0])
            if number is not None and number > head:
                return {**reply, "result": None}
        if head is not None and method == "eth_getLogs":
            return self._logs(call, reply, head)
        upstream = self.ask_upstream(call)
        result = upstream.get("result")
        if head is not None and method in ("eth_getTransactionReceipt", "eth_getTransactionByHash"):
            mined_at = _number(result.get("blockNumber")) if isinstance(result, dict) else None
            if mined_at is not None and mined_at > head:
                return {**reply, "result": None}
        return {**upstream, "id": call.get("id")}

    def _logs(self, call: dict, reply: dict, head: int) -> dict:
        query = dict(call["params"][0])
        first = _number(query.get("fromBlock"))
        if first is not None and first > head:
            return {**reply, "result": []}
        last = _number(query.get("toBlock"))
        if last is None or last > head:
            query["toBlock"] = hex(head)
        upstream = self.ask_upstream({**call, "params": [query]})
        return {**upstream, "id": call.get("id")}


@contextmanager
def node_behind(upstream: str, *, head: int | None = None, refuse: tuple[str, ...] = ()) -> Iterator[_Node]:
    """A node in front of `upstream` whose chain stops at `head` (None: the upstream's own head),
    refusing the `refuse` methods. Yields it: `.url`, `.calls` (the methods asked), and `.head`,
    which a test may move (the node catching up)."""
    node = _Node(upstream, head, refuse)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            calls = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            answer = [node.answer(c) for c in calls] if isinstance(calls, list) else node.answer(calls)
            body = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    node.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield node
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
