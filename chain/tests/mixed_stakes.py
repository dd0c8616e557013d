"""A challenge paid both ways (docs/protocol.md sections 2 and 2a), for the verifiers' cases on stakes
paid by authorization (chain/tests/test_verify_authorizations.py, test_verify_authorization_claims.py):
direct transfers, authorizations relayed by Geopoem's relayer, by a stranger (neither the payer nor
the relayer) and two in one transaction through a batch contract, and claims the site rejected
because the token shows their authorization cancelled or expired. Payments that name no challenge
are there too: the bare 292-byte call and a relayed call sent through another contract (no claim
names them, and nothing need account for them).

Every payment is real on the session anvil, signed through anvil's eth_signTypedData_v4 as a wallet
signs (chain/tests/authorizations.py). Every claim is the site's own: stored as the POST stores it
(conftest.py, make_authorization_response) and decided by the site's verification
(chain/verification.py, payment_verify), then resolved by staff's service."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from chain.authorization import Signature, TransferAuthorization, encode_relayed_stake
from chain.contracts import contract_at, mint
from chain.verification import payment_verify
from challenges.models import Challenge
from responses.models import Response, ResponseStatus

from .authorization_support import batch_relay
from .authorization_support import relay as relay_claim
from .conftest import post_claim
from .verifier_support import GIZA, confirm, mine_at, pay, relay, resolve, run_page_verifier, sign_stake, verify

VALIDITY = 1800  # RELAY_AUTHORIZATION_SECONDS's default


@dataclass
class Mixed:
    challenge: Challenge
    claims: dict[str, Response]  # by name: right, wrong (transfers); relayed, by_stranger, batch_a, batch_b,
    # expired, cancelled (authorizations)
    drafts: dict
    txs: dict[str, str]  # the transactions that paid (or cancelled)
    accounts: dict[str, str]  # relayer, stranger, payer4
    # name -> (validBefore, signature) of each authorization claim, as the payer's page keeps them
    signed: dict[str, tuple[int, str]] = field(default_factory=dict)

    def refresh(self) -> Mixed:
        self.challenge.refresh_from_db()
        for claim in self.claims.values():
            if Response.objects.filter(pk=claim.pk).exists():  # a case may have deleted it: kept as it was
                claim.refresh_from_db()
        return self


def build_mixed(chain, draft, make_challenge, third, make_authorization_response, *, before_resolution=None) -> Mixed:
    """The challenge paid both ways, every claim decided by the site's verification, resolved
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
    accounts = {"relayer": relayer, "stranger": stranger, "payer4": payer4}
    world = Mixed(challenge, claims, drafts, txs={}, accounts=accounts)
    now = chain.w3.eth.get_block("latest")["timestamp"]

    def claim(name: str, valid_before: int = now + VALIDITY) -> Response:
        """The payer's claim as the POST stores it, signed through anvil as a wallet signs."""
        d = drafts[name]

        def sign(authorization: TransferAuthorization) -> str:
            return sign_stake(chain, d, authorization.valid_before)

        world.claims[name] = make_authorization_response(
            challenge,
            d.text,
            str(d.stake),
            address=d.address,
            salt=d.salt,
            sign=sign,
            valid_before=valid_before,
            search_from_block=max(0, chain.w3.eth.block_number - settings.CHAIN_REORG_DEPTH_BLOCKS),
        )
        world.signed[name] = (valid_before, world.claims[name].authorization.signature)
        return world.claims[name]

    world.txs["relayed"] = relay_claim(chain, claim("relayed"), sender=relayer)
    world.txs["by_stranger"] = relay_claim(chain, claim("by_stranger"), sender=stranger)
    world.txs["batch"] = batch_relay(chain, claim("batch_a"), claim("batch_b"), sender=relayer)
    # No claim names these two: the bare call names no challenge, nor does one sent through a contract.
    world.txs["bare"] = relay(chain, drafts["bare"], sender=relayer, valid_before=now + VALIDITY, word=False)
    world.txs["forwarded"] = forwarded(chain, drafts["forwarded"], sender=stranger, valid_before=now + VALIDITY)
    # Signed, then voided by the payer's cancel (submitted by anyone: the relayer here).
    cancelled = claim("cancelled")
    world.txs["cancel"] = chain.cancel_authorization(
        signer=cancelled.submitter_address, nonce="0x" + cancelled.commitment, sender=relayer
    )
    # Signed, never used, and expired: the block two deep is mined at its validBefore (the site
    # rejects it then), and so is the head (anvil takes a block of the same second): the verifiers
    # judge it at the head's time exactly equal to validBefore (the token takes it only before).
    expires = chain.w3.eth.get_block("latest")["timestamp"] + 2
    claim("expired", expires)
    mine_at(chain, expires)
    mine_at(chain, expires)
    assert chain.w3.eth.get_block("latest")["timestamp"] == expires
    for name in ("relayed", "by_stranger", "batch_a", "batch_b"):
        assert decided(world.claims[name]) == (ResponseStatus.CONFIRMED, "")
    assert decided(world.claims["cancelled"]) == (ResponseStatus.REJECTED, "authorization_cancelled")
    assert decided(world.claims["expired"]) == (ResponseStatus.REJECTED, "authorization_expired")
    if before_resolution is not None:
        before_resolution(world.refresh())
    resolve(chain, challenge)
    return world.refresh()


def decided(claim: Response) -> tuple[str, str]:
    """The site's verification of the claim, now (the worker's own check)."""
    outcome = payment_verify(response_id=claim.pk)
    return outcome.status, outcome.code


def forwarded(chain, d, *, sender: str, valid_before: int) -> str:
    """A relayed call with its challenge word (docs/protocol.md section 2a's 324 bytes), sent through
    another contract (the test Forwarder): it names no challenge."""
    signature = sign_stake(chain, d, valid_before)
    units = int(d.stake * 10**6)
    authorization = TransferAuthorization(d.address, chain.treasury, units, 0, valid_before, d.commitment)
    data = encode_relayed_stake(authorization, Signature.parse(signature), challenge_id=d.challenge_id)
    forwarder = contract_at(chain.w3, "Forwarder", chain.forwarder)
    tx_hash = forwarder.functions.forward(chain.usdc, bytes.fromhex(data[2:])).transact(
        {"from": sender, "gas": 300_000}
    )
    assert chain.w3.eth.wait_for_transaction_receipt(tx_hash)["status"] == 1
    return "0x" + bytes(tx_hash).hex()


def both(live_server, chain, challenge, *args: str):
    """verify_challenge.py (as a player runs it) and the page's verifier on the same site and chain."""
    return verify(live_server, chain, challenge, *args), run_page_verifier(
        live_server.url, rpc=chain.url, challenge_id=challenge.pk
    )
