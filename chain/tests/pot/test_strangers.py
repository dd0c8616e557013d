"""A stranger who wants the money (BRIEF: "Every cheat above, as a test on anvil"), against the
contract and through the site: each attempt reverts, or never reaches the chain, and moves nothing.

- a signature copied from the mempool, used against the token directly: receiveWithAuthorization is
  the payee's (the pot's) alone, and the stake nonce binds the pot, the challenge, the commitment and
  the amount;
- the same signature sent twice: taken once;
- a copied commitment staked from another wallet: it never opens with the first player's guess;
- a relayed stake sent after the close: reverts;
- junk signed stakes from an address without USDC: refused before anything is stored;
- a guess posted for someone else's stake: refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from eth_account import Account

from chain.models import RelayTransaction
from chain.pot import abi
from responses.models import Guess, SignedStake, Stake

from ..pot_support import (
    follow,
    post,
    post_guess,
    pot_state,
    refusal_of,
    relay,
    send_as,
    settle,
    sign_stake,
    stake_call,
)
from ..relay_support import relay_status

pytestmark = pytest.mark.integration

GIZA = "29.979175, 31.134258"
STRANGER = 5  # chain.players[5]: ETH and USDC, no part in the victims' stakes


@pytest.fixture(autouse=True)
def _no_throttle(monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"response_create": "1000000/min"})


def split(signature: str) -> tuple[int, bytes, bytes]:
    raw = bytes.fromhex(signature[2:])
    return raw[64], raw[:32], raw[32:64]


def test_a_signature_copied_from_the_mempool_moves_nothing_anywhere_but_into_its_stake(chain, make_challenge, api):
    challenge = make_challenge(solution=GIZA)
    victim = sign_stake(chain, challenge, player=0, stake="50")
    other = make_challenge(title="Another challenge", solution=GIZA)
    stranger_key = chain.players[STRANGER][1]
    before = {who: chain.balance(who) for who in (victim.payer, chain.pot, chain.players[STRANGER][0])}
    v, r, s = split(victim.signature)
    nonce = bytes.fromhex(
        chain.pot_contract()
        .functions.stakeNonce(challenge.pk, bytes.fromhex(victim.commitment), victim.amount)
        .call()
        .hex()
    )
    token = chain.token()
    payer = chain.w3.to_checksum_address(victim.payer)
    attempts = {
        # The token directly: only the payee may call receiveWithAuthorization...
        "receive as a stranger": token.functions.receiveWithAuthorization(
            payer, chain.pot, victim.amount, 0, victim.valid_before, nonce, v, r, s
        ),
        # ...and the signature is of a receive, not a transfer, authorization.
        "transfer to the pot": token.functions.transferWithAuthorization(
            payer, chain.pot, victim.amount, 0, victim.valid_before, nonce, v, r, s
        ),
    }
    for what, call in attempts.items():
        receipt = send_as(chain, stranger_key, to=chain.usdc, data=call._encode_transaction_data())
        assert receipt["status"] == 0, what
    assert refusal_of(chain, send_as(chain, stranger_key, to=chain.usdc,
                                     data=attempts["receive as a stranger"]._encode_transaction_data())).detail == (
        "FiatTokenV2: caller must be the payee"
    )  # fmt: skip
    # Through the pot, aimed elsewhere: another challenge, another guess, another amount.
    elsewhere = {
        "another challenge": abi.SignedStakeCall(other.pk, victim.commitment, victim.payer, victim.amount, 0,
                                                 victim.valid_before, victim.signature),
        "another guess": abi.SignedStakeCall(challenge.pk, "ab" * 32, victim.payer, victim.amount, 0,
                                             victim.valid_before, victim.signature),
        "another amount": abi.SignedStakeCall(challenge.pk, victim.commitment, victim.payer, victim.amount * 2, 0,
                                              victim.valid_before, victim.signature),
    }  # fmt: skip
    for what, call in elsewhere.items():
        receipt = send_as(chain, stranger_key, to=chain.pot, data=abi.stake_with_authorization_data(call))
        assert receipt["status"] == 0, what
        assert refusal_of(chain, receipt).code == "invalid_authorization", what
    assert {who: chain.balance(who) for who in before} == before
    # The one thing it can do: put the victim's own stake into the pot, on the victim's terms.
    assert send_as(chain, stranger_key, to=chain.pot, data=stake_call(challenge.pk, victim))["status"] == 1
    assert chain.balance(victim.payer) == before[victim.payer] - victim.amount
    # Sent twice: taken once.
    again = send_as(chain, stranger_key, to=chain.pot, data=stake_call(challenge.pk, victim))
    assert again["status"] == 0 and refusal_of(chain, again).code == "authorization_used"
    assert pot_state(chain, challenge)["stakeCount"] == 1 and chain.balance(chain.pot) == before[chain.pot] + 50_000_000
    # The site: its own relay of the same stake is not needed, and sends nothing.
    chain.mine(1)
    follow()
    assert post(api, challenge, victim).status_code == 201
    relay()
    assert relay_status(victim) == ("not_needed", "used") and not RelayTransaction.objects.exists()
    assert Stake.objects.get(challenge=challenge).payer == victim.payer


def test_a_copied_commitment_never_opens_with_the_first_players_guess(chain, make_challenge, api):
    """The stranger stakes the victim's commitment from its own wallet (by approval) to ride on the
    victim's guess. The commitment binds the payer: the victim's guess and salt open the victim's
    stake only, on chain and at the site."""
    challenge = make_challenge(solution=GIZA, closes_at=timezone.now() + timedelta(hours=1))
    victim = sign_stake(chain, challenge, player=0, text=GIZA, stake="5")
    assert post(api, challenge, victim).status_code == 201
    relay()
    stranger, stranger_key = chain.players[STRANGER]
    approve = chain.token().functions.approve(chain.pot, 20_000_000).build_transaction({"from": stranger})["data"]
    assert send_as(chain, stranger_key, to=chain.usdc, data=approve)["status"] == 1
    copied = abi.stake_data(challenge_id=challenge.pk, commitment=victim.commitment, amount=20_000_000)
    assert send_as(chain, stranger_key, to=chain.pot, data=copied)["status"] == 1  # seq 2, 20 USDC, the same commitment
    chain.mine(2)
    follow()
    assert post_guess(api, challenge, victim).status_code == 201
    # At the site: the victim's guess and salt posted as the stranger's open nothing.
    answer = post_guess(api, challenge, victim, submitterAddress=stranger)
    assert (answer.status_code, answer.json()["code"]) == (422, "commitment_mismatch")
    assert Guess.objects.count() == 1
    chain.warp(3_600 + 60)
    for _ in range(4):  # the solution revealed: the guess window is open
        follow()
        relay()
        if pot_state(chain, challenge)["guessDeadline"]:
            break
        chain.mine(2)
    # On chain: the victim's guess against the stranger's stake, as either payer, does not open it.
    for payer in (stranger, victim.payer):
        reveal = abi.reveal_guess_data(challenge_id=challenge.pk, seq=2, payer=payer, amount=20_000_000,
                                       lat_e6=victim.lat_e6, lon_e6=victim.lon_e6, salt=victim.salt)  # fmt: skip
        receipt = send_as(chain, stranger_key, to=chain.pot, data=reveal)
        assert receipt["status"] == 0 and refusal_of(chain, receipt).detail == "GuessDoesNotOpenStake"
    settle(chain, rounds=3)
    state = pot_state(chain, challenge)
    assert (state["earliestSeq"], state["highestSeq"]) == (1, 1)  # the victim's stake wins both
    assert Stake.objects.get(challenge=challenge, seq=2).revealed_correct is None


def test_a_relayed_stake_sent_after_the_close_reverts_and_moves_nothing(chain, make_challenge, api):
    challenge = make_challenge(closes_at=timezone.now() + timedelta(hours=1))
    signed = sign_stake(chain, challenge, player=0)
    assert post(api, challenge, signed).status_code == 201  # stored; the relayer will send it
    before = (chain.balance(signed.payer), chain.balance(chain.pot))
    chain.warp(3_600)
    receipt = send_as(chain, chain.players[STRANGER][1], to=chain.pot, data=stake_call(challenge.pk, signed))
    assert receipt["status"] == 0 and refusal_of(chain, receipt).code == "challenge_closed"
    assert (chain.balance(signed.payer), chain.balance(chain.pot)) == before
    assert pot_state(chain, challenge)["stakeCount"] == 0
    follow()
    relay()  # and the site's relayer does not send it at all
    assert relay_status(signed) == ("failed", "closed") and not RelayTransaction.objects.exists()


def test_junk_stakes_from_an_address_without_usdc_are_refused_before_anything_is_stored(chain, make_challenge, api):
    challenge = make_challenge()
    for n in range(10):
        empty = "0x" + bytes([0x60 + n]).hex() * 32
        answer = post(api, challenge, sign_stake(chain, challenge, key=empty, stake="1000"))
        assert (answer.status_code, answer.json()["code"]) == (422, "insufficient_balance")
    # Random bytes for a signature, a commitment, a payer: the server's own check refuses them.
    junk = sign_stake(chain, challenge, player=0)
    answer = post(api, challenge, junk, authorization={"signature": "0x" + "ab" * 64 + "1b"})
    assert answer.status_code == 422 and answer.json()["code"] == "invalid_authorization"
    assert not SignedStake.objects.exists()
    relay()
    assert not RelayTransaction.objects.exists()  # the relayer spent nothing
    assert api.get(f"/api/responses?address={Account.from_key('0x' + '60' * 32).address}").json() == []


def test_a_guess_posted_for_someone_elses_stake_is_refused(chain, make_challenge, api):
    challenge = make_challenge(solution=GIZA)
    victim = sign_stake(chain, challenge, player=0, text=GIZA)
    assert post(api, challenge, victim).status_code == 201
    relay()
    chain.mine(2)
    follow()
    stranger = chain.players[STRANGER][0]
    for changes in (
        {"submissionText": "48.8584, 2.2945"},  # another point for the victim's stake
        {"submissionSalt": "cd" * 32},
        {"submitterAddress": stranger},  # the victim's guess as the stranger's
    ):
        answer = post_guess(api, challenge, victim, **changes)
        assert (answer.status_code, answer.json()["code"]) == (422, "commitment_mismatch"), changes
    assert not Guess.objects.exists()
    assert post_guess(api, challenge, victim).status_code == 201  # the victim's own still goes in
