"""chain/authorization.py against an independent encoder: eth_account's EIP-712 typed-data
encoding (what a wallet's eth_signTypedData_v4 signs) and its signer. No chain needed."""

import pytest
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_utils import keccak

from chain.authorization import (
    AUTHORIZATION_CANCELED_TOPIC,
    AUTHORIZATION_USED_TOPIC,
    RELAYED_STAKE_LENGTH,
    SECP256K1_N,
    TRANSFER_WITH_AUTHORIZATION_SELECTOR,
    AuthorizationError,
    Signature,
    TokenDomain,
    TransferAuthorization,
    decode_relayed_stake,
    encode_relayed_stake,
    signed_by,
)

PAYER = Account.from_key("0x" + "11" * 32)
STRANGER = Account.from_key("0x" + "22" * 32)
TREASURY = "0x000000000000000000000000000000000000dEaD"
DOMAIN = TokenDomain(name="USDC", version="2", chain_id=11155111, verifying_contract=TREASURY.replace("dEaD", "bEEF"))
AUTHORIZATION = TransferAuthorization(
    from_address=PAYER.address,
    to_address=TREASURY,
    value=12_340_000,
    valid_after=0,
    valid_before=1_767_225_600,
    nonce="ab" * 32,
)


def typed_data(authorization: TransferAuthorization, domain: TokenDomain = DOMAIN) -> dict:
    """The message as the page hands it to the wallet (docs/protocol.md section 2a)."""
    return {
        "types": {
            "EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ],
            "TransferWithAuthorization": [
                {"name": "from", "type": "address"},
                {"name": "to", "type": "address"},
                {"name": "value", "type": "uint256"},
                {"name": "validAfter", "type": "uint256"},
                {"name": "validBefore", "type": "uint256"},
                {"name": "nonce", "type": "bytes32"},
            ],
        },
        "primaryType": "TransferWithAuthorization",
        "domain": domain.as_json(),
        "message": {
            "from": authorization.from_address,
            "to": authorization.to_address,
            "value": authorization.value,
            "validAfter": authorization.valid_after,
            "validBefore": authorization.valid_before,
            "nonce": "0x" + authorization.nonce,
        },
    }


def wallet_signature(authorization: TransferAuthorization, account=PAYER, domain: TokenDomain = DOMAIN) -> str:
    signed = Account.sign_message(encode_typed_data(full_message=typed_data(authorization, domain)), account.key)
    return "0x" + bytes(signed.signature).hex()


def test_the_digest_is_the_one_a_wallet_signs():
    message = encode_typed_data(full_message=typed_data(AUTHORIZATION))
    assert (message.version, message.header) == (b"\x01", DOMAIN.separator())
    assert message.body == AUTHORIZATION.struct_hash()
    assert AUTHORIZATION.digest(DOMAIN) == keccak(b"\x19" + message.version + message.header + message.body)
    assert signed_by(AUTHORIZATION, DOMAIN, wallet_signature(AUTHORIZATION))


@pytest.mark.parametrize(
    "changed",
    [
        {"value": 12_340_001},
        {"to_address": STRANGER.address},
        {"nonce": "cd" * 32},
        {"valid_before": 1_767_225_601},
        {"valid_after": 1},
        {"from_address": STRANGER.address},
    ],
)
def test_a_signature_is_good_for_exactly_what_was_signed(changed):
    signature = wallet_signature(AUTHORIZATION)
    other = TransferAuthorization(**{**AUTHORIZATION.__dict__, **changed})
    assert not signed_by(other, DOMAIN, signature)


def test_another_domain_or_signer_does_not_recover_the_payer():
    signature = wallet_signature(AUTHORIZATION)
    for changed in ({"name": "USD Coin"}, {"version": "1"}, {"chain_id": 1}, {"verifying_contract": TREASURY}):
        domain = TokenDomain(**{**DOMAIN.__dict__, **changed})
        assert not signed_by(AUTHORIZATION, domain, signature)
    assert not signed_by(AUTHORIZATION, DOMAIN, wallet_signature(AUTHORIZATION, account=STRANGER))


def test_signatures_the_token_would_refuse_are_refused():
    good = Signature.parse(wallet_signature(AUTHORIZATION))
    # The malleable twin (s' = n - s, v flipped) recovers the same key; ECRecover refuses it.
    twin = "0x" + good.r.to_bytes(32, "big").hex() + (SECP256K1_N - good.s).to_bytes(32, "big").hex()
    twin += f"{55 - good.v:02x}"
    assert not signed_by(AUTHORIZATION, DOMAIN, twin)
    with pytest.raises(AuthorizationError):
        Signature.parse(twin)
    for bad_v in (2, 26, 29, 35):
        with pytest.raises(AuthorizationError):
            Signature.parse(good.hex()[:-2] + f"{bad_v:02x}")
    # A wallet that writes v as 0 or 1 means 27 or 28.
    assert Signature.parse(good.hex()[:-2] + f"{good.v - 27:02x}") == good
    for text in ("", "0x", good.hex()[:-2], good.hex() + "00", "0x" + "zz" * 65, "0x" + "00" * 65):
        assert not signed_by(AUTHORIZATION, DOMAIN, text)


def test_the_relayed_call_round_trips_and_is_324_bytes():
    signature = Signature.parse(wallet_signature(AUTHORIZATION))
    data = encode_relayed_stake(AUTHORIZATION, signature, challenge_id=7)
    raw = bytes.fromhex(data[2:])
    assert len(raw) == RELAYED_STAKE_LENGTH == 324
    assert raw[:4] == TRANSFER_WITH_AUTHORIZATION_SELECTOR == bytes.fromhex("e3ee160e")
    assert raw[164:196] == bytes.fromhex(AUTHORIZATION.nonce)  # the commitment, where section 2a says
    assert int.from_bytes(raw[292:], "big") == 7
    decoded = decode_relayed_stake(data)
    assert decoded.authorization == AUTHORIZATION
    assert decoded.signature == signature
    assert decoded.challenge_id == 7
    # Without Geopoem's word (someone submitting the bare call) the challenge is unknown.
    assert decode_relayed_stake(raw[:292]).challenge_id is None
    for bad in (raw[:291], raw + b"\0", b"\xa9\x05\x9c\xbb" + raw[4:], raw[:4] + b"\1" + raw[5:]):
        with pytest.raises(AuthorizationError):
            decode_relayed_stake(bad)


def test_the_event_topics_are_fiattokens():
    # keccak256("AuthorizationUsed(address,bytes32)") and ("AuthorizationCanceled(address,bytes32)"),
    # as Circle's EIP3009.sol declares them.
    assert AUTHORIZATION_USED_TOPIC == "0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5"
    assert AUTHORIZATION_CANCELED_TOPIC == "0x1cdd46ff242716cdaa72d159d339a485b3438398348d68f09d7c8c0a59353d81"
