"""Each way the site can misreport a game the pot holds is a DIFFERENCE for a stranger's verifier: a
game played through the real site on anvil, then the site's data changed as a dishonest operator with
the database and the settings would change it, and both verifiers run on it as a player runs them
(verify_challenge.py and the page's, chain/tests/verify/verifier_support.py). Each case asserts the
DIFFERENCE line of the check that must catch it, and that both found the same differences."""

from __future__ import annotations

from datetime import timedelta

import pytest

from challenges.models import Challenge, PotState
from config.public_cache import public_answers_mark_stale
from responses.models import Guess, Stake

from .verifier_support import (
    GIZA,
    assert_both_differ,
    assert_both_reproduced,
    play,
    record_of,
    verify_both,
    write_record,
)

pytestmark = pytest.mark.integration

OTHER_POT = "0x1111111111111111111111111111111111111111"


def changed(model, **filters):
    """A queryset to update, then the site's public answers made stale, as any write of the site's does."""
    public_answers_mark_stale()
    return model.objects.filter(**filters)


def test_a_site_that_names_another_pot(chain, make_challenge, api, site, settings):
    game = play(chain, make_challenge, api)
    settings.POT_ADDRESS = OTHER_POT
    assert_both_differ(
        verify_both(site, chain, game.challenge),
        f"DIFFERENCE: the site names the pot {OTHER_POT}; the pot checked is {chain.pot.lower()}",
    )


def test_without_pot_the_verifier_checks_the_pinned_pot_not_the_sites(chain, make_challenge, api, site):
    """The chain's pin is the local pot, not this test's: the site's pot is another pot for the verifier,
    and the pinned one never opened this challenge."""
    import verify_challenge

    game = play(chain, make_challenge, api)
    pinned = verify_challenge.PINNED_POTS[chain.w3.eth.chain_id][0].lower()
    result = verify_both(site, chain, game.challenge, pinned=True)
    assert_both_differ(
        result,
        f"the site names the pot {chain.pot.lower()}; the pot checked is {pinned}",
        f"challenge {game.challenge.pk} was never opened in the pot {pinned}",
    )


def test_the_poem_edited_after_the_open(chain, make_challenge, api, site):
    game = play(chain, make_challenge, api)
    changed(Challenge, pk=game.challenge.pk).update(poem_text="<p>Another poem, written after the stakes</p>")
    assert_both_differ(
        verify_both(site, chain, game.challenge),
        "DIFFERENCE: terms: the site's title, poem and instructions hash to",
        "what the site shows is not what was opened",
    )


def test_the_threshold_the_site_shows_is_not_the_pots(chain, make_challenge, api, site):
    game = play(chain, make_challenge, api)
    changed(Challenge, pk=game.challenge.pk).update(proximity_threshold_m=5_000)
    assert_both_differ(
        verify_both(site, chain, game.challenge),
        "DIFFERENCE: terms: the site shows the threshold 5000; the pot's is 150",
    )


def test_the_close_the_site_shows_is_not_the_pots(chain, make_challenge, api, site):
    game = play(chain, make_challenge, api)
    closes_at = game.challenge.closes_at
    assert closes_at is not None
    changed(Challenge, pk=game.challenge.pk).update(closes_at=closes_at + timedelta(hours=2))
    assert_both_differ(
        verify_both(site, chain, game.challenge),
        f"DIFFERENCE: terms: the site shows the close {int(closes_at.timestamp()) + 7200}; "
        f"the pot's is {int(closes_at.timestamp())}",
    )


@pytest.mark.parametrize("edit", ["text", "salt"])
def test_a_published_guess_that_does_not_open_its_stake(chain, make_challenge, api, site, edit):
    game = play(chain, make_challenge, api)
    stake = game.stakes[0]  # stake 1, wrong: the site publishes another point or salt for it
    guesses = changed(Guess, challenge=game.challenge, commitment=stake.commitment)
    if edit == "text":
        guesses.update(text=GIZA, lat_e6=29979175, lon_e6=31134258)
    else:
        guesses.update(salt="ab" * 32)
    assert_both_differ(
        verify_both(site, chain, game.challenge),
        "DIFFERENCE stake 1: the guess the site published (",
        "does not open its commitment",
    )


def test_a_correct_guess_the_site_held_and_did_not_reveal(chain, make_challenge, api, site, monkeypatch):
    """The worker's reveal step skips stake 2 (correct, the earliest): on chain stake 3 wins both."""
    game = play(chain, make_challenge, api, monkeypatch=monkeypatch, held={2})
    state = PotState.objects.get(challenge=game.challenge)
    assert (state.earliest_seq, state.highest_seq) == (3, 3), "the pot never saw stake 2's guess"
    assert_both_differ(
        verify_both(site, chain, game.challenge),
        "DIFFERENCE stake 2: the site held this guess and did not reveal it: 29.979, 31.134 is correct and would "
        "have won the earliest prize",
    )


@pytest.mark.parametrize("units", [16_000_000, 14_000_000])
def test_a_staked_sum_inflated_or_deflated(chain, make_challenge, api, site, units):
    game = play(chain, make_challenge, api)
    changed(PotState, challenge=game.challenge).update(staked_units=units)
    assert_both_differ(
        verify_both(site, chain, game.challenge),
        f"DIFFERENCE: stakes: the site shows 3 stakes of {units / 10**6:.6f} USDC; the pot holds 3 stakes of "
        "15.000000 USDC",
    )


def test_a_listed_stake_that_is_not_on_chain(chain, make_challenge, api, site):
    game = play(chain, make_challenge, api)
    first = Stake.objects.get(challenge=game.challenge, seq=1)
    public_answers_mark_stale()
    Stake.objects.create(
        challenge=game.challenge,
        seq=4,
        payer=first.payer,
        amount_units=50_000_000,
        commitment="cd" * 32,
        transaction_hash="0x" + "ef" * 32,
        block_number=first.block_number,
        block_hash=first.block_hash,
        log_index=first.log_index + 1,
        block_time=first.block_time,
    )
    assert_both_differ(
        verify_both(site, chain, game.challenge),
        f"DIFFERENCE: stakes: the site lists a stake #4 of 50.000000 USDC from {first.payer} "
        f"(transaction 0x{'ef' * 32}) that is not in the pot",
    )


def test_a_winners_answer_that_is_not_the_chains(chain, make_challenge, api, site):
    game = play(chain, make_challenge, api)
    changed(PotState, challenge=game.challenge).update(earliest_seq=3)
    assert_both_differ(
        verify_both(site, chain, game.challenge),
        "DIFFERENCE: winners: the site names stake 3 the earliest winner; the pot's is stake 2",
    )


def test_a_record_of_a_stake_that_was_paid(chain, make_challenge, api, site, tmp_path):
    game = play(chain, make_challenge, api)
    record = write_record(tmp_path, record_of(site, chain, game, 2))
    result = verify_both(site, chain, game.challenge, record)
    assert_both_reproduced(result)
    assert result.says("record: your stake 2 of 3.000000 USDC is in the pot, and your guess opens it")
    assert result.says("record: your guess is correct; it won the earliest prize, paid 6.000000 USDC")


def test_a_record_whose_winning_stake_was_never_revealed(chain, make_challenge, api, site, tmp_path):
    """Player 2's guess never reached the site and nobody revealed it: the pot paid stake 3 both prizes."""
    game = play(chain, make_challenge, api, secret={2})
    record = write_record(tmp_path, record_of(site, chain, game, 2))
    result = verify_both(site, chain, game.challenge, record)
    assert_both_differ(
        result,
        "DIFFERENCE stake 2: record: your correct guess was never revealed on chain and would have won the "
        "earliest prize (the site did not have it)",
    )
    # Without the record a stranger cannot know the guess: nothing else differs.
    assert len(result.differences()) == 1
