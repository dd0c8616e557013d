"""The chain client reads the environment's proxy settings once, when it is built (chain/node/client.py,
_session_for), not on every call: requests' per-call scan of os.environ cost a fifth of an RPC
call's CPU. What a player's claim meets must not change: a proxy the environment names is still
used, and NO_PROXY still exempts a node."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from chain.node.client import ChainClient


class JsonRpcServer:
    """A loopback HTTP server answering eth_blockNumber with `head`, recording each request's target
    (an absolute URL when it was sent to it as a proxy)."""

    def __init__(self, head: int) -> None:
        targets: list[str] = []
        self.targets = targets

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                targets.append(self.path)
                call = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                body = json.dumps({"jsonrpc": "2.0", "id": call["id"], "result": hex(head)}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def servers(monkeypatch):
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    node, proxy = JsonRpcServer(head=7), JsonRpcServer(head=9)
    yield node, proxy
    node.stop()
    proxy.stop()


def test_a_proxy_named_in_the_environment_is_used(servers, monkeypatch):
    node, proxy = servers
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    client = ChainClient([node.url], timeout=5)
    assert client.block_number() == 9  # answered by the proxy
    assert proxy.targets == [node.url + "/"] and node.targets == []


def test_no_proxy_still_exempts_the_node(servers, monkeypatch):
    node, proxy = servers
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    client = ChainClient([node.url], timeout=5)
    assert client.block_number() == 7
    assert node.targets == ["/"] and proxy.targets == []


def test_the_environment_is_read_once_when_the_client_is_built(servers, monkeypatch):
    node, proxy = servers
    client = ChainClient([node.url], timeout=5)
    monkeypatch.setenv("HTTP_PROXY", proxy.url)  # after the build: not read on each call any more
    assert [client.block_number() for _ in range(3)] == [7, 7, 7]
    assert node.targets == ["/"] * 3 and proxy.targets == []
