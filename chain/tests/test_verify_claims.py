"""verify_challenge.py against an operator who edits the claims or the payment ledger after players
paid (docs/protocol.md section 6): the verifier, run as a player runs it
(chain/tests/verifier_support.py), reads every payment from the chain and ends in a DIFFERENCE and
exit 1."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from chain.indexer import payments_index
from chain.models import Payment
from chain.verification import payment_verify
from challenges.models import Challenge
from challenges.services import challenge_stake_moved
from responses.models import Response, ResponseStatus
from responses.reasons import REASON_SENTENCES

from .conftest import post_claim
from .verifier_support import GIZA, assert_differs, pay, resolve, verify

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_correct_claim_deleted_with_its_ledger_row(chain, played, live_server):
    gone = played.also_right
    Payment.objects.filter(transaction_hash=gone.transaction_hash).delete()
    Response.objects.filter(pk=gone.pk).delete()
    challenge_stake_moved(challenge_id=played.challenge.pk, stake=-gone.submission_stake, count=-1)
    resolve(chain, played.challenge)
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result, f"payment {gone.transaction_hash} from {gone.submitter_address.lower()} of 7.000000 USDC in block"
    )
    assert "and is neither counted, rejected nor listed unclaimed" in result.stdout


def test_a_correct_claim_flipped_to_rejected_with_a_false_code(chain, played, live_server):
    flipped = played.right
    Response.objects.filter(pk=flipped.pk).update(
        status=ResponseStatus.REJECTED, rejection_code="late", rejection_reason=REASON_SENTENCES["late"]
    )
    challenge_stake_moved(challenge_id=played.challenge.pk, stake=-flipped.submission_stake, count=-1)
    resolve(chain, played.challenge)
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"rejected claim {flipped.pk} ({flipped.transaction_hash}): rejected late, but its payment passes every rule",
    )


def test_a_transaction_index_changed_in_the_chain_position(chain, played, live_server):
    resolve(chain, played.challenge)
    target = played.wrong
    Response.objects.filter(pk=target.pk).update(transaction_index=target.transaction_index + 1)
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"DIFFERENCE response {target.pk} ({target.transaction_hash}): chain position is block {target.block_number} "
        f"index {target.transaction_index} log {target.log_index}, the site shows block {target.block_number} "
        f"index {target.transaction_index + 1} log {target.log_index}",
    )


def test_the_close_moved_before_a_counted_payment(chain, played, live_server):
    resolve(chain, played.challenge)
    mined = int(played.wrong.submission_timestamp.timestamp())
    Challenge.objects.filter(pk=played.challenge.pk).update(closed_at=datetime.fromtimestamp(mined - 1, tz=UTC))
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        f"DIFFERENCE response {played.wrong.pk} ({played.wrong.transaction_hash}): mined at {mined}, outside the "
        f"open window",
    )


def test_an_unclaimed_listing_that_is_not_on_chain(chain, played, live_server):
    resolve(chain, played.challenge)
    Payment.objects.create(
        transaction_hash="0x" + "e1" * 32,
        log_index=0,
        block_number=played.right.block_number,
        block_hash="0x" + "00" * 32,
        transaction_index=0,
        from_address=chain.other,
        to_address=chain.treasury,
        amount_units=Decimal(1_000_000),
        commitment="ab" * 32,
        challenge_id_word=Decimal(played.challenge.pk),
    )
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, f"unclaimed payment 0x{'e1' * 32} log 0: no such transfer to the treasury")


def test_a_transfer_log_from_another_contract_is_no_transfer_log(chain, draft, make_challenge, live_server, settings):
    """The site's token emits its Transfer from another contract (FakeTransferToken): the server
    rejects the claim `no_transfer_log`, and the verifier, reading the same token from the page,
    re-derives it: only the token's own logs move money."""
    challenge = make_challenge(solution=GIZA, threshold=100)
    settings.USDC_ADDRESS = chain.fake_token
    d = draft(challenge=challenge, stake="2.5")
    claim = post_claim(d, chain.pay(chain.stake_calldata(d), to=chain.fake_token))
    chain.mine(2)
    assert payment_verify(response_id=claim.pk).code == "no_transfer_log"
    resolve(chain, challenge)
    result = verify(live_server, chain, challenge)
    assert result.returncode == 0, result.stdout
    assert "1 of 1 rejected claims: reason code re-checked" in result.stdout


@pytest.mark.parametrize(
    ("what", "expected"),
    [
        ("sender", "sent from "),
        ("timestamp", "the site shows "),
        ("recipient", "not the treasury"),
        ("challenge", "the calldata names challenge 999999"),
        ("anchor_tx", "not the USDC contract"),
        ("confirmations", ", fewer than 100000"),
    ],
)
def test_a_counted_response_that_its_payment_does_not_back(chain, draft, played, live_server, what, expected):
    target = played.wrong
    args: list[str] = []
    if what == "sender":
        Response.objects.filter(pk=target.pk).update(submitter_address=chain.deployer)
        expected = f"sent from {target.submitter_address.lower()}, the site shows {chain.deployer}"
    elif what == "timestamp":
        Response.objects.filter(pk=target.pk).update(
            submission_timestamp=target.submission_timestamp - timedelta(seconds=1)
        )
        expected = f"the site shows {int(target.submission_timestamp.timestamp()) - 1}"
    elif what in ("recipient", "challenge"):
        d = played.drafts["wrong"]
        overrides = {"treasury": chain.other} if what == "recipient" else {"challenge_id": 999_999}
        other_tx = pay(chain, d, **overrides)
        chain.mine(2)
        Response.objects.filter(pk=target.pk).update(transaction_hash=other_tx)
    elif what == "anchor_tx":
        Response.objects.filter(pk=target.pk).update(transaction_hash=played.challenge.anchor.transaction_hash)
    else:
        args = ["--confirmations", "100000"]
    resolve(chain, played.challenge)
    result = verify(live_server, chain, played.challenge, *args)
    assert_differs(result, f"DIFFERENCE response {target.pk} (")
    assert expected in "\n".join(result.differences()), result.stdout


def test_a_rejected_claims_published_salt_changed(chain, draft, played, live_server):
    short = draft(challenge=played.challenge, stake="4")
    claim = post_claim(short, pay(chain, short, amount_units=3_000_000))
    chain.mine(2)
    assert payment_verify(response_id=claim.pk).code == "amount_mismatch"
    resolve(chain, played.challenge)
    Response.objects.filter(pk=claim.pk).update(submission_salt="ab" * 32)
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, f"rejected claim {claim.pk} ({claim.transaction_hash}): its commitment is not that of")


def test_an_unclaimed_payment_listed_with_another_amount(chain, draft, played, live_server):
    lost = draft(challenge=played.challenge, stake="1.5", address=chain.other)
    lost_tx = pay(chain, lost)
    chain.mine(2)
    while (indexed := payments_index()) and indexed.to_block < chain.w3.eth.block_number:
        pass
    resolve(chain, played.challenge)
    assert verify(live_server, chain, played.challenge).returncode == 0
    Payment.objects.filter(transaction_hash=lost_tx).update(amount_units=Decimal(1_000_000))
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, f"unclaimed payment {lost_tx} log ")
    assert "of 1.500000 USDC, the site lists" in result.stdout
