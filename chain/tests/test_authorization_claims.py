"""A claim paid by a signed authorization through the API, on anvil with the EIP-3009 test USDC
(docs/protocol.md 2a, 3.3a, 3.4c, 3.6): the payer's own claim stored with its relay, replays, the
token's domain read from the chain, an authorization someone already used, and what a POST answers
when no node, or a token without authorizations, is there. The strangers' side:
test_authorization_strangers.py."""

from __future__ import annotations

import logging
import time
from functools import partial

import pytest
from django.test import Client

from chain.client import ChainClient
from chain.contracts import contract_at
from chain.token_domain import token_domain
from devtools.concurrency import at_once
from responses.models import PaymentMethod, RelayStatus, Response, StakeAuthorization

from .authorization_claims_support import claim_body, fresh_token_domain, post, sign, submit  # noqa: F401
from .conftest import UNREACHABLE_RPC

pytestmark = [pytest.mark.django_db, pytest.mark.integration]

RELAYER_KEY = "0x" + "7e" * 32  # the relay switched on; nothing here sends with it


@pytest.fixture
def relay_on(settings):
    settings.RELAYER_KEY = RELAYER_KEY
    settings.RELAY_ENABLED = True


def test_the_payers_authorization_is_stored_pending_and_queued_for_the_relay(api, chain, draft, settings, relay_on):
    settings.CHAIN_REORG_DEPTH_BLOCKS = 3
    d = draft(stake="2.5")
    signed = sign(chain, d)
    head = chain.w3.eth.block_number
    answer = post(api, claim_body(d, signed))
    assert answer.status_code == 201, answer.content
    data = answer.json()
    assert (data["status"], data["paymentMethod"], data["transactionHash"]) == ("pending", "authorization", None)
    assert data["commitment"] == d.commitment
    assert data["authorization"] == {
        "validBefore": signed.valid_before,
        "relayStatus": "queued",
        "relayReason": "",
        "relayCode": "",
        "relayTransactionHash": None,
    }
    stored = Response.objects.select_related("authorization").get()
    assert stored.payment_method == PaymentMethod.AUTHORIZATION and stored.sent_by_submitter
    # Verification looks for its use from a little before the head the POST saw.
    assert stored.authorization.search_from_block == head - 3
    assert stored.authorization.signature == signed.signature.lower()
    # Nothing moved on chain: the relayer sends it (the POST only simulated it).
    assert not chain.authorization_used(d.address, "0x" + d.commitment)


def test_without_a_relay_the_claim_is_stored_refused_for_the_player_to_send(api, chain, draft, settings):
    settings.RELAYER_KEY = ""
    d = draft()
    answer = post(api, claim_body(d, sign(chain, d)))
    assert answer.status_code == 201, answer.content
    assert answer.json()["authorization"]["relayStatus"] == "refused"
    assert "send this payment yourself" in answer.json()["authorization"]["relayReason"]
    assert answer.json()["authorization"]["relayCode"] == "switched_off"


def test_the_identical_claim_again_is_200_with_one_row(api, chain, draft, relay_on):
    d = draft()
    body = claim_body(d, sign(chain, d))
    first = post(api, body)
    again = post(api, body)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert Response.objects.count() == 1 and StakeAuthorization.objects.count() == 1


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_twenty_identical_posts_at_once_store_one_claim(chain, draft, relay_on):
    d = draft()
    body = claim_body(d, sign(chain, d))
    codes = at_once([partial(lambda: post(Client(), body).status_code) for _ in range(20)], timeout=120)
    assert sorted(codes) == [200] * 19 + [201]
    assert Response.objects.count() == 1 and StakeAuthorization.objects.count() == 1


def test_the_same_guess_signed_for_another_stake_is_409(api, chain, draft, relay_on):
    d = draft(stake="2")
    assert post(api, claim_body(d, sign(chain, d))).status_code == 201
    another = sign(chain, d, value=3_000_000)  # validly signed, for 3 USDC
    answer = post(api, claim_body(d, another, submissionStake="3"))
    assert answer.status_code == 409
    assert answer.json() == {"message": "This authorization has already been used for a submission.", "errors": {}}
    assert Response.objects.count() == 1


def test_an_authorization_someone_used_before_the_post_is_stored_with_nothing_to_relay(api, chain, draft, relay_on):
    d = draft()
    signed = sign(chain, d)
    used_in = submit(chain, d, signed, sender=chain.other)  # anyone may submit it, with their own ETH
    block = chain.w3.eth.get_transaction_receipt(used_in)["blockNumber"]
    answer = post(api, claim_body(d, signed))
    assert answer.status_code == 201, answer.content
    assert answer.json()["authorization"]["relayStatus"] == "not_needed"
    assert answer.json()["status"] == "pending"  # verification finds the use and confirms it
    assert StakeAuthorization.objects.get().search_from_block <= block


def test_a_used_authorization_is_taken_whatever_its_window_says_now(api, chain, draft, relay_on, settings):
    """The window bounds what is relayed, not what was paid: a page that lost the POST's answer and
    posts the claim again after validBefore (or a reload an hour later) must still get its payment
    counted. An unused one out of its window is refused; with no node answering, 503 (it may pass)."""
    d = draft()
    signed = sign(chain, d, valid_before=int(time.time()) + 30)  # under RELAY_MIN_REMAINING_SECONDS
    submit(chain, d, signed, sender=chain.other)
    answer = post(api, claim_body(d, signed))
    assert answer.status_code == 201, answer.content
    assert answer.json()["authorization"]["relayStatus"] == "not_needed"

    unused = draft(text="5.5, 6.6")
    short = sign(chain, unused, valid_before=int(time.time()) + 30)
    refused = post(api, claim_body(unused, short))
    assert (refused.status_code, refused.json()["code"]) == (422, "authorization_window")
    settings.CHAIN_RPC_URLS = [UNREACHABLE_RPC]
    assert post(api, claim_body(unused, short)).status_code == 503
    assert Response.objects.count() == 1


def test_an_authorization_valid_from_this_very_second_is_not_judged_by_an_older_block(api, chain, draft, relay_on):
    """The latest block may be older than the server's clock: the token would refuse the call in it
    ("not yet valid") but accept it in the next. Such a simulation says nothing; the claim is stored."""
    d = draft()
    latest = chain.w3.eth.get_block("latest")["timestamp"]
    time.sleep(max(0.0, latest - time.time()))  # anvil's blocks may run a second ahead of the clock
    signed = sign(chain, d, valid_after=latest)  # not after the latest block's time, but not in the future
    answer = post(api, claim_body(d, signed))
    assert answer.status_code == 201, answer.content


# --- No node, or a token without authorizations ------------------------------------------------------


def test_with_no_node_answering_a_known_token_the_claim_is_stored_pending(
    api, chain, draft, settings, relay_on, caplog
):
    """The domain was read before (this process keeps it); the token's state cannot be read now: the
    claim is stored pending, and the relayer checks the authorization again before it spends gas
    (docs/protocol.md 2a, "The relayer")."""
    d = draft()
    signed = sign(chain, d)
    assert api.get("/api/payments/authorization").json()["token"] is not None  # the domain, read once
    settings.CHAIN_RPC_URLS = [UNREACHABLE_RPC]
    caplog.set_level(logging.INFO)
    answer = post(api, claim_body(d, signed))
    assert answer.status_code == 201, answer.content
    assert answer.json()["authorization"]["relayStatus"] == "queued"
    assert StakeAuthorization.objects.get().search_from_block is None  # from the challenge's anchor
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "no RPC node answered" in logged or "failed on" in logged  # the outage is logged...
    assert signed.signature[2:66] not in logged.lower()  # ...and not the signature


def test_with_no_node_and_no_domain_known_yet_the_answer_is_503(api, chain, draft, settings):
    d = draft()
    signed = sign(chain, d)
    settings.CHAIN_RPC_URLS = [UNREACHABLE_RPC]
    answer = post(api, claim_body(d, signed))
    assert answer.status_code == 503
    assert answer.json() == {"message": "Payment authorizations cannot be checked right now.", "errors": {}}
    assert not Response.objects.exists()
    assert api.get("/api/payments/authorization").json()["token"] is None  # unreadable: null, not a 500


@pytest.mark.parametrize("contract", ["fake_token", "registry", "treasury"])
def test_a_token_without_authorizations_is_409_and_the_page_is_told_null(api, chain, draft, settings, contract):
    """FakeTransferToken and the registry have no EIP-3009; the treasury is no contract at all."""
    d = draft()
    signed = sign(chain, d)
    settings.USDC_ADDRESS = getattr(chain, contract)
    answer = post(api, claim_body(d, signed))
    assert answer.status_code == 409
    assert answer.json() == {"message": "This token does not accept payment authorizations.", "errors": {}}
    assert not Response.objects.exists()
    offer = api.get("/api/payments/authorization")
    assert offer.status_code == 200 and offer.json()["token"] is None


def test_a_token_whose_separator_is_not_its_domains_has_none(chain, settings):
    """The same token read for another chain id: its DOMAIN_SEPARATOR() is the hash of the real one,
    so the domain the server would build does not match it and is refused."""
    settings.CHAIN_ID = chain.w3.eth.chain_id + 1
    assert token_domain(client=ChainClient([chain.url], timeout=5)) is None


# --- What the page reads ------------------------------------------------------------------------


def test_the_offer_carries_the_domain_read_from_the_token(api, chain, settings, relay_on):
    token = contract_at(chain.w3, "TestUSDC", chain.usdc)
    answer = api.get("/api/payments/authorization")
    assert answer.status_code == 200
    assert answer["Cache-Control"] == "no-cache"
    relayer = answer.json()["relay"]["address"]
    assert answer.json() == {
        "token": {
            "name": token.functions.name().call(),  # "Test USD Coin": the contract's, not a constant here
            "version": token.functions.version().call(),
            "chainId": chain.w3.eth.chain_id,
            "verifyingContract": chain.usdc,
        },
        "relay": {"available": True, "reason": "", "address": relayer},
        "validitySeconds": settings.RELAY_AUTHORIZATION_SECONDS,
        "minRemainingSeconds": settings.RELAY_MIN_REMAINING_SECONDS,
    }
    assert answer.json()["token"]["name"] == "Test USD Coin" and relayer.startswith("0x")
    settings.RELAY_ENABLED = False
    off = api.get("/api/payments/authorization").json()["relay"]
    assert off["available"] is False and "switched off" in off["reason"]


def test_the_claim_is_followed_by_its_commitment(api, chain, draft, relay_on):
    d = draft()
    posted = post(api, claim_body(d, sign(chain, d))).json()
    url = f"/api/responses/authorization/{d.commitment}"
    answer = api.get(url)
    assert answer.status_code == 200 and answer["Cache-Control"] == "no-cache"
    assert answer.json() == {**posted, "submissionText": None, "outcome": None}
    assert answer.json()["authorization"]["relayStatus"] == "queued"
    again = api.get(url, HTTP_IF_NONE_MATCH=answer["ETag"])
    assert (again.status_code, again.content) == (304, b"")
    assert api.get(f"/api/responses/authorization/{'0' * 64}").status_code == 404
    assert api.get(f"/api/responses/authorization/{d.commitment[:-1]}").status_code == 400


def test_the_payers_list_shows_the_claim_at_once(api, chain, draft, relay_on):
    d = draft()
    posted = post(api, claim_body(d, sign(chain, d))).json()
    listed = api.get("/api/responses", {"address": d.address}).json()
    assert [(c["id"], c["paymentMethod"], c["transactionHash"]) for c in listed] == [
        (posted["id"], "authorization", None)
    ]
    assert listed[0]["authorization"]["relayStatus"] == RelayStatus.QUEUED


def test_the_domain_is_read_once_per_process_and_each_claim_costs_one_batch(chain, draft, relay_on):
    """Twenty threads asking at once with nothing kept: one read of the domain (one batch request);
    a claim after that reads the token in one batch request (docs/protocol.md 3.3a, step 3)."""
    from chain.authorization_checks import authorization_check_for_post
    from responses.hooks import AuthorizationClaim

    client = ChainClient([chain.url], timeout=5)
    domains = at_once([partial(token_domain, client=client) for _ in range(20)])
    assert len(set(domains)) == 1 and domains[0] is not None and client.http_requests == 1
    d = draft()
    signed = sign(chain, d)
    claim = AuthorizationClaim(
        submitter_address=d.address,
        commitment=d.commitment,
        stake_units=int(d.stake * 10**6),
        valid_after=signed.valid_after,
        valid_before=signed.valid_before,
        signature=signed.signature,
        challenge_id=d.challenge.pk,
    )
    read = authorization_check_for_post(claim, client=client)
    assert read.code is None and not read.used and read.search_from_block is not None
    assert client.http_requests == 2
