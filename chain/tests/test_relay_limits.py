"""The relayer's limits and funds (docs/protocol.md section 2a, "The relayer"): a refused claim gets
the sentence the player reads (ending with what they can do), at the POST's admission
(chain/relay_admission.py, relay_admit) and again when the relayer comes to a queued claim (claims
posted together cannot slip past a limit together). The page's relay_available says the same for
the relay as a whole."""

from __future__ import annotations

import pytest

from chain.models import RelayerAccount, RelayTransaction
from chain.relay_admission import relay_admit, relay_available
from chain.relay_reasons import DAILY_BUDGET, NO_FUNDS, SEND_IT_YOURSELF, address_limit_sentence
from chain.relay_signing import RELAY_GAS
from chain.relay_watch import relay_watch
from chain.relayer import relay_send
from responses.hooks import RELAY_SWITCHED_OFF

from . import relay_support
from .relay_support import (
    RELAYER,
    authorization_used,
    known,
    new_player,
    relay_status,
    relayer_eth,
    relayer_nonce,
    rpc,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

relay, open_challenge, claim_for = relay_support.relay, relay_support.open_challenge, relay_support.claim_for


def test_every_refusal_ends_with_what_the_player_can_do():
    limits = (address_limit_sentence(0), address_limit_sentence(1), address_limit_sentence(20))
    for sentence in (RELAY_SWITCHED_OFF, DAILY_BUDGET, NO_FUNDS, *limits):
        assert sentence.endswith(SEND_IT_YOURSELF) or sentence == RELAY_SWITCHED_OFF
        assert "yourself from your wallet" in sentence and "ETH for gas" in sentence
        assert len(sentence) <= 300  # StakeAuthorization.relay_reason


def test_the_limit_sentence_counts_in_words_a_player_reads():
    """A limit of 0 (the relay sends for no wallet) is not "0 stakes ..., the most"; 1 is one stake."""
    assert address_limit_sentence(20).startswith("This wallet has had 20 stakes relayed in the last 24 hours")
    assert address_limit_sentence(1).startswith("This wallet has had 1 stake relayed in the last 24 hours")
    assert address_limit_sentence(0).startswith("Geopoem's relay is not sending stakes for any wallet right now")


def test_a_payer_with_twenty_stakes_relayed_today_is_refused_at_the_post_and_at_the_send(
    relay, open_challenge, settings, claim_for
):
    chain = relay
    settings.RELAY_MAX_PER_ADDRESS_PER_DAY = 3
    payer, other = new_player(chain), new_player(chain)
    claims = [claim_for(open_challenge, payer, text=f"1.{n}, 2") for n in range(3)]
    # The POST of a fourth: refused, with the limit in the sentence; another payer is not.
    refusal = relay_admit(submitter_address=payer.address.lower())
    assert (refusal.status, refusal.reason) == ("refused", address_limit_sentence(3))
    assert relay_admit(submitter_address=other.address).status == "queued"
    # Two more posted at the same moment as the third slipped past the admission: the relayer, under
    # its lock, sends three and refuses the rest.
    late = [claim_for(open_challenge, payer, text=f"3.{n}, 4") for n in range(2)]
    assert relay_send().sent == 3
    assert [relay_status(claim)[0] for claim in claims] == ["sent"] * 3
    assert {relay_status(claim) for claim in late} == {("refused", address_limit_sentence(3), "address_limit")}
    assert not any(authorization_used(chain, claim) for claim in late)
    # Refused is final for the relayer: the player may send it themselves.
    assert relay_send().sent == 0 and RelayTransaction.objects.count() == 3


def test_the_daily_budget_refuses_once_spent_and_in_flight_reach_it(relay, open_challenge, settings, claim_for):
    chain = relay
    claims = [claim_for(open_challenge, new_player(chain)) for _ in range(4)]
    relay_watch()  # the balance and the fees read (no block is mined before the send reads them again)
    cost = known(RelayerAccount.objects.get(address=RELAYER).stake_cost_wei)
    assert cost >= RELAY_GAS  # at least a wei of gas price
    settings.RELAY_MAX_WEI_PER_DAY = 2 * cost + cost // 2  # two stakes at their most, not three

    summary = relay_send()

    assert summary.sent == 2 and summary.refused == 2
    assert [relay_status(claim) for claim in claims[2:]] == [("refused", DAILY_BUDGET, "budget")] * 2
    assert relay_available().reason == DAILY_BUDGET  # in flight, each counts at its most
    # Mined, each counts at what it cost: under 70 % of the most (its gas used and price below its
    # limit and maxFeePerGas), which leaves room for a third within the budget.
    relay_watch()
    assert all(known(row.cost_wei) < 0.75 * cost for row in RelayTransaction.objects.all())
    assert relay_admit(submitter_address=new_player(chain).address).status == "queued"
    settings.RELAY_MAX_WEI_PER_DAY = 2 * cost
    available = relay_available()
    assert (available.available, available.reason) == (False, DAILY_BUDGET)
    assert relay_admit(submitter_address=new_player(chain).address).reason == DAILY_BUDGET


def test_a_relayer_that_cannot_pay_one_more_stake_refuses_what_is_queued(relay, open_challenge, claim_for):
    chain = relay
    claims = [claim_for(open_challenge, new_player(chain)) for _ in range(3)]
    relay_watch()
    cost = known(RelayerAccount.objects.get(address=RELAYER).stake_cost_wei)
    # Gas money for one stake and a half.
    rpc(chain, "anvil_setBalance", RELAYER, hex(cost + cost // 2))
    nonce = relayer_nonce(chain)

    summary = relay_send()

    assert summary.sent == 1 and summary.refused == 2 and summary.stopped
    assert relay_status(claims[0])[0] == "sent"
    assert [relay_status(claim) for claim in claims[1:]] == [("refused", NO_FUNDS, "funds")] * 2
    assert relayer_nonce(chain) == nonce + 1
    # The balance it read says so at the POST and to the page, without a chain read.
    relay_watch()
    assert relay_admit(submitter_address=new_player(chain).address).reason == NO_FUNDS
    assert relay_available().reason == NO_FUNDS
    # Given ETH again, it takes stakes again.
    rpc(chain, "anvil_setBalance", RELAYER, hex(10**18))
    RelayerAccount.objects.filter(address=RELAYER).update(balance_read_at=None)  # read it at the next watch
    relay_watch()
    assert relay_available().available and relay_admit(submitter_address=new_player(chain).address).status == "queued"
    assert relayer_eth(chain) == 10**18


def test_the_relay_switched_off_refuses_at_the_post_and_what_was_queued(relay, open_challenge, settings, claim_for):
    chain = relay
    claim = claim_for(open_challenge, new_player(chain))
    settings.RELAY_ENABLED = False
    refusal = relay_admit(submitter_address=claim.submitter_address)
    assert (refusal.status, refusal.reason, refusal.code) == ("refused", RELAY_SWITCHED_OFF, "switched_off")
    assert relay_available().reason == RELAY_SWITCHED_OFF
    nonce = relayer_nonce(chain)
    assert relay_send().refused == 1
    assert relay_status(claim) == ("refused", RELAY_SWITCHED_OFF, "switched_off") and relayer_nonce(chain) == nonce
    settings.RELAY_ENABLED, settings.RELAYER_KEY = True, ""
    assert relay_available().reason == RELAY_SWITCHED_OFF and relay_available().address is None
