"""A challenge paid both ways (docs/protocol.md sections 2 and 2a), for the verifiers' cases on stakes
paid by authorization (chain/tests/test_verify_authorizations.py, test_verify_authorization_claims.py):
direct transfers, authorizations relayed by Geopoem's relayer, by a stranger (neither the payer nor
the relayer) and two in one transaction through a batch contract, and claims the site rejected
because the token shows their authorization cancelled or expired. Payments that name no challenge
are there too: the bare 292-byte call and a relayed call sent through another contract (no claim
names them, and nothing need account for them).

Every payment is real on the session anvil, signed through anvil's eth_signTypedData_v4 as a wallet
signs (chain/tests/authorizations.py). The site's records of the authorization claims are built by
chain/tests/verifier_support.py (`authorization_claim`, `site_confirms_authorization`,
`site_rejects`): the site's record as published."""

from __future__ import annotations

from dataclasses import dataclass, field

from chain.authorization import Signature, TransferAuthorization, encode_relayed_stake
from chain.contracts import contract_at, deploy, mint
from challenges.models import Challenge
from responses.models import Response

from .conftest import post_claim
from .verifier_support import (
    GIZA,
    authorization_claim,
    confirm,
    mine_at,
    pay,
    relay,
    resolve,
    run_page_verifier,
    sign_stake,
    site_confirms_authorization,
    site_rejects,
    verify,
)

VALIDITY = 1800  # RELAY_AUTHORIZATION_SECONDS's default


@dataclass
class Mixed:
    challenge: Challenge
    claims: dict[str, Response]  # by name: right, wrong (transfers); relayed, by_stranger, batch_a, batch_b,
    # expired, cancelled (authorizations)
    drafts: dict
    txs: dict[str, str]  # the transactions that paid (or cancelled)
    accounts: dict[str, str]  # relayer, stranger, payer4
    signatures: dict[str, str] = field(default_factory=dict)
    valid_before: dict[str, int] = field(default_factory=dict)

    def refresh(self) -> Mixed:
        self.challenge.refresh_from_db()
        for claim in self.claims.values():
            if Response.objects.filter(pk=claim.pk).exists():  # a case may have deleted it: kept as it was
                claim.refresh_from_db()
        return self


def build_mixed(chain, draft, make_challenge, third, *, before_resolution=None) -> Mixed:
    """The challenge paid both ways, every claim settled as the site settles it, resolved
    (`before_resolution(world)` runs just before staff resolve)."""
    challenge = make_challenge(solution=GIZA, threshold=100)
    relayer, stranger, payer4 = chain.w3.eth.accounts[6], chain.w3.eth.accounts[7], chain.w3.eth.accounts[8]
    mint(chain.w3, chain.usdc, payer4, 1_000 * 10**6, sender=chain.deployer)
    drafts = {
        "right": draft(challenge=challenge, stake="5", text="29.9792, 31.1343"),  # about 5 m: correct, earliest
        "wrong": draft(challenge=challenge, stake="3", text="30.0444, 31.2357", address=third),  # 12 km
        "relayed": draft(challenge=challenge, stake="7", text="29.9795, 31.1344", address=chain.other),  # correct
        "by_stranger": draft(challenge=challenge, stake="2", text="29.99, 31.12", address=payer4),  # 1.8 km
        "batch_a": draft(challenge=challenge, stake="1.5", text="10, 10"),
        "batch_b": draft(challenge=challenge, stake="2.5", text="20, 20", address=third),
        "expired": draft(challenge=challenge, stake="1", text="1, 1", address=third),
        "cancelled": draft(challenge=challenge, stake="1", text="2, 2", address=chain.other),
        "bare": draft(challenge=challenge, stake="1", text="3, 3", address=payer4),
        "forwarded": draft(challenge=challenge, stake="1", text="4, 4", address=payer4),
    }
    claims = {name: post_claim(drafts[name], pay(chain, drafts[name])) for name in ("right", "wrong")}
    confirm(chain, *claims.values())
    world = Mixed(
        challenge, claims, drafts, txs={}, accounts={"relayer": relayer, "stranger": stranger, "payer4": payer4}
    )
    now = chain.w3.eth.get_block("latest")["timestamp"]

    def claim(name: str, valid_before: int, signature: str) -> Response:
        world.valid_before[name], world.signatures[name] = valid_before, signature
        world.claims[name] = authorization_claim(drafts[name], valid_before=valid_before, signature=signature)
        return world.claims[name]

    for name, sender in (("relayed", relayer), ("by_stranger", stranger)):
        d, valid_before = drafts[name], now + VALIDITY
        signature = sign_stake(chain, d, valid_before)
        claim(name, valid_before, signature)
        world.txs[name] = relay(chain, d, sender=sender, valid_before=valid_before, signature=signature)
    world.txs["batch"] = batch(chain, world, ("batch_a", "batch_b"), sender=relayer, valid_before=now + VALIDITY)
    # No claim names these two: the bare call names no challenge, nor does one sent through a contract.
    world.txs["bare"] = relay(chain, drafts["bare"], sender=relayer, valid_before=now + VALIDITY, word=False)
    world.txs["forwarded"] = forwarded(chain, world, "forwarded", sender=stranger, valid_before=now + VALIDITY)
    # Signed, then voided by the payer's cancel (submitted by anyone: the relayer here).
    d = drafts["cancelled"]
    claim("cancelled", now + VALIDITY, sign_stake(chain, d, now + VALIDITY))
    world.txs["cancel"] = chain.cancel_authorization(signer=d.address, nonce="0x" + d.commitment, sender=relayer)
    chain.mine(2)
    for name in ("relayed", "by_stranger", "batch_a", "batch_b"):
        site_confirms_authorization(chain, world.claims[name])
    site_rejects(world.claims["cancelled"], "authorization_cancelled")
    # Signed, never used, and expired: the head is mined exactly at its validBefore (the token takes
    # an authorization only strictly before it), and nothing is mined after.
    expires = chain.w3.eth.get_block("latest")["timestamp"] + 2
    site_rejects(claim("expired", expires, sign_stake(chain, drafts["expired"], expires)), "authorization_expired")
    mine_at(chain, expires)
    if before_resolution is not None:
        before_resolution(world)
    resolve(chain, challenge)
    return world.refresh()


def relayed_call(chain, d, valid_before: int) -> tuple[bytes, str]:
    """The 324 bytes of docs/protocol.md section 2a for draft `d`, and its signature."""
    signature = sign_stake(chain, d, valid_before)
    authorization = TransferAuthorization(
        d.address, chain.treasury, int(d.stake * 10**6), 0, valid_before, d.commitment
    )
    data = encode_relayed_stake(authorization, Signature.parse(signature), challenge_id=d.challenge_id)
    return bytes.fromhex(data[2:]), signature


def batch(chain, world: Mixed, names: tuple[str, ...], *, sender: str, valid_before: int) -> str:
    """Several authorizations used in one transaction, through a contract that submits a batch
    (contracts/TestBatch.sol): each AuthorizationUsed is followed by its own Transfer."""
    calls = []
    for name in names:
        data, signature = relayed_call(chain, world.drafts[name], valid_before)
        world.valid_before[name], world.signatures[name] = valid_before, signature
        world.claims[name] = authorization_claim(world.drafts[name], valid_before=valid_before, signature=signature)
        calls.append(data)
    batcher = contract_at(chain.w3, "BatchCaller", deploy(chain.w3, "BatchCaller", sender=chain.deployer))
    tx_hash = batcher.functions.callAll(chain.usdc, calls).transact({"from": sender, "gas": 500_000})
    assert chain.w3.eth.wait_for_transaction_receipt(tx_hash)["status"] == 1
    return "0x" + bytes(tx_hash).hex()


def forwarded(chain, world: Mixed, name: str, *, sender: str, valid_before: int) -> str:
    """A relayed call with its challenge word, sent through another contract (the test Forwarder)."""
    data, _ = relayed_call(chain, world.drafts[name], valid_before)
    forwarder = contract_at(chain.w3, "Forwarder", chain.forwarder)
    tx_hash = forwarder.functions.forward(chain.usdc, data).transact({"from": sender, "gas": 300_000})
    assert chain.w3.eth.wait_for_transaction_receipt(tx_hash)["status"] == 1
    return "0x" + bytes(tx_hash).hex()


def both(live_server, chain, challenge, *args: str):
    """verify_challenge.py (as a player runs it) and the page's verifier on the same site and chain."""
    return verify(live_server, chain, challenge, *args), run_page_verifier(
        live_server.url, rpc=chain.url, challenge_id=challenge.pk
    )
