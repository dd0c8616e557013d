"""The shared vectors of a stake paid by signature (tests/vectors.json, `transferAuthorizations`),
read by the server's encoder as the page's tests read them (frontend/src/lib/authorization.test.ts):
both produce the same digest, recover the same signer and send the same 324 bytes."""

import pytest

from chain.authorization import (
    RELAYED_STAKE_LENGTH,
    Signature,
    TokenDomain,
    TransferAuthorization,
    decode_relayed_stake,
    encode_relayed_stake,
    recover_signer,
)


def _cases(vectors):
    return vectors["transferAuthorizations"]["cases"]


def _parts(case):
    domain = case["domain"]
    message = case["message"]
    token = TokenDomain(domain["name"], domain["version"], domain["chainId"], domain["verifyingContract"])
    authorization = TransferAuthorization(
        from_address=message["from"],
        to_address=message["to"],
        value=int(message["value"]),
        valid_after=message["validAfter"],
        valid_before=message["validBefore"],
        nonce=message["nonce"].removeprefix("0x"),
    )
    return token, authorization


@pytest.mark.parametrize("index", [0, 1])
def test_digest_and_signer(vectors, index):
    case = _cases(vectors)[index]
    token, authorization = _parts(case)
    assert "0x" + token.separator().hex() == case["domainSeparator"]
    assert "0x" + authorization.struct_hash().hex() == case["structHash"]
    assert "0x" + authorization.digest(token).hex() == case["digest"]
    assert recover_signer(authorization, token, Signature.parse(case["signature"])) == case["signer"]


@pytest.mark.parametrize("index", [0, 1])
def test_relayed_call(vectors, index):
    case = _cases(vectors)[index]
    _, authorization = _parts(case)
    data = encode_relayed_stake(authorization, Signature.parse(case["signature"]), challenge_id=case["challengeId"])
    assert data == case["relayedCalldata"]
    assert len(bytes.fromhex(data[2:])) == RELAYED_STAKE_LENGTH
    assert decode_relayed_stake(data).challenge_id == case["challengeId"]


def test_the_nonce_is_the_guess_commitment_of_the_signer(vectors):
    commitments = {
        (g["chainId"], g["challengeId"], g["submitterAddress"].lower()): g["commitment"]
        for g in vectors["guessCommitments"]
    }
    for case in _cases(vectors):
        key = (case["domain"]["chainId"], case["challengeId"], case["message"]["from"].lower())
        assert case["message"]["nonce"] == "0x" + commitments[key]
