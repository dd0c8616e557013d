"""Claims paid by a signed authorization on the session anvil (docs/protocol.md section 2a), for the
chain tests of their verification (test_authorization_*.py).

A claim is stored as the POST stores it (conftest.py, make_authorization_response), signed by the
payer's anvil account through eth_signTypedData_v4 (chain/tests/authorizations.py) under the
token's domain read from the chain. It is then used on chain as the relayer (here: the deployer
account, ETH only) or anyone sends it: the 324 bytes of section 2a, "The relayed transaction"."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from web3 import Web3

from chain.authorization import Signature, TransferAuthorization, encode_relayed_stake
from chain.contracts import contract_at, deploy
from chain.verification import payment_verify
from challenges.money import token_units
from responses.models import Response, ResponseStatus


@pytest.fixture
def authorization_claim(chain, draft, make_authorization_response):
    """make(challenge=None, text=..., stake="2.5", payer=None, valid_before=None): a pending claim
    paid by the payer's (default chain.player) signed authorization, its search placed where the POST
    places it (CHAIN_REORG_DEPTH_BLOCKS below the head). Without `challenge`: the test's anchored
    active challenge (`draft`'s)."""

    def make(*, challenge=None, text="29.979, 31.134", stake="2.5", payer=None, valid_before=None) -> Response:
        challenge = challenge or draft().challenge
        payer = payer or chain.player

        def sign(authorization: TransferAuthorization) -> str:
            return chain.sign_authorization(
                signer=authorization.from_address,
                to=authorization.to_address,
                value=authorization.value,
                valid_after=authorization.valid_after,
                valid_before=authorization.valid_before,
                nonce="0x" + authorization.nonce,
            )

        return make_authorization_response(
            challenge,
            text,
            stake,
            address=payer,
            sign=sign,
            valid_before=valid_before,
            search_from_block=max(0, chain.w3.eth.block_number - settings.CHAIN_REORG_DEPTH_BLOCKS),
        )

    return make


def signed(claim: Response) -> TransferAuthorization:
    """The authorization the claim's payer signed: rebuilt from the claim, as the POST checks it."""
    return TransferAuthorization(
        from_address=claim.submitter_address,
        to_address=settings.TREASURY_ADDRESS,
        value=token_units(claim.submission_stake),
        valid_after=claim.authorization.valid_after,
        valid_before=claim.authorization.valid_before,
        nonce=claim.commitment,
    )


def relayed_calldata(claim: Response) -> str:
    """The 324 bytes the relayer sends: transferWithAuthorization(...) and the challenge id."""
    return encode_relayed_stake(
        signed(claim), Signature.parse(claim.authorization.signature), challenge_id=claim.challenge_id
    )


def relay(chain, claim: Response, *, sender: str | None = None) -> str:
    """Use the claim's authorization on chain from `sender` (default: the deployer, the relayer
    here), as the relayer does; returns the hash once mined (anvil's automine). It may revert (used
    already, expired): its receipt says so."""
    return chain.send(
        {"from": sender or chain.deployer, "to": chain.usdc, "data": relayed_calldata(claim), "gas": 300_000}
    )


def send_unmined(
    chain, claim: Response, *, sender: str, gas_price_gwei: int, data: str | None = None, nonce: int | None = None
) -> str:
    """The relayed call sent to a pool that does not mine (evm_setAutomine off): its hash. anvil
    orders a block by fee with legacy gas prices (EIP-1559 fields of equal maximum: by arrival)."""
    fields: Any = {
        "from": sender,
        "to": chain.usdc,
        "data": data or relayed_calldata(claim),
        "gas": 300_000,
        "gasPrice": gas_price_gwei * 10**9,
    }
    if nonce is not None:
        fields["nonce"] = nonce
    return "0x" + bytes(chain.w3.eth.send_transaction(fields)).hex()


def batch_relay(chain, *claims: Response, sender: str | None = None) -> str:
    """Use several authorizations in one transaction, through a contract (AuthorizationBatcher in
    contracts/TestDoubles.sol): its calldata is not the token's call."""
    batcher = contract_at(
        chain.w3, "AuthorizationBatcher", deploy(chain.w3, "AuthorizationBatcher", sender=chain.deployer)
    )
    entries = []
    for claim in claims:
        authorization, signature = signed(claim), Signature.parse(claim.authorization.signature)
        entries.append(
            (
                Web3.to_checksum_address(authorization.from_address),
                Web3.to_checksum_address(authorization.to_address),
                authorization.value,
                authorization.valid_after,
                authorization.valid_before,
                bytes.fromhex(authorization.nonce),
                signature.v,
                signature.r.to_bytes(32, "big"),
                signature.s.to_bytes(32, "big"),
            )
        )
    data = batcher.encode_abi("submitAll", args=[Web3.to_checksum_address(chain.usdc), entries])
    return chain.send({"from": sender or chain.deployer, "to": batcher.address, "data": data, "gas": 600_000})


def status_of(chain, tx_hash: str) -> int:
    return chain.w3.eth.get_transaction_receipt(tx_hash)["status"]


def decided(claim: Response) -> tuple[str, str]:
    """Verify the claim now (payment_verify, the worker's own check) and return (status, code)."""
    outcome = payment_verify(response_id=claim.pk)
    return outcome.status, outcome.code


def confirmed_at(claim: Response) -> tuple[str, int | None, int | None]:
    claim.refresh_from_db()
    assert claim.status == ResponseStatus.CONFIRMED, (claim.status, claim.rejection_code)
    return claim.transaction_hash, claim.block_number, claim.log_index
