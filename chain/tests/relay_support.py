"""What the relayer's tests share: the relayer's key on the session anvil (given ETH only), players
with keys of their own (so a test can sign their authorizations and hold any number of them), and
claims paid by authorization built as the POST stores them (a Response with payment_method
authorization, no transaction hash, sent_by_submitter, and its StakeAuthorization queued for the
relay). The claims' POST is another branch's work (responses/views.py): until it lands these rows
are built directly, the way it stores them (docs/protocol.md 3.3a)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from eth_account import Account
from eth_keys import KeyAPI
from eth_utils import keccak
from web3.types import RPCEndpoint

from chain.authorization import Signature, TokenDomain, TransferAuthorization, encode_relayed_stake
from chain.contracts import contract_at, mint

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


def token_domain(chain) -> TokenDomain:
    token = contract_at(chain.w3, "TestUSDC", chain.usdc)
    return TokenDomain(
        name=token.functions.name().call(),
        version=token.functions.version().call(),
        chain_id=chain.w3.eth.chain_id,
        verifying_contract=chain.usdc,
    )


def sign(chain, player: Player, authorization: TransferAuthorization) -> str:
    """The player's EIP-712 signature (r ‖ s ‖ v) of the authorization under the token's domain."""
    signed = KeyAPI.PrivateKey(bytes.fromhex(player.key[2:])).sign_msg_hash(authorization.digest(token_domain(chain)))
    return Signature(v=signed.v + 27, r=signed.r, s=signed.s).hex()


def chain_time(chain) -> int:
    return max(int(chain.w3.eth.get_block("latest")["timestamp"]), int(time.time()))


def make_authorization_claim(
    chain,
    challenge,
    player: Player,
    *,
    stake: str = "2.5",
    text: str = "29.9792, 31.1343",
    valid_for: int = 1800,
    relay_status: str = "queued",
    search_from_block: int | None = 0,
):
    """A claim paid by authorization as the POST stores it; returns (response, authorization)."""
    from responses.models import PaymentMethod, Response, StakeAuthorization
    from responses.services import guess_fields

    fields = guess_fields(challenge_id=challenge.pk, text=text, submitter_address=player.address)
    authorization = TransferAuthorization(
        from_address=player.address,
        to_address=chain.treasury,
        value=int(Decimal(stake) * 10**6),
        valid_after=0,
        valid_before=chain_time(chain) + valid_for,
        nonce=fields["commitment"],
    )
    response = Response.objects.create(
        challenge=challenge,
        **fields,
        submission_stake=Decimal(stake),
        transaction_hash="",
        submitter_address=player.address,
        payment_method=PaymentMethod.AUTHORIZATION,
        sent_by_submitter=True,
    )
    StakeAuthorization.objects.create(
        response=response,
        valid_after=authorization.valid_after,
        valid_before=authorization.valid_before,
        signature=sign(chain, player, authorization),
        search_from_block=search_from_block,
        relay_status=relay_status,
    )
    return response, authorization


def relayed_call(chain, response) -> str:
    """The 324 bytes anyone may send to use the claim's authorization (the page's "Send it yourself")."""
    stored = response.authorization
    authorization = TransferAuthorization(
        from_address=response.submitter_address,
        to_address=chain.treasury,
        value=int(response.submission_stake * 10**6),
        valid_after=stored.valid_after,
        valid_before=stored.valid_before,
        nonce=response.commitment,
    )
    return encode_relayed_stake(authorization, Signature.parse(stored.signature), challenge_id=response.challenge_id)


def cancel_authorization(chain, player: Player, response) -> str:
    """The payer's cancelAuthorization(authorizer, nonce, v, r, s), signed with the payer's key and
    sent by someone else (anyone may); returns its hash once mined."""
    typehash = keccak(text="CancelAuthorization(address authorizer,bytes32 nonce)")
    struct = keccak(typehash + bytes.fromhex(player.address[2:]).rjust(32, b"\0") + bytes.fromhex(response.commitment))
    digest = keccak(b"\x19\x01" + token_domain(chain).separator() + struct)
    signed = KeyAPI.PrivateKey(bytes.fromhex(player.key[2:])).sign_msg_hash(digest)
    data = (
        keccak(text="cancelAuthorization(address,bytes32,uint8,bytes32,bytes32)")[:4]
        + bytes.fromhex(player.address[2:]).rjust(32, b"\0")
        + bytes.fromhex(response.commitment)
        + (signed.v + 27).to_bytes(32, "big")
        + signed.r.to_bytes(32, "big")
        + signed.s.to_bytes(32, "big")
    )
    tx_hash = chain.pay("0x" + data.hex(), sender=chain.other, to=chain.usdc)
    assert chain.w3.eth.get_transaction_receipt(tx_hash)["status"] == 1
    return tx_hash


def authorization_used(chain, response) -> bool:
    token = contract_at(chain.w3, "TestUSDC", chain.usdc)
    return token.functions.authorizationState(response.submitter_address, bytes.fromhex(response.commitment)).call()


def relayer_nonce(chain, tag: str = "latest") -> int:
    return chain.w3.eth.get_transaction_count(RELAYER, tag)


def relayer_eth(chain) -> int:
    return chain.w3.eth.get_balance(RELAYER)


def relay_status(response) -> tuple[str, str]:
    response.authorization.refresh_from_db()
    return response.authorization.relay_status, response.authorization.relay_reason


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
