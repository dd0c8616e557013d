"""verify_challenge.py against an operator who misstates the prizes (docs/protocol.md section 6):
a payout shown paid by a transaction that does not pay it, paid to another address than the rules
give, an operations share that should have stayed, a payout missing. The verifier, run as a player
runs it (chain/tests/verifier_support.py), ends in a DIFFERENCE and exit 1."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest

from challenges.models import Payout, PayoutKind, PayoutStatus

from .verifier_support import assert_differs, pay_out, resolve, treasury_transfer, verify

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("how", ["less", "another_address"])
def test_a_payout_recorded_paid_with_a_transaction_that_does_not_pay_it(chain, played, live_server, how):
    resolve(chain, played.challenge)
    payout = Payout.objects.get(challenge=played.challenge, kind=PayoutKind.EARLIEST)
    units = int(payout.amount * 10**6)
    if how == "less":
        tx_hash = pay_out(chain, payout, units=units - 1)
    else:
        tx_hash = pay_out(chain, payout, to=chain.deployer)
    Payout.objects.filter(pk=payout.pk).update(status=PayoutStatus.PAID, transaction_hash=tx_hash)
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"the earliest payout's transaction {tx_hash} holds no USDC Transfer of exactly {payout.amount:.6f} "
        f"from the treasury to {payout.address.lower()}",
    )
    assert "Payout earliest:" in result.stdout and ": different" in result.stdout


def test_a_payout_paid_before_resolution_is_not_this_prize(chain, played, live_server):
    """A transfer of the right amount to the winner made before the challenge was resolved (any
    earlier transfer) is not the payment of this prize."""
    payout_tx = treasury_transfer(chain, to=played.right.submitter_address, units=6_000_000)  # 40 % of 15
    mined = chain.w3.eth.get_block("latest")["timestamp"]
    while time.time() < mined + 1:  # resolved in a later second than the transfer
        time.sleep(0.1)
    resolve(chain, played.challenge)
    payout = Payout.objects.get(challenge=played.challenge, kind=PayoutKind.EARLIEST)
    assert payout.amount == Decimal("6")
    Payout.objects.filter(pk=payout.pk).update(status=PayoutStatus.PAID, transaction_hash=payout_tx)
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, f"the earliest payout's transaction {payout_tx} was mined at")


def test_a_payout_to_another_address_than_the_rules_give(chain, played, live_server):
    resolve(chain, played.challenge)
    Payout.objects.filter(challenge=played.challenge, kind=PayoutKind.HIGHEST).update(address=chain.deployer)
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, "the highest payout is 6.000000 USDC to ")


def test_the_operations_share_sent_when_the_site_keeps_it(chain, played, live_server, settings):
    settings.OPERATIONS_ADDRESS = ""
    resolve(chain, played.challenge)
    Payout.objects.filter(challenge=played.challenge, kind=PayoutKind.OPERATIONS).update(status=PayoutStatus.DUE)
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, "the operations share stays in the treasury; the site shows it due")


def test_a_missing_and_an_extra_payout(chain, played, live_server):
    resolve(chain, played.challenge)
    Payout.objects.filter(challenge=played.challenge, kind=PayoutKind.OPERATIONS).delete()
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, "the operations payout of 3.000000 USDC to ")
    assert "is missing" in result.stdout
