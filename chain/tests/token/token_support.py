"""The token tests' own world (contracts/TestUSDC.sol, as Circle's FiatToken v2.2): one anvil node per
session with the test USDC deployed bare (its runtime code copied elsewhere with anvil_setCode must
sign for that address, which a proxy's code would not: the proxied token has its own tests in
test_pause_blacklist.py), a second TestUSDC and a FakeTransferToken, the players funded. Each test
runs on a snapshot, with the settings pointing at the token. A test module takes these fixtures by
importing them: `token_chain` is the fixture `chain` there, overriding chain/tests/conftest.py's (the
pot's world). The EIP-3009 helpers are chain/tests/token/authorizations.py's."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from web3 import HTTPProvider, Web3
from web3.types import RPCEndpoint

from chain.node.contracts import contract_at, deploy, mint
from chain.token.domain import forget_token_domains
from devtools.processes import ANVIL_CHAIN_ID, anvil

from ..conftest import keep_clock
from .authorizations import Authorizations

# Port 9 (discard): nothing listens there, so a client of it finds no node at all.
UNREACHABLE_RPC = "http://127.0.0.1:9"


@dataclass
class TokenChain(Authorizations):
    url: str
    w3: Web3
    deployer: str
    treasury: str
    player: str
    other: str
    usdc: str
    other_token: str
    fake_token: str

    def balance(self, address: str, token: str | None = None) -> int:
        return contract_at(self.w3, "TestUSDC", token or self.usdc).functions.balanceOf(address).call()


@pytest.fixture(scope="session")
def token_node() -> Iterator[TokenChain]:
    with anvil() as (url, _proc):
        w3 = Web3(HTTPProvider(url, request_kwargs={"timeout": 10}))
        deployer, treasury, player, other = list(w3.eth.accounts)[:4]
        usdc = deploy(w3, "TestUSDC", sender=deployer)
        other_token = deploy(w3, "TestUSDC", sender=deployer)
        fake_token = deploy(w3, "FakeTransferToken", sender=deployer)
        for holder in (player, other):
            mint(w3, usdc, holder, 1_000_000 * 10**6, sender=deployer)
            mint(w3, other_token, holder, 1_000_000 * 10**6, sender=deployer)
        yield TokenChain(url, w3, deployer, treasury, player, other, usdc, other_token, fake_token)


@pytest.fixture(name="chain")
def token_chain(token_node: TokenChain, settings) -> Iterator[TokenChain]:
    """The token's node, reverted after the test, with the settings pointing at it."""
    snapshot = token_node.w3.provider.make_request(RPCEndpoint("evm_snapshot"), [])["result"]
    keep_clock(token_node.w3)
    settings.CHAIN_RPC_URLS = [token_node.url]
    settings.CHAIN_ID = ANVIL_CHAIN_ID
    settings.USDC_ADDRESS = token_node.usdc
    try:
        yield token_node
    finally:
        token_node.w3.provider.make_request(RPCEndpoint("evm_revert"), [snapshot])


@pytest.fixture(autouse=True)
def fresh_token_domain() -> Iterator[None]:
    """Each test reads the token's domain anew: the process keeps it an hour (chain/token/domain.py),
    and a test may point USDC_ADDRESS at another contract or take the nodes away."""
    forget_token_domains()
    yield
    forget_token_domains()
