"""payment_verify against a real EVM (anvil) and the real TestUSDC: one real transaction per
reason code, depth, idempotency, and the ledger rows a confirmation writes."""

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from chain.contracts import contract_at
from chain.models import Payment
from chain.verification import Outcome, VerificationPending, payment_verify
from challenges.commitments import guess_commitment_v1
from challenges.models import Challenge
from devtools.concurrency import at_once
from responses.models import Response, ResponseStatus
from responses.reasons import REASON_SENTENCES
from responses.services import ClaimCannotMatch

from .conftest import ANVIL_CHAIN_ID, post_claim

pytestmark = pytest.mark.django_db


def verify(response) -> Outcome:
    return payment_verify(response_id=response.pk)


def paid_claim(chain, draft, **calldata_overrides):
    """Pay the draft's stake with the extended transfer and store its claim; 2 blocks deep."""
    d = draft()
    tx = chain.pay(chain.stake_calldata(d, **calldata_overrides))
    chain.mine(1)
    return d, post_claim(d, tx)


def assert_rejected(response, code):
    outcome = verify(response)
    assert outcome == Outcome(status=ResponseStatus.REJECTED, code=code, changed=True)
    response.refresh_from_db()
    assert (response.status, response.rejection_code) == (ResponseStatus.REJECTED, code)
    assert response.rejection_reason == REASON_SENTENCES[code]
    challenge = Challenge.objects.get(pk=response.challenge_id)
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("0"), 0)


def test_a_good_payment_confirms_with_chain_position_and_block_time(chain, draft):
    d, response = paid_claim(chain, draft)
    outcome = verify(response)
    assert outcome == Outcome(status=ResponseStatus.CONFIRMED, changed=True)
    response.refresh_from_db()
    receipt = chain.w3.eth.get_transaction_receipt(response.transaction_hash)
    block = chain.w3.eth.get_block(receipt["blockNumber"])
    assert response.status == ResponseStatus.CONFIRMED
    assert response.block_number == receipt["blockNumber"]
    assert response.block_hash == "0x" + bytes(receipt["blockHash"]).hex()
    assert response.transaction_index == receipt["transactionIndex"]
    assert response.log_index == receipt["logs"][0]["logIndex"]
    assert int(response.submission_timestamp.timestamp()) == block["timestamp"]
    challenge = Challenge.objects.get(pk=d.challenge.pk)
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("2.5"), 1)
    payment = Payment.objects.get(transaction_hash=response.transaction_hash)
    assert payment.response_id == response.pk
    assert payment.amount_units == 2_500_000
    assert payment.commitment == d.commitment
    assert payment.challenge_id_word == d.challenge.pk
    assert payment.from_address == chain.player and payment.to_address == chain.treasury


def test_verifying_twice_counts_the_stake_once(chain, draft):
    _, response = paid_claim(chain, draft)
    assert verify(response).changed is True
    again = verify(response)
    assert again == Outcome(status=ResponseStatus.CONFIRMED, changed=False)
    challenge = Challenge.objects.get(pk=response.challenge_id)
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("2.5"), 1)
    assert Payment.objects.count() == 1


def test_not_deep_enough_stays_pending_then_confirms(chain, draft, settings):
    settings.CHAIN_CONFIRMATIONS = "3"
    d = draft()
    response = post_claim(d, chain.pay(chain.stake_calldata(d)))
    for _ in range(2):  # depth 1, then 2
        with pytest.raises(VerificationPending, match="not deep enough"):
            verify(response)
        response.refresh_from_db()
        assert response.status == ResponseStatus.PENDING
        chain.mine(1)
    assert verify(response).status == ResponseStatus.CONFIRMED


def test_finalized_mode_waits_for_the_finalized_block(chain, draft, settings):
    settings.CHAIN_CONFIRMATIONS = "finalized"
    d = draft()
    response = post_claim(d, chain.pay(chain.stake_calldata(d)))
    mined = chain.w3.eth.get_transaction_receipt(response.transaction_hash)["blockNumber"]
    chain.mine(3)
    assert chain.w3.eth.get_block("finalized")["number"] < mined  # anvil finalizes far behind the head
    with pytest.raises(VerificationPending):
        verify(response)
    while chain.w3.eth.get_block("finalized")["number"] < mined:
        chain.mine(16)
    assert verify(response).status == ResponseStatus.CONFIRMED


def test_a_reverted_transfer_is_tx_failed(chain, draft):
    poor = chain.w3.eth.accounts[5]  # holds no USDC: the transfer reverts
    d = draft(address=poor)
    tx = chain.pay(chain.stake_calldata(d), sender=poor)
    assert chain.w3.eth.get_transaction_receipt(tx)["status"] == 0
    chain.mine(1)
    assert_rejected(post_claim(d, tx), "tx_failed")


def test_another_token_is_wrong_token(chain, draft):
    d = draft()
    tx = chain.pay(chain.stake_calldata(d), to=chain.other_token)
    chain.mine(1)
    assert chain.balance(chain.treasury, chain.other_token) == 2_500_000  # real money, wrong coin
    assert_rejected(post_claim(d, tx), "wrong_token")


def assert_refused_at_post(d, tx, code):
    """The chain is readable while the POST runs: the claim is refused with the code, nothing stored."""
    with pytest.raises(ClaimCannotMatch) as refusal:
        post_claim(d, tx)
    assert refusal.value.code == code
    assert not Response.objects.exists()


def test_a_different_sender_is_wrong_sender(chain, draft):
    d = draft()  # claimed by chain.player
    tx = chain.pay(chain.stake_calldata(d), sender=chain.other)
    chain.mine(1)
    assert_refused_at_post(d, tx, "wrong_sender")
    assert_rejected(post_claim(d, tx, chain_readable=False), "wrong_sender")


def test_another_recipient_is_wrong_recipient(chain, draft):
    _, response = paid_claim(chain, draft, treasury=chain.other)
    assert_rejected(response, "wrong_recipient")


@pytest.mark.parametrize("delta", [-1, 1])
def test_one_unit_less_or_more_is_amount_mismatch(chain, draft, delta):
    _, response = paid_claim(chain, draft, amount_units=2_500_000 + delta)
    assert_rejected(response, "amount_mismatch")


def test_a_commitment_for_other_coordinates_is_commitment_mismatch(chain, draft):
    d = draft(text="29.979, 31.134")
    other_coordinates = guess_commitment_v1(
        chain_id=ANVIL_CHAIN_ID,
        challenge_id=d.challenge.pk,
        submitter_address=d.address,
        text="48.8584, 2.2945",
        salt=d.salt,
    )
    tx = chain.pay(chain.stake_calldata(d, commitment=other_coordinates))
    chain.mine(1)
    assert_refused_at_post(d, tx, "commitment_mismatch")
    assert_rejected(post_claim(d, tx, chain_readable=False), "commitment_mismatch")


def test_a_plain_transfer_without_commitment_is_commitment_mismatch(chain, draft):
    d = draft()
    tx = chain.pay(chain.stake_calldata_plain(chain.treasury, 2_500_000))
    chain.mine(1)
    assert_refused_at_post(d, tx, "commitment_mismatch")
    assert_rejected(post_claim(d, tx, chain_readable=False), "commitment_mismatch")


def test_another_challenge_id_is_challenge_mismatch(chain, draft):
    d = draft()
    tx = chain.pay(chain.stake_calldata(d, challenge_id=999_999))
    chain.mine(1)
    assert_refused_at_post(d, tx, "challenge_mismatch")
    assert_rejected(post_claim(d, tx, chain_readable=False), "challenge_mismatch")


def test_a_fake_transfer_log_from_another_contract_is_no_transfer_log(chain, draft, settings):
    # The "token" the claim calls is FakeTransferToken: its transfer() succeeds and a helper contract
    # emits Transfer(player, treasury, amount) from its own address. Every check on the transaction
    # passes; only the emitter of the log is wrong, and no USDC moved.
    settings.USDC_ADDRESS = chain.fake_token
    d = draft()
    tx = chain.pay(chain.stake_calldata(d), to=chain.fake_token)
    chain.mine(1)
    receipt = chain.w3.eth.get_transaction_receipt(tx)
    assert receipt["status"] == 1 and len(receipt["logs"]) == 1
    assert receipt["logs"][0]["address"] != chain.fake_token
    assert_rejected(post_claim(d, tx), "no_transfer_log")


def test_a_payment_through_another_contract_is_unsupported(chain, draft):
    # A router/contract wallet: Forwarder calls USDC.transfer with the right calldata, so USDC does
    # emit a real Transfer to the treasury, but the sender never called USDC directly.
    d = draft()
    forwarder = contract_at(chain.w3, "Forwarder", chain.forwarder)
    tx_hash = forwarder.functions.forward(chain.usdc, bytes.fromhex(chain.stake_calldata(d)[2:])).transact(
        {"from": chain.player, "gas": 300_000}
    )
    receipt = chain.w3.eth.wait_for_transaction_receipt(tx_hash)
    assert receipt["status"] == 1 and chain.balance(chain.treasury) == 2_500_000
    chain.mine(1)
    assert_rejected(post_claim(d, "0x" + bytes(tx_hash).hex()), "unsupported_transaction")


def test_value_sent_along_is_unsupported(chain, draft):
    d = draft()
    forwarder = contract_at(chain.w3, "Forwarder", chain.forwarder)
    tx_hash = forwarder.functions.forward(chain.usdc, bytes.fromhex(chain.stake_calldata(d)[2:])).transact(
        {"from": chain.player, "gas": 300_000, "value": 1}
    )
    assert chain.w3.eth.wait_for_transaction_receipt(tx_hash)["status"] == 1
    chain.mine(1)
    assert_rejected(post_claim(d, "0x" + bytes(tx_hash).hex()), "unsupported_transaction")


def test_another_function_of_usdc_is_unsupported(chain, draft):
    # transferFrom on USDC itself: direct, successful, moves USDC to the treasury, but is not the
    # stake transfer whose calldata carries the commitment.
    d = draft()
    usdc = contract_at(chain.w3, "TestUSDC", chain.usdc)
    chain.w3.eth.wait_for_transaction_receipt(
        usdc.functions.approve(chain.player, 2_500_000).transact({"from": chain.player})
    )
    tx_hash = usdc.functions.transferFrom(chain.player, chain.treasury, 2_500_000).transact({"from": chain.player})
    assert chain.w3.eth.wait_for_transaction_receipt(tx_hash)["status"] == 1
    chain.mine(1)
    assert_rejected(post_claim(d, "0x" + bytes(tx_hash).hex()), "unsupported_transaction")


def test_a_payment_mined_after_the_challenge_closed_is_late(chain, draft):
    d = draft()
    response = post_claim(d, chain.pay(chain.stake_calldata(d)))
    chain.mine(1)
    # Closed before the block's time (closing through the service would set closed_at to now,
    # which is after the block; the window check is what is under test).
    Challenge.objects.filter(pk=d.challenge.pk).update(closed_at=timezone.now() - timedelta(minutes=5))
    assert_rejected(response, "late")


def test_a_payment_mined_before_the_challenge_opened_is_late(chain, draft):
    d = draft()
    response = post_claim(d, chain.pay(chain.stake_calldata(d)))
    chain.mine(1)
    Challenge.objects.filter(pk=d.challenge.pk).update(start_timestamp=timezone.now() + timedelta(minutes=5))
    assert_rejected(response, "late")


def test_an_unknown_hash_is_pending_before_the_deadline_and_not_found_after(chain, draft, settings):
    d = draft()
    response = post_claim(d, "0x" + "ab" * 32)  # never existed on this chain
    with pytest.raises(VerificationPending, match="not found"):
        verify(response)
    response.refresh_from_db()
    assert response.status == ResponseStatus.PENDING
    Response.objects.filter(pk=response.pk).update(
        created_at=timezone.now() - timedelta(seconds=settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS + 1)
    )
    assert_rejected(response, "not_found")


def test_another_guess_on_a_paid_transaction_is_422_then_409_once_confirmed(chain, draft, api):
    d1 = draft()
    tx = chain.pay(chain.stake_calldata(d1))
    chain.mine(1)

    def body(d, text):
        return {
            "challengeId": d.challenge.pk,
            "submissionText": text,
            "submissionStake": str(d.stake),
            "transactionHash": tx,
            "submitterAddress": d.address,
            "submissionSalt": d.salt,
        }

    first = api.post("/api/responses", data=json.dumps(body(d1, d1.text)), content_type="application/json")
    assert first.status_code == 201, first.content
    # Another guess on the same payment: the calldata commits to the first, so it can never match.
    second = api.post("/api/responses", data=json.dumps(body(d1, "1, 2")), content_type="application/json")
    assert second.status_code == 422, second.content
    assert second.json() == {
        "message": REASON_SENTENCES["commitment_mismatch"],
        "errors": {},
        "code": "commitment_mismatch",
    }
    assert Response.objects.count() == 1
    assert verify(Response.objects.get()).status == ResponseStatus.CONFIRMED
    third = api.post("/api/responses", data=json.dumps(body(d1, "1, 2")), content_type="application/json")
    assert third.status_code == 409, third.content
    assert Response.objects.count() == 1


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_verifications_count_the_stake_once(chain, draft):
    _, response = paid_claim(chain, draft)
    outcomes = at_once([lambda: payment_verify(response_id=response.pk)] * 2, timeout=30)
    assert sorted(o.changed for o in outcomes) == [False, True]
    assert {o.status for o in outcomes} == {ResponseStatus.CONFIRMED}
    challenge = Challenge.objects.get(pk=response.challenge_id)
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("2.5"), 1)
