"""Both verifiers on the pot's two other endings, through the real site: no correct guess (every stake
refunded, the bond back to the share receiver) and an abort (the solution never revealed: every stake
refunded with a share of the bond, docs/protocol.md section 2, "Settlement")."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from chain.pot import steps
from config.public_cache import public_answers_mark_stale
from responses.models import PotPayment

from ..pot_support import relay, settle, sign_stake
from .verifier_support import FAR, GIZA, assert_both_differ, assert_both_reproduced, verify_both

pytestmark = pytest.mark.integration

BOND = Decimal("2")


def staked_game(chain, make_challenge, api):
    """Bonded, opened, and three wrong guesses staked and sent (5, 3 and 7 USDC)."""
    token = chain.token()
    chain.send({"from": chain.deployer, "to": chain.usdc, "data": token.encode_abi("mint", [chain.operator, 10**8])})
    challenge = make_challenge(solution=GIZA, threshold=150, closes_at=timezone.now() + timedelta(hours=1), bond=BOND)
    for player, stake in ((0, "5"), (1, "3"), (2, "7")):
        signed = sign_stake(chain, challenge, player=player, text=FAR, stake=stake)
        assert api.post("/api/responses", signed.body(challenge.pk), format="json").status_code == 201
        relay()
    chain.mine(2)
    settle(chain)
    return challenge


def settled_game(chain, make_challenge, api):
    """staked_game past its close and its deadlines, the worker run until the pot owes nothing."""
    challenge = staked_game(chain, make_challenge, api)
    chain.warp(3_600 + 60)
    settle(chain)
    chain.warp(86_400 + 60)
    settle(chain)
    assert chain.pot_contract().functions.owed().call() == 0
    return challenge


def test_no_correct_guess_refunds_every_stake_and_returns_the_bond(chain, make_challenge, api, site):
    challenge = settled_game(chain, make_challenge, api)
    result = verify_both(site, chain, challenge)
    assert_both_reproduced(result)
    assert result.says("payments: 1 payment and 3 refunds made by the rules")
    assert result.says("winners final: earliest none, highest none")

    # A refund the site does not list is a difference.
    public_answers_mark_stale()
    refund = PotPayment.objects.filter(challenge=challenge, kind="refund", seq=2).get()
    refund.delete()
    assert_both_differ(
        verify_both(site, chain, challenge),
        f"DIFFERENCE: payments: the site does not list the pot's refund of stake 2 of 3.000000 USDC to {refund.to}",
    )


def test_an_abort_refunds_every_stake_with_its_share_of_the_bond(chain, make_challenge, api, site, monkeypatch):
    """The worker never reveals the solution; after its deadline each stake is refunded with
    bondLeft x stake / potLeft of the bond: 2 USDC over 15 USDC of stakes."""
    monkeypatch.setattr(steps, "_reveal_solution", lambda challenge: [])
    challenge = settled_game(chain, make_challenge, api)
    result = verify_both(site, chain, challenge)
    assert_both_reproduced(result)
    assert result.says("payments: aborted (the solution was not revealed by its deadline)")
    assert result.says("winners: the solution is not revealed on chain; nothing is scored yet")
    refunds = sorted(
        (p.seq, int(p.amount_units), int(p.bond_units)) for p in PotPayment.objects.filter(challenge=challenge)
    )
    assert sum(bond for _, _, bond in refunds) == 2_000_000
    assert [s["outcome"].split(";")[1].strip().split(" (")[0] for s in result.page["stakes"]] == [
        f"refunded {Decimal(amount + bond).scaleb(-6):.6f} USDC" for _, amount, bond in refunds
    ]
