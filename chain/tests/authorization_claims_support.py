"""What the tests of claims paid by authorization share (test_authorization_claims.py,
test_authorization_strangers.py): a guess's authorization signed on anvil as a wallet signs it
(eth_signTypedData_v4 of the payer's unlocked account, or a raw key: chain/tests/authorizations.py),
and the claim's body as the page posts it (docs/protocol.md 3.3a)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import pytest

from chain.token_domain import forget_token_domains


@dataclass(frozen=True)
class Signed:
    """An authorization as signed: its window and the signature."""

    valid_after: int
    valid_before: int
    signature: str

    def as_body(self) -> dict:
        return {"validAfter": self.valid_after, "validBefore": self.valid_before, "signature": self.signature}


def sign(
    chain,
    d,
    *,
    valid_after: int = 0,
    valid_before: int | None = None,
    value: int | None = None,
    to: str | None = None,
    nonce: str | None = None,
    key: str | None = None,
) -> Signed:
    """The draft's payer signs a transfer of its stake to the treasury whose nonce is its commitment,
    valid for 30 minutes (what the page asks for); each keyword changes one thing the payer signs.
    `key`: that private key signs instead (a forgery unless it is the payer's own)."""
    valid_before = valid_before if valid_before is not None else int(time.time()) + 1800
    signature = chain.sign_authorization(
        signer=d.address,
        to=to or chain.treasury,
        value=value if value is not None else int(d.stake * 10**6),
        valid_after=valid_after,
        valid_before=valid_before,
        nonce=nonce or "0x" + d.commitment,
        key=key,
    )
    return Signed(valid_after, valid_before, signature)


def claim_body(d, signed: Signed, **overrides) -> dict:
    body = {
        "challengeId": d.challenge.pk,
        "submissionText": d.text,
        "submissionStake": str(d.stake),
        "authorization": signed.as_body(),
        "submitterAddress": d.address,
        "submissionSalt": d.salt,
    }
    body.update(overrides)
    return body


def post(client, body: dict):
    return client.post("/api/responses", data=json.dumps(body), content_type="application/json")


def submit(chain, d, signed: Signed, *, sender: str | None = None) -> str:
    """Anyone (by default the deployer, a third party) submits the signed authorization on chain."""
    return chain.submit_authorization(
        signer=d.address,
        to=chain.treasury,
        value=int(d.stake * 10**6),
        valid_after=signed.valid_after,
        valid_before=signed.valid_before,
        nonce="0x" + d.commitment,
        signature=signed.signature,
        sender=sender,
    )


@pytest.fixture(autouse=True)
def fresh_token_domain():
    """Each test reads the token's domain anew: the process keeps it an hour (chain/token_domain.py),
    and a test may point USDC_ADDRESS at another contract or take the nodes away."""
    forget_token_domains()
    yield
    forget_token_domains()
