"""When resolution may start (docs/protocol.md section 4, "Close, grace period and resolution";
responses/barrier.py): not before CHALLENGE_CLOSE_GRACE_SECONDS after the close, not before the
ledger indexer has read a block after the close, and staff see, before they resolve, the payments
of the open window that no claim names. On anvil, with the real indexer and the real admin."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse
from django.utils import timezone

from chain.indexer import payments_index
from challenges.models import Challenge, ChallengeResolution, ChallengeStatus
from challenges.services import ChallengeStateError, challenge_close
from responses.resolution import challenge_resolve_start

from .conftest import post_claim
from .test_close_window import body
from .verifier_support import confirm, mine_at, pay, wait_for_wall_clock_past_head

pytestmark = pytest.mark.django_db


def start(challenge) -> ChallengeResolution:
    return challenge_resolve_start(challenge=Challenge.objects.get(pk=challenge.pk), enqueue=False)


def close_after_the_payments(chain, challenge) -> Challenge:
    wait_for_wall_clock_past_head(chain)
    return challenge_close(challenge=challenge)


def index_a_block_after(chain, challenge) -> None:
    """A block mined after the close, read by the indexer."""
    mine_at(chain, int(challenge.closed_at.timestamp()) + 2)
    payments_index()


def test_an_active_challenge_is_not_resolved_while_a_grace_period_applies(chain, make_challenge, settings):
    settings.CHALLENGE_CLOSE_GRACE_SECONDS = 600
    challenge = make_challenge()
    with pytest.raises(ChallengeStateError, match="still active: close it first. Resolution can start 10 minute"):
        start(challenge)
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.ACTIVE and challenge.closed_at is None


def test_resolution_waits_for_the_grace_period_after_the_close(chain, make_challenge, settings):
    settings.CHALLENGE_CLOSE_GRACE_SECONDS = 2
    challenge = close_after_the_payments(chain, make_challenge())
    index_a_block_after(chain, challenge)
    with pytest.raises(ChallengeStateError, match="can still arrive until"):
        start(challenge)
    assert not ChallengeResolution.objects.exists()
    assert challenge.closed_at is not None
    time.sleep(max(0.0, (challenge.closed_at - timezone.now()).total_seconds() + 2.1))
    assert start(challenge).total == 0


def test_resolution_waits_for_the_ledger_to_read_past_the_close(chain, make_challenge, settings):
    settings.CHALLENGE_CLOSE_GRACE_SECONDS = 0
    challenge = close_after_the_payments(chain, make_challenge())
    with pytest.raises(ChallengeStateError, match="has not read any block yet"):
        start(challenge)
    payments_index()  # up to the head, whose block is older than the close
    with pytest.raises(ChallengeStateError, match="has read blocks up to .* not yet past the close"):
        start(challenge)
    index_a_block_after(chain, challenge)
    assert start(challenge).total == 0


def test_staff_see_the_unclaimed_payments_of_the_open_window_before_resolving(
    chain, draft, make_challenge, settings, admin_client, api
):
    settings.CHALLENGE_CLOSE_GRACE_SECONDS = 0
    claimed = draft(stake="4", address=chain.other)
    confirm(chain, post_claim(claimed, pay(chain, claimed)))
    silent = draft(stake="3")  # paid, and the page never posted the claim
    silent_tx = pay(chain, silent)
    challenge = close_after_the_payments(chain, silent.challenge)
    after = draft(challenge=challenge, stake="6")
    # Mined after the close: in a block of a later second (block times are whole seconds, and a block
    # of the close's own second is in the window; anvil may mine the next one in that second).
    assert challenge.closed_at is not None
    chain.w3.provider.make_request("evm_setNextBlockTimestamp", [int(challenge.closed_at.timestamp()) + 1])
    after_tx = pay(chain, after)  # not in the window
    index_a_block_after(chain, challenge)

    resolve_page = admin_client.get(
        reverse("admin:challenges_challenge_lifecycle", args=[challenge.pk, "resolve"])
    ).content.decode()
    change_page = admin_client.get(reverse("admin:challenges_challenge_change", args=[challenge.pk])).content.decode()
    for page in (resolve_page, change_page):
        assert "Payments of the open window that no claim names (1)" in page
        assert silent_tx in page and "3.000000 USDC" in page
        assert after_tx not in page
        assert "past the close" in page

    # The claim arrives after the close and before resolution: it counts, and leaves the list.
    assert api.post("/api/responses", body(silent, silent_tx), format="json").status_code == 201
    resolve_page = admin_client.get(
        reverse("admin:challenges_challenge_lifecycle", args=[challenge.pk, "resolve"])
    ).content.decode()
    assert "Payments of the open window that no claim names (0)" in resolve_page
    assert "still being verified" in resolve_page


def test_the_admin_refuses_to_resolve_in_the_grace_period_and_says_until_when(
    chain, make_challenge, settings, admin_client
):
    settings.CHALLENGE_CLOSE_GRACE_SECONDS = 600
    challenge = close_after_the_payments(chain, make_challenge())
    index_a_block_after(chain, challenge)
    url = reverse("admin:challenges_challenge_lifecycle", args=[challenge.pk, "resolve"])
    assert "Resolution must wait: Claims for payments mined before the close" in admin_client.get(url).content.decode()
    answer = admin_client.post(url, follow=True)
    messages = [str(m) for m in answer.context["messages"]]
    assert any(m.startswith("Resolve and reveal refused: Claims for payments mined before the close") for m in messages)
    assert not ChallengeResolution.objects.exists()
