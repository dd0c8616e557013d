"""A challenge's terms anchored on a real EVM (docs/protocol.md section 6): the worker's anchor step
from publish to confirmed (chain/anchors.py), what the site refuses before, and the anchor's state
and retry in the admin."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from eth_account import Account

from chain.anchors import AnchorPending, anchor_advance, anchor_step_noting
from chain.client import ChainClient, ChainUnavailable, get_client
from chain.registry import anchor_calldata, anchor_find, anchor_transaction_send
from chain.verification import payment_verify
from challenges.models import AnchorStatus, ChallengeAnchor
from challenges.selectors import challenge_is_open
from challenges.services import ChallengeStateError, anchor_queue, anchor_retry, anchors_stale, challenge_publish

from .conftest import UNREACHABLE_RPC, anchor_on_chain
from .registry_support import anchor_call, send_signed

pytestmark = pytest.mark.django_db


def claim_body(d, tx_hash: str) -> str:
    return json.dumps(
        {
            "challengeId": d.challenge.pk,
            "submissionText": d.text,
            "submissionStake": str(d.stake),
            "transactionHash": tx_hash,
            "submitterAddress": d.address,
            "submissionSalt": d.salt,
        }
    )


# --- The site: publish, the worker's step, gating -------------------------------------------------


def test_publish_queues_the_anchor_and_the_challenge_opens_only_once_it_is_deep_enough(
    chain, make_challenge, draft, api, django_capture_on_commit_callbacks
):
    challenge = make_challenge(anchored=False)
    anchor = ChallengeAnchor.objects.get(challenge=challenge)
    assert (anchor.status, anchor.registry_address, anchor.opens_at) == (
        AnchorStatus.QUEUED,
        chain.registry,
        int(challenge.start_timestamp.timestamp()),
    )
    d = draft(challenge=challenge)

    def refused() -> bool:
        answer = api.post("/api/responses", data=claim_body(d, "0x" + "cd" * 32), content_type="application/json")
        return answer.status_code == 409 and answer.json()["message"] == "This challenge is not accepting submissions."

    assert api.get("/api/challenges/active").json() is None and refused()

    # The worker's step sends it; anvil mines it at once: one confirmation of the two required.
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(AnchorPending, match="not deep enough"):
            anchor_advance(challenge_id=challenge.pk)
    anchor.refresh_from_db()
    assert anchor.status == AnchorStatus.SENT and anchor.attempts == 1 and anchor.sender_address == chain.operator
    receipt = chain.w3.eth.get_transaction_receipt(anchor.transaction_hash)
    assert receipt["status"] == 1
    assert not challenge_is_open(challenge_id=challenge.pk)
    assert api.get("/api/challenges/active").json() is None and refused()

    chain.mine(1)
    with django_capture_on_commit_callbacks(execute=True):
        assert anchor_advance(challenge_id=challenge.pk) == AnchorStatus.CONFIRMED
    anchor.refresh_from_db()
    block = chain.w3.eth.get_block(receipt["blockNumber"])
    assert (anchor.block_number, anchor.block_hash) == (receipt["blockNumber"], "0x" + bytes(block["hash"]).hex())
    # The active answer (cached as null above) is stale now and shows the challenge with its anchor.
    active = api.get("/api/challenges/active").json()
    assert active["id"] == challenge.pk
    assert active["anchor"] == {
        "registry": chain.registry,
        "transactionHash": anchor.transaction_hash,
        "blockNumber": receipt["blockNumber"],
        "blockTimestamp": block["timestamp"],
        "termsSha256": anchor.terms_sha256,
    }
    # The anchored values are the challenge's, as a verifier reads them from the chain.
    found = anchor_find(get_client(), registry=chain.registry, challenge_id=challenge.pk)
    assert found is not None
    assert found.values() == {
        "solution_sha256": challenge.solution_sha256,
        "terms_sha256": anchor.terms_sha256,
        "opens_at": int(challenge.start_timestamp.timestamp()),
        "proximity_threshold_m": 150,
    }

    tx_hash = chain.pay(chain.stake_calldata(d))
    answer = api.post("/api/responses", data=claim_body(d, tx_hash), content_type="application/json")
    assert answer.status_code == 201, answer.content
    chain.mine(1)
    assert payment_verify(response_id=answer.json()["id"]).status == "confirmed"


def test_an_anchor_whose_values_read_back_differ_fails_and_the_challenge_stays_closed(chain, make_challenge):
    challenge = make_challenge(anchored=False)
    with pytest.raises(AnchorPending):
        anchor_advance(challenge_id=challenge.pk)
    # What the site expects no longer matches what was sent (an edited row, a bug): never open on it.
    ChallengeAnchor.objects.filter(challenge=challenge).update(proximity_threshold_m=9999)
    chain.mine(1)
    assert anchor_advance(challenge_id=challenge.pk) == AnchorStatus.FAILED
    anchor = ChallengeAnchor.objects.get(challenge=challenge)
    assert "other values than the challenge" in anchor.last_error
    assert "proximity_threshold_m: on chain 150, the challenge's 9999" in anchor.last_error
    assert not challenge_is_open(challenge_id=challenge.pk)


def test_an_id_already_anchored_with_other_terms_fails_and_says_why(chain, make_challenge):
    # A registry used before a database reset: the id the new challenge has is anchored already.
    challenge = make_challenge(publish=False)
    next_id = challenge.pk
    assert send_signed(chain, anchor_call(chain, next_id), key=chain.operator_key)["status"] == 1
    challenge = challenge_publish(challenge=challenge)
    assert anchor_advance(challenge_id=challenge.pk) == AnchorStatus.FAILED
    anchor = ChallengeAnchor.objects.get(challenge=challenge)
    assert f"Challenge #{next_id} is already anchored on the registry {chain.registry} with other terms" in (
        anchor.last_error
    )
    assert "database was reset" in anchor.last_error and anchor.attempts == 0
    assert not challenge_is_open(challenge_id=challenge.pk)


def test_a_retry_that_finds_its_own_anchor_already_on_chain_adopts_it(chain, make_challenge):
    challenge = make_challenge(anchored=False)
    anchor = ChallengeAnchor.objects.get(challenge=challenge)
    # A first attempt sent it, and its answer was lost: the row still says queued.
    calldata = anchor_calldata(
        challenge_id=challenge.pk,
        solution_sha256=anchor.solution_sha256,
        terms_sha256=anchor.terms_sha256,
        opens_at=anchor.opens_at,
        threshold=anchor.proximity_threshold_m,
    )
    lost = anchor_transaction_send(get_client(), registry=chain.registry, calldata=calldata)
    # Counted with the pending pool: the lost transaction may not be mined yet on a loaded machine.
    nonce_before = chain.w3.eth.get_transaction_count(chain.operator, "pending")
    with pytest.raises(AnchorPending):
        anchor_advance(challenge_id=challenge.pk)
    anchor.refresh_from_db()
    assert (anchor.status, anchor.transaction_hash, anchor.attempts) == (AnchorStatus.SENT, lost.transaction_hash, 0)
    assert chain.w3.eth.get_transaction_count(chain.operator, "pending") == nonce_before  # nothing sent again
    chain.mine(1)
    assert anchor_advance(challenge_id=challenge.pk) == AnchorStatus.CONFIRMED


def test_a_dropped_anchor_transaction_is_sent_again_with_the_same_nonce(chain, make_challenge):
    challenge = make_challenge(anchored=False)
    chain.w3.provider.make_request("evm_setAutomine", [False])
    try:
        with pytest.raises(AnchorPending, match="not mined"):
            anchor_advance(challenge_id=challenge.pk)
        first = ChallengeAnchor.objects.get(challenge=challenge)
        assert chain.w3.provider.make_request("anvil_dropTransaction", [first.transaction_hash])
        # Not yet ANCHOR_RESEND_SECONDS: it waits.
        with pytest.raises(AnchorPending, match="not mined"):
            anchor_advance(challenge_id=challenge.pk)
        assert ChallengeAnchor.objects.get(challenge=challenge).transaction_hash == first.transaction_hash
        ChallengeAnchor.objects.filter(challenge=challenge).update(sent_at=timezone.now() - timedelta(hours=1))
        with pytest.raises(AnchorPending, match="not mined"):
            anchor_advance(challenge_id=challenge.pk)
    finally:
        chain.w3.provider.make_request("evm_setAutomine", [True])
    second = ChallengeAnchor.objects.get(challenge=challenge)
    assert second.transaction_hash != first.transaction_hash
    assert (second.nonce, second.attempts) == (first.nonce, 2)
    chain.mine(2)
    assert anchor_advance(challenge_id=challenge.pk) == AnchorStatus.CONFIRMED


def test_a_registry_key_that_is_not_the_owner_fails_plainly(chain, make_challenge, settings):
    settings.ANCHOR_OPERATOR_KEY = "0x" + "77" * 32
    challenge = make_challenge(anchored=False)
    assert anchor_advance(challenge_id=challenge.pk) == AnchorStatus.FAILED
    error = ChallengeAnchor.objects.get(challenge=challenge).last_error
    assert error.startswith(f"The operator key's address {Account.from_key('0x' + '77' * 32).address} is not the owner")


def test_no_rpc_node_leaves_the_anchor_queued_with_the_error_shown(chain, make_challenge):
    challenge = make_challenge(anchored=False)
    with pytest.raises(ChainUnavailable):
        anchor_step_noting(challenge_id=challenge.pk, client=ChainClient([UNREACHABLE_RPC], timeout=1))
    anchor = ChallengeAnchor.objects.get(challenge=challenge)
    assert anchor.status == AnchorStatus.QUEUED and anchor.last_error.startswith("No RPC node answered")
    # The sweep picks it up once it has been left alone long enough.
    assert anchors_stale(older_than_seconds=3600) == []
    ChallengeAnchor.objects.filter(pk=anchor.pk).update(updated_at=timezone.now() - timedelta(hours=2))
    assert anchors_stale(older_than_seconds=3600) == [challenge.pk]


def test_a_demonstration_challenge_is_never_anchored_and_is_open(chain, make_challenge, api):
    challenge = make_challenge(is_demo=True)
    assert not ChallengeAnchor.objects.filter(challenge=challenge).exists()
    assert challenge_is_open(challenge_id=challenge.pk)
    active = api.get("/api/challenges/active").json()
    assert active["id"] == challenge.pk and active["anchor"] is None
    with pytest.raises(ChallengeStateError):
        anchor_queue(challenge=challenge)


def test_retry_is_refused_while_the_anchor_is_on_its_way_and_allowed_once_it_failed(chain, make_challenge, settings):
    settings.ANCHOR_REGISTRY_ADDRESS = ""
    challenge = make_challenge(anchored=False)
    with pytest.raises(ChallengeStateError, match="on its way"):
        anchor_retry(challenge=challenge)
    assert anchor_advance(challenge_id=challenge.pk) == AnchorStatus.FAILED
    assert "ANCHOR_REGISTRY_ADDRESS is not set" in ChallengeAnchor.objects.get(challenge=challenge).last_error
    settings.ANCHOR_REGISTRY_ADDRESS = chain.registry
    anchor = anchor_retry(challenge=challenge)
    assert (anchor.status, anchor.registry_address, anchor.last_error) == (AnchorStatus.QUEUED, chain.registry, "")
    anchor_on_chain(chain, challenge)
    assert challenge_is_open(challenge_id=challenge.pk)
    with pytest.raises(ChallengeStateError, match="already confirmed"):
        anchor_retry(challenge=challenge)


# --- The admin: the anchor's state and the retry --------------------------------------------------


@pytest.fixture
def staff(client):
    from django.contrib.auth import get_user_model

    client.force_login(get_user_model().objects.create_superuser("poet", "poet@example.org", "long-enough-pass-1"))
    return client


def test_the_admin_shows_the_anchor_and_retries_a_failed_one(
    chain, make_challenge, staff, settings, django_capture_on_commit_callbacks
):
    from django.urls import reverse

    settings.ANCHOR_REGISTRY_ADDRESS = ""  # a deployment that forgot the setting
    settings.CHAIN_EXPLORER_URL = "https://explorer.example"
    challenge = make_challenge(publish=False, anchored=False)
    change = reverse("admin:challenges_challenge_change", args=[challenge.pk])
    step = reverse("admin:challenges_challenge_lifecycle", args=[challenge.pk, "publish"])
    with django_capture_on_commit_callbacks() as callbacks:
        staff.post(step, follow=True)
    # One action for staff: published, and the anchor queued with its task on commit.
    assert [c.__qualname__ for c in callbacks].count("_anchor_announce.<locals>.send") == 1
    page = staff.get(change).content.decode()
    assert 'data-anchor-status="queued"' in page and "not open to claims yet" in page
    assert "Retry anchor…" not in page  # on its way: nothing to retry

    assert anchor_advance(challenge_id=challenge.pk) == AnchorStatus.FAILED
    page = staff.get(change).content.decode()
    assert 'data-anchor-status="failed"' in page
    assert "ANCHOR_REGISTRY_ADDRESS is not set: set it, then retry the anchor." in page
    assert "Retry anchor…" in page
    assert (
        '<td class="field-anchor_column">Failed</td>'
        in staff.get(reverse("admin:challenges_challenge_changelist")).content.decode()
    )

    settings.ANCHOR_REGISTRY_ADDRESS = chain.registry
    retry = reverse("admin:challenges_challenge_lifecycle", args=[challenge.pk, "retry_anchor"])
    assert "Yes, retry anchor" in staff.get(retry).content.decode()
    with django_capture_on_commit_callbacks() as callbacks:
        answer = staff.post(retry, follow=True)
    assert "Anchor queued again" in answer.content.decode()
    assert [c.__qualname__ for c in callbacks].count("_anchor_announce.<locals>.send") == 1
    anchor = anchor_on_chain(chain, challenge)  # what the worker does with the queued task
    page = staff.get(change).content.decode()
    assert 'data-anchor-status="confirmed"' in page and "The challenge is open to claims." in page
    assert f'href="https://explorer.example/tx/{anchor.transaction_hash}"' in page
    assert f"Block: {anchor.block_number}" in page and "Attempts: 1" in page
    assert "Retry anchor…" not in page
    # A second retry is refused with a message, and changes nothing.
    answer = staff.post(retry, follow=True)
    assert (
        "Retry anchor refused: This challenge&#x27;s anchor is already confirmed on chain." in answer.content.decode()
    )
