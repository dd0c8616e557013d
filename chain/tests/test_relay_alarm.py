"""The relayer's balance alarm and what staff see (docs/protocol.md section 2a, "The relayer"): below
RELAY_BALANCE_ALARM_WEI an ERROR is logged once per crossing (and the recovery once), however often
the balance is read; the admin (Chain -> Relayer) shows the alarm, the balance, the nonce, what is
in flight, spent, relayed and refused, and its transactions linking to the claims."""

from __future__ import annotations

import logging

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from chain import relay_watch as watch_module
from chain.models import RelayerAccount, RelayTransaction
from chain.relay_reasons import address_limit_sentence
from chain.relay_watch import relay_watch
from chain.relayer import relay_send

from . import relay_support
from .relay_support import RELAYER, Mining, known, new_player, rpc

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

relay, open_challenge, claim_for = relay_support.relay, relay_support.open_challenge, relay_support.claim_for


def alarm_lines(caplog) -> list[tuple[int, str]]:
    return [
        (record.levelno, record.getMessage())
        for record in caplog.records
        if record.name == "chain.relay_services" and "alarm" in record.getMessage()
    ]


def test_the_alarm_is_logged_once_per_crossing(relay, settings, monkeypatch, caplog):
    chain = relay
    monkeypatch.setattr(watch_module, "BALANCE_READ_SECONDS", 0)  # read at every watch
    settings.RELAY_BALANCE_ALARM_WEI = 10**17
    caplog.set_level(logging.INFO)
    relay_watch()
    assert alarm_lines(caplog) == [] and not RelayerAccount.objects.get(address=RELAYER).alarm

    rpc(chain, "anvil_setBalance", RELAYER, hex(5 * 10**16))
    for _ in range(3):
        relay_watch()
    lines = alarm_lines(caplog)
    assert [level for level, _ in lines] == [logging.ERROR]
    assert RELAYER in lines[0][1] and "0.050000 ETH" in lines[0][1]
    account = RelayerAccount.objects.get(address=RELAYER)
    assert account.alarm and account.alarm_since is not None

    rpc(chain, "anvil_setBalance", RELAYER, hex(10**18))
    relay_watch()
    relay_watch()
    assert [level for level, _ in alarm_lines(caplog)] == [logging.ERROR, logging.WARNING]
    assert not RelayerAccount.objects.get(address=RELAYER).alarm

    rpc(chain, "anvil_setBalance", RELAYER, hex(10**16))
    relay_watch()
    relay_watch()
    assert [level for level, _ in alarm_lines(caplog)] == [logging.ERROR, logging.WARNING, logging.ERROR]


@pytest.fixture
def staff(client):
    user = get_user_model().objects.create_superuser("ops", "ops@example.org", "long-enough-pass-1")
    client.force_login(user)
    return client


def test_staff_see_the_relayer_its_alarm_and_its_transactions(relay, open_challenge, settings, staff, claim_for):
    chain = relay
    settings.RELAY_MAX_PER_ADDRESS_PER_DAY = 1
    payer = new_player(chain)
    sent = claim_for(open_challenge, payer)
    refused = claim_for(open_challenge, payer, text="1.5, 2.5")
    with Mining(chain) as mining:
        relay_send()
        settings.RELAY_BALANCE_ALARM_WEI = 100 * 10**18  # above anything the relayer holds
        RelayerAccount.objects.filter(address=RELAYER).update(balance_read_at=None)
        relay_watch()
        account = RelayerAccount.objects.get(address=RELAYER)
        row = RelayTransaction.objects.get()

        page = staff.get(reverse("admin:chain_relayeraccount_changelist"))
        assert page.status_code == 200
        html = page.content.decode()
        assert RELAYER in html and "ALARM since" in html and "below the alarm of 100.000000 ETH" in html
        assert f"{known(account.balance_wei) / 10**18:.6f} ETH" in html
        assert f">{account.next_nonce}<" in html

        detail = staff.get(reverse("admin:chain_relayeraccount_change", args=[account.pk])).content.decode()
        for label, value in (("In flight", "1"), ("Stakes relayed, 24 h", "1"), ("Stakes refused, 24 h", "1")):
            assert f"{label}:</label>" in detail and f'<div class="readonly">{value}</div>' in detail, label
        mining.mine()
    relay_watch()
    row.refresh_from_db()
    listing = staff.get(reverse("admin:chain_relaytransaction_changelist")).content.decode()
    assert row.transaction_hash in listing
    assert reverse("admin:responses_response_change", args=[sent.pk]) in listing
    assert f"{known(row.cost_wei) / 10**18:.6f} ETH" in listing
    one = staff.get(reverse("admin:chain_relaytransaction_change", args=[row.pk])).content.decode()
    assert row.attempts[0]["hash"] in one and "mined" in one.lower()
    # Read-only: staff cannot add, change or delete what the chain recorded.
    assert staff.post(reverse("admin:chain_relaytransaction_change", args=[row.pk]), {}).status_code == 403
    assert staff.get(reverse("admin:chain_relayeraccount_add")).status_code == 403
    refused.authorization.refresh_from_db()
    assert refused.authorization.relay_reason == address_limit_sentence(1)
