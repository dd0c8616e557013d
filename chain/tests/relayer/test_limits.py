"""The relayer's limits and money (docs/protocol.md section 3, "The relayer decides when"), on anvil: a
payer past RELAY_MAX_PER_ADDRESS_PER_DAY, the relay past RELAY_MAX_WEI_PER_DAY or short of gas money,
or switched off, gets its stake stored refused with the sentence that says so and what the player can
do, at the POST and again at the send; the page's GET /api/payments/authorization says the same; the
balance alarm is raised once per crossing and cleared once."""

from __future__ import annotations

import logging

import pytest

from chain.models import RelayerAccount, RelayTransaction
from chain.relayer.reasons import DAILY_BUDGET, NO_FUNDS, SWITCHED_OFF, address_limit_sentence
from chain.relayer.sender import relay_send
from chain.relayer.watch import relay_watch
from responses.models import SignedStake

from ..pot_support import post, relay, sign_stake
from ..relay_support import relay_status

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _no_throttle(monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"response_create": "1000000/min"})


def posted(chain, challenge, api, **kwargs):
    signed = sign_stake(chain, challenge, **kwargs)
    answer = post(api, challenge, signed)
    assert answer.status_code == 201, answer.json()
    return signed, answer.json()["authorization"]


def availability(api) -> dict:
    return api.get("/api/payments/authorization").json()["relay"]


def test_a_payer_past_its_daily_relays_is_refused_at_the_post_and_at_the_send(chain, make_challenge, api, settings):
    settings.RELAY_MAX_PER_ADDRESS_PER_DAY = 2
    challenge = make_challenge()
    queued = [posted(chain, challenge, api, player=0)[0] for _ in range(2)]
    _, third = posted(chain, challenge, api, player=0)
    assert (third["relayStatus"], third["relayCode"]) == ("refused", "address_limit")
    assert third["relayReason"] == address_limit_sentence(2) and "yourself" in third["relayReason"]
    assert posted(chain, challenge, api, player=1)[1]["relayStatus"] == "queued"  # another wallet
    # Under the lock at the send too: the limit lowered meanwhile, the second queued one is refused.
    settings.RELAY_MAX_PER_ADDRESS_PER_DAY = 1
    summary = relay_send()
    assert (summary.sent, summary.refused) == (2, 1)
    assert [relay_status(one) for one in queued] == [("sent", ""), ("refused", "address_limit")]


def test_the_daily_gas_budget_refuses_once_spent_and_in_flight_reach_it(chain, make_challenge, api, settings):
    challenge = make_challenge()
    posted(chain, challenge, api, player=0)
    relay()  # one stake mined...
    chain.mine(1)
    relay_watch()  # ...and deep: the relayer knows what one costs now
    spent = int(RelayTransaction.objects.get().cost_wei or 0)
    cost = int(RelayerAccount.objects.get().stake_cost_wei or 0)
    assert spent > 0 and cost > 0
    settings.RELAY_MAX_WEI_PER_DAY = spent + cost - 1  # one more would pass it
    assert availability(api) == {"available": False, "reason": DAILY_BUDGET, "address": chain.relayer}
    signed, shown = posted(chain, challenge, api, player=1)
    assert (shown["relayStatus"], shown["relayCode"], shown["relayReason"]) == ("refused", "budget", DAILY_BUDGET)
    settings.RELAY_MAX_WEI_PER_DAY = spent + cost
    assert availability(api)["available"] is True
    assert posted(chain, challenge, api, player=2)[1]["relayStatus"] == "queued"
    settings.RELAY_MAX_WEI_PER_DAY = spent + cost - 1  # lowered before the send: refused there too
    assert relay_send().refused == 1
    assert relay_status(signed) == ("refused", "budget") and RelayTransaction.objects.count() == 1


def test_a_relayer_that_cannot_pay_one_more_stake_refuses_what_is_queued(chain, make_challenge, api):
    challenge = make_challenge()
    signed, _ = posted(chain, challenge, api, player=0)
    chain.rpc("anvil_setBalance", [chain.relayer, hex(10**12)])  # far less than one stake's gas
    summary = relay_send()
    assert summary.sent == 0 and summary.refused == 1 and "cannot pay" in summary.stopped
    assert relay_status(signed) == ("refused", "funds")
    assert SignedStake.objects.get().relay_reason == NO_FUNDS
    assert availability(api) == {"available": False, "reason": NO_FUNDS, "address": chain.relayer}
    _, shown = posted(chain, challenge, api, player=1)
    assert (shown["relayStatus"], shown["relayCode"]) == ("refused", "funds")


def test_the_relay_switched_off_refuses_at_the_post_and_what_was_queued(chain, make_challenge, api, settings):
    challenge = make_challenge()
    queued, _ = posted(chain, challenge, api, player=0)
    settings.RELAY_ENABLED = False
    assert availability(api) == {"available": False, "reason": SWITCHED_OFF, "address": chain.relayer}
    _, shown = posted(chain, challenge, api, player=1)
    assert (shown["relayStatus"], shown["relayCode"], shown["relayReason"]) == ("refused", "switched_off", SWITCHED_OFF)
    assert relay_send().refused == 1
    assert relay_status(queued) == ("refused", "switched_off")
    assert not RelayTransaction.objects.exists()
    settings.RELAYER_KEY = ""  # no key at all: the same answer, and no address to show
    assert availability(api) == {"available": False, "reason": SWITCHED_OFF, "address": None}


def test_the_balance_alarm_is_raised_once_per_crossing_and_cleared_once(chain, db, settings, caplog):
    balance = chain.w3.eth.get_balance(chain.relayer)
    settings.RELAY_BALANCE_ALARM_WEI = balance + 1
    caplog.set_level(logging.WARNING, logger="chain.relayer.services")
    for _ in range(3):
        relay_watch()
        RelayerAccount.objects.update(balance_read_at=None)  # read again at the next watch
    account = RelayerAccount.objects.get()
    assert account.alarm and account.alarm_since is not None and account.balance_wei == balance
    raised = [r for r in caplog.records if r.levelno == logging.ERROR and "below the alarm" in r.getMessage()]
    assert len(raised) == 1 and chain.relayer in raised[0].getMessage()
    settings.RELAY_BALANCE_ALARM_WEI = balance - 1
    for _ in range(2):
        relay_watch()
        RelayerAccount.objects.update(balance_read_at=None)
    assert not RelayerAccount.objects.get().alarm
    cleared = [r for r in caplog.records if "back above the alarm" in r.getMessage()]
    assert len(cleared) == 1
