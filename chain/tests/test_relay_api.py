"""The relayer behind the API, as a player meets it (docs/protocol.md 3.3a, 3.6): a claim posted with
a signed authorization (the wallet's eth_signTypedData_v4) is queued, relayed, mined and confirmed
by verification, and the claim's answer shows the relayer's transaction; over a limit the POST
stores the claim refused with the sentence; the page learns when the relay cannot pay."""

from __future__ import annotations

import pytest

from chain.models import RelayerAccount, RelayTransaction
from chain.relay_reasons import NO_FUNDS, address_limit_sentence
from chain.relay_watch import relay_watch
from chain.relayer import relay_send
from chain.verification import payment_verify
from responses.models import Response

from . import relay_support
from .authorization_claims_support import claim_body, post, sign
from .relay_support import RELAYER, rpc

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

relay = relay_support.relay  # the fixture


def test_a_posted_authorization_is_relayed_mined_and_confirmed(api, relay, draft):
    chain = relay
    d = draft(stake="2.5")
    answer = post(api, claim_body(d, sign(chain, d)))
    assert answer.status_code == 201, answer.content
    assert answer.json()["authorization"]["relayStatus"] == "queued"
    treasury = chain.balance(chain.treasury)

    assert relay_send().sent == 1

    row = RelayTransaction.objects.get()
    chain.mine(2)  # CHAIN_CONFIRMATIONS deep
    claim = Response.objects.get()
    assert payment_verify(response_id=claim.pk).status == "confirmed"
    claim.refresh_from_db()
    assert claim.transaction_hash == row.transaction_hash
    assert chain.balance(chain.treasury) == treasury + 2_500_000
    seen = api.get(f"/api/responses/authorization/{d.commitment}").json()
    assert seen["status"] == "confirmed" and seen["transactionHash"] == row.transaction_hash
    assert seen["authorization"]["relayStatus"] == "sent"
    assert seen["authorization"]["relayTransactionHash"] == row.transaction_hash
    assert relay_watch().mined == 1


def test_over_the_payers_limit_the_claim_is_stored_refused_with_its_sentence(api, relay, draft, settings):
    chain = relay
    settings.RELAY_MAX_PER_ADDRESS_PER_DAY = 1
    first, second = draft(text="1.1, 2.2"), draft(text="3.3, 4.4")
    assert post(api, claim_body(first, sign(chain, first))).json()["authorization"]["relayStatus"] == "queued"

    answer = post(api, claim_body(second, sign(chain, second)))

    assert answer.status_code == 201, answer.content
    assert answer.json()["authorization"]["relayStatus"] == "refused"
    assert answer.json()["authorization"]["relayReason"] == address_limit_sentence(1)
    assert answer.json()["authorization"]["relayCode"] == "address_limit"
    assert relay_send().sent == 1  # the first only


def test_the_page_learns_when_the_relay_cannot_pay_for_one_more_stake(api, relay):
    chain = relay
    relay_watch()  # the balance and the fees read
    assert api.get("/api/payments/authorization").json()["relay"] == {
        "available": True,
        "reason": "",
        "address": RELAYER,
    }
    cost = int(RelayerAccount.objects.get(address=RELAYER).stake_cost_wei or 0)
    rpc(chain, "anvil_setBalance", RELAYER, hex(cost // 2))
    RelayerAccount.objects.filter(address=RELAYER).update(balance_read_at=None)  # read it at the next watch
    relay_watch()
    relay_answer = api.get("/api/payments/authorization").json()["relay"]
    assert relay_answer == {"available": False, "reason": NO_FUNDS, "address": RELAYER}
