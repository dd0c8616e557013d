"""The chain client reads the environment's proxy settings once, when it is built (chain/node/client.py,
_session_for), not on every call: requests' per-call scan of os.environ cost a fifth of an RPC
call's CPU. What a player's claim meets must not change: a proxy the environment names is still
used, and NO_PROXY still exempts a node."""

import pytest

from chain.node.client import ChainClient

from ..bad_nodes import PROXY_VARIABLES, Node


def head_node(head: int) -> Node:
    """Answers eth_blockNumber with `head`."""
    return Node(lambda call: {"jsonrpc": "2.0", "id": call["id"], "result": hex(head)})


@pytest.fixture
def servers(monkeypatch):
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    node, proxy = head_node(7), head_node(9)
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
