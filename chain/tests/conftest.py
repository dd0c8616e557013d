"""A real EVM for the chain tests: one anvil node per session with the project's TestUSDC, the test
doubles and the terms registry (contracts/TermsRegistry.sol, owned by a dedicated operator key that
holds only ETH) deployed; each test runs on a snapshot of it.

A challenge made with `make_challenge` here is anchored for real: published, its anchor sent by the
worker's own step (chain/anchors.py, anchor_advance) with the operator key, mined, and confirmed
CHAIN_CONFIRMATIONS deep (`anchor_on_chain`). `make_challenge(anchored=False)` leaves it queued.
`played` is such a challenge that three players paid, where most of the verifier's cases start."""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, cast

import pytest
from eth_account import Account
from web3 import HTTPProvider, Web3
from web3.types import RPCEndpoint, TxParams

from chain.calldata import encode_stake_transfer
from chain.contracts import contract_at, deploy, mint
from devtools.processes import ANVIL_CHAIN_ID, anvil

from .authorizations import Authorizations

if TYPE_CHECKING:
    from challenges.models import Challenge

# The registry's owner in the tests: a fixed key no anvil account uses, given ETH only (never USDC).
OPERATOR_KEY = "0x" + "5e" * 32


@dataclass
class Chain(Authorizations):
    """The session node and what is deployed on it; EIP-3009 helpers from chain/tests/authorizations.py."""

    url: str
    w3: Web3
    deployer: str
    treasury: str
    player: str
    other: str
    usdc: str
    other_token: str
    fake_token: str
    forwarder: str
    registry: str
    operator: str
    operator_key: str

    def snapshot(self) -> str:
        return self.w3.provider.make_request(RPCEndpoint("evm_snapshot"), [])["result"]

    def revert(self, snapshot: str) -> None:
        """Drop every block after the snapshot (a reorg, as far as a reader of the chain can tell)."""
        assert self.w3.provider.make_request(RPCEndpoint("evm_revert"), [snapshot])["result"] is True
        keep_clock(self.w3)

    def mine(self, blocks: int = 1) -> None:
        self.w3.provider.make_request(RPCEndpoint("anvil_mine"), [hex(blocks)])

    def send(self, tx: dict) -> str:
        """Send from an unlocked anvil account; anvil mines it at once. Returns the 0x hash."""
        tx_hash = self.w3.eth.send_transaction(cast(TxParams, tx))
        self.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)
        return "0x" + bytes(tx_hash).hex()

    def stake_calldata(self, response, *, treasury=None, amount_units=None, commitment=None, challenge_id=None):
        return encode_stake_transfer(
            treasury=treasury or self.treasury,
            amount_units=amount_units if amount_units is not None else int(response.submission_stake * 10**6),
            commitment=commitment or response.commitment,
            challenge_id=challenge_id if challenge_id is not None else response.challenge_id,
            timestamp=1767225600,
        )

    def stake_calldata_plain(self, to: str, amount_units: int) -> str:
        """A standard 68-byte ERC-20 transfer, without the Geopoem words."""
        return "0xa9059cbb" + bytes.fromhex(to[2:]).rjust(32, b"\0").hex() + amount_units.to_bytes(32, "big").hex()

    def pay(self, calldata: str, *, sender: str | None = None, to: str | None = None, value: int = 0) -> str:
        return self.send(
            {"from": sender or self.player, "to": to or self.usdc, "data": calldata, "value": value, "gas": 200_000}
        )

    def balance(self, address: str, token: str | None = None) -> int:
        return contract_at(self.w3, "TestUSDC", token or self.usdc).functions.balanceOf(address).call()


def keep_clock(w3: Web3) -> None:
    """anvil's clock falls behind the wall clock after an evm_revert; a challenge published "now"
    must not see the test's next blocks as older than itself. Later blocks keep pace from here."""
    latest = w3.eth.get_block("latest")["timestamp"]
    w3.provider.make_request(RPCEndpoint("evm_setNextBlockTimestamp"), [max(latest + 1, int(time.time()) + 1)])


@pytest.fixture(scope="session")
def chain_node():
    with anvil() as (url, _proc):
        w3 = Web3(HTTPProvider(url, request_kwargs={"timeout": 10}))
        accounts = list(w3.eth.accounts)  # list(): web3 annotates `accounts` as a tuple of one address
        deployer, treasury, player, other = accounts[0], accounts[1], accounts[2], accounts[3]
        usdc = deploy(w3, "TestUSDC", sender=deployer)
        other_token = deploy(w3, "TestUSDC", sender=deployer)
        fake_token = deploy(w3, "FakeTransferToken", sender=deployer)
        forwarder = deploy(w3, "Forwarder", sender=deployer)
        for holder in (player, other, forwarder):
            mint(w3, usdc, holder, 1_000_000 * 10**6, sender=deployer)
            mint(w3, other_token, holder, 1_000_000 * 10**6, sender=deployer)
        operator = Account.from_key(OPERATOR_KEY).address
        registry = deploy_registry(w3, deployer=deployer)
        yield Chain(
            url,
            w3,
            deployer,
            treasury,
            player,
            other,
            usdc,
            other_token,
            fake_token,
            forwarder,
            registry,
            operator,
            OPERATOR_KEY,
        )


@pytest.fixture
def chain(chain_node, settings):
    """The session node, reverted after the test, with the settings pointing at it."""
    snapshot = chain_node.w3.provider.make_request(RPCEndpoint("evm_snapshot"), [])["result"]
    keep_clock(chain_node.w3)
    settings.CHAIN_RPC_URLS = [chain_node.url]
    settings.CHAIN_ID = ANVIL_CHAIN_ID
    settings.USDC_ADDRESS = chain_node.usdc
    settings.TREASURY_ADDRESS = chain_node.treasury
    settings.CHAIN_CONFIRMATIONS = "2"
    settings.CHAIN_RPC_TIMEOUT_SECONDS = 5.0
    settings.ANCHOR_REGISTRY_ADDRESS = chain_node.registry
    settings.ANCHOR_OPERATOR_KEY = chain_node.operator_key
    try:
        yield chain_node
    finally:
        chain_node.w3.provider.make_request(RPCEndpoint("evm_revert"), [snapshot])


def anchor_on_chain(chain: Chain, challenge, *, confirm: bool = True):
    """Run the worker's anchor step (chain/anchors.py, anchor_advance) for a published challenge, as
    the worker would: the operator key sends anchor(...) to the registry (anvil mines it at once);
    with `confirm`, blocks are mined until it is CHAIN_CONFIRMATIONS deep and the step confirms it.
    Returns the anchor row."""
    from django.conf import settings

    from chain.anchors import AnchorPending, anchor_advance
    from challenges.models import ChallengeAnchor

    with pytest.raises(AnchorPending):
        anchor_advance(challenge_id=challenge.pk)
    if confirm:
        for _ in range(64):  # as deep as the test's CHAIN_CONFIRMATIONS asks (anvil finalizes far behind)
            chain.mine(1 if str(settings.CHAIN_CONFIRMATIONS).isdigit() else 16)
            try:
                assert anchor_advance(challenge_id=challenge.pk) == "confirmed"
                break
            except AnchorPending:
                continue
        else:
            raise AssertionError("the anchor never got deep enough")
    return ChallengeAnchor.objects.get(challenge_id=challenge.pk)


@contextmanager
def anchor_task_not_queued():
    """Publish without queueing the anchor task: the test runs the worker's step itself
    (anchor_on_chain), so a worker process the test started does not race it."""
    from challenges import hooks

    assert hooks.anchor_queued.disconnect(dispatch_uid="chain.anchor_queued")
    try:
        yield
    finally:
        from chain.tasks import enqueue_anchor

        hooks.anchor_queued.connect(enqueue_anchor, dispatch_uid="chain.anchor_queued")


@pytest.fixture
def make_challenge(make_challenge, request):
    """conftest.py's make_challenge, anchored on the session anvil for real (the `chain` fixture)
    by the test itself. anchored=False: only queued, and its task queued for a worker the test
    started (configured with the registry: `worker_anchor_settings`)."""

    def make(*, anchored=True, **kwargs):
        if not anchored:
            return make_challenge(anchored=False, **kwargs)
        chain = request.getfixturevalue("chain")
        with anchor_task_not_queued():
            challenge = make_challenge(anchored=False, **kwargs)
        if challenge.is_published and not challenge.is_demo:
            anchor_on_chain(chain, challenge)
            challenge.refresh_from_db()
        return challenge

    return make


def deploy_registry(w3: Web3, *, deployer: str, operator_key: str = OPERATOR_KEY) -> str:
    """A TermsRegistry owned by the operator key's address, which gets 10 ETH (and never USDC)."""
    operator = Account.from_key(operator_key).address
    w3.provider.make_request(RPCEndpoint("anvil_setBalance"), [operator, hex(10 * 10**18)])
    return deploy(w3, "TermsRegistry", operator, sender=deployer)


@contextmanager
def anvil_mining_every(seconds: int):
    """anvil mining a block every `seconds` (not on each transaction), with its own TestUSDC (the
    player holds 1,000,000) and terms registry (owned by the tests' operator key: the worker anchors
    there). Yields (url, w3, treasury, player, usdc, registry)."""
    with anvil("--block-time", str(seconds)) as (url, _proc):
        w3 = Web3(HTTPProvider(url, request_kwargs={"timeout": 10}))
        deployer, treasury, player = list(w3.eth.accounts)[:3]  # list(): as in chain_node
        usdc = deploy(w3, "TestUSDC", sender=deployer)
        mint(w3, usdc, player, 1_000_000 * 10**6, sender=deployer)
        yield url, w3, treasury, player, usdc, deploy_registry(w3, deployer=deployer)


def wait_anchor_confirmed(challenge, *, within: float = 30.0, logs=lambda: "") -> None:
    """Until a worker confirmed the challenge's anchor (the challenge is then open)."""
    from challenges.models import AnchorStatus, ChallengeAnchor

    deadline = time.monotonic() + within
    while True:
        anchor = ChallengeAnchor.objects.get(challenge_id=challenge.pk)
        if anchor.status == AnchorStatus.CONFIRMED:
            return
        assert anchor.status != AnchorStatus.FAILED, anchor.last_error
        assert time.monotonic() < deadline, f"anchor still {anchor.status} ({anchor.last_error}):\n{logs()}"
        time.sleep(0.05)


@dataclass
class Draft:
    """A guess before its payment: the commitment the calldata must carry."""

    challenge: Challenge
    text: str
    stake: Decimal
    address: str
    salt: str
    commitment: str
    submission_stake: Decimal
    challenge_id: int


@pytest.fixture
def draft(chain, make_challenge):
    from django.conf import settings

    from challenges.commitments import guess_commitment_v1, new_salt

    active: list[Challenge] = []  # at most one active challenge: every draft of a test shares it

    def make(*, challenge=None, stake="2.5", address=None, text="29.979, 31.134") -> Draft:
        if challenge is None:
            if not active:
                active.append(make_challenge())
            challenge = active[0]
        address = address or chain.player
        salt = new_salt()
        commitment = guess_commitment_v1(
            chain_id=settings.CHAIN_ID, challenge_id=challenge.pk, submitter_address=address, text=text, salt=salt
        )
        return Draft(challenge, text, Decimal(stake), address, salt, commitment, Decimal(stake), challenge.pk)

    return make


# Nothing listens on the discard port: a node that refuses every connection (a real outage).
UNREACHABLE_RPC = "http://127.0.0.1:9"


def post_claim(draft: Draft, tx_hash: str, *, chain_readable: bool = True):
    """Store the claim the way POST /api/responses does. chain_readable=False: the RPC is down while
    the POST runs, so the claim is stored pending unchecked and only verification can judge it."""
    from chain.client import ChainClient
    from responses.services import response_create

    return response_create(
        challenge_id=draft.challenge.pk,
        submission_text=draft.text,
        submission_stake=draft.stake,
        transaction_hash=tx_hash,
        submitter_address=draft.address,
        submission_salt=draft.salt,
        client=None if chain_readable else ChainClient([UNREACHABLE_RPC], timeout=2),
    ).response


@pytest.fixture
def third(chain):
    """A fifth anvil account with 1,000 USDC: the third player of `played`."""
    account = chain.w3.eth.accounts[4]
    mint(chain.w3, chain.usdc, account, 1_000 * 10**6, sender=chain.deployer)
    return account


@pytest.fixture
def played(chain, draft, make_challenge, third):
    """Three players paid on an anchored challenge (threshold 100 m): two correct, one wrong. The
    challenge most of the verifier's cases start from (chain/tests/verifier_support.py)."""
    from challenges.models import ChallengeAnchor

    from .verifier_support import GIZA, Played, confirm, pay

    challenge = make_challenge(solution=GIZA, threshold=100)
    assert ChallengeAnchor.objects.get(challenge=challenge).status == "confirmed"
    drafts = {
        "right": draft(challenge=challenge, stake="5", text="29.9792, 31.1343"),  # about 5 m
        "also_right": draft(challenge=challenge, stake="7", text="29.9795, 31.1344", address=chain.other),  # ~39 m
        "wrong": draft(challenge=challenge, stake="3", text="30.0444, 31.2357", address=third),  # 12 km
    }
    claims = {name: post_claim(d, pay(chain, d)) for name, d in drafts.items()}
    confirm(chain, *claims.values())
    return Played(challenge, drafts=drafts, **claims).refresh()
