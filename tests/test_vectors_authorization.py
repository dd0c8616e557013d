"""The stake a player signs (docs/protocol.md section 2: EIP-3009's ReceiveWithAuthorization to the
pot), as the server checks it (chain/token/authorization.py): its EIP-712 digest is the one a wallet
signs (eth_account's typed-data encoder, an implementation the server does not share), the signer
recovered is the key that signed, and a signature the token's ECRecover refuses (the malleable twin,
another v) is refused here too. The shared vectors' signed stakes (receiveAuthorizations) are checked
here and by the page's tests."""

from eth_account import Account
from eth_account.messages import _hash_eip191_message, encode_typed_data
from hypothesis import given, settings
from hypothesis import strategies as st

from chain.token.authorization import (
    SECP256K1_N,
    ReceiveAuthorization,
    Signature,
    TokenDomain,
    recover_signer,
    signed_by,
    typed_data,
)

UINT256 = st.integers(min_value=0, max_value=2**256 - 1)
KEYS = st.binary(min_size=32, max_size=32).filter(lambda b: 0 < int.from_bytes(b, "big") < SECP256K1_N)
ADDRESSES = st.binary(min_size=20, max_size=20).map(lambda b: "0x" + b.hex())


def test_the_signed_stakes_of_the_vectors(vectors):
    """The page's tests read the same cases (frontend/src/lib/authorization.test.ts)."""
    cases = vectors["receiveAuthorizations"]["cases"]
    assert len(cases) >= 2
    for case in cases:
        d = case["domain"]
        domain = TokenDomain(d["name"], d["version"], d["chainId"], d["verifyingContract"])
        message = case["message"]
        authorization = ReceiveAuthorization(
            message["from"],
            message["to"],
            int(message["value"]),
            message["validAfter"],
            message["validBefore"],
            message["nonce"].removeprefix("0x"),
        )
        assert "0x" + domain.separator().hex() == case["domainSeparator"]
        assert "0x" + authorization.digest(domain).hex() == case["digest"]
        assert recover_signer(authorization, domain, Signature.parse(case["signature"])) == message["from"]
        assert Account.from_key(case["signerKey"]).address == message["from"]


@settings(max_examples=60, deadline=None)
@given(
    key=KEYS,
    to=ADDRESSES,
    value=UINT256,
    valid_after=UINT256,
    valid_before=UINT256,
    nonce=st.binary(min_size=32, max_size=32),
    chain_id=st.integers(min_value=1, max_value=2**64),
    token=ADDRESSES,
    other_key=KEYS,
)
def test_a_wallets_signature_of_a_stake_recovers_its_signer_and_nobody_else(
    key, to, value, valid_after, valid_before, nonce, chain_id, token, other_key
):
    signer = Account.from_key(key)
    domain = TokenDomain("USD Coin", "2", chain_id, token)
    authorization = ReceiveAuthorization(signer.address, to, value, valid_after, valid_before, nonce.hex())
    document = typed_data(authorization, domain)
    assert authorization.digest(domain) == bytes(_hash_eip191_message(encode_typed_data(full_message=document)))
    signature = "0x" + bytes(Account.sign_typed_data(key, full_message=document).signature).hex()
    assert recover_signer(authorization, domain, Signature.parse(signature)) == signer.address
    assert signed_by(authorization, domain, signature)
    if Account.from_key(other_key).address != signer.address:
        forged = "0x" + bytes(Account.sign_typed_data(other_key, full_message=document).signature).hex()
        assert not signed_by(authorization, domain, forged)
    # Another payer, amount or nonce than the one signed: not this signature's.
    for changed in (
        ReceiveAuthorization(to, to, value, valid_after, valid_before, nonce.hex()),
        ReceiveAuthorization(signer.address, to, (value + 1) % 2**256, valid_after, valid_before, nonce.hex()),
        ReceiveAuthorization(signer.address, to, value, valid_after, valid_before, bytes(32).hex()),
    ):
        if changed != authorization:
            assert not signed_by(changed, domain, signature)


def test_the_malleable_twin_and_an_odd_v_are_refused_as_the_token_refuses_them():
    key = "0x" + "11" * 32
    domain = TokenDomain("USD Coin", "2", 31337, "0x" + "ab" * 20)
    authorization = ReceiveAuthorization(
        Account.from_key(key).address, "0x" + "cd" * 20, 5_000_000, 0, 2**40, "ee" * 32
    )
    signature = bytes(Account.sign_typed_data(key, full_message=typed_data(authorization, domain)).signature)
    r, s, v = signature[:32], int.from_bytes(signature[32:64], "big"), signature[64]
    assert signed_by(authorization, domain, "0x" + signature.hex())
    twin = "0x" + (r + (SECP256K1_N - s).to_bytes(32, "big") + bytes([55 - v])).hex()
    assert not signed_by(authorization, domain, twin)
    for odd_v in (29, 2):
        assert not signed_by(authorization, domain, "0x" + (signature[:64] + bytes([odd_v])).hex())
    # v as 0 or 1 (some wallets): read as 27 or 28 (the relayed call carries it so: chain/pot/abi.py).
    assert signed_by(authorization, domain, "0x" + (signature[:64] + bytes([v - 27])).hex())
