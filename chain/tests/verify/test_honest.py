"""An honest game through the real site reproduces, for both verifiers."""

from __future__ import annotations

import pytest

from .verifier_support import assert_reproduced, play, verify

pytestmark = pytest.mark.integration


def test_an_honest_game_reproduces(chain, make_challenge, api, site):
    game = play(chain, make_challenge, api)
    result = verify(site, chain, game.challenge)
    assert_reproduced(result)
    assert result.last_line == "3 of 3 outcomes reproduced"
