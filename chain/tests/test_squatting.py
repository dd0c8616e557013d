"""Claim squatting on a real EVM (anvil): a stranger reads a player's stake hash (it is public, in
the mempool before it is mined) and posts a claim on it first, naming the player or himself. Posting
first must gain him nothing: the player's claim confirms, his never does, the stake counts once."""

import json
import socket
import time
from decimal import Decimal
from functools import partial

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from chain.indexer import payments_index
from chain.models import Payment
from chain.reorgs import confirmed_recheck
from chain.selectors import payments_unclaimed
from chain.verification import payment_verify
from challenges.commitments import new_salt
from challenges.models import Challenge
from devtools.concurrency import at_once
from responses.models import Response, ResponseStatus
from responses.reasons import REASON_SENTENCES

from .conftest import UNREACHABLE_RPC, post_claim
from .test_ledger import fixed_stake_tx

pytestmark = pytest.mark.django_db

SQUATTERS = 20


def claim_body(d, tx, **overrides) -> dict:
    body = {
        "challengeId": d.challenge.pk,
        "submissionText": d.text,
        "submissionStake": str(d.stake),
        "transactionHash": tx,
        "submitterAddress": d.address,
        "submissionSalt": d.salt,
    }
    body.update(overrides)
    return body


def squat_body(d, tx, *, naming: str, n: int = 0) -> dict:
    """A stranger's claim on the player's transaction: his own invented guess and salt."""
    return claim_body(
        d, tx, submitterAddress=naming, submissionText=f"{n % 80}.5, {n % 170}.25", submissionSalt=new_salt()
    )


def post(client, body):
    return client.post("/api/responses", data=json.dumps(body), content_type="application/json")


def paid(chain, draft, stake="2"):
    d = draft(stake=stake)
    tx = chain.pay(chain.stake_calldata(d))
    chain.mine(1)
    return d, tx


def assert_counted_once(challenge_id, stake="2"):
    challenge = Challenge.objects.get(pk=challenge_id)
    assert (challenge.staked_sum, challenge.response_count) == (Decimal(stake), 1)


def test_a_squatter_posting_first_is_refused_and_the_player_confirms(chain, draft, api):
    d, tx = paid(chain, draft)
    stranger = chain.w3.eth.accounts[6]
    naming_player = post(api, squat_body(d, tx, naming=chain.player))
    naming_himself = post(api, squat_body(d, tx, naming=stranger))
    for answer, code in ((naming_player, "commitment_mismatch"), (naming_himself, "wrong_sender")):
        assert answer.status_code == 422, answer.content
        assert answer.json() == {"message": REASON_SENTENCES[code], "errors": {}, "code": code}
    assert not Response.objects.exists()  # nothing stored

    answer = post(api, claim_body(d, tx))
    assert answer.status_code == 201, answer.content
    assert payment_verify(response_id=answer.json()["id"]).status == ResponseStatus.CONFIRMED
    assert_counted_once(d.challenge.pk)


def test_a_squatter_reading_the_mempool_is_refused_before_the_stake_is_mined(chain, draft, api):
    d = draft(stake="2")
    chain.w3.provider.make_request("evm_setAutomine", [False])
    try:
        tx = "0x" + bytes(chain.w3.eth.send_transaction(
            {"from": chain.player, "to": chain.usdc, "data": chain.stake_calldata(d), "gas": 200_000}
        )).hex()  # fmt: skip
        assert chain.w3.eth.get_transaction(tx)["blockNumber"] is None  # in the mempool only
        answer = post(api, squat_body(d, tx, naming=chain.player))
        assert (answer.status_code, answer.json()["code"]) == (422, "commitment_mismatch")
        assert not Response.objects.exists()
    finally:
        chain.w3.provider.make_request("evm_setAutomine", [True])
    chain.mine(2)
    answer = post(api, claim_body(d, tx))
    assert answer.status_code == 201, answer.content
    assert payment_verify(response_id=answer.json()["id"]).status == ResponseStatus.CONFIRMED
    assert_counted_once(d.challenge.pk)


def test_squatters_stored_while_the_chain_was_unreadable_never_keep_the_player_out(chain, draft, api, settings):
    """The RPC is down while the squatters post (their claims are stored pending, unchecked); the
    player posts once it is back: 201 beside them, and only the player's claim confirms."""
    start = chain.w3.eth.block_number + 1
    d, tx = paid(chain, draft)
    stranger = chain.w3.eth.accounts[6]
    settings.CHAIN_RPC_URLS = [UNREACHABLE_RPC]
    naming_player = post(api, squat_body(d, tx, naming=chain.player))
    naming_himself = post(api, squat_body(d, tx, naming=stranger, n=1))
    assert (naming_player.status_code, naming_himself.status_code) == (201, 201)
    settings.CHAIN_RPC_URLS = [chain.url]

    answer = post(api, claim_body(d, tx))
    assert answer.status_code == 201, answer.content
    player_id = answer.json()["id"]
    assert Response.objects.filter(transaction_hash=tx).count() == 3
    # Verified squatters first: their rejection leaves the transaction free for the player's claim.
    verdicts = {
        response_id: payment_verify(response_id=response_id)
        for response_id in (naming_player.json()["id"], naming_himself.json()["id"], player_id)
    }
    assert verdicts[naming_player.json()["id"]].code == "commitment_mismatch"
    assert verdicts[naming_himself.json()["id"]].code == "wrong_sender"
    assert verdicts[player_id].status == ResponseStatus.CONFIRMED
    assert_counted_once(d.challenge.pk)

    # The ledger links the player's claim; the page's look-ups find each claim's own status.
    assert Payment.objects.get(transaction_hash=tx).response_id == player_id
    assert api.get(f"/api/responses/{tx}").json()["id"] == player_id
    commitment = answer.json()["commitment"]
    assert api.get(f"/api/responses/{tx}?commitment={commitment}").json()["status"] == "confirmed"
    squatter = api.get(f"/api/responses/{tx}?commitment={naming_player.json()['commitment']}").json()
    assert (squatter["status"], squatter["submissionText"]) == ("rejected", None)
    # Any other claim on the now confirmed hash: 409, even by the stranger naming the player.
    assert post(api, squat_body(d, tx, naming=chain.player, n=2)).status_code == 409
    # The re-post of the player's claim stays a replay, with its confirmed status.
    again = post(api, claim_body(d, tx))
    assert (again.status_code, again.json()["status"]) == (200, "confirmed")

    # The indexer, re-reading the block, keeps the link on the player's claim.
    settings.CHAIN_INDEX_START_BLOCK = start
    payments_index()
    assert Payment.objects.get(transaction_hash=tx).response_id == player_id
    assert not payments_unclaimed().exists()


def unclaimed_in_admin(client) -> list[str]:
    """The transaction hashes the Payments admin lists under "Unclaimed"."""
    staff = get_user_model().objects.get_or_create(username="staff", defaults={"is_staff": True, "is_superuser": True})[
        0
    ]
    client.force_login(staff)
    answer = client.get(reverse("admin:chain_payment_changelist") + "?claim=unclaimed")
    assert answer.status_code == 200
    return [p.transaction_hash for p in answer.context["cl"].result_list]


def test_a_payment_with_only_a_strangers_rejected_claim_stays_unclaimed(chain, draft, settings, client):
    settings.CHAIN_INDEX_START_BLOCK = chain.w3.eth.block_number + 1
    d, tx = paid(chain, draft)
    stranger = draft(stake="2")  # another guess and salt, naming the player
    squat = post_claim(stranger, tx, chain_readable=False)
    payments_index()
    assert payment_verify(response_id=squat.pk).code == "commitment_mismatch"
    payments_index()
    [payment] = payments_unclaimed()
    assert payment.transaction_hash == tx and payment.response_id is None
    assert unclaimed_in_admin(client) == [tx]  # the staff filter follows the same rule
    # The player's late claim takes it off the list and confirms.
    player = post_claim(d, tx)
    assert not payments_unclaimed().exists()
    assert unclaimed_in_admin(client) == []
    assert payment_verify(response_id=player.pk).status == ResponseStatus.CONFIRMED
    assert Payment.objects.get(transaction_hash=tx).response_id == player.pk


def test_the_database_holds_at_most_one_confirmed_claim_per_transaction(chain, draft):
    d, tx = paid(chain, draft)
    first = post_claim(draft(stake="2"), tx, chain_readable=False)
    second = post_claim(d, tx)
    Response.objects.filter(pk=first.pk).update(status=ResponseStatus.CONFIRMED)
    with pytest.raises(IntegrityError), transaction.atomic():
        Response.objects.filter(pk=second.pk).update(status=ResponseStatus.CONFIRMED)


def test_a_reorg_takes_the_players_claim_back_and_the_squatter_stays_rejected(chain, draft):
    d = draft(stake="2")
    nonce = chain.w3.eth.get_transaction_count(d.address)
    snapshot = chain.snapshot()
    tx = chain.send(fixed_stake_tx(chain, d, nonce))
    chain.mine(1)
    squat = post_claim(draft(stake="2"), tx, chain_readable=False)
    player = post_claim(d, tx)
    assert payment_verify(response_id=squat.pk).code == "commitment_mismatch"
    assert payment_verify(response_id=player.pk).status == ResponseStatus.CONFIRMED

    chain.revert(snapshot)
    chain.mine(3)
    assert confirmed_recheck() == [player.pk]
    assert Challenge.objects.get(pk=d.challenge.pk).staked_sum == Decimal("0")
    assert chain.send(fixed_stake_tx(chain, d, nonce)) == tx
    chain.mine(1)
    assert payment_verify(response_id=player.pk).status == ResponseStatus.CONFIRMED
    squat.refresh_from_db()
    assert squat.status == ResponseStatus.REJECTED
    assert_counted_once(d.challenge.pk)


def test_the_chain_unreachable_at_post_stores_the_claim_pending(chain, draft, api, settings):
    d, tx = paid(chain, draft)
    settings.CHAIN_RPC_URLS = [UNREACHABLE_RPC]
    answer = post(api, claim_body(d, tx))
    assert (answer.status_code, answer.json()["status"]) == (201, "pending")
    settings.CHAIN_RPC_URLS = [chain.url]
    assert payment_verify(response_id=answer.json()["id"]).status == ResponseStatus.CONFIRMED


def test_a_node_that_never_answers_cannot_hold_the_post(chain, draft, api, settings):
    """A node that accepts the connection and then says nothing (a real socket, not a mock): the
    POST gives up after CHAIN_POST_CHECK_TIMEOUT_SECONDS and stores the claim pending."""
    d, tx = paid(chain, draft)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        settings.CHAIN_RPC_URLS = [f"http://127.0.0.1:{silent.getsockname()[1]}"]
        settings.CHAIN_POST_CHECK_TIMEOUT_SECONDS = 1.0
        began = time.monotonic()
        answer = post(api, claim_body(d, tx))
        took = time.monotonic() - began
    finally:
        silent.close()
    assert (answer.status_code, answer.json()["status"]) == (201, "pending")
    assert took < 5, took
    print(f"\nPOST with a silent node (1 s timeout): 201 pending in {took:.2f} s")


def test_the_identical_claim_posted_again_is_a_replay(chain, draft, api):
    d, tx = paid(chain, draft)
    first = post(api, claim_body(d, tx))
    again = post(api, claim_body(d, tx))
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert Response.objects.count() == 1


def race(bodies: list[dict]) -> list[int]:
    """Each body from its own client address (a squatter can have many), all at one moment."""

    def one(index: int) -> int:
        return post(Client(REMOTE_ADDR=f"10.0.{index // 250}.{index % 250 + 1}"), bodies[index]).status_code

    return at_once([partial(one, i) for i in range(len(bodies))], timeout=120)


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_twenty_squatting_posts_racing_the_players_gain_nothing(chain, draft):
    d, tx = paid(chain, draft)
    stranger = chain.w3.eth.accounts[6]
    bodies = [claim_body(d, tx)] + [
        squat_body(d, tx, naming=chain.player if i % 2 else stranger, n=i) for i in range(SQUATTERS)
    ]
    codes = race(bodies)
    assert codes == [201] + [422] * SQUATTERS
    [player] = Response.objects.all()
    assert player.commitment == d.commitment
    assert payment_verify(response_id=player.pk).status == ResponseStatus.CONFIRMED
    assert_counted_once(d.challenge.pk)


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_twenty_squatters_stored_unchecked_then_verified_at_once_confirm_only_the_player(chain, draft, settings):
    """The worst case: the chain was unreadable while the squatters posted, so all twenty wait
    beside the player's claim; then twenty-one verifications run at the same moment."""
    d, tx = paid(chain, draft)
    stranger = chain.w3.eth.accounts[6]
    settings.CHAIN_RPC_URLS = [UNREACHABLE_RPC]
    codes = race([squat_body(d, tx, naming=chain.player if i % 2 else stranger, n=i) for i in range(SQUATTERS)])
    assert codes == [201] * SQUATTERS
    settings.CHAIN_RPC_URLS = [chain.url]
    assert race([claim_body(d, tx)]) == [201]
    ids = list(Response.objects.values_list("pk", flat=True))
    assert len(ids) == SQUATTERS + 1

    at_once([partial(payment_verify, response_id=i) for i in ids], timeout=120)
    [confirmed] = Response.objects.filter(status=ResponseStatus.CONFIRMED)
    assert confirmed.commitment == d.commitment
    assert Response.objects.filter(status=ResponseStatus.REJECTED).count() == SQUATTERS
    assert set(Response.objects.filter(status=ResponseStatus.REJECTED).values_list("rejection_code", flat=True)) == {
        "commitment_mismatch",
        "wrong_sender",
    }
    assert_counted_once(d.challenge.pk)
    assert Payment.objects.get(transaction_hash=tx).response_id == confirmed.pk
