"""The stranger who wants the money, against claims paid by authorization (docs/protocol.md 3.2 and
3.3a), through the API on anvil with the EIP-3009 test USDC. A signed authorization binds the payer,
the treasury, the amount and the guess (its nonce is the commitment): whatever a stranger changes,
posts or floods, nothing is stored, and the payer's own claim is still taken afterwards."""

from __future__ import annotations

import secrets
import time

import pytest
from django.test import Client
from eth_account import Account

from chain.contracts import mint
from challenges.commitments import new_salt
from responses.models import Response
from responses.reasons import REASON_SENTENCES

from .authorization_claims_support import Signed, claim_body, fresh_token_domain, post, sign, submit  # noqa: F401
from .authorizations import malleable_twin

pytestmark = [pytest.mark.django_db, pytest.mark.integration]


def assert_refused(answer, code: str) -> None:
    assert answer.status_code == 422, answer.content
    assert answer.json() == {"message": REASON_SENTENCES[code], "errors": {}, "code": code}
    assert not Response.objects.exists()


def test_a_forged_signature_is_refused(api, chain, draft):
    d = draft()
    forged = sign(chain, d, key="0x" + secrets.token_hex(32))  # the very message, signed by another key
    assert_refused(post(api, claim_body(d, forged)), "invalid_authorization")


def test_the_malleable_twin_of_the_payers_signature_is_refused(api, chain, draft):
    """s' = n - s with v flipped recovers the payer too (ecrecover takes it), but the token refuses
    it, so the server does: a claim it takes is one the relayer can send."""
    d = draft()
    signed = sign(chain, d)
    twin = Signed(signed.valid_after, signed.valid_before, malleable_twin(signed.signature))
    assert_refused(post(api, claim_body(d, twin)), "invalid_authorization")
    assert post(api, claim_body(d, signed)).status_code == 201


@pytest.mark.parametrize(
    "change",
    [
        {"value": 1_000_000},  # signed for 1 USDC, posted as the 2.50 stake
        {"to": "stranger"},  # signed to pay the stranger, not the treasury
        {"nonce": "0x" + "ab" * 32},  # signed for another nonce than this guess's commitment
    ],
    ids=["another amount", "another recipient", "another nonce"],
)
def test_the_payers_signature_of_anything_else_is_refused(api, chain, draft, change):
    d = draft(stake="2.5")
    if change.get("to") == "stranger":
        change = {"to": chain.w3.eth.accounts[6]}
    signed = sign(chain, d, **change)  # the payer's own, valid signature, of another payment
    assert_refused(post(api, claim_body(d, signed)), "invalid_authorization")


def test_the_payers_authorization_under_a_strangers_guess_is_refused_and_the_payer_still_claims(api, chain, draft):
    """From the mempool, where the relayer's transaction shows it, a stranger learns the signature
    and posts it with a guess of their own (their text and salt: another commitment, so another
    nonce than the one the payer signed)."""
    d = draft()
    signed = sign(chain, d)
    stranger = post(api, claim_body(d, signed, submissionText="48.8584, 2.2945", submissionSalt=new_salt()))
    assert_refused(stranger, "invalid_authorization")
    same_text = post(api, claim_body(d, signed, submissionSalt=new_salt()))  # the guess known, not the salt
    assert_refused(same_text, "invalid_authorization")
    naming_himself = post(api, claim_body(d, signed, submitterAddress=chain.w3.eth.accounts[6]))
    assert_refused(naming_himself, "invalid_authorization")
    mine = post(api, claim_body(d, signed))
    assert mine.status_code == 201, mine.content
    assert Response.objects.get().commitment == d.commitment


@pytest.mark.parametrize(
    ("valid_after", "valid_before"),
    [
        (0, -10),  # expired ten seconds ago
        (0, 30),  # valid for 30 s more: less than RELAY_MIN_REMAINING_SECONDS to relay it
        (0, 1800 + 60 + 30),  # valid for longer than Geopoem accepts (30 min, plus 60 s of slack)
        (120, 1800),  # not valid before two minutes from now
    ],
    ids=["expired", "too short", "too long", "not yet valid"],
)
def test_an_authorization_outside_the_window_is_refused(api, chain, draft, valid_after, valid_before):
    now = int(time.time())
    d = draft()
    signed = sign(chain, d, valid_after=now + valid_after if valid_after else 0, valid_before=now + valid_before)
    assert_refused(post(api, claim_body(d, signed)), "authorization_window")


def test_the_edges_of_the_window_are_accepted(api, chain, draft, settings):
    """30 minutes and the 60 s of slack, and the 60 s a relay needs, each to the second (the POST
    runs within the same second or two as the signing: a margin of 5 s)."""
    now = int(time.time())
    for valid_before in (now + 1800 + 60 - 5, now + settings.RELAY_MIN_REMAINING_SECONDS + 5):
        d = draft()
        answer = post(api, claim_body(d, sign(chain, d, valid_before=valid_before)))
        assert answer.status_code == 201, answer.content


def test_a_cancelled_authorization_is_refused(api, chain, draft):
    d = draft()
    signed = sign(chain, d)
    chain.cancel_authorization(signer=d.address, nonce="0x" + d.commitment)  # the payer voids it
    assert chain.authorization_used(d.address, "0x" + d.commitment)
    assert_refused(post(api, claim_body(d, signed)), "authorization_cancelled")


def test_a_flood_from_a_wallet_without_usdc_stores_nothing(chain, draft):
    """Fifty validly signed authorizations, each for its own guess, from a wallet that holds ETH but
    no USDC, posted from fifty client addresses (so the per-client throttle does not stop them).
    Each is refused insufficient_balance and nothing is stored. The relayer only ever sends the
    authorizations of stored claims whose relay is queued (chain/relayer.py), so it never spends
    gas on one of these: there is nothing for it to send, and no row to fail."""
    empty = Account.from_key("0x" + secrets.token_hex(32))
    codes = []
    for index in range(50):
        d = draft(address=empty.address, text=f"{index % 80}.5, {index % 170}.25")
        signed = sign(chain, d, key=empty.key.hex())
        answer = post(Client(REMOTE_ADDR=f"10.1.{index // 250}.{index % 250 + 1}"), claim_body(d, signed))
        codes.append((answer.status_code, answer.json().get("code")))
    assert codes == [(422, "insufficient_balance")] * 50
    assert not Response.objects.exists()


def test_a_wallet_short_of_the_stake_by_one_unit_is_refused_and_with_it_is_taken(api, chain, draft):
    payer = Account.from_key("0x" + secrets.token_hex(32))
    mint(chain.w3, chain.usdc, payer.address, 2_499_999, sender=chain.deployer)
    d = draft(address=payer.address, stake="2.5")
    signed = sign(chain, d, key=payer.key.hex())
    assert_refused(post(api, claim_body(d, signed)), "insufficient_balance")
    mint(chain.w3, chain.usdc, payer.address, 1, sender=chain.deployer)
    assert post(api, claim_body(d, signed)).status_code == 201


def test_an_authorization_the_token_would_refuse_for_another_reason_is_refused(api, chain, draft):
    """The signature recovers the payer, but the payer's address holds code (a smart account, or an
    EOA that delegated by EIP-7702): the token then asks that code (EIP-1271) instead of recovering
    the key, and this code accepts nothing. The simulated relay reverts: the relayer could never
    send it, so it is refused at once (as a token's blacklist would be)."""
    payer = Account.from_key("0x" + secrets.token_hex(32))
    mint(chain.w3, chain.usdc, payer.address, 10 * 10**6, sender=chain.deployer)
    d = draft(address=payer.address)
    signed = sign(chain, d, key=payer.key.hex())
    chain.w3.provider.make_request("anvil_setCode", [payer.address, "0x00"])  # STOP: answers nothing
    assert_refused(post(api, claim_body(d, signed)), "invalid_authorization")


def test_a_stranger_cannot_put_a_claim_in_a_players_list(api, chain, draft):
    """Every claim naming the player that a stranger can make is refused, so none is listed; the
    player's own authorization claim is listed at once."""
    d = draft()
    signed = sign(chain, d)
    forged = sign(chain, d, key="0x" + secrets.token_hex(32))
    stranger = chain.w3.eth.accounts[6]
    for body in (
        claim_body(d, forged),
        claim_body(d, signed, submissionSalt=new_salt()),
        claim_body(d, sign(chain, draft(address=stranger)), submitterAddress=d.address),
    ):
        assert post(api, body).status_code == 422
    assert api.get("/api/responses", {"address": d.address}).json() == []
    mine = post(api, claim_body(d, signed)).json()
    assert [c["id"] for c in api.get("/api/responses", {"address": d.address}).json()] == [mine["id"]]


def test_someone_submitting_the_payers_authorization_first_only_pays_the_payers_stake(api, chain, draft):
    """A stranger who takes the authorization from the mempool and submits it himself pays the
    payer's stake for the payer's guess; his claims of it are refused, the payer's is stored."""
    d = draft()
    signed = sign(chain, d)
    stranger = chain.w3.eth.accounts[6]
    before = chain.balance(chain.treasury)
    submit(chain, d, signed, sender=stranger)
    assert chain.balance(chain.treasury) - before == int(d.stake * 10**6)
    assert_refused(post(api, claim_body(d, signed, submissionSalt=new_salt())), "invalid_authorization")
    mine = post(api, claim_body(d, signed))
    assert mine.status_code == 201 and mine.json()["authorization"]["relayStatus"] == "not_needed"
