"""The dishonest operator (BRIEF: "Every cheat above, as a test on anvil"), with the operator's key,
the relayer's key and the database: what the pot makes impossible, each tried.

- its key cannot move a stake: the pot's only owner function is `open`;
- it cannot open an id twice or change an opened challenge's terms, and `open` refuses trap terms
  exactly where the site's publish does (challenges/terms.py);
- the site never learns a guess before its stake is confirmed;
- its relayer delaying a signed stake past the close only makes it revert, and the player can send it
  first;
- a winning guess it holds back is revealed by the player, and paid by the pot to the player.

What the chain cannot stop (the site publishing a guess other than the one the player committed, or
not revealing a winner it holds) is a DIFFERENCE for a stranger's verifier (verify_challenge.py's
tests), not tested here."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from chain.pot import abi
from chain.pot.opening import OpeningPending, opening_advance
from challenges.models import OpeningStatus, PotOpening
from challenges.services import challenge_create, challenge_publish
from challenges.terms import Terms, TermsError, terms_check
from responses.models import Guess, SignedStake

from ..conftest import OPERATOR_KEY, RELAYER_KEY
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

pytestmark = pytest.mark.integration

GIZA = "29.979175, 31.134258"
NEAR = "29.979, 31.134"
HOUR, DAY = 3_600, 86_400


@pytest.fixture(autouse=True)
def _no_throttle(monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"response_create": "1000000/min"})


def staked(chain, challenge, api, **kwargs):
    signed = sign_stake(chain, challenge, **kwargs)
    assert post(api, challenge, signed).status_code == 201
    relay()
    chain.mine(2)
    follow()
    return signed


def test_the_operators_key_opens_challenges_and_can_move_no_stake(chain, make_challenge, api):
    challenge = make_challenge(solution=GIZA, closes_at=timezone.now() + timedelta(hours=1))
    signed = staked(chain, challenge, api, player=0, text=NEAR, stake="40")
    assert post_guess(api, challenge, signed).status_code == 201
    pot = chain.pot_contract().functions
    assert pot.owner().call() == chain.operator
    before = (chain.balance(chain.pot), chain.balance(chain.operator))
    commitment = bytes.fromhex(signed.commitment)
    payer = chain.w3.to_checksum_address(signed.payer)
    tries = {
        "refund": pot.refund(challenge.pk, 1, payer, signed.amount, commitment),
        "payPrize": pot.payPrize(challenge.pk, 0, payer, signed.amount, commitment),
        "payShare": pot.payShare(challenge.pk),
        "sweep": pot.sweep(),
        "finalize": pot.finalize(challenge.pk),
    }
    for name, call in tries.items():
        receipt = send_as(chain, OPERATOR_KEY, to=chain.pot, data=call._encode_transaction_data())
        assert receipt["status"] == 0, name
    # Nor through the token: the pot approves nobody.
    pull = chain.token().functions.transferFrom(chain.pot, chain.operator, 1)._encode_transaction_data()
    assert send_as(chain, OPERATOR_KEY, to=chain.usdc, data=pull)["status"] == 0
    assert (chain.balance(chain.pot), chain.balance(chain.operator)) == before
    # The whole game runs with the relayer's key; the operator's sent the `open` and nothing else.
    chain.warp(HOUR + 60)
    settle(chain)
    chain.warp(DAY + 60)
    settle(chain)
    assert pot_state(chain, challenge)["earliestPaid"] and chain.balance(chain.pot) == 0
    assert chain.w3.eth.get_transaction_count(chain.operator) == 1 + len(tries) + 1  # open, the tries above


def test_an_opened_challenge_is_opened_once_and_trap_terms_are_refused_as_at_publish(chain, make_challenge, db):
    challenge = make_challenge()
    opened, digest = chain.pot_contract().functions.termsOf(challenge.pk).call()
    terms = Terms(**challenge.opening.terms)
    other = replace(terms, threshold_m=20_000_000)
    receipt = send_as(chain, OPERATOR_KEY, to=chain.pot, data=abi.open_data(challenge_id=challenge.pk, terms=other))
    assert receipt["status"] == 0 and refusal_of(chain, receipt).detail == "AlreadyOpened"
    assert chain.pot_contract().functions.termsOf(challenge.pk).call() == [opened, digest]
    # Trap terms: the pot refuses what the site's publish refuses, by the same bounds.
    now = chain.head_time() + 60
    fresh = replace(terms, opens_at=now - 10, closes_at=now + HOUR, solution_deadline=now + 2 * HOUR, guess_window=HOUR)
    cases = [
        ({}, None),
        ({"closes_at": now - 20, "solution_deadline": now + HOUR}, "CloseNotAfterOpen"),
        ({"opens_at": now - 90 * DAY, "closes_at": now + 1}, "OpenTooLong"),
        ({"solution_deadline": now + HOUR}, "SolutionDeadlineOutOfRange"),
        ({"solution_deadline": now + HOUR + 30 * DAY + 1}, "SolutionDeadlineOutOfRange"),
        ({"guess_window": HOUR - 1}, "GuessWindowOutOfRange"),
        ({"guess_window": 30 * DAY + 1}, "GuessWindowOutOfRange"),
        ({"min_stake": 999_999}, "MinimumStakeTooLow"),
        ({"threshold_m": 20_015_086}, "ThresholdTooLarge"),
        ({"threshold_m": 20_015_085, "guess_window": 30 * DAY, "solution_deadline": now + HOUR + 30 * DAY}, None),
    ]
    for n, (changes, error) in enumerate(cases):
        candidate = replace(fresh, **changes)
        with pytest.raises(TermsError) if error else _nothing():
            terms_check(candidate, now=now)
        data = abi.open_data(challenge_id=10_000 + n, terms=candidate)
        receipt = send_as(chain, OPERATOR_KEY, to=chain.pot, data=data)
        assert receipt["status"] == (0 if error else 1), (changes, error)
        if error:
            assert refusal_of(chain, receipt).detail == error


def test_the_site_refuses_a_challenge_whose_id_the_pot_holds_with_other_terms(chain, db, settings):
    """The operator opens a draft's id first with other terms (a threshold of 20,000 km): the first
    open of an id wins, so the site's own open fails and the challenge never takes a stake."""
    draft = challenge_create(poem_title="Front-run", poem_text="<p>A poem</p>", proximity_threshold_m=150,
                             solution=GIZA, closes_at=timezone.now() + timedelta(hours=1))  # fmt: skip
    now = chain.head_time() + 60
    rogue = Terms(solution_commitment="ab" * 32, terms_hash="cd" * 32, threshold_m=20_000_000, opens_at=now - 10,
                  closes_at=now + HOUR, solution_deadline=now + 2 * HOUR, guess_window=HOUR, min_stake=1_000_000,
                  bond=0)  # fmt: skip
    assert send_as(chain, OPERATOR_KEY, to=chain.pot, data=abi.open_data(challenge_id=draft.pk, terms=rogue))["status"]
    challenge = challenge_publish(challenge=draft)
    with pytest.raises(OpeningPending):
        opening_advance(challenge_id=challenge.pk)
    chain.mine(2)
    follow()
    opening = PotOpening.objects.get(challenge=challenge)
    # The site's simulation of its own open meets AlreadyOpened (chain/pot/opening.py); had the open gone
    # out, the follower would fail it on the Opened event's other terms (chain/pot/projection.py).
    assert opening.status == OpeningStatus.FAILED and "AlreadyOpened" in opening.last_error
    from rest_framework.test import APIClient

    assert APIClient().get(f"/api/challenges/{challenge.pk}").status_code == 404


def test_the_site_holds_no_guess_until_its_stake_is_confirmed(chain, make_challenge, api):
    challenge = make_challenge(solution=GIZA)
    signed = sign_stake(chain, challenge, player=0, text="12.345678, 98.765432")
    assert post(api, challenge, signed).status_code == 201
    relay()
    follow()  # in the pot, one block deep: pending

    def everything() -> str:
        out = io.StringIO()
        call_command("dumpdata", stdout=out)
        return out.getvalue()

    secrets_ = (signed.salt, signed.text, "12.345678", "98.765432", str(signed.lat_e6), str(signed.lon_e6))
    dump = everything()
    assert not any(secret in dump for secret in secrets_)
    early = post_guess(api, challenge, signed)
    assert (early.status_code, early.json()["code"]) == (409, "stake_not_confirmed")
    assert not Guess.objects.exists() and not any(secret in everything() for secret in secrets_)
    chain.mine(1)
    follow()
    assert post_guess(api, challenge, signed).status_code == 201
    assert signed.salt in everything()  # now, and only now, the site holds it


def test_a_delayed_signed_stake_reverts_after_the_close_and_the_player_can_send_it_first(
    chain, make_challenge, api, settings
):
    challenge = make_challenge(closes_at=timezone.now() + timedelta(hours=1))
    settings.RELAY_ENABLED = False  # the operator's relay holds the stakes back...
    held, sent_first = (sign_stake(chain, challenge, player=n) for n in range(2))
    for one in (held, sent_first):
        assert post(api, challenge, one).status_code == 201
    # ...one player sends theirs from their own wallet meanwhile ("Send it yourself"),
    assert send_as(chain, sent_first.key, to=chain.pot, data=stake_call(challenge.pk, sent_first))["status"] == 1
    before = {who: chain.balance(who) for who in (held.payer, chain.pot, chain.relayer, chain.operator)}
    chain.warp(HOUR)
    # ...and the operator sends the other, with the signature from its database, after the close.
    row = SignedStake.objects.get(commitment=held.commitment)
    assert row.signature == held.signature
    receipt = send_as(chain, RELAYER_KEY, to=chain.pot, data=stake_call(challenge.pk, held))
    assert receipt["status"] == 0 and refusal_of(chain, receipt).code == "challenge_closed"
    assert {who: chain.balance(who) for who in before} == before
    assert pot_state(chain, challenge)["stakeCount"] == 1


def test_a_winning_guess_the_site_holds_back_is_revealed_and_paid_to_its_player(chain, make_challenge, api, settings):
    """The site holds the winning guess and reveals nothing (no relayer at all); the player reveals it
    from their own wallet within the guess window; a stranger finalizes and pays: the prize goes to
    the player, never to the caller."""
    challenge = make_challenge(solution=GIZA, closes_at=timezone.now() + timedelta(hours=1))
    winner = staked(chain, challenge, api, player=0, text=NEAR, stake="10")
    staked(chain, challenge, api, player=1, text="48.8584, 2.2945", stake="30")
    assert post_guess(api, challenge, winner).status_code == 201
    chain.warp(HOUR + 60)
    settle(chain)  # the worker reveals the solution (the operator could too: it holds it)
    assert pot_state(chain, challenge)["guessDeadline"]
    settings.RELAYER_KEY = ""  # from here the site sends nothing: the winner it holds stays unrevealed
    Guess.objects.all().delete()
    before = chain.balance(winner.payer)
    reveal = abi.reveal_guess_data(challenge_id=challenge.pk, seq=1, payer=winner.payer, amount=winner.amount,
                                   lat_e6=winner.lat_e6, lon_e6=winner.lon_e6, salt=winner.salt)  # fmt: skip
    assert send_as(chain, winner.key, to=chain.pot, data=reveal)["status"] == 1
    chain.warp(DAY + 60)
    stranger_key = chain.players[5][1]
    pot = chain.pot_contract().functions
    payer = chain.w3.to_checksum_address(winner.payer)
    for call in (
        pot.finalize(challenge.pk),
        pot.payPrize(challenge.pk, 0, payer, winner.amount, bytes.fromhex(winner.commitment)),
        pot.payPrize(challenge.pk, 1, payer, winner.amount, bytes.fromhex(winner.commitment)),
        pot.payShare(challenge.pk),
    ):
        assert send_as(chain, stranger_key, to=chain.pot, data=call._encode_transaction_data())["status"] == 1
    prize = 40_000_000 * 40 // 100
    assert chain.balance(winner.payer) - before == 2 * prize
    state = pot_state(chain, challenge)
    assert (state["earliestSeq"], state["highestSeq"], state["earliestPaid"], state["highestPaid"]) == (
        1,
        1,
        True,
        True,
    )


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
