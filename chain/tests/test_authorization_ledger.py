"""The ledger's rule for relayed stakes (chain/selectors.py, payment_is_claimed; chain/ledger.py):
a USDC transfer to the treasury made by a signed authorization is its payer's, and claimed only by
the claim paid by that authorization of that payer, whatever hash other claims name. Rows as the
indexer and verification write them (chain/tests/test_authorization_claims.py writes them from
anvil)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from chain.ledger import payments_link_rejected_claim
from chain.models import Payment
from chain.outcomes import reject
from chain.selectors import payments_unclaimed, payments_unclaimed_for_challenge, payments_unclaimed_in_window
from challenges.models import Challenge
from devtools.anchors import record_confirmed_anchor
from responses.models import PaymentMethod, Response, ResponseStatus
from responses.reasons import Reason
from responses.services import guess_fields

pytestmark = pytest.mark.django_db

RELAYED_TX = "0x" + "5a" * 32


@pytest.fixture
def challenge(make_challenge):
    challenge = make_challenge(anchored=False)  # chain/tests/conftest.py would anchor on anvil
    record_confirmed_anchor(challenge)
    return Challenge.objects.get(pk=challenge.pk)


def relayed_row(claim: Response, *, challenge_word: int | None, log_index: int = 1, payer: str | None = None):
    """The ledger row of a relayed stake, as the indexer writes it (chain/indexer.py)."""
    return Payment.objects.create(
        transaction_hash=RELAYED_TX,
        log_index=log_index,
        block_number=500,
        block_hash="0x" + "00" * 32,
        transaction_index=0,
        from_address=payer or claim.submitter_address,
        to_address="0x" + "77" * 20,
        amount_units=Decimal(2_500_000),
        commitment=claim.commitment,
        challenge_id_word=None if challenge_word is None else Decimal(challenge_word),
        block_timestamp=claim.challenge.start_timestamp,
    )


def strangers_transfer_claim(challenge: Challenge, *, status: str, code: str = "") -> Response:
    """A claim paid by transfer that names the relayed transaction, with a guess of its own."""
    address = "0x" + "c3" * 20
    return Response.objects.create(
        challenge=challenge,
        **guess_fields(challenge_id=challenge.pk, text="1, 1", submitter_address=address),
        submission_stake=Decimal("2.5"),
        transaction_hash=RELAYED_TX,
        submitter_address=address,
        status=status,
        rejection_code=code,
    )


def test_a_relayed_stake_no_authorization_claim_names_is_unclaimed_under_the_challenge_its_word_names(
    challenge, make_authorization_response
):
    lost = make_authorization_response(challenge)
    row = relayed_row(lost, challenge_word=challenge.pk)
    lost.delete()  # the claim never reached the site: the stake is the ledger's alone
    assert list(payments_unclaimed_for_challenge(challenge_id=challenge.pk)) == [row]
    [listed] = payments_unclaimed_in_window(
        challenge_id=challenge.pk, opened_at=challenge.start_timestamp, closed_at=None
    )
    assert (listed.transaction_hash, listed.amount) == (RELAYED_TX, Decimal("2.5"))


@pytest.mark.parametrize("status", [ResponseStatus.PENDING, ResponseStatus.CONFIRMED, ResponseStatus.REJECTED])
def test_the_payers_authorization_claim_claims_it_whatever_its_status(challenge, make_authorization_response, status):
    claim = make_authorization_response(challenge)
    Response.objects.filter(pk=claim.pk).update(status=status, rejection_code="late" if status == "rejected" else "")
    relayed_row(claim, challenge_word=challenge.pk)
    assert not payments_unclaimed().exists()


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (ResponseStatus.PENDING, ""),
        (ResponseStatus.REJECTED, Reason.UNSUPPORTED_TRANSACTION),
        (ResponseStatus.REJECTED, Reason.WRONG_SENDER),
    ],
)
def test_a_transfer_claim_naming_the_relayed_transaction_never_claims_it_nor_takes_its_row(
    challenge, make_authorization_response, status, code
):
    lost = make_authorization_response(challenge)
    row = relayed_row(lost, challenge_word=challenge.pk)
    lost.delete()
    stranger = strangers_transfer_claim(challenge, status=status, code=code)
    assert list(payments_unclaimed()) == [row]
    payments_link_rejected_claim(response=stranger, code=code or Reason.UNSUPPORTED_TRANSACTION)
    row.refresh_from_db()
    assert row.response_id is None


def test_another_payers_authorization_with_the_same_nonce_does_not_claim_it(challenge, make_authorization_response):
    """The nonce is the payer's own guess commitment; a row from another address that carries it is
    not that claim's payment (the token keys authorizations by payer and nonce)."""
    claim = make_authorization_response(challenge)
    relayed_row(claim, challenge_word=challenge.pk, payer="0x" + "d4" * 20)
    assert payments_unclaimed().count() == 1


def test_a_relayed_stake_without_a_challenge_word_is_listed_under_no_challenge(challenge, make_authorization_response):
    """Used by a contract, or relayed without the word: in the ledger, unclaimed, naming no challenge."""
    lost = make_authorization_response(challenge)
    relayed_row(lost, challenge_word=None)
    lost.delete()
    assert payments_unclaimed().count() == 1
    assert not payments_unclaimed_for_challenge(challenge_id=challenge.pk).exists()


def test_a_direct_transfer_in_the_same_transaction_is_not_claimed_by_the_authorization_claim(
    challenge, make_authorization_response
):
    """A contract that used an authorization and also sent USDC to the treasury of its own: the
    authorization claim names that transaction's hash, but only its own Transfer is its payment."""
    claim = make_authorization_response(challenge)
    Response.objects.filter(pk=claim.pk).update(transaction_hash=RELAYED_TX, status=ResponseStatus.CONFIRMED)
    relayed_row(claim, challenge_word=None)
    contracts_own = Payment.objects.create(
        transaction_hash=RELAYED_TX,
        log_index=3,
        block_number=500,
        block_hash="0x" + "00" * 32,
        transaction_index=0,
        from_address="0x" + "e5" * 20,
        to_address="0x" + "77" * 20,
        amount_units=Decimal(1_000_000),
    )
    assert list(payments_unclaimed()) == [contracts_own]
    assert Response.objects.get(pk=claim.pk).payment_method == PaymentMethod.AUTHORIZATION


def test_a_rejected_authorization_claim_links_nothing_by_its_hash(challenge, make_authorization_response):
    """A claim paid by authorization links only the Transfer its use made (chain/outcomes.py), never
    every row of its transaction's hash: one transaction may pay several claims."""
    claim = make_authorization_response(challenge)
    Response.objects.filter(pk=claim.pk).update(transaction_hash=RELAYED_TX)
    claim.refresh_from_db()
    other = relayed_row(claim, challenge_word=None, payer="0x" + "d4" * 20)
    assert reject(claim, Reason.LATE).changed
    other.refresh_from_db()
    assert other.response_id is None
