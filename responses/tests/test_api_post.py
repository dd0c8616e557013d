"""POST /api/responses: every validation branch, the status codes of docs/protocol.md section 3, and nothing
written on any rejection."""

import json
from decimal import Decimal
from unittest import mock

import pytest
from django.conf import settings

from challenges.commitments import guess_commitment_v1
from challenges.services import challenge_close
from responses.models import Response, ResponseStatus

pytestmark = pytest.mark.django_db

URL = "/api/responses"
ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
SALT = "ab" * 32


def body(challenge, **overrides):
    data = {
        "challengeId": challenge.pk,
        "submissionText": "29.9791759, 31.1342589",
        "submissionStake": "12.50",
        "transactionHash": "0x" + "a1" * 32,
        "submitterAddress": ADDRESS,
        "submissionSalt": SALT,
    }
    data.update(overrides)
    return data


def post(api, data, **extra):
    return api.post(URL, data=json.dumps(data), content_type="application/json", **extra)


def assert_rejected(answer, status, message=None, field=None):
    assert answer.status_code == status, answer.content
    payload = answer.json()
    assert set(payload) == {"message", "errors"}
    assert isinstance(payload["message"], str) and payload["message"]
    if message is not None:
        assert payload["message"] == message
    if field is not None:
        assert field in payload["errors"]
    assert not Response.objects.exists()


def test_a_valid_claim_is_stored_pending_with_canonical_fields(api, make_challenge):
    challenge = make_challenge()
    with mock.patch("chain.tasks.verify_response.delay") as enqueue:
        answer = post(api, body(challenge, transactionHash="0x" + "A1" * 32, submitterAddress=ADDRESS.lower()))
    assert answer.status_code == 201, answer.content
    data = answer.json()
    assert data == {
        "id": data["id"],
        "challengeId": challenge.pk,
        "submissionText": "29.979175, 31.134258",
        "submissionStake": "12.500000",
        "submissionTimestamp": None,
        "transactionHash": "0x" + "a1" * 32,
        "submitterAddress": ADDRESS,
        "commitment": guess_commitment_v1(
            chain_id=settings.CHAIN_ID,
            challenge_id=challenge.pk,
            submitter_address=ADDRESS,
            text="29.979175, 31.134258",
            salt=SALT,
        ),
        "status": "pending",
        "rejectionCode": "",
        "rejectionReason": "",
        "paymentMethod": "transfer",
        "authorization": None,
    }
    stored = Response.objects.get()
    assert stored.status == ResponseStatus.PENDING
    assert stored.submission_stake == Decimal("12.5")
    assert stored.commitment == guess_commitment_v1(
        chain_id=settings.CHAIN_ID,
        challenge_id=challenge.pk,
        submitter_address=ADDRESS,
        text="29.979175, 31.134258",
        salt=SALT,
    )
    # Queued only once the row was committed (the test transaction never commits, so: not yet).
    enqueue.assert_not_called()


def test_verification_is_queued_on_commit(api, make_challenge, django_capture_on_commit_callbacks):
    challenge = make_challenge()
    with mock.patch("chain.tasks.verify_response.delay") as enqueue:
        with django_capture_on_commit_callbacks(execute=True):
            answer = post(api, body(challenge))
    assert answer.status_code == 201
    enqueue.assert_called_once_with(answer.json()["id"])


def test_a_broker_that_is_down_does_not_lose_the_claim(api, make_challenge, django_capture_on_commit_callbacks):
    # Fault we cannot make for real in a unit test: the broker refusing the message.
    challenge = make_challenge()
    with mock.patch("chain.tasks.verify_response.delay", side_effect=ConnectionError("broker down")):
        with django_capture_on_commit_callbacks(execute=True):
            answer = post(api, body(challenge))
    assert answer.status_code == 201
    assert Response.objects.get().status == ResponseStatus.PENDING


def test_the_identical_claim_posted_again_answers_200_with_the_stored_one(api, make_challenge):
    challenge = make_challenge()
    first = post(api, body(challenge))
    again = post(api, body(challenge))
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert Response.objects.count() == 1


def test_another_claim_on_a_hash_waits_beside_the_first(api, make_challenge):
    # Anyone can read a stake's hash: a claim posted first must not keep another out. With no chain
    # to read (the test RPC is unreachable) both wait, pending; verification picks the one the
    # calldata commits to (chain/tests/test_squatting.py).
    challenge = make_challenge()
    first = post(api, body(challenge))
    second = post(api, body(challenge, submissionSalt="cd" * 32))
    assert (first.status_code, second.status_code) == (201, 201), second.content
    assert first.json()["id"] != second.json()["id"]
    assert first.json()["commitment"] != second.json()["commitment"]
    assert list(Response.objects.values_list("status", flat=True)) == [ResponseStatus.PENDING] * 2


def test_another_claim_on_a_hash_whose_claim_is_confirmed_is_409(api, make_challenge):
    challenge = make_challenge()
    assert post(api, body(challenge)).status_code == 201
    Response.objects.update(status=ResponseStatus.CONFIRMED)
    answer = post(api, body(challenge, submissionSalt="cd" * 32))
    assert answer.status_code == 409
    assert answer.json()["message"] == "This transaction has already been used for a submission."
    assert Response.objects.count() == 1
    # The confirmed claim itself, posted again, is still a replay.
    assert post(api, body(challenge)).status_code == 200


def test_the_same_guess_with_another_stake_on_a_used_hash_is_409(api, make_challenge):
    challenge = make_challenge()
    assert post(api, body(challenge)).status_code == 201
    answer = post(api, body(challenge, submissionStake="13"))
    assert answer.status_code == 409
    assert Response.objects.count() == 1


def test_a_used_hash_in_other_case_is_the_same_hash(api, make_challenge):
    challenge = make_challenge()
    assert post(api, body(challenge, transactionHash="0x" + "ab" * 32)).status_code == 201
    again = post(api, body(challenge, transactionHash="0x" + "AB" * 32))
    assert again.status_code == 200
    other_stake = post(api, body(challenge, transactionHash="0x" + "AB" * 32, submissionStake="13"))
    assert other_stake.status_code == 409
    assert Response.objects.count() == 1


def test_unknown_challenge_is_404(api, make_challenge):
    challenge = make_challenge()
    assert_rejected(post(api, body(challenge, challengeId=challenge.pk + 100)), 404, "Challenge not found.")


@pytest.mark.parametrize("state", ["draft", "not anchored", "closed before its anchor"])
def test_a_challenge_that_was_never_open_is_409(api, make_challenge, state):
    challenge = make_challenge(publish=state != "draft", anchored=False)
    if state == "closed before its anchor":
        challenge_close(challenge=challenge)
    assert_rejected(post(api, body(challenge)), 409, "This challenge is not accepting submissions.")


def test_a_closed_challenge_still_takes_claims(api, make_challenge):
    # Close means no payment mined after it counts; a claim posted later for one mined before it is
    # stored and verified (docs/protocol.md section 4, "Close, grace period and resolution").
    challenge = make_challenge()
    challenge_close(challenge=challenge)
    answer = post(api, body(challenge))
    assert answer.status_code == 201, answer.content
    assert Response.objects.get().status == ResponseStatus.PENDING


@pytest.mark.parametrize(
    "text", ["", "29.9", "91, 0", "0, 181", "abc, def", "1e2, 3", "NaN, 0", "1,2,3", "x" * 200, 42, None]
)
def test_bad_coordinates_get_the_spec_sentence(api, make_challenge, text):
    challenge = make_challenge()
    answer = post(api, body(challenge, submissionText=text))
    assert answer.status_code == 400
    assert not Response.objects.exists()
    errors = answer.json()["errors"]["submissionText"]
    if isinstance(text, str) and text and len(text) <= 100:
        assert answer.json()["message"] == "Please enter valid coordinates in the format: latitude, longitude"
        assert errors == ["Please enter valid coordinates in the format: latitude, longitude"]


@pytest.mark.parametrize(
    ("stake", "message"),
    [
        ("0.99", "Minimum stake amount is 1.00 USDC"),
        ("0", "Minimum stake amount is 1.00 USDC"),
        ("1.0000001", "Stake must be a decimal amount of USDC with at most 6 decimals."),
        ("-5", "Stake must be a decimal amount of USDC with at most 6 decimals."),
        ("1e3", "Stake must be a decimal amount of USDC with at most 6 decimals."),
        ("abc", "Stake must be a decimal amount of USDC with at most 6 decimals."),
        (True, "Stake must be a decimal amount of USDC with at most 6 decimals."),
        ("1000000.01", "Maximum stake amount is 1000000 USDC"),
        # The form's step is 0.01: the API refuses what the form refuses (docs/decisions.md, "Stake step").
        ("1.005", "Stake amount must be a multiple of 0.01 USDC (at most 2 decimals)."),
        ("2.000001", "Stake amount must be a multiple of 0.01 USDC (at most 2 decimals)."),
    ],
)
def test_bad_stakes(api, make_challenge, stake, message):
    challenge = make_challenge()
    assert_rejected(post(api, body(challenge, submissionStake=stake)), 400, message, "submissionStake")


def test_a_stake_sent_as_a_json_number_never_becomes_a_float(api, make_challenge):
    challenge = make_challenge()
    raw = json.dumps(body(challenge)).replace('"12.50"', "1.1")
    answer = api.post(URL, data=raw, content_type="application/json")
    assert answer.status_code == 201
    assert Response.objects.get().submission_stake == Decimal("1.1")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("transactionHash", "0x1234"),
        ("transactionHash", "a1" * 33),
        ("transactionHash", "0x" + "g1" * 32),
        ("submitterAddress", "0x1234"),
        ("submitterAddress", "f39Fd6e51aad88F6F4ce6aB8827279cffFb922661"),
        ("submitterAddress", "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266"),  # bad checksum
        ("submissionSalt", "AB" * 32),
        ("submissionSalt", "ab" * 31),
        ("submissionSalt", ""),
        ("challengeId", "one"),
        ("challengeId", 0),
    ],
)
def test_out_of_form_fields_are_400(api, make_challenge, field, value):
    challenge = make_challenge()
    assert_rejected(post(api, body(challenge, **{field: value})), 400, field=field)


@pytest.mark.parametrize(
    "field",
    ["challengeId", "submissionText", "submissionStake", "transactionHash", "submitterAddress", "submissionSalt"],
)
def test_a_missing_field_is_400(api, make_challenge, field):
    data = body(make_challenge())
    del data[field]
    assert_rejected(post(api, data), 400, field=field)


def test_malformed_json_is_400(api, make_challenge):
    make_challenge()
    answer = api.post(URL, data="{not json", content_type="application/json")
    assert_rejected(answer, 400, "The request body is not valid JSON.")


def test_a_body_that_is_not_json_is_415(api, make_challenge):
    challenge = make_challenge()
    answer = api.post(URL, data=body(challenge), format="multipart")
    assert_rejected(answer, 415)
    answer = api.post(URL, data=json.dumps(body(challenge)), content_type="text/plain")
    assert_rejected(answer, 415)


def test_a_body_over_16_kib_is_413(api, make_challenge):
    challenge = make_challenge()
    answer = post(api, body(challenge, padding="x" * 17_000))
    assert_rejected(answer, 413)


def test_csrf_token_is_required(csrf_api, make_challenge):
    challenge = make_challenge()
    assert_rejected(post(csrf_api, body(challenge)), 403)
    page = csrf_api.get("/")
    token = page.cookies["csrftoken"].value
    answer = post(csrf_api, body(challenge), HTTP_X_CSRFTOKEN=token)
    assert answer.status_code == 201, answer.content


def test_a_cross_site_form_post_is_refused(csrf_api, make_challenge):
    challenge = make_challenge()
    csrf_api.get("/")  # the victim has a CSRF cookie, but the attacker's page cannot read it
    answer = csrf_api.post(URL, data=body(challenge), format="multipart")
    # 403, not 415: the CSRF refusal comes first, whatever the body; a cross-site post learns only
    # that it was refused, not which body the API would have read.
    assert_rejected(answer, 403, "CSRF check failed: send the csrftoken cookie's value in the X-CSRFToken header.")


def test_too_many_posts_from_one_client_are_429(api, make_challenge, settings):
    challenge = make_challenge()
    from rest_framework.throttling import ScopedRateThrottle

    with mock.patch.object(ScopedRateThrottle, "THROTTLE_RATES", {"response_create": "3/min"}):
        codes = [post(api, body(challenge, transactionHash="0x" + f"{i:064x}")).status_code for i in range(1, 6)]
        refused = post(api, body(challenge, transactionHash="0x" + f"{9:064x}"))
    assert codes == [201, 201, 201, 429, 429]
    assert refused.json()["message"] == "Too many submissions from this client; please wait a minute and try again."
    assert Response.objects.count() == 3
