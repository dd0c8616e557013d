"""A payment found late still counts (docs/protocol.md section 3.3, "A claim found late").

A stake transaction can reach a block after CHAIN_NOT_FOUND_TIMEOUT_SECONDS (stuck in the pool,
then mined; or held back by a wallet and sent later), or come back after
CHAIN_REORG_TIMEOUT_SECONDS. Its claim was rejected `not_found` (or `reorged`); posting the same
claim again, or the indexer recording the payment, re-opens it and it is verified again. Only a
transaction a node shows mined re-opens a claim: a made-up hash or a transaction that merely waits
in a pool never does, so nobody keeps a claim pending by re-posting it.

On anvil: the transaction is signed by the player's account and held back (its hash is known, no
node has it), then sent; or sent with automine off (in the pool, not mined)."""

from __future__ import annotations

import json
from contextlib import contextmanager
from decimal import Decimal

import pytest
from eth_utils import keccak

from chain.indexer import payments_index
from chain.reorgs import confirmed_recheck
from chain.verification import payment_verify, verification_deadline
from challenges.models import Challenge
from responses.models import Response, ResponseStatus

from .conftest import ANVIL_CHAIN_ID, post_claim

pytestmark = [pytest.mark.django_db, pytest.mark.integration]


def _stake_tx(chain, d, *, nonce: int, tip_gwei: int = 1) -> dict:
    return {
        "from": d.address,
        "to": chain.usdc,
        "data": chain.stake_calldata(d),
        "value": 0,
        "gas": 200_000,
        "maxFeePerGas": 50 * 10**9 + tip_gwei * 10**9,
        "maxPriorityFeePerGas": tip_gwei * 10**9,
        "nonce": nonce,
        "chainId": ANVIL_CHAIN_ID,
        "type": 2,
    }


def _held_back(chain, d) -> tuple[str, bytes]:
    """The player's wallet signed the stake but has not sent it: (its hash, the signed bytes)."""
    nonce = chain.w3.eth.get_transaction_count(d.address)
    fields = _stake_tx(chain, d, nonce=nonce)
    tx = {key: value if isinstance(value, str) else hex(value) for key, value in fields.items()}
    # anvil signs with the unlocked account (web3's sign_transaction cannot format anvil's answer).
    raw = bytes.fromhex(chain.w3.provider.make_request("eth_signTransaction", [tx])["result"][2:])
    return "0x" + keccak(raw).hex(), raw


def _send_and_mine(chain, raw: bytes, *, blocks: int = 2) -> None:
    chain.w3.eth.send_raw_transaction(raw)
    chain.mine(blocks)  # the payment's block and one more: CHAIN_CONFIRMATIONS=2 deep


@contextmanager
def automine_off(chain):
    chain.w3.provider.make_request("evm_setAutomine", [False])
    try:
        yield
    finally:
        chain.w3.provider.make_request("evm_setAutomine", [True])


def _repost(api, d, tx_hash: str):
    body = {
        "challengeId": d.challenge.pk,
        "submissionText": d.text,
        "submissionStake": str(d.stake),
        "transactionHash": tx_hash,
        "submitterAddress": d.address,
        "submissionSalt": d.salt,
    }
    return api.post("/api/responses", data=json.dumps(body), content_type="application/json")


def _not_found(claim: Response, settings) -> None:
    settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS = 0
    assert payment_verify(response_id=claim.pk).code == "not_found"


def _counted_once(challenge_id: int, stake: str = "2.5") -> None:
    challenge = Challenge.objects.get(pk=challenge_id)
    assert (challenge.staked_sum, challenge.response_count) == (Decimal(stake), 1)


def test_a_payment_mined_after_the_deadline_counts_once_its_claim_is_posted_again(api, chain, draft, settings):
    d = draft()
    tx, raw = _held_back(chain, d)
    claim = post_claim(d, tx)
    _not_found(claim, settings)

    # Re-posted while no node has the transaction: the rejected claim, as it is.
    again = _repost(api, d, tx)
    assert again.status_code == 200 and again.json()["status"] == "rejected"

    _send_and_mine(chain, raw)
    again = _repost(api, d, tx)
    assert again.status_code == 200, again.content
    assert again.json()["id"] == claim.pk
    assert (again.json()["status"], again.json()["rejectionCode"]) == ("pending", "")
    assert payment_verify(response_id=claim.pk).status == ResponseStatus.CONFIRMED
    _counted_once(d.challenge.pk)
    listed = api.get("/api/responses", {"address": d.address}).json()
    assert [(c["id"], c["status"]) for c in listed] == [(claim.pk, "confirmed")]


def test_the_indexer_reopens_the_payers_not_found_claim_and_no_strangers(chain, draft, settings):
    settings.CHAIN_INDEX_START_BLOCK = chain.w3.eth.block_number + 1
    d = draft()
    tx, raw = _held_back(chain, d)
    claim = post_claim(d, tx)
    stranger = post_claim(draft(text="48.8584, 2.2945"), tx)  # another guess on the same hash
    _not_found(claim, settings)
    assert payment_verify(response_id=stranger.pk).code == "not_found"

    _send_and_mine(chain, raw)
    result = payments_index()
    assert result is not None and result.pending_claims == [claim.pk]
    stranger.refresh_from_db()
    assert (stranger.status, stranger.rejection_code) == (ResponseStatus.REJECTED, "not_found")
    assert payment_verify(response_id=claim.pk).status == ResponseStatus.CONFIRMED
    _counted_once(d.challenge.pk)
    assert payments_index() is not None  # indexing again re-opens nothing
    stranger.refresh_from_db()
    assert stranger.status == ResponseStatus.REJECTED


def test_a_transaction_waiting_in_the_pool_reopens_nothing_until_it_is_mined(api, chain, draft, settings):
    d = draft()
    nonce = chain.w3.eth.get_transaction_count(d.address)
    with automine_off(chain):
        tx = "0x" + bytes(chain.w3.eth.send_transaction(_stake_tx(chain, d, nonce=nonce))).hex()
        claim = post_claim(d, tx)  # the POST reads it from the pool: the payer's, at this nonce
        assert (claim.sent_by_submitter, claim.sender_nonce) == (True, nonce)
        _not_found(claim, settings)
        for _ in range(3):
            again = _repost(api, d, tx)
            assert again.status_code == 200 and again.json()["status"] == "rejected"
        chain.mine(2)
    again = _repost(api, d, tx)
    assert again.json()["status"] == "pending"
    assert payment_verify(response_id=claim.pk).status == ResponseStatus.CONFIRMED
    _counted_once(d.challenge.pk)


def test_a_reopened_claim_gets_a_new_deadline(chain, draft, settings):
    from datetime import timedelta

    from django.utils import timezone

    d = draft()
    tx, raw = _held_back(chain, d)
    claim = post_claim(d, tx)
    _not_found(claim, settings)
    long_ago = timezone.now() - timedelta(hours=2)
    Response.objects.filter(pk=claim.pk).update(created_at=long_ago)
    _send_and_mine(chain, raw)
    reopened = post_claim(d, tx)
    assert reopened.status == ResponseStatus.PENDING and reopened.reopened_at is not None
    settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS = 600
    assert verification_deadline(reopened) == reopened.reopened_at + timedelta(seconds=600)


def test_a_reorged_claim_whose_transaction_returns_late_counts_once_posted_again(chain, draft, settings):
    d = draft()
    nonce = chain.w3.eth.get_transaction_count(d.address)
    snapshot = chain.snapshot()
    tx = chain.send(_stake_tx(chain, d, nonce=nonce))
    chain.mine(1)
    claim = post_claim(d, tx)
    assert payment_verify(response_id=claim.pk).status == ResponseStatus.CONFIRMED
    chain.revert(snapshot)
    chain.mine(3)
    assert confirmed_recheck() == [claim.pk]
    settings.CHAIN_REORG_TIMEOUT_SECONDS = 0
    assert payment_verify(response_id=claim.pk).code == "reorged"

    assert chain.send(_stake_tx(chain, d, nonce=nonce)) == tx  # it comes back, late
    chain.mine(1)
    assert post_claim(d, tx).status == ResponseStatus.PENDING
    assert payment_verify(response_id=claim.pk).status == ResponseStatus.CONFIRMED
    _counted_once(d.challenge.pk)


def test_a_replaced_transactions_claim_ends_not_found_and_the_replacement_counts_once(chain, draft, settings):
    """A wallet's "speed up" sends the same payment again at the same nonce with a higher fee: the
    first hash is never mined. Its claim (the nonce kept from the POST's read) ends not_found; the
    page posts the same guess on the replacement's hash, which is confirmed."""
    d = draft()
    nonce = chain.w3.eth.get_transaction_count(d.address)
    with automine_off(chain):
        first = "0x" + bytes(chain.w3.eth.send_transaction(_stake_tx(chain, d, nonce=nonce))).hex()
        claim = post_claim(d, first)
        replacement = "0x" + bytes(chain.w3.eth.send_transaction(_stake_tx(chain, d, nonce=nonce, tip_gwei=5))).hex()
        chain.mine(2)
    assert replacement != first and chain.w3.eth.get_transaction_receipt(replacement)["status"] == 1
    assert claim.sender_nonce == nonce
    _not_found(claim, settings)
    assert post_claim(d, first).status == ResponseStatus.REJECTED  # never mined: nothing re-opens
    moved = post_claim(d, replacement)
    assert payment_verify(response_id=moved.pk).status == ResponseStatus.CONFIRMED
    _counted_once(d.challenge.pk)
