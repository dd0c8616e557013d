"""GET /api/responses?address= lists a claim that is not confirmed only when a read of its
transaction showed the payer's own claim: sent from that address, carrying that claim's guess
(docs/protocol.md section 3.4a). Anyone can POST a claim naming any address; through the API, on
anvil, none of a stranger's claims enters the named player's list, at any status, and the payer's
own claims are listed at every status."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from chain.client import get_client
from chain.heads import pending_claims_on_head
from chain.verification import payment_verify
from responses.models import Response

from .conftest import UNREACHABLE_RPC

pytestmark = [pytest.mark.django_db, pytest.mark.integration]

MADE_UP = "0x" + "5a" * 32


def _post(api, settings, d, tx_hash: str, *, stake=None, address=None, text=None, readable=True):
    """POST /api/responses as a page or a script does. readable=False: no node answers during the
    POST (its check is skipped and the claim stored pending), as in an RPC outage."""
    body = {
        "challengeId": d.challenge.pk,
        "submissionText": text or d.text,
        "submissionStake": stake or str(d.stake),
        "transactionHash": tx_hash,
        "submitterAddress": address or d.address,
        "submissionSalt": d.salt,
    }
    urls = settings.CHAIN_RPC_URLS
    if not readable:
        settings.CHAIN_RPC_URLS = [UNREACHABLE_RPC]
    try:
        return api.post("/api/responses", data=json.dumps(body), content_type="application/json")
    finally:
        settings.CHAIN_RPC_URLS = urls


def _listed(api, address: str) -> list[tuple[str, str]]:
    answer = api.get("/api/responses", {"address": address})
    assert answer.status_code == 200, answer.content
    return [(item["transactionHash"], item["status"]) for item in answer.json()]


def _decide(claim_id: int) -> str:
    return payment_verify(response_id=claim_id).code or Response.objects.get(pk=claim_id).status


def test_a_claim_on_a_made_up_hash_naming_a_player_never_enters_their_list(api, chain, draft, settings):
    """The defect as it was found: a made-up hash, the player's address, 999,999.99 USDC."""
    d = draft()
    answer = _post(api, settings, d, MADE_UP, stake="999999.99")
    assert answer.status_code == 201, answer.content
    assert answer.json()["status"] == "pending"
    assert _listed(api, chain.player) == []

    settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS = 0
    assert _decide(answer.json()["id"]) == "not_found"
    assert _listed(api, chain.player) == []


def test_a_strangers_claim_on_the_players_own_other_transaction_never_enters_their_list(api, chain, draft, settings):
    """The player's address did send this transaction (a transfer of another token), but it is not a
    payment of any guess: a stranger picked it to put a claim into the player's list."""
    d = draft()
    other_token = chain.pay(chain.stake_calldata_plain(chain.treasury, 10**6), to=chain.other_token)
    chain.mine(1)
    answer = _post(api, settings, d, other_token, stake="999999.99")
    assert answer.status_code == 201, answer.content  # the token is judged by verification, not at POST
    assert _listed(api, chain.player) == []
    assert _decide(answer.json()["id"]) == "wrong_token"
    assert _listed(api, chain.player) == []


@pytest.mark.parametrize("readable", [True, False])
def test_a_strangers_claim_on_someone_elses_payment_never_enters_the_named_players_list(
    api, chain, draft, settings, readable
):
    """Another address paid; the stranger names the player. Refused at POST when the transaction can
    be read (wrong_sender); otherwise stored, never listed, and rejected wrong_sender."""
    theirs = draft(address=chain.other)
    tx = chain.pay(chain.stake_calldata(theirs), sender=chain.other)
    chain.mine(1)
    answer = _post(api, settings, draft(), tx, stake="999999.99", readable=readable)
    if readable:
        assert answer.status_code == 422 and answer.json()["code"] == "wrong_sender"
        assert not Response.objects.exists()
    else:
        assert answer.status_code == 201
        assert _listed(api, chain.player) == []
        assert _decide(answer.json()["id"]) == "wrong_sender"
    assert _listed(api, chain.player) == []


@pytest.mark.parametrize("readable", [True, False])
def test_a_strangers_other_guess_on_the_players_own_payment_never_enters_their_list(
    api, chain, draft, settings, readable
):
    d = draft()
    tx = chain.pay(chain.stake_calldata(d))
    chain.mine(1)
    stranger = draft()  # the player's address, another salt: a guess the payment does not carry
    answer = _post(api, settings, stranger, tx, text="48.8584, 2.2945", readable=readable)
    if readable:
        assert answer.status_code == 422 and answer.json()["code"] == "commitment_mismatch"
    else:
        assert answer.status_code == 201
        assert _listed(api, chain.player) == []
        assert _decide(answer.json()["id"]) == "commitment_mismatch"
    assert _listed(api, chain.player) == []
    # The payer's own claim on it is listed.
    own = _post(api, settings, d, tx)
    assert own.status_code == 201
    assert _listed(api, chain.player) == [(tx, "pending")]


def test_a_strangers_claim_on_a_failed_transaction_never_enters_the_named_players_list(api, chain, draft, settings):
    """tx_failed is decided from the receipt, before the sender is read: it says nothing about who
    claims it. A stranger's failing transaction, claimed in the player's name while no node answered
    the POST, stays out of the player's list."""
    stranger = draft(address=chain.other)
    failing = chain.pay(chain.stake_calldata(stranger, amount_units=10**20), sender=chain.other)
    assert chain.w3.eth.get_transaction_receipt(failing)["status"] == 0
    chain.mine(1)
    answer = _post(api, settings, draft(), failing, stake="999999.99", readable=False)
    assert answer.status_code == 201
    assert _decide(answer.json()["id"]) == "tx_failed"
    assert _listed(api, chain.player) == []


# --- The payer's own claims: listed at every status ---------------------------------------------


def test_the_payers_claim_read_at_post_is_listed_pending_then_confirmed(api, chain, draft, settings):
    d = draft()
    tx = chain.pay(chain.stake_calldata(d))
    answer = _post(api, settings, d, tx)
    assert answer.status_code == 201
    assert _listed(api, chain.player.lower()) == [(tx, "pending")]
    chain.mine(1)
    assert _decide(answer.json()["id"]) == "confirmed"
    assert _listed(api, chain.player) == [(tx, "confirmed")]


@pytest.mark.parametrize("readable", [True, False])
def test_the_payers_own_mistake_is_listed_pending_and_rejected(api, chain, draft, settings, readable):
    """Read at POST: listed at once. Posted in an outage: listed once verification read it."""
    d = draft(stake="3")
    tx = chain.pay(chain.stake_calldata(d, amount_units=2 * 10**6))  # paid 2 for a stake of 3
    chain.mine(1)
    answer = _post(api, settings, d, tx, readable=readable)
    assert answer.status_code == 201
    assert _listed(api, chain.player) == ([(tx, "pending")] if readable else [])
    assert _decide(answer.json()["id"]) == "amount_mismatch"
    assert _listed(api, chain.player) == [(tx, "rejected")]


@pytest.mark.parametrize("decided_by", ["its task", "the head watcher"])
def test_the_payers_claim_posted_in_an_outage_is_listed_once_the_worker_read_it(
    api, chain, draft, settings, decided_by
):
    """Nothing was read at POST: the claim is not listed until verification reads the transaction
    (the page that posted it keeps its own record meanwhile)."""
    d = draft()
    tx = chain.pay(chain.stake_calldata(d))
    answer = _post(api, settings, d, tx, readable=False)
    assert answer.status_code == 201
    assert _listed(api, chain.player) == []
    chain.mine(1)
    if decided_by == "its task":
        assert _decide(answer.json()["id"]) == "confirmed"
    else:
        round_ = pending_claims_on_head(client=get_client(), last_head=None)
        assert round_ is not None and round_.decided == 1
    assert _listed(api, chain.player) == [(tx, "confirmed")]
    assert Response.objects.get().sent_by_submitter is True
    assert Response.objects.get().submission_stake == Decimal("2.5")
