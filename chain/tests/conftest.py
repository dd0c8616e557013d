"""A real EVM for the chain tests: one anvil node per session with the project's TestUSDC behind its
proxy (contracts/TestUSDCProxy.sol, as Circle's USDC is) and the pot (contracts/GeopoemPot.sol) owned
by a dedicated operator key that holds only ETH; each test runs on a snapshot of it.

A challenge made with `make_challenge` here is opened for real: published, its `open` sent by the
worker's own step (chain/pot/opening.py) with the operator key, mined, and confirmed by the follower
(chain/pot/follow.py) once CHAIN_CONFIRMATIONS deep. `make_challenge(opened=False)` leaves it queued.
The helpers that play the game (sign and relay a stake, follow, warp the clock) are in
chain/tests/pot_support.py."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import cast

import pytest
from eth_account import Account
from web3 import HTTPProvider, Web3
from web3.types import RPCEndpoint, TxParams

from chain.node.contracts import contract_at, deploy, load_artifact
from devtools.processes import ANVIL_CHAIN_ID, anvil

# Fixed keys no anvil account uses: the pot's owner (it can only open) and the relayer. ETH only.
OPERATOR_KEY = "0x" + "5e" * 32
RELAYER_KEY = "0x" + "7a" * 32
PLAYER_USDC = 1_000_000 * 10**6


@dataclass
class Chain:
    """The session node and what is deployed on it."""

    url: str
    w3: Web3
    deployer: str
    usdc: str  # the proxy: the token as players see it
    pot: str
    deploy_block: int
    operator: str
    relayer: str
    share_receiver: str
    sweep_receiver: str
    players: list[tuple[str, str]] = field(default_factory=list)  # (address, key)

    def rpc(self, method: str, params: list | None = None):
        answer = self.w3.provider.make_request(RPCEndpoint(method), params or [])
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]

    def snapshot(self) -> str:
        return self.rpc("evm_snapshot")

    def revert(self, snapshot: str) -> None:
        """Drop every block after the snapshot (a reorg, as far as a reader of the chain can tell)."""
        assert self.rpc("evm_revert", [snapshot]) is True
        keep_clock(self.w3)

    def mine(self, blocks: int = 1) -> None:
        self.rpc("anvil_mine", [hex(blocks)])

    def warp(self, seconds: int) -> None:
        """Move the chain's clock forward and mine a block there."""
        self.rpc("evm_increaseTime", [seconds])
        self.mine()

    def head_time(self) -> int:
        return int(self.w3.eth.get_block("latest")["timestamp"])

    def send(self, tx: dict) -> str:
        """Send from an unlocked anvil account; anvil mines it at once. Returns the 0x hash."""
        tx_hash = self.w3.eth.send_transaction(cast(TxParams, tx))
        self.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)
        return "0x" + bytes(tx_hash).hex()

    def token(self):
        return contract_at(self.w3, "TestUSDC", self.usdc)

    def pot_contract(self):
        return contract_at(self.w3, "GeopoemPot", self.pot)

    def balance(self, address: str) -> int:
        return self.token().functions.balanceOf(Web3.to_checksum_address(address)).call()


def keep_clock(w3: Web3) -> None:
    """anvil's clock falls behind the wall clock after an evm_revert; a challenge published "now" must
    not see the test's next blocks as older than itself. Later blocks keep pace from here."""
    latest = w3.eth.get_block("latest")["timestamp"]
    w3.provider.make_request(RPCEndpoint("evm_setNextBlockTimestamp"), [max(latest + 1, int(time.time()) + 1)])


def deploy_token(w3: Web3, *, sender: str, proxy_admin: str) -> str:
    """TestUSDC behind TestUSDCProxy, its roles given to `sender` through the proxy."""
    implementation = deploy(w3, "TestUSDC", sender=sender)
    proxy = deploy(w3, "TestUSDCProxy", implementation, proxy_admin, sender=sender)
    token = contract_at(w3, "TestUSDC", proxy)
    tx = token.functions.configureRoles(sender, sender).transact({"from": sender})
    w3.eth.wait_for_transaction_receipt(tx, timeout=30)
    return proxy


@pytest.fixture(scope="session")
def chain_node():
    with anvil() as (url, _proc):
        w3 = Web3(HTTPProvider(url, request_kwargs={"timeout": 10}))
        accounts = list(w3.eth.accounts)
        deployer, proxy_admin, share_receiver, sweep_receiver = accounts[0], accounts[1], accounts[8], accounts[9]
        usdc = deploy_token(w3, sender=deployer, proxy_admin=proxy_admin)
        operator = Account.from_key(OPERATOR_KEY).address
        relayer = Account.from_key(RELAYER_KEY).address
        pot = deploy(w3, "GeopoemPot", usdc, operator, share_receiver, sweep_receiver, sender=deployer)
        deploy_block = w3.eth.block_number
        for address in (operator, relayer):
            w3.provider.make_request(RPCEndpoint("anvil_setBalance"), [address, hex(100 * 10**18)])
        players = []
        token = contract_at(w3, "TestUSDC", usdc)
        for index in range(6):
            key = "0x" + bytes([0x11 + index]).hex() * 32
            address = Account.from_key(key).address
            players.append((address, key))
            w3.provider.make_request(RPCEndpoint("anvil_setBalance"), [address, hex(10 * 10**18)])
            tx = token.functions.mint(address, PLAYER_USDC).transact({"from": deployer})
            w3.eth.wait_for_transaction_receipt(tx, timeout=30)
        load_artifact("GeopoemPot")
        yield Chain(
            url=url,
            w3=w3,
            deployer=deployer,
            usdc=usdc,
            pot=pot,
            deploy_block=deploy_block,
            operator=operator,
            relayer=relayer,
            share_receiver=share_receiver,
            sweep_receiver=sweep_receiver,
            players=players,
        )


@pytest.fixture
def chain(chain_node: Chain, settings):
    """The session node on a snapshot of its own, and the site's settings pointing at it."""
    from chain.token.domain import forget_token_domains

    snapshot = chain_node.snapshot()
    keep_clock(chain_node.w3)
    settings.CHAIN_ID = ANVIL_CHAIN_ID
    settings.CHAIN_RPC_URLS = [chain_node.url]
    settings.USDC_ADDRESS = chain_node.usdc
    settings.POT_ADDRESS = chain_node.pot
    settings.POT_DEPLOY_BLOCK = chain_node.deploy_block
    settings.POT_OPERATOR_KEY = OPERATOR_KEY
    settings.RELAYER_KEY = RELAYER_KEY
    settings.CHAIN_CONFIRMATIONS = "2"
    settings.RELAY_RESEND_SECONDS = 60
    forget_token_domains()
    try:
        yield chain_node
    finally:
        forget_token_domains()
        chain_node.revert(snapshot)


@pytest.fixture
def challenge_opener(chain):
    """conftest.py's make_challenge opens a published challenge in the pot for real here: the worker's
    opening step, then the follower until it is confirmed (overrides the recorded opening)."""
    from .pot_support import open_for_real

    return lambda challenge: open_for_real(chain, challenge)


@pytest.fixture
def site(live_server, tmp_path, monkeypatch):
    """pytest-django's live server for the verifiers, which read the public configuration the page
    embeds: the page renders without a built bundle (`make build`) when there is none, with no
    script tags, since only the embedded configuration is read."""
    import json

    from django.conf import settings
    from webpack_loader.utils import get_loader  # type: ignore[import-untyped]

    loader = get_loader("DEFAULT")
    if not (settings.BASE_DIR / "frontend" / "webpack-stats.json").exists():
        stats = tmp_path / "webpack-stats.json"
        stats.write_text(json.dumps({"status": "done", "chunks": {"main": []}, "assets": {}}))
        monkeypatch.setitem(loader.config, "STATS_FILE", stats)
        monkeypatch.setattr(loader, "_assets", {})
    return live_server
