"""Relayed stakes in the ledger and at resolution, on anvil with the real token: the indexer records a
USDC transfer made by a signed authorization with its nonce and challenge word, links it to its
payer's claim and verifies that claim at once (never a stranger's); one no claim names is an
unclaimed payment of the challenge its word names, for staff before they resolve and for everyone
after; one made through a contract names no challenge and is linked when verification reads it.
A pending claim paid by authorization holds resolution back, and one that reaches the site after
resolution started is rejected `after_resolution` and recorded as an exception."""

from __future__ import annotations

from decimal import Decimal

import pytest

from chain.indexer import payments_index
from chain.models import Payment
from chain.selectors import payments_unclaimed
from challenges.models import Challenge
from challenges.services import ChallengeStateError
from responses.barrier import unclaimed_in_window
from responses.models import ExceptionKind, ResolutionException, ResponseStatus
from responses.resolution import challenge_resolve_start

from . import authorization_support as support
from .conftest import post_claim
from .verifier_support import relay, resolve, sign_stake

pytestmark = [pytest.mark.django_db, pytest.mark.integration]
authorization_claim = support.authorization_claim


@pytest.fixture
def indexed_from_here(chain, settings):
    settings.CHAIN_INDEX_START_BLOCK = chain.w3.eth.block_number + 1


def signed_by_hand(chain, d) -> tuple[str, int]:
    """A payer's authorization for draft `d`'s guess, signed in their wallet but never claimed:
    (signature, validBefore)."""
    valid_before = chain.w3.eth.get_block("latest")["timestamp"] + 1800
    return sign_stake(chain, d, valid_before), valid_before


def relay_by_hand(chain, d, *, with_challenge_word: bool = True) -> tuple[str, str, int]:
    """Use it on chain as the relayer does (324 bytes), or without the challenge word (292):
    (its transaction, the signature, validBefore)."""
    signature, valid_before = signed_by_hand(chain, d)
    tx = relay(
        chain, d, sender=chain.deployer, valid_before=valid_before, signature=signature, word=with_challenge_word
    )
    return tx, signature, valid_before


def test_the_indexer_records_a_relayed_stake_and_links_and_requeues_its_payers_claim_never_a_strangers(
    chain, draft, authorization_claim, indexed_from_here
):
    claim = authorization_claim()
    tx = support.relay(chain, claim)
    squat = post_claim(draft(address=chain.deployer, text="10, 10"), tx)  # a transfer claim on the hash
    result = payments_index()
    assert result is not None and claim.pk in result.pending_claims
    row = Payment.objects.get(transaction_hash=tx)
    assert (row.commitment, row.challenge_id_word, row.timestamp_word) == (claim.commitment, claim.challenge_id, None)
    assert (row.from_address, row.amount_units, row.response_id) == (chain.player, 2_500_000, claim.pk)

    chain.mine(1)
    assert support.decided(squat) == (ResponseStatus.REJECTED, "unsupported_transaction")
    payments_index()
    row.refresh_from_db()
    assert row.response_id == claim.pk  # the stranger's claim never takes it
    assert not payments_unclaimed().exists()


def test_a_relayed_stake_no_claim_names_is_unclaimed_under_the_challenge_its_word_names(
    chain, draft, api, indexed_from_here, third
):
    lost = draft(stake="3")
    wordless = draft(stake="1.5", address=third, text="1, 2")
    tx, _, _ = relay_by_hand(chain, lost)
    no_word, _, _ = relay_by_hand(chain, wordless, with_challenge_word=False)
    chain.mine(1)
    payments_index()
    challenge = Challenge.objects.get(pk=lost.challenge.pk)
    # What staff see before they resolve: the payment with the word naming this challenge.
    assert [(p.transaction_hash, p.from_address, p.amount) for p in unclaimed_in_window(challenge=challenge)] == [
        (tx, chain.player, Decimal("3"))
    ]
    assert Payment.objects.get(transaction_hash=no_word).challenge_id_word is None
    assert {p.transaction_hash for p in payments_unclaimed()} == {tx, no_word}

    resolve(chain, challenge)
    listed = api.get(f"/api/challenges/{challenge.pk}/unclaimed").json()
    assert [(p["transactionHash"], p["fromAddress"], p["amount"]) for p in listed] == [(tx, chain.player, "3.000000")]


def test_an_authorization_used_through_a_contract_names_no_challenge_until_verification_links_it(
    chain, authorization_claim, indexed_from_here
):
    claim = authorization_claim()
    tx = support.batch_relay(chain, claim)
    chain.mine(1)
    payments_index()
    row = Payment.objects.get(transaction_hash=tx)
    assert (row.commitment, row.challenge_id_word, row.response_id) == ("", None, None)  # unreadable calldata

    assert support.decided(claim) == (ResponseStatus.CONFIRMED, "")  # the receipt's AuthorizationUsed links it
    row.refresh_from_db()
    assert (row.commitment, row.challenge_id_word, row.response_id) == (claim.commitment, None, claim.pk)
    payments_index()  # read again: still its payer's
    row.refresh_from_db()
    assert row.response_id == claim.pk
    assert not payments_unclaimed().exists()


def test_a_pending_authorization_claim_holds_resolution_back(chain, authorization_claim):
    claim = authorization_claim()
    with pytest.raises(ChallengeStateError, match=r"1 claim\(s\) are still being verified"):
        challenge_resolve_start(challenge=claim.challenge, enqueue=False, wait_for_late_claims=False)
    support.relay(chain, claim)
    chain.mine(1)
    assert support.decided(claim) == (ResponseStatus.CONFIRMED, "")
    challenge = resolve(chain, claim.challenge)
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("2.5"), 1)


def test_an_authorization_claim_that_reaches_the_site_after_resolution_is_rejected_after_resolution(
    chain, draft, make_authorization_response, indexed_from_here
):
    """The payer's page signed and the authorization was used in the open window, but its claim
    arrives only after resolution started: stored, verified, rejected with the exception staff and
    the winners answer show; its payment is the payer's, not unclaimed."""
    d = draft()
    tx, signature, valid_before = relay_by_hand(chain, d)
    chain.mine(1)
    challenge = resolve(chain, d.challenge)
    claim = make_authorization_response(
        challenge,
        d.text,
        str(d.stake),
        address=d.address,
        salt=d.salt,
        signature=signature,
        valid_before=valid_before,
        search_from_block=max(0, chain.w3.eth.block_number - 64),
    )
    assert claim.commitment == d.commitment
    assert support.decided(claim) == (ResponseStatus.REJECTED, "after_resolution")
    claim.refresh_from_db()
    assert claim.transaction_hash == tx
    exception = ResolutionException.objects.get()
    assert (exception.response_id, exception.kind, exception.transaction_hash) == (
        claim.pk,
        ExceptionKind.AFTER_RESOLUTION,
        tx,
    )
    challenge.refresh_from_db()
    assert (challenge.staked_sum, challenge.response_count) == (Decimal("0"), 0)
    payments_index()
    assert Payment.objects.get(transaction_hash=tx).response_id == claim.pk
    assert not payments_unclaimed().exists()
