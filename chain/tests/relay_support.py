"""What the relayer's tests share: the relayer's key on the session anvil (given ETH only), players
with keys of their own (so a test can sign their authorizations and hold any number of them), and
claims paid by authorization as the POST stores them, through the root conftest's
`make_authorization_response` (signed with the player's key under the test token's domain), queued
for the relay."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import pytest
from eth_account import Account
from web3.types import RPCEndpoint

from chain.authorization import Signature, TokenDomain, TransferAuthorization, encode_relayed_stake
from chain.contracts import mint

# The relayer's key in the tests: no anvil account, given ETH by anvil_setBalance and never USDC.
RELAYER_KEY = "0x" + "7e" * 32
RELAYER = Account.from_key(RELAYER_KEY).address
RELAYER_ETH = 10 * 10**18
GIZA = "29.979175, 31.134258"


@dataclass
class Player:
    key: str
    address: str


def known(value: Any) -> int:
    """A figure the relayer recorded (a nullable column), as an int; fails when it was not."""
    assert value is not None
    return int(value)


def rpc(chain, method: str, *params: Any) -> Any:
    answer = chain.w3.provider.make_request(RPCEndpoint(method), list(params))
    assert "error" not in answer, answer
    return answer["result"]


def new_player(chain, *, usdc_units: int = 1_000 * 10**6) -> Player:
    """A player with a key of its own, `usdc_units` of the test USDC and no ETH at all."""
    account = Account.create()
    if usdc_units:
        mint(chain.w3, chain.usdc, account.address, usdc_units, sender=chain.deployer)
    return Player(key="0x" + bytes(account.key).hex(), address=account.address)


def authorization_of(response) -> TransferAuthorization:
    """What the claim's payer signed (docs/protocol.md section 2a), rebuilt from the claim."""
    from django.conf import settings

    stored = response.authorization
    return TransferAuthorization(
        from_address=response.submitter_address,
        to_address=settings.TREASURY_ADDRESS,
        value=int(response.submission_stake * 10**6),
        valid_after=stored.valid_after,
        valid_before=stored.valid_before,
        nonce=response.commitment,
    )


def sign(player: Player, authorization: TransferAuthorization) -> str:
    """The player's EIP-712 signature (r ‖ s ‖ v) of `authorization` under the test token's domain."""
    from django.conf import settings

    domain = TokenDomain("Test USD Coin", "2", settings.CHAIN_ID, settings.USDC_ADDRESS)
    signed = Account.unsafe_sign_hash(authorization.digest(domain), player.key)
    return Signature(v=signed.v, r=signed.r, s=signed.s).hex()


def chain_time(chain) -> int:
    return max(int(chain.w3.eth.get_block("latest")["timestamp"]), int(time.time()))


@pytest.fixture
def claim_for(relay, make_authorization_response):
    """A claim paid by `player`'s authorization, queued for the relay: `valid_for` seconds from the
    chain's clock. search_from_block 0: the whole (test) chain is searched for its cancellation."""

    def make(challenge, player: Player, *, stake: str = "2.5", text: str = "29.9792, 31.1343", valid_for: int = 1800):
        return make_authorization_response(
            challenge,
            text,
            stake,
            key=player.key,
            valid_before=chain_time(relay) + valid_for,
            search_from_block=0,
        )

    return make


def relayed_call(chain, response) -> str:
    """The 324 bytes anyone may send to use the claim's authorization (the page's "Send it yourself")."""
    signature = Signature.parse(response.authorization.signature)
    return encode_relayed_stake(authorization_of(response), signature, challenge_id=response.challenge_id)


def cancel_authorization(chain, player: Player, response) -> str:
    """The payer's cancelAuthorization of the claim's authorization, signed with the payer's key and
    sent by someone else (anyone may); returns its hash once mined (chain/tests/authorizations.py)."""
    signature = chain.sign_cancel(signer=player.address, nonce=response.commitment, key=player.key)
    tx_hash = chain.cancel_authorization(
        signer=player.address, nonce=response.commitment, signature=signature, sender=chain.other
    )
    assert chain.w3.eth.get_transaction_receipt(tx_hash)["status"] == 1
    return tx_hash


def authorization_used(chain, response) -> bool:
    """The token's authorizationState of the claim's payer and commitment: used or cancelled."""
    return chain.authorization_used(response.submitter_address, response.commitment)


def relayer_nonce(chain, tag: str = "latest") -> int:
    return chain.w3.eth.get_transaction_count(RELAYER, tag)


def relayer_eth(chain) -> int:
    return chain.w3.eth.get_balance(RELAYER)


def relay_status(response) -> tuple[str, str, str]:
    """The claim's relay as stored: its status, the player's sentence and its code (relayCode)."""
    response.authorization.refresh_from_db()
    authorization = response.authorization
    return authorization.relay_status, authorization.relay_reason, authorization.relay_code


@pytest.fixture
def relay(chain, settings):
    """The session anvil with the relayer's key funded (ETH only) and the relay settings on it.
    The next block's base fee is put back afterwards: anvil's evm_revert (the `chain` fixture's)
    does not restore it, and a test that raised it would leave the next tests' fees under it."""
    base_fee = rpc(chain, "eth_getBlockByNumber", "pending", False)["baseFeePerGas"]
    yield _relay(chain, settings)
    rpc(chain, "anvil_setNextBlockBaseFeePerGas", base_fee)


def _relay(chain, settings):
    rpc(chain, "anvil_setBalance", RELAYER, hex(RELAYER_ETH))
    settings.RELAYER_KEY = RELAYER_KEY
    settings.RELAY_ENABLED = True
    settings.RELAY_MIN_REMAINING_SECONDS = 60
    settings.RELAY_MAX_PER_ADDRESS_PER_DAY = 20
    settings.RELAY_MAX_WEI_PER_DAY = 5 * 10**18
    settings.RELAY_BALANCE_ALARM_WEI = 10**16
    settings.RELAY_RESEND_SECONDS = 60.0
    settings.RELAY_FEE_BUMP_PERCENT = 25
    return chain


@pytest.fixture
def open_challenge(db):
    """A published challenge, open: its anchor recorded confirmed (the relayer only asks whether
    the challenge is open; the anchor on chain is chain/tests/test_anchor.py's business)."""
    from challenges.services import challenge_create_published
    from devtools.anchors import record_confirmed_anchor

    challenge = challenge_create_published(
        poem_title="Relayed", poem_text="<p>A poem</p>", instructions_text="<p>Guess</p>",
        proximity_threshold_m=150, solution=GIZA,
    )  # fmt: skip
    record_confirmed_anchor(challenge)
    return challenge


class Mining:
    """anvil's automine switched off and on (blocks only when the test mines them)."""

    def __init__(self, chain) -> None:
        self.chain = chain

    def __enter__(self) -> Mining:
        rpc(self.chain, "evm_setAutomine", False)
        return self

    def mine(self, blocks: int = 1) -> None:
        rpc(self.chain, "anvil_mine", hex(blocks))

    def pool(self) -> int:
        status = rpc(self.chain, "txpool_status")
        return int(status["pending"], 16) + int(status["queued"], 16)

    def __exit__(self, *exc) -> None:
        rpc(self.chain, "evm_setAutomine", True)
