"""The reorg re-check leaves a claim whose block is still canonical alone (a mutation run found that
no test said so: with the block test inverted, every recent confirmed claim went back to pending)."""

from decimal import Decimal

import pytest

from chain.reorgs import confirmed_recheck
from chain.verification import payment_verify
from challenges.models import Challenge
from responses.models import ResponseStatus

from .conftest import post_claim

pytestmark = pytest.mark.django_db


def test_a_confirmed_claim_on_the_canonical_chain_stays_confirmed(chain, draft):
    d = draft()
    tx = chain.pay(chain.stake_calldata(d))
    chain.mine(1)
    response = post_claim(d, tx)
    assert payment_verify(response_id=response.pk).status == ResponseStatus.CONFIRMED
    chain.mine(2)
    assert confirmed_recheck() == []
    response.refresh_from_db()
    assert response.status == ResponseStatus.CONFIRMED and response.reorged_at is None
    assert Challenge.objects.get(pk=d.challenge.pk).staked_sum == Decimal("2.5")
