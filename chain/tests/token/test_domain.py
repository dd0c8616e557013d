"""What each process keeps of the token's domain (chain/token/domain.py): a domain, or "unsupported",
for an hour; "unavailable" for seconds only, so that a flood of claims while the nodes are down asks
them once every few seconds, and the outage is forgotten as soon as it ends. On anvil; the clock of
the copy is the test's (`clock`), the nodes are real (anvil, or a port where nothing listens)."""

from __future__ import annotations

from functools import partial

import pytest

from chain.node.client import ChainClient
from chain.token import domain as module
from chain.token.domain import (
    DOMAIN_CACHE_SECONDS,
    UNAVAILABLE_CACHE_SECONDS,
    TokenDomainUnavailable,
    token_domain,
)
from devtools.concurrency import at_once

from .token_support import (  # noqa: F401  (the token's world)
    UNREACHABLE_RPC,
    fresh_token_domain,
    token_chain,
    token_node,
)

pytestmark = [pytest.mark.integration]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(module, "time", fake)
    return fake


def node(chain) -> ChainClient:
    return ChainClient([chain.url], timeout=5)


def down() -> ChainClient:
    return ChainClient([UNREACHABLE_RPC], timeout=1)


def test_a_domain_is_kept_an_hour_then_read_again(chain, clock):
    client = node(chain)
    first = token_domain(client=client)
    assert first is not None and first.verifying_contract == chain.usdc.lower()
    clock.now += DOMAIN_CACHE_SECONDS - 1
    assert token_domain(client=client) == first and client.http_requests == 1
    clock.now += 2  # a proxy-upgraded token may have changed its version: read again
    assert token_domain(client=client) == first and client.http_requests == 2


def test_a_flood_while_the_nodes_are_down_asks_them_once_per_few_seconds(chain, clock):
    client = down()
    results = at_once([partial(_outcome, client) for _ in range(20)])
    assert results == ["unavailable"] * 20 and client.http_requests == 1
    clock.now += UNAVAILABLE_CACHE_SECONDS - 0.1
    assert _outcome(client) == "unavailable" and client.http_requests == 1
    clock.now += 0.2
    assert _outcome(client) == "unavailable" and client.http_requests == 2


def test_an_outage_is_forgotten_once_it_ends(chain, clock):
    assert _outcome(down()) == "unavailable"
    back = node(chain)
    assert _outcome(back) == "unavailable" and back.http_requests == 0  # within the few seconds: not asked
    clock.now += UNAVAILABLE_CACHE_SECONDS
    assert token_domain(client=back) is not None and back.http_requests == 1


def test_a_known_domain_is_kept_through_an_outage_at_its_refresh(chain, clock):
    known = token_domain(client=node(chain))
    clock.now += DOMAIN_CACHE_SECONDS + 1
    outage = down()
    assert token_domain(client=outage) == known and outage.http_requests == 1
    assert token_domain(client=outage) == known and outage.http_requests == 1  # not asked again at once


def test_unsupported_is_kept_too_and_each_token_is_its_own(chain, clock, settings):
    settings.USDC_ADDRESS = chain.fake_token
    client = node(chain)
    assert token_domain(client=client) is None and token_domain(client=client) is None
    assert client.http_requests == 1
    settings.USDC_ADDRESS = chain.usdc  # another (chain id, token): read, not taken from the other's copy
    assert token_domain(client=client) is not None and client.http_requests == 2


def _outcome(client: ChainClient) -> str:
    try:
        return "supported" if token_domain(client=client) is not None else "unsupported"
    except TokenDomainUnavailable:
        return "unavailable"
