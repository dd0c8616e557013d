"""Circle's pause and blacklist on the test USDC (contracts/TestUSDC.sol), behind its proxy
(contracts/TestUSDCProxy.sol) as a local chain deploys it: both are checked before anything else of a
call, an authorization's signature and payee included, with Circle's revert texts; a refused
authorization leaves its nonce unused, so the same signature passes once the token would take it."""

from dataclasses import dataclass
from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import hash_domain
from web3 import Web3

from chain.node.contracts import contract_at, deploy, mint

from .authorizations import RECEIVE
from .test_authorizations import STAKE, assert_refused, assert_used_then_transfer, authorization, status, topic
from .token_support import token_chain, token_node  # noqa: F401  (the token's world, not the pot's)

pytestmark = pytest.mark.integration


PAUSED = "Pausable: paused"
BLACKLISTED = "Blacklistable: account is blacklisted"


@dataclass
class Governed:
    """A TestUSDC behind TestUSDCProxy, its roles appointed: what a local chain deploys, as Circle's USDC."""

    token: str
    implementation: str
    admin: str
    pauser: str
    blacklister: str

    def call(self, chain, function: str, *args: Any, sender: str) -> str:
        """Send token.function(*args) from `sender` with a fixed gas limit, so a refusal is mined too."""
        tx_hash = (
            contract_at(chain.w3, "TestUSDC", self.token)
            .functions[function](*args)
            .transact({"from": sender, "gas": 200_000})
        )
        chain.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)
        return "0x" + bytes(tx_hash).hex()

    def view(self, chain, function: str, *args: Any) -> Any:
        return contract_at(chain.w3, "TestUSDC", self.token).functions[function](*args).call()


@pytest.fixture
def governed(chain) -> Governed:
    admin, pauser, blacklister = chain.w3.eth.accounts[7:10]
    implementation = deploy(chain.w3, "TestUSDC", sender=chain.deployer)
    token = deploy(chain.w3, "TestUSDCProxy", implementation, admin, sender=chain.deployer)
    governed = Governed(token, implementation, admin, pauser, blacklister)
    assert status(chain, governed.call(chain, "configureRoles", pauser, blacklister, sender=chain.deployer)) == 1
    for holder in (chain.player, chain.other):
        mint(chain.w3, token, holder, 100 * STAKE, sender=chain.deployer)
    return governed


def logged(chain, tx_hash: str) -> list[tuple[str, list[bytes]]]:
    """(event signature's topic as hex, the other topics) of each log of the transaction."""
    logs = chain.w3.eth.get_transaction_receipt(tx_hash)["logs"]
    return [(bytes(log["topics"][0]).hex(), [bytes(t) for t in log["topics"][1:]]) for log in logs]


def event(signature: str) -> str:
    return Web3.keccak(text=signature).hex().removeprefix("0x")


def forged_receive(chain, governed: Governed, **fields) -> dict[str, Any]:
    """A receive authorization to the treasury whose signature is not the payer's."""
    return authorization(chain, primary_type=RECEIVE, token=governed.token, key=Account.create().key, **fields)


def test_the_roles_are_appointed_once_and_only_they_pause_and_blacklist(chain):
    implementation = deploy(chain.w3, "TestUSDC", sender=chain.deployer)
    token = deploy(chain.w3, "TestUSDCProxy", implementation, chain.w3.eth.accounts[7], sender=chain.deployer)
    fresh = Governed(token, implementation, chain.w3.eth.accounts[7], chain.other, chain.treasury)
    # Nobody can pause or blacklist before the roles are appointed, not even the deployer.
    assert_refused(chain, fresh.call(chain, "pause", sender=chain.deployer), "Pausable: caller is not the pauser")
    assert_refused(
        chain,
        fresh.call(chain, "blacklist", chain.player, sender=chain.deployer),
        "Blacklistable: caller is not the blacklister",
    )
    tx_hash = fresh.call(chain, "configureRoles", chain.other, chain.treasury, sender=chain.player)
    assert logged(chain, tx_hash) == [
        (event("PauserChanged(address)"), [topic(chain.other)]),
        (event("BlacklisterChanged(address)"), [topic(chain.treasury)]),
    ]
    assert (fresh.view(chain, "pauser"), fresh.view(chain, "blacklister")) == (chain.other, chain.treasury)
    # The first call won: nobody appoints again, the first appointees included.
    for sender in (chain.deployer, chain.other, chain.player):
        again = fresh.call(chain, "configureRoles", sender, sender, sender=sender)
        assert_refused(chain, again, "TestUSDC: roles already configured")
    assert (fresh.view(chain, "pauser"), fresh.view(chain, "blacklister")) == (chain.other, chain.treasury)
    assert_refused(chain, fresh.call(chain, "pause", sender=chain.treasury), "Pausable: caller is not the pauser")
    assert_refused(
        chain,
        fresh.call(chain, "blacklist", chain.player, sender=chain.other),
        "Blacklistable: caller is not the blacklister",
    )
    assert fresh.view(chain, "paused") is False and fresh.view(chain, "isBlacklisted", chain.player) is False


def test_the_proxy_delegates_to_the_token_and_refuses_its_admin(chain, governed):
    # The domain is the proxy's address: an authorization signed for it moves the proxy's balances.
    assert governed.view(chain, "DOMAIN_SEPARATOR") == hash_domain(chain.token_domain(governed.token))
    auth = authorization(chain, token=governed.token)
    assert_used_then_transfer(chain, chain.submit_authorization(**auth), auth)
    assert chain.balance(chain.treasury, governed.token) == STAKE
    assert chain.balance(chain.treasury, governed.implementation) == 0  # the implementation holds no state
    refused = governed.call(chain, "transfer", chain.other, 1, sender=governed.admin)
    assert_refused(chain, refused, "Cannot call fallback function from the proxy admin")


def test_a_paused_token_refuses_everything_before_the_signature_and_passes_once_unpaused(chain, governed):
    valid = authorization(chain, primary_type=RECEIVE, token=governed.token)
    tx_hash = governed.call(chain, "pause", sender=governed.pauser)
    assert logged(chain, tx_hash) == [(event("Pause()"), [])] and governed.view(chain, "paused") is True
    before = chain.balance(chain.player, governed.token), chain.balance(chain.treasury, governed.token)
    # A forged signature, submitted by someone who is not the payee: the pause is checked first.
    forged = forged_receive(chain, governed)
    assert_refused(chain, chain.submit_authorization(**forged, receive=True), PAUSED)
    assert_refused(chain, chain.submit_authorization(**forged, receive=True, sender=chain.treasury), PAUSED)
    assert_refused(chain, chain.submit_authorization(**valid, receive=True, sender=chain.treasury), PAUSED)
    assert_refused(
        chain, chain.submit_authorization(**valid, receive=True, as_bytes=True, sender=chain.treasury), PAUSED
    )
    transfer = authorization(chain, token=governed.token, key=Account.create().key)
    assert_refused(chain, chain.submit_authorization(**transfer), PAUSED)
    assert_refused(chain, chain.submit_authorization(**transfer, as_bytes=True), PAUSED)
    cancel = chain.cancel_authorization(signer=chain.player, nonce=valid["nonce"], token=governed.token)
    assert_refused(chain, cancel, PAUSED)
    assert_refused(chain, governed.call(chain, "transfer", chain.other, 1, sender=chain.player), PAUSED)
    assert_refused(chain, governed.call(chain, "approve", chain.other, 1, sender=chain.player), PAUSED)
    assert_refused(
        chain, governed.call(chain, "transferFrom", chain.player, chain.other, 0, sender=chain.other), PAUSED
    )
    assert_refused(chain, governed.call(chain, "mint", chain.player, 1, sender=chain.player), PAUSED)
    assert_refused(chain, governed.call(chain, "unpause", sender=chain.player), "Pausable: caller is not the pauser")
    # Nothing moved and the signed nonce is still unused: the same signature passes once unpaused.
    assert (chain.balance(chain.player, governed.token), chain.balance(chain.treasury, governed.token)) == before
    assert chain.authorization_used(chain.player, valid["nonce"], token=governed.token) is False
    tx_hash = governed.call(chain, "unpause", sender=governed.pauser)
    assert logged(chain, tx_hash) == [(event("Unpause()"), [])] and governed.view(chain, "paused") is False
    assert_used_then_transfer(chain, chain.submit_authorization(**valid, receive=True, sender=chain.treasury), valid)


def test_a_blacklisted_payer_is_refused_before_the_signature_and_passes_once_unblacklisted(chain, governed):
    valid = authorization(chain, primary_type=RECEIVE, token=governed.token)
    balance = chain.balance(chain.player, governed.token)
    for spender in (chain.player, chain.deployer):  # approvals made before the blacklist
        assert status(chain, governed.call(chain, "approve", spender, STAKE, sender=chain.other)) == 1
    tx_hash = governed.call(chain, "blacklist", chain.player, sender=governed.blacklister)
    assert logged(chain, tx_hash) == [(event("Blacklisted(address)"), [topic(chain.player)])]
    assert governed.view(chain, "isBlacklisted", chain.player) is True
    assert chain.balance(chain.player, governed.token) == balance  # the flag is not part of the balance
    forged = forged_receive(chain, governed)
    assert_refused(chain, chain.submit_authorization(**forged, receive=True), BLACKLISTED)  # before the payee too
    assert_refused(chain, chain.submit_authorization(**forged, receive=True, sender=chain.treasury), BLACKLISTED)
    assert_refused(chain, chain.submit_authorization(**valid, receive=True, sender=chain.treasury), BLACKLISTED)
    transfer = authorization(chain, token=governed.token, key=Account.create().key)
    assert_refused(chain, chain.submit_authorization(**transfer, as_bytes=True), BLACKLISTED)
    assert_refused(chain, governed.call(chain, "transfer", chain.other, 1, sender=chain.player), BLACKLISTED)
    assert_refused(chain, governed.call(chain, "approve", chain.other, 1, sender=chain.player), BLACKLISTED)
    # Neither can it be paid, approved, or spend someone else's approval.
    assert_refused(chain, governed.call(chain, "transfer", chain.player, 1, sender=chain.other), BLACKLISTED)
    assert_refused(chain, governed.call(chain, "approve", chain.player, 1, sender=chain.other), BLACKLISTED)
    assert_refused(chain, governed.call(chain, "mint", chain.player, 1, sender=chain.other), BLACKLISTED)
    to_player = authorization(chain, signer=chain.other, to=chain.player, token=governed.token)
    assert_refused(chain, chain.submit_authorization(**to_player), BLACKLISTED)
    for sender, source, to in (
        (chain.player, chain.other, chain.treasury),  # the caller
        (chain.deployer, chain.player, chain.treasury),  # `from`
        (chain.deployer, chain.other, chain.player),  # `to`
    ):
        assert_refused(chain, governed.call(chain, "transferFrom", source, to, 1, sender=sender), BLACKLISTED)
    assert chain.balance(chain.player, governed.token) == balance
    assert chain.authorization_used(chain.player, valid["nonce"], token=governed.token) is False
    tx_hash = governed.call(chain, "unBlacklist", chain.player, sender=governed.blacklister)
    assert logged(chain, tx_hash) == [(event("UnBlacklisted(address)"), [topic(chain.player)])]
    assert governed.view(chain, "isBlacklisted", chain.player) is False
    assert_used_then_transfer(chain, chain.submit_authorization(**valid, receive=True, sender=chain.treasury), valid)


def test_a_blacklisted_submitter_may_still_relay_an_authorization(chain, governed):
    """As Circle's: the addresses of the authorization are checked, not who sends it (the relayer)."""
    relayer = chain.w3.eth.accounts[5]
    assert status(chain, governed.call(chain, "blacklist", relayer, sender=governed.blacklister)) == 1
    auth = authorization(chain, token=governed.token)
    assert_used_then_transfer(chain, chain.submit_authorization(**auth, sender=relayer), auth)
