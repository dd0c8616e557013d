"""GET /api/responses/authorization/{commitment} (docs/protocol.md 3.4c): a claim paid by
authorization followed by its commitment, since its transaction is not known until someone uses the
authorization on chain. The claims are posted through the API with the chain's check stubbed
(responses/tests/conftest.py, `check`); on anvil: chain/tests/test_authorization_claims.py."""

from __future__ import annotations

import pytest

from responses.authorizations import authorization_relay_moved
from responses.models import RelayStatus

from .test_api_authorization_post import VALID_BEFORE, body, post

pytestmark = pytest.mark.django_db


def url(commitment: str) -> str:
    return f"/api/responses/authorization/{commitment}"


@pytest.fixture
def claim(api, make_challenge, check, settings) -> dict:
    settings.RELAYER_KEY = "0x" + "7a" * 32
    answer = post(api, body(make_challenge()))
    assert answer.status_code == 201, answer.content
    return answer.json()


def test_the_claim_by_its_commitment_with_its_relay_and_no_guess(api, claim):
    answer = api.get(url(claim["commitment"]))
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert data == {
        **claim,
        "submissionText": None,  # not resolved: the guess stays on the server
        "outcome": None,
    }
    assert data["authorization"] == {
        "validBefore": VALID_BEFORE,
        "relayStatus": "queued",
        "relayReason": "",
        "relayCode": "",
        "relayTransactionHash": None,
    }
    assert answer["Cache-Control"] == "no-cache"
    # In capitals it is the same commitment.
    assert api.get(url(claim["commitment"].upper())).json()["id"] == claim["id"]


def test_an_unchanged_claim_is_a_bodiless_304_and_a_relay_that_moved_changes_the_tag(api, claim):
    first = api.get(url(claim["commitment"]))
    etag = first["ETag"]
    unchanged = api.get(url(claim["commitment"]), HTTP_IF_NONE_MATCH=etag)
    assert (unchanged.status_code, unchanged.content, unchanged["ETag"]) == (304, b"", etag)
    relay_tx = "0x" + "5e" * 32
    assert authorization_relay_moved(response_id=claim["id"], status=RelayStatus.SENT, transaction_hash=relay_tx)
    moved = api.get(url(claim["commitment"]), HTTP_IF_NONE_MATCH=etag)
    assert moved.status_code == 200 and moved["ETag"] != etag
    assert moved.json()["authorization"]["relayStatus"] == "sent"
    assert moved.json()["authorization"]["relayTransactionHash"] == relay_tx
    assert moved.json()["transactionHash"] is None  # the relayer's transaction is not the claim's until mined


def test_no_claim_by_authorization_with_this_commitment_is_404(api, make_challenge, make_response, check):
    transfer = make_response(make_challenge(), "29.979175, 31.134258", "3")
    for commitment in ("ab" * 32, transfer.commitment):  # a transfer's claim is not followed here
        answer = api.get(url(commitment))
        assert answer.status_code == 404
        assert answer.json() == {"message": "No submission paid by authorization has this commitment.", "errors": {}}


@pytest.mark.parametrize("malformed", ["", "ab", "ab" * 31 + "a", "ab" * 32 + "a", "0x" + "ab" * 32, "zz" * 32])
def test_a_malformed_commitment_is_400(api, malformed):
    answer = api.get(url(malformed))
    assert answer.status_code == 400, answer.content
    assert answer.json() == {
        "message": "commitment must be 64 hexadecimal characters.",
        "errors": {"commitment": ["Not a commitment."]},
    }


def test_the_claim_is_listed_for_its_payer_at_once(api, claim):
    """The signature proves the claim is the payer's (sent_by_submitter): listed while pending."""
    listed = api.get("/api/responses", {"address": claim["submitterAddress"].lower()})
    assert [item["id"] for item in listed.json()] == [claim["id"]]
    assert listed.json()[0]["paymentMethod"] == "authorization"
    assert listed.json()[0]["transactionHash"] is None
