"""An honest game through the real site reproduces, for both verifiers, with a player's record too."""

from __future__ import annotations

import pytest

from .verifier_support import assert_both_reproduced, play, record_of, verify_both, write_record

pytestmark = pytest.mark.integration


def test_an_honest_game_reproduces(chain, make_challenge, api, site, tmp_path):
    game = play(chain, make_challenge, api)
    result = verify_both(site, chain, game.challenge, write_record(tmp_path, record_of(site, chain, game, 3)))
    assert_both_reproduced(result)
    assert result.script.last_line == "3 of 3 outcomes reproduced"
    assert result.says("winners final: earliest stake 2, highest stake 3")
    assert result.says("record: your stake 3 of 7.000000 USDC is in the pot, and your guess opens it")
    assert [(s["seq"], s["guess"], s["outcome"].split(";")[0]) for s in result.page["stakes"]] == [
        (1, "48.8584, 2.2945", "incorrect, not revealed"),
        (2, "29.979, 31.134", "correct, revealed"),
        (3, "29.979, 31.134", "correct, revealed"),
    ]
