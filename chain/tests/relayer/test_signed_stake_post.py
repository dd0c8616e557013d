"""The POST of a signed stake (docs/protocol.md 3.1) on anvil: its 201 and 200 are the stake exactly as
its status shows it (3.4) whatever else carries its commitment, and it runs a fixed, small number of
SQL statements (docs/performance.md section 2: the burst of stakes is bound by the web process's CPU,
and every statement the ORM builds costs some of it)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from eth_account import Account

from chain.models import RelayerAccount
from chain.pot import abi
from chain.pot.encoding import stake_nonce
from responses.models import SignedStake, Stake

from ..pot_support import follow, relay, sign_receive, sign_stake

pytestmark = pytest.mark.integration

GIZA = "29.979175, 31.134258"


def post(api, challenge, body: dict):
    return api.post("/api/responses", body, format="json", REMOTE_ADDR=f"10.0.0.{challenge.pk % 250}")


def shown(api, commitment: str) -> dict:
    answer = api.get(f"/api/responses/{commitment}")
    assert answer.status_code == 200, answer.content
    return answer.json()


def test_the_answer_is_the_stake_as_its_status_shows_it(chain, make_challenge, api, settings):
    """New and alone (the answer built from the row just stored), again (200), another payer's copy of
    a commitment (the earlier signed stake is the one shown), a refused relay, and a stake the player
    sent into the pot themselves before posting it."""
    challenge = make_challenge(solution=GIZA, closes_at=timezone.now() + timedelta(hours=1))
    first = sign_stake(chain, challenge, player=0, stake="5")
    created = post(api, challenge, first.body(challenge.pk))
    assert created.status_code == 201, created.json()
    assert created.json() == shown(api, first.commitment)
    assert (created.json()["status"], created.json()["authorization"]["relayStatus"]) == ("relaying", "queued")
    again = post(api, challenge, first.body(challenge.pk))
    assert again.status_code == 200 and again.json() == created.json()

    # Player 1 signs a stake carrying player 0's commitment: stored, and the stake by that commitment
    # is still player 0's, the earlier one.
    copier, key = chain.players[1]
    nonce = stake_nonce(
        chain_id=settings.CHAIN_ID,
        pot=chain.pot,
        challenge_id=challenge.pk,
        terms_digest=challenge.pot.terms_digest,
        commitment=first.commitment,
        amount=first.amount,
    )
    valid_before = int(time.time()) + 1800
    copy = dict(first.body(challenge.pk), submitterAddress=copier.lower())
    copy["authorization"] = {
        "validAfter": 0,
        "validBefore": valid_before,
        "signature": sign_receive(
            chain, key=key, amount=first.amount, nonce=nonce, valid_after=0, valid_before=valid_before
        ),
    }
    copied = post(api, challenge, copy)
    assert copied.status_code == 201, copied.json()
    assert copied.json() == shown(api, first.commitment)
    assert copied.json()["submitterAddress"] == first.payer
    assert SignedStake.objects.filter(commitment=first.commitment).count() == 2

    # The relay switched off: stored as refused, shown so.
    settings.RELAY_ENABLED = False
    refused = sign_stake(chain, challenge, player=2, stake="3")
    answer = post(api, challenge, refused.body(challenge.pk))
    assert answer.status_code == 201, answer.json()
    assert answer.json() == shown(api, refused.commitment)
    assert answer.json()["status"] == "refused" and answer.json()["authorization"]["relayCode"] == "switched_off"
    settings.RELAY_ENABLED = True

    # Player 3 sends the stake into the pot from their own wallet, then the page posts it: the
    # simulation finds the authorization used by this very stake, which is stored and shown from the pot.
    own = sign_stake(chain, challenge, player=3, stake="2")
    payer, payer_key = chain.players[3]
    call = abi.SignedStakeCall(
        challenge_id=challenge.pk,
        commitment=own.commitment,
        payer=payer,
        amount=own.amount,
        valid_after=own.valid_after,
        valid_before=own.valid_before,
        signature=own.signature,
    )
    tx = {
        "to": chain.pot,
        "data": abi.stake_with_authorization_data(call),
        "gas": 300_000,
        "gasPrice": chain.w3.eth.gas_price,
        "nonce": chain.w3.eth.get_transaction_count(payer),
        "chainId": settings.CHAIN_ID,
    }
    sent = chain.w3.eth.send_raw_transaction(Account.sign_transaction(tx, payer_key).raw_transaction)
    assert chain.w3.eth.wait_for_transaction_receipt(sent, timeout=30)["status"] == 1
    chain.mine(2)
    follow()
    assert Stake.objects.filter(commitment=own.commitment).exists()
    in_pot = post(api, challenge, own.body(challenge.pk))
    assert in_pot.status_code == 201, in_pot.json()
    assert in_pot.json() == shown(api, own.commitment)
    assert in_pot.json()["status"] == "confirmed" and in_pot.json()["id"] == 1


def test_a_signed_stakes_post_runs_a_fixed_number_of_statements(chain, make_challenge, api):
    """The challenge, its pot's state and opening, the chain's clock and what else carries the
    commitment in one statement; the relayer's admission in one; the signed stake and its call for
    the relayer inserted; nothing read back for the answer. A statement added to the POST fails here."""
    challenge = make_challenge(solution=GIZA, closes_at=timezone.now() + timedelta(hours=1))
    warm = sign_stake(chain, challenge, player=0, stake="5")
    assert post(api, challenge, warm.body(challenge.pk)).status_code == 201  # the token's domain read once
    relay()  # the relayer has sent one: its balance and a stake's cost are known, its budget counts
    assert RelayerAccount.objects.get().stake_cost_wei is not None
    signed = sign_stake(chain, challenge, player=1, stake="5")
    with CaptureQueriesContext(connection) as queries:
        answer = post(api, challenge, signed.body(challenge.pk))
    assert answer.status_code == 201, answer.json()
    statements = [q["sql"] for q in queries.captured_queries]
    reads = [sql for sql in statements if sql.lstrip().upper().startswith("SELECT")]
    writes = [sql for sql in statements if sql.lstrip().upper().startswith("INSERT")]
    # One read of the challenge and the commitment, one of the relayer's admission (its account, what
    # is queued, what it spent, the payer's stakes of the last 24 hours); the stake and its call.
    assert len(reads) <= 2, reads
    assert len(writes) == 2, writes
    assert len(statements) <= 6, statements  # with the transaction's own (BEGIN or a savepoint, its end)
    assert len(set(reads)) == len(reads), "a statement read twice"
