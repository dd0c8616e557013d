"""The stakes' API (docs/protocol.md 3.1, 3.4) on anvil: every answer of the signed stake's POST, from
the body's rules to the chain's own refusals (the pot's and the token's, found by a simulation of the
very call the relayer would send), and what a stake shows while it is relayed, pending and confirmed,
by commitment and in its payer's list, with the ETag a page follows it by. The guess's POST (3.2):
tests/test_guesses.py, and chain/tests/pot/test_game.py through a whole game."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone
from eth_account import Account

from chain.pot import abi
from responses.models import SignedStake

from ..pot_support import follow, post, relay, send_as, sign_stake, signature_over, token_as

pytestmark = pytest.mark.integration

GIZA = "29.979175, 31.134258"
NO_USDC_KEY = "0x" + "4c" * 32


@pytest.fixture(autouse=True)
def _no_throttle(monkeypatch):
    """The 20 stakes a minute per client have their own test (tests/reliability/test_abuse.py)."""
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"response_create": "1000000/min"})


def refused(answer, code: str) -> None:
    assert answer.status_code == 422, answer.content
    assert answer.json()["code"] == code, answer.json()
    assert answer.json()["message"] and answer.json()["errors"] == {}
    assert not SignedStake.objects.exists()


def test_every_answer_of_a_signed_stakes_post(chain, make_challenge, api):
    """From the body's 400s to the 201, through each refusal that stores nothing."""
    challenge = make_challenge(solution=GIZA, closes_at=timezone.now() + timedelta(hours=1))
    signed = sign_stake(chain, challenge, player=0, stake="5")

    # 400: a guess in the body, and each malformed field, by name.
    with_guess = post(api, challenge, signed, submissionText=GIZA, submissionSalt="ab" * 32)
    assert with_guess.status_code == 400
    assert set(with_guess.json()["errors"]) == {"submissionText", "submissionSalt"}
    letter = next(i for i, c in enumerate(signed.payer) if i > 1 and c.isalpha())
    checksummed = chain.w3.to_checksum_address(signed.payer)
    flipped = checksummed[letter].swapcase()
    mixed = checksummed[:letter] + flipped + checksummed[letter + 1 :]  # one letter's case wrong
    for field, value in (
        ("challengeId", 0),
        ("submitterAddress", "0x1234"),
        ("submitterAddress", mixed),  # mixed case with a wrong checksum
        ("submissionStake", "5.005"),
        ("submissionStake", "0.99"),
        ("commitment", signed.commitment.upper()),
    ):
        answer = post(api, challenge, signed, **{field: value})
        assert answer.status_code == 400 and set(answer.json()["errors"]) == {field}, (field, answer.json())
    for field, value in (("validAfter", "0"), ("validBefore", -1), ("signature", "0x1234")):
        answer = post(api, challenge, signed, authorization={field: value})
        assert answer.status_code == 400 and set(answer.json()["errors"]) == {f"authorization.{field}"}, answer.json()
    # 404: no such challenge.
    assert post(api, challenge, signed, challengeId=challenge.pk + 1000).status_code == 404
    assert not SignedStake.objects.exists()

    # 422 invalid_authorization: not the payer's signature, or the payer's over anything else than
    # this stake.
    for changed in (
        {"key": Account.create().key.hex()},  # a forgery
        {"to": chain.share_receiver},  # another recipient than the pot
        {"amount": 3_000_000},
        {"challenge_id": challenge.pk + 1},
        {"terms_digest": "cd" * 32},
        {"commitment": "ab" * 32},
    ):
        signature = signature_over(chain, challenge, signed, **changed)
        refused(post(api, challenge, signed, authorization={"signature": signature}), "invalid_authorization")
    refused(post(api, challenge, signed, submissionStake="3.00"), "invalid_authorization")  # signed over 5
    refused(post(api, challenge, signed, commitment="ab" * 32), "invalid_authorization")

    # 422 authorization_window: expiring within a minute, valid for longer than Geopoem accepts, or
    # valid only from the future.
    now = int(time.time())
    for valid_after, valid_before in ((0, now + 30), (0, now + 1800 + 120), (now + 600, None)):
        signed_window = sign_stake(chain, challenge, player=0, valid_after=valid_after, valid_before=valid_before)
        refused(post(api, challenge, signed_window), "authorization_window")

    # 422 from the chain's simulation: the token paused, the payer blacklisted, a wallet without USDC.
    token_as(chain, "pause")
    refused(post(api, challenge, signed), "token_paused")
    token_as(chain, "unpause")
    payer = chain.w3.to_checksum_address(signed.payer)
    token_as(chain, "blacklist", payer)
    refused(post(api, challenge, signed), "payer_blacklisted")
    token_as(chain, "unBlacklist", payer)
    refused(post(api, challenge, sign_stake(chain, challenge, key=NO_USDC_KEY)), "insufficient_balance")

    # 201, then 200 for the identical stake, 409 for the same commitment with another amount.
    created = post(api, challenge, signed)
    assert created.status_code == 201, created.json()
    body = created.json()
    assert (body["id"], body["status"], body["commitment"], body["submissionStake"]) == (
        None, "relaying", signed.commitment, "5.000000",
    )  # fmt: skip
    assert body["paymentMethod"] == "authorization" and body["authorization"]["relayStatus"] == "queued"
    assert body["authorization"]["validBefore"] == signed.valid_before
    again = post(api, challenge, signed)
    assert again.status_code == 200 and again.json() == body
    seven = signature_over(chain, challenge, signed, amount=7_000_000)
    conflict = post(api, challenge, signed, submissionStake="7.00", authorization={"signature": seven})
    assert conflict.status_code == 409, conflict.json()
    assert SignedStake.objects.count() == 1

    # 409: a challenge that has closed takes no stake, whatever the signature.
    chain.warp(3_600)
    follow()
    late = post(api, challenge, sign_stake(chain, challenge, player=1))
    assert late.status_code == 409 and late.json()["message"] == "This challenge is not accepting stakes."
    assert SignedStake.objects.count() == 1


def test_a_stake_as_its_page_follows_it_relayed_pending_confirmed(chain, make_challenge, api):
    """By commitment and in the payer's list, with an ETag; a stake by approval is listed too."""
    challenge = make_challenge(solution=GIZA)
    signed = sign_stake(chain, challenge, player=0, stake="5")
    assert post(api, challenge, signed).status_code == 201
    url = f"/api/responses/{signed.commitment}"
    relaying = api.get(url)
    assert relaying.status_code == 200 and relaying["Cache-Control"] == "no-cache"
    etag = relaying["ETag"]
    assert api.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert relaying.json()["status"] == "relaying" and relaying.json()["transactionHash"] is None

    relay()
    follow()
    pending = api.get(url, HTTP_IF_NONE_MATCH=etag)
    assert pending.status_code == 200 and pending["ETag"] != etag
    shown = pending.json()
    assert (shown["status"], shown["id"]) == ("pending", 1)
    assert shown["authorization"]["relayStatus"] == "sent"
    assert shown["transactionHash"] == shown["authorization"]["relayTransactionHash"]
    receipt = chain.w3.eth.get_transaction_receipt(shown["transactionHash"])
    assert (shown["blockNumber"], shown["submissionTimestamp"]) == (
        receipt["blockNumber"], chain.w3.eth.get_block(receipt["blockNumber"])["timestamp"],
    )  # fmt: skip
    chain.mine(1)
    follow()
    confirmed = api.get(url).json()
    assert confirmed["status"] == "confirmed" and confirmed["guessReceived"] is False

    # A stake by approval from the same wallet: on chain, so listed for its payer, newest first.
    payer, key = chain.players[0]
    approve = chain.token().functions.approve(chain.pot, 2_000_000).build_transaction({"from": payer})["data"]
    assert send_as(chain, key, to=chain.usdc, data=approve)["status"] == 1
    commitment = "ee" * 32
    staked = send_as(
        chain,
        key,
        to=chain.pot,
        data=abi.stake_data(challenge_id=challenge.pk, commitment=commitment, amount=2_000_000),
    )
    assert staked["status"] == 1
    chain.mine(1)
    follow()
    listed = api.get(f"/api/responses?address={payer}").json()
    assert [(row["commitment"], row["paymentMethod"], row["status"]) for row in listed] == [
        (commitment, "approval", "confirmed"),
        (signed.commitment, "authorization", "confirmed"),
    ]
    assert listed[0]["authorization"] is None and listed[0]["id"] == 2
    # The payer's list is followed like a stake: an ETag, no-cache, 304 while nothing changed.
    answer = api.get(f"/api/responses?address={payer}")
    assert answer["Cache-Control"] == "no-cache" and answer["ETag"]
    assert api.get(f"/api/responses?address={payer}", HTTP_IF_NONE_MATCH=answer["ETag"]).status_code == 304


def test_nobody_puts_a_stake_into_another_payers_list(chain, make_challenge, api):
    """Only stakes on chain, and signed stakes whose signature the site verified as the payer's, are
    listed for an address: a stranger's POST naming the victim as payer is refused and stores
    nothing."""
    challenge = make_challenge(solution=GIZA)
    victim = chain.players[1][0]
    signed = sign_stake(chain, challenge, player=1, stake="5")
    forged = signature_over(chain, challenge, signed, key=chain.players[2][1])
    assert post(api, challenge, signed, authorization={"signature": forged}).json()["code"] == "invalid_authorization"
    junk = post(api, challenge, signed, authorization={"signature": "0x" + "1b" * 65})
    assert junk.status_code == 422
    assert api.get(f"/api/responses?address={victim}").json() == []
    assert api.get(f"/api/responses/{signed.commitment}").status_code == 404


def test_a_signature_whose_v_the_wallet_gave_as_0_or_1_is_relayed_into_the_pot(chain, make_challenge, api):
    """The server reads v 0 and 1 as 27 and 28, as some wallets write them; the relayed call must carry
    what the token's ECRecover takes, or the stake the site accepted could never be mined."""
    challenge = make_challenge(solution=GIZA)
    signed = sign_stake(chain, challenge, player=0)
    v = int(signed.signature[-2:], 16)
    low = signed.signature[:-2] + f"{v - 27:02x}"
    answer = post(api, challenge, signed, authorization={"signature": low})
    assert answer.status_code == 201, answer.json()
    relay()
    chain.mine(1)
    follow()
    assert api.get(f"/api/responses/{signed.commitment}").json()["status"] == "confirmed"
