"""The page's verifier ("Verify every outcome", frontend/src/lib/verify/) on the same games through the
real site as verify_challenge.py (chain/tests/verify/test_differences.py): it reproduces the honest game
and finds the same differences. Bundled once by esbuild and run under node
(chain/tests/verify/verifier_support.py, run_page_verifier)."""

from __future__ import annotations

import pytest

from challenges.models import Challenge, PotState
from config.public_cache import public_answers_mark_stale
from responses.models import Guess

from .verifier_support import GIZA, play, record_of, run_page_verifier, write_record

pytestmark = pytest.mark.integration


def differences(report: dict, *expected: str) -> None:
    assert report["ok"] is False, report
    text = "\n".join(report["differences"])
    for needle in expected:
        assert needle in text, (needle, report["differences"])


def test_the_page_reproduces_an_honest_game(chain, make_challenge, api, site, tmp_path):
    game = play(chain, make_challenge, api)
    report = run_page_verifier(site, chain, game.challenge, write_record(tmp_path, record_of(site, chain, game, 3)))
    assert report["ok"] is True, report["differences"]
    assert (report["total"], report["reproduced"]) == (3, 3)
    assert "winners final: earliest stake 2, highest stake 3" in report["lines"]
    assert "record: your stake 3 of 7.000000 USDC is in the pot, and your guess opens it" in report["lines"]
    assert [(s["seq"], s["guess"], s["outcome"].split(";")[0]) for s in report["stakes"]] == [
        (1, "48.8584, 2.2945", "incorrect, not revealed"),
        (2, "29.979, 31.134", "correct, revealed"),
        (3, "29.979, 31.134", "correct, revealed"),
    ]


def test_the_page_finds_a_site_that_names_another_pot(chain, make_challenge, api, site, settings):
    game = play(chain, make_challenge, api)
    settings.POT_ADDRESS = "0x1111111111111111111111111111111111111111"
    differences(
        run_page_verifier(site, chain, game.challenge),
        f"DIFFERENCE: the site names the pot 0x1111111111111111111111111111111111111111; the pot checked is "
        f"{chain.pot.lower()}",
    )


def test_the_page_finds_the_poem_and_threshold_edited(chain, make_challenge, api, site):
    game = play(chain, make_challenge, api)
    public_answers_mark_stale()
    Challenge.objects.filter(pk=game.challenge.pk).update(poem_text="<p>Another</p>", proximity_threshold_m=5_000)
    differences(
        run_page_verifier(site, chain, game.challenge),
        "DIFFERENCE: terms: the site's title, poem and instructions hash to",
        "DIFFERENCE: terms: the site shows the threshold 5000; the pot's is 150",
    )


def test_the_page_finds_a_published_guess_that_does_not_open_its_stake(chain, make_challenge, api, site):
    game = play(chain, make_challenge, api)
    public_answers_mark_stale()
    Guess.objects.filter(commitment=game.stakes[0].commitment).update(text=GIZA, lat_e6=29979175, lon_e6=31134258)
    differences(
        run_page_verifier(site, chain, game.challenge),
        "DIFFERENCE stake 1: the guess the site published (29.979175, 31.134258, salt",
    )


def test_the_page_finds_a_guess_the_site_held_back(chain, make_challenge, api, site, monkeypatch):
    game = play(chain, make_challenge, api, monkeypatch=monkeypatch, held={2})
    differences(
        run_page_verifier(site, chain, game.challenge),
        "DIFFERENCE stake 2: the site held this guess and did not reveal it: 29.979, 31.134 is correct and would "
        "have won the earliest prize",
    )


def test_the_page_finds_a_staked_sum_and_winners_that_are_not_the_pots(chain, make_challenge, api, site):
    game = play(chain, make_challenge, api)
    public_answers_mark_stale()
    PotState.objects.filter(challenge=game.challenge).update(staked_units=16_000_000, earliest_seq=3)
    differences(
        run_page_verifier(site, chain, game.challenge),
        "DIFFERENCE: stakes: the site shows 3 stakes of 16.000000 USDC; the pot holds 3 stakes of 15.000000 USDC",
        "DIFFERENCE: winners: the site names stake 3 the earliest winner; the pot's is stake 2",
    )
