"""verify_challenge.py against an operator who changes a challenge's terms or its anchor after
players paid (docs/protocol.md section 6), or counts a payment made before the terms were on chain:
the terms are on chain before anyone stakes, so the verifier, run as a player runs it
(chain/tests/verifier_support.py), ends in a DIFFERENCE and exit 1."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from chain.indexer import payments_index
from chain.models import Payment
from chain.verification import payment_verify
from challenges.commitments import new_salt, solution_commitment_v1
from challenges.models import Challenge, ChallengeAnchor
from challenges.services import challenge_stake_moved
from responses.models import Response, ResponseStatus
from responses.reasons import REASON_SENTENCES

from .conftest import post_claim
from .verifier_support import GIZA, assert_differs, pay, resolve, run_verifier, verify

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_solution_replaced_by_a_far_away_point(chain, played, live_server):
    far, salt = "-33.856784, 151.215296", new_salt()
    Challenge.objects.filter(pk=played.challenge.pk).update(
        solution=far,
        solution_salt=salt,
        solution_sha256=solution_commitment_v1(challenge_id=played.challenge.pk, text=far, salt=salt),
    )
    resolve(chain, played.challenge)
    result = verify(live_server, chain, played.challenge)
    assert_differs(
        result,
        "the site's solution SHA-256",
        "the revealed solution and salt do not open the anchored solution commitment",
    )


def test_the_threshold_lowered_to_zero(chain, played, live_server):
    Challenge.objects.filter(pk=played.challenge.pk).update(proximity_threshold_m=0)
    resolve(chain, played.challenge)
    result = verify(live_server, chain, played.challenge)
    # Scored with the anchored 100 m: both correct guesses are correct, whatever the site says.
    assert_differs(
        result,
        "the site's threshold is 0 m, the anchored threshold 100 m",
        f"DIFFERENCE response {played.right.pk} ({played.right.transaction_hash}): correct is True, "
        "the site shows False",
        f"the earliest winner is response {played.right.pk}",
    )


def test_the_opening_time_moved(chain, played, live_server):
    Challenge.objects.filter(pk=played.challenge.pk).update(
        start_timestamp=played.challenge.start_timestamp - timedelta(hours=1)
    )
    resolve(chain, played.challenge)
    result = verify(live_server, chain, played.challenge)
    anchored = played.challenge.anchor.opens_at
    assert_differs(result, f"the anchored {anchored}")
    assert "the site's opening time is" in result.stdout


def test_the_poem_edited_after_publishing(chain, played, live_server):
    resolve(chain, played.challenge)
    Challenge.objects.filter(pk=played.challenge.pk).update(poem_text="<p>Another poem, with another place</p>")
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, "the title, poem and instructions the site shows are not the anchored terms")


def test_demo_switched_on_for_an_anchored_challenge_with_a_made_up_claim(chain, played, live_server):
    from responses.services import guess_fields

    challenge = played.challenge
    made_up = Response.objects.create(
        challenge=challenge,
        **guess_fields(challenge_id=challenge.pk, text=GIZA, submitter_address=chain.deployer),
        submission_stake=Decimal("50"),
        transaction_hash="0x" + "d0" * 32,
        submitter_address=chain.deployer,
        status=ResponseStatus.CONFIRMED,
        block_number=1,
        transaction_index=0,
        log_index=0,
        submission_timestamp=challenge.start_timestamp,
        is_demo=True,
    )
    challenge_stake_moved(challenge_id=challenge.pk, stake=made_up.submission_stake, count=1)
    Challenge.objects.filter(pk=challenge.pk).update(is_demo=True)
    resolve(chain, challenge)
    result = verify(live_server, chain, challenge)
    assert_differs(result, f"DIFFERENCE response {made_up.pk} (0x{'d0' * 32}): the transaction is not on this chain")
    assert "demonstration" not in result.stdout  # anchored: checked in full, whatever isDemo says


def test_the_site_shows_another_anchor_than_the_first_on_chain(chain, played, live_server):
    resolve(chain, played.challenge)
    ChallengeAnchor.objects.filter(challenge=played.challenge).update(terms_sha256="00" * 32)
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, "the anchor the site shows is not the first anchor on chain")


def test_an_unanchored_challenge_that_is_not_a_demo(chain, draft, make_challenge, live_server):
    """Never open: its terms are not on chain. A payment naming it is `early` (chain/checks.py), and
    the verifier re-derives that code, beside the difference that there is no anchor."""
    from responses.services import guess_fields

    challenge = make_challenge(anchored=False)
    d = draft(challenge=challenge, stake="2")
    tx_hash = pay(chain, d)
    chain.mine(2)
    # No claim can be posted on a challenge that is not open: the row as verification would leave it.
    early = Response.objects.create(
        challenge=challenge,
        **guess_fields(challenge_id=challenge.pk, text=d.text, submitter_address=d.address, salt=d.salt),
        submission_stake=d.stake,
        transaction_hash=tx_hash,
        submitter_address=d.address,
        status=ResponseStatus.REJECTED,
        rejection_code="early",
        rejection_reason=REASON_SENTENCES["early"],
    )
    assert early.commitment == d.commitment
    resolve(chain, challenge)
    result = verify(live_server, chain, challenge)
    assert_differs(result, f"challenge {challenge.pk} has no anchor in the registry {chain.registry.lower()}")
    assert "1 of 1 rejected claims: reason code re-checked" in result.stdout
    assert "rejected claim" not in "\n".join(result.differences())


def test_a_site_without_a_registry(chain, played, live_server, settings):
    resolve(chain, played.challenge)
    settings.ANCHOR_REGISTRY_ADDRESS = ""
    result = run_verifier(live_server.url, "--challenge", str(played.challenge.pk), rpc=chain.url)
    assert_differs(result, "the site names no terms registry")


def test_the_site_hides_the_anchor_of_an_anchored_challenge(chain, played, live_server):
    resolve(chain, played.challenge)
    ChallengeAnchor.objects.filter(challenge=played.challenge).update(status="failed")
    result = verify(live_server, chain, played.challenge)
    assert_differs(result, "the site shows no anchor for an anchored challenge")


def test_the_site_shows_an_anchor_no_chain_holds(chain, make_challenge, live_server):
    from devtools.anchors import record_confirmed_anchor

    challenge = make_challenge(anchored=False)
    record_confirmed_anchor(challenge)
    resolve(chain, challenge)
    result = verify(live_server, chain, challenge)
    assert_differs(result, "the site shows an anchor in transaction 0x")


# --- Payments before the terms were on chain --------------------------------------------------


def count_anyway(claim: Response, tx_hash: str, chain) -> Response:
    """The operator counts a payment the rules refuse: the row set confirmed with its chain position."""
    receipt = chain.w3.eth.get_transaction_receipt(tx_hash)
    block = chain.w3.eth.get_block(receipt["blockNumber"])
    claim.refresh_from_db()
    if claim.status != ResponseStatus.CONFIRMED:
        Response.objects.filter(pk=claim.pk).update(
            status=ResponseStatus.CONFIRMED,
            rejection_code="",
            rejection_reason="",
            block_number=receipt["blockNumber"],
            block_hash="0x" + bytes(receipt["blockHash"]).hex(),
            transaction_index=receipt["transactionIndex"],
            log_index=receipt["logs"][0]["logIndex"],
            submission_timestamp=datetime.fromtimestamp(block["timestamp"], tz=UTC),
        )
        challenge_stake_moved(challenge_id=claim.challenge_id, stake=claim.submission_stake, count=1)
    claim.refresh_from_db()
    return claim


def test_a_payment_mined_before_the_anchor_is_early_and_counting_it_differs(chain, draft, make_challenge, live_server):
    from .conftest import anchor_on_chain

    challenge = make_challenge(solution=GIZA, threshold=100, anchored=False)  # published, its anchor queued
    d = draft(challenge=challenge, stake="2")
    tx_hash = pay(chain, d)  # in a block before the anchor's
    anchor_on_chain(chain, challenge)
    claim = post_claim(d, tx_hash)
    chain.mine(2)
    outcome = payment_verify(response_id=claim.pk)
    assert (outcome.status, outcome.code) == ("rejected", "early")
    resolve(chain, challenge)
    assert verify(live_server, chain, challenge).returncode == 0  # early, re-checked

    count_anyway(claim, tx_hash, chain)
    result = verify(live_server, chain, challenge)
    anchored = ChallengeAnchor.objects.get(challenge=challenge).block_number
    assert_differs(result, f"not after the anchor's block {anchored}")


def test_a_payment_before_the_anchored_opening_time_counted_anyway(chain, draft, make_challenge, live_server):
    """Anchored to open a minute later, paid at once, in a block after the anchor's: counting it differs."""
    from .conftest import anchor_on_chain

    challenge = make_challenge(solution=GIZA, threshold=100, anchored=False)
    later = timezone.now().replace(microsecond=0) + timedelta(minutes=1)
    Challenge.objects.filter(pk=challenge.pk).update(start_timestamp=later)
    ChallengeAnchor.objects.filter(challenge=challenge).update(opens_at=int(later.timestamp()))
    anchor_on_chain(chain, Challenge.objects.get(pk=challenge.pk))
    d = draft(challenge=challenge, stake="2")
    tx_hash = pay(chain, d)
    claim = post_claim(d, tx_hash)
    chain.mine(2)
    assert payment_verify(response_id=claim.pk).status == "rejected"
    count_anyway(claim, tx_hash, chain)
    Challenge.objects.filter(pk=challenge.pk).update(start_timestamp=timezone.now() - timedelta(minutes=5))
    resolve(chain, challenge)
    result = verify(live_server, chain, challenge)
    assert_differs(result, f"before the anchored opening time {int(later.timestamp())}")


def test_an_unclaimed_payment_before_the_anchor_is_read_from_its_receipt(chain, draft, make_challenge, live_server):
    """The site lists an unclaimed payment mined before the anchor (outside the scan from the
    anchor's block): the verifier reads it from its receipt, finds it as listed, and differs on nothing."""
    from .conftest import anchor_on_chain

    challenge = make_challenge(solution=GIZA, threshold=100, anchored=False)
    d = draft(challenge=challenge, stake="2")
    early_tx = pay(chain, d)
    anchor_on_chain(chain, challenge)
    while (indexed := payments_index()) and indexed.to_block < chain.w3.eth.block_number:
        pass
    resolve(chain, challenge)
    result = verify(live_server, chain, challenge)
    assert result.returncode == 0, result.stdout
    assert not result.differences()
    assert "0 payments to the treasury name challenge" in result.stdout
    Payment.objects.filter(transaction_hash=early_tx).update(from_address=chain.deployer)
    assert_differs(verify(live_server, chain, challenge), f"unclaimed payment {early_tx} log ")
