"""The chain client's JSON-RPC batches go by its own transport (chain/node/client.py, _Transport: urllib3
without web3's provider and requests, for the CPU of the POST that waits on one). What the batches
meet must be what web3's calls meet: the environment's proxy (read once, NO_PROXY honoured), answers
matched to calls by id whatever their order, and a node that fails (an HTTP error, an answer that is
not JSON or misses a call, a node too slow) skipped for the next one."""

from __future__ import annotations

import base64
import time
from collections.abc import Hashable

import pytest

from chain.node.client import ChainClient, ChainUnavailable

from ..bad_nodes import PROXY_VARIABLES, Node


def heads(head: int):
    """Every call answered with `head`, the answers in reverse order."""
    return lambda calls: [{"jsonrpc": "2.0", "id": c["id"], "result": hex(head + c["id"])} for c in reversed(calls)]


@pytest.fixture
def nodes(monkeypatch):
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    started: list[Node] = []

    def start(answer) -> Node:
        started.append(Node(answer))
        return started[-1]

    yield start
    for node in started:
        node.stop()


CALLS: list[tuple[str, list, Hashable]] = [
    ("eth_blockNumber", [], "a"),
    ("eth_blockNumber", [], "b"),
    ("eth_blockNumber", [], "c"),
]


def test_answers_are_matched_to_their_calls_by_id(nodes):
    node = nodes(heads(7))
    assert ChainClient([node.url], timeout=5).batch(CALLS, raw=True) == {"a": "0x7", "b": "0x8", "c": "0x9"}


def test_a_proxy_named_in_the_environment_is_used_and_no_proxy_exempts(nodes, monkeypatch):
    node, proxy = nodes(heads(7)), nodes(heads(9))
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    assert ChainClient([node.url], timeout=5).batch(CALLS[:1], raw=True) == {"a": "0x9"}
    assert proxy.targets == [node.url + "/"] and node.targets == []
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert ChainClient([node.url], timeout=5).batch(CALLS[:1], raw=True) == {"a": "0x7"}
    assert node.targets == ["/"]


def test_credentials_in_the_nodes_url_are_sent_as_basic_authorization(nodes):
    node = nodes(heads(7))
    url = node.url.replace("http://", "http://geo%40poem:s3cret@")
    assert ChainClient([url], timeout=5).batch(CALLS[:1], raw=True) == {"a": "0x7"}
    assert node.authorizations == ["Basic " + base64.b64encode(b"geo@poem:s3cret").decode()]
    assert node.targets == ["/"]


def test_the_environment_is_read_once_when_the_client_is_built(nodes, monkeypatch):
    node, proxy = nodes(heads(7)), nodes(heads(9))
    client = ChainClient([node.url], timeout=5)
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    assert [client.batch(CALLS[:1], raw=True)["a"] for _ in range(3)] == ["0x7"] * 3
    assert proxy.targets == []


@pytest.mark.parametrize(
    "failing",
    [
        lambda calls: 503,  # an HTTP error
        lambda calls: b"<html>rate limited</html>",  # not JSON
        lambda calls: {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "no batches"}},
        lambda calls: [{"jsonrpc": "2.0", "id": 0, "result": "0x1"}],  # a call left unanswered
        lambda calls: [{"jsonrpc": "2.0", "id": c["id"], "error": {"code": -32005, "message": "limit"}} for c in calls],
    ],
    ids=["http-error", "not-json", "not-a-list", "short", "rpc-error"],
)
def test_a_failing_node_is_skipped_for_the_next(nodes, failing):
    bad, good = nodes(failing), nodes(heads(7))
    client = ChainClient([bad.url, good.url], timeout=5)
    assert client.batch(CALLS, raw=True) == {"a": "0x7", "b": "0x8", "c": "0x9"}
    assert len(bad.targets) == 1 and len(good.targets) == 1 and client.http_requests == 2
    with pytest.raises(ChainUnavailable):
        ChainClient([bad.url], timeout=5).batch(CALLS, raw=True)


def test_a_node_slower_than_the_timeout_is_skipped(nodes):
    def slow(calls):
        time.sleep(1.5)
        return heads(1)(calls)

    late, good = nodes(slow), nodes(heads(7))
    started = time.monotonic()
    assert ChainClient([late.url, good.url], timeout=0.5).batch(CALLS[:1], raw=True) == {"a": "0x7"}
    assert time.monotonic() - started < 1.4
