"""POST /api/responses with a signed authorization (docs/protocol.md 3.3a), the responses layer's
part: the body's form, what is stored, the replay rules, the answers to each verdict of the chain's
check, the relay's admission and what is queued once the claim commits, and the look-up by
commitment (3.4c).

The chain's check itself (the signature, the window, the token's state on anvil) is tested in
chain/tests/test_authorization_claims.py and test_authorization_strangers.py. Here the check is
stubbed through its own hook (responses/hooks.py, register_authorization_check): these tests are
about what the responses layer does with each verdict."""

from __future__ import annotations

import json

import pytest

from responses import hooks
from responses.models import PaymentMethod, Response, StakeAuthorization
from responses.reasons import REASON_SENTENCES, REFUSED_AUTHORIZATION_AT_POST

pytestmark = pytest.mark.django_db

URL = "/api/responses"
ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
SALT = "cd" * 32
SIGNATURE = "0x" + "AB" * 64 + "1b"
VALID_BEFORE = 1_900_000_000


def body(challenge, **overrides) -> dict:
    data = {
        "challengeId": challenge.pk,
        "submissionText": "29.979175, 31.134258",
        "submissionStake": "12.50",
        "authorization": {"validAfter": 0, "validBefore": VALID_BEFORE, "signature": SIGNATURE},
        "submitterAddress": ADDRESS,
        "submissionSalt": SALT,
    }
    data.update(overrides)
    return data


def signed(**overrides) -> dict:
    return {"validAfter": 0, "validBefore": VALID_BEFORE, "signature": SIGNATURE, **overrides}


def post(api, data):
    return api.post(URL, data=json.dumps(data), content_type="application/json")


@pytest.fixture
def announced():
    """The ids each hook announced once a claim committed: verification and relay."""
    seen: dict[str, list[int]] = {"verify": [], "relay": []}

    def verify(sender, *, response_id, **kwargs):
        seen["verify"].append(response_id)

    def relay(sender, *, response_id, **kwargs):
        seen["relay"].append(response_id)

    hooks.claim_stored.connect(verify, dispatch_uid="test.verify")
    hooks.relay_queued.connect(relay, dispatch_uid="test.relay")
    yield seen
    hooks.claim_stored.disconnect(dispatch_uid="test.verify")
    hooks.relay_queued.disconnect(dispatch_uid="test.relay")


def test_a_claim_by_authorization_is_stored_pending_as_the_payers_own(api, make_challenge, check, settings):
    settings.RELAYER_KEY = ""  # the relay has no key: refused, with the sentence the player reads
    challenge = make_challenge()
    answer = post(api, body(challenge))
    assert answer.status_code == 201, answer.content
    data = answer.json()
    stored = Response.objects.select_related("authorization").get()
    assert data["paymentMethod"] == "authorization" and data["transactionHash"] is None
    assert data["submissionText"] == "29.979175, 31.134258"  # the POST's own answer only
    assert data["authorization"] == {
        "validBefore": VALID_BEFORE,
        "relayStatus": "refused",
        "relayReason": hooks.RELAY_SWITCHED_OFF,
        "relayCode": "switched_off",
        "relayTransactionHash": None,
    }
    assert "signature" not in answer.content.decode().lower() and "ab" * 64 not in answer.content.decode().lower()
    assert (stored.payment_method, stored.transaction_hash, stored.sent_by_submitter) == (
        PaymentMethod.AUTHORIZATION,
        "",
        True,
    )
    assert stored.status == "pending" and stored.commitment == data["commitment"]
    auth = stored.authorization
    assert (auth.valid_after, auth.valid_before, auth.signature, auth.search_from_block) == (
        0,
        VALID_BEFORE,
        SIGNATURE.lower(),
        1234,
    )
    # The check was asked about what the payer must have signed: the claim's own values.
    [claim] = check.claims
    assert claim == hooks.AuthorizationClaim(
        submitter_address=ADDRESS,
        commitment=stored.commitment,
        stake_units=12_500_000,
        valid_after=0,
        valid_before=VALID_BEFORE,
        signature=SIGNATURE.lower(),
        challenge_id=challenge.pk,
    )


def test_a_queued_relay_is_announced_once_committed_and_no_verification_yet(
    api, make_challenge, check, settings, announced, django_capture_on_commit_callbacks
):
    settings.RELAYER_KEY = "0x" + "7a" * 32
    with django_capture_on_commit_callbacks(execute=True):
        answer = post(api, body(make_challenge()))
    assert answer.status_code == 201, answer.content
    assert answer.json()["authorization"]["relayStatus"] == "queued"
    # Nothing is on chain yet: the head watcher finds its use at the block that holds it.
    assert announced == {"verify": [], "relay": [answer.json()["id"]]}


def test_a_refused_relay_is_neither_relayed_nor_verified_at_once(
    api, make_challenge, check, settings, announced, django_capture_on_commit_callbacks
):
    settings.RELAY_ENABLED = False
    with django_capture_on_commit_callbacks(execute=True):
        answer = post(api, body(make_challenge()))
    assert answer.json()["authorization"]["relayStatus"] == "refused"
    assert announced == {"verify": [], "relay": []}


def test_an_authorization_used_on_chain_already_is_stored_with_nothing_to_relay(
    api, make_challenge, check, settings, announced, django_capture_on_commit_callbacks
):
    settings.RELAYER_KEY = "0x" + "7a" * 32  # the relay would take it
    check.read = hooks.AuthorizationRead(used=True, search_from_block=77)
    with django_capture_on_commit_callbacks(execute=True):
        answer = post(api, body(make_challenge()))
    assert answer.status_code == 201, answer.content
    assert answer.json()["authorization"]["relayStatus"] == "not_needed"
    assert answer.json()["authorization"]["relayCode"] == "used"
    assert StakeAuthorization.objects.get().search_from_block == 77
    assert announced == {"verify": [answer.json()["id"]], "relay": []}


def test_the_identical_claim_again_is_a_replay_without_a_second_check(api, make_challenge, check):
    challenge = make_challenge()
    first = post(api, body(challenge))
    assert first.status_code == 201
    again = post(api, body(challenge, authorization=signed(signature=SIGNATURE.lower())))
    assert again.status_code == 200, again.content
    assert again.json() == first.json()
    assert Response.objects.count() == 1 and len(check.claims) == 1


@pytest.mark.parametrize(
    "change",
    [
        {"submissionStake": "13"},
        {"authorization": signed(validBefore=VALID_BEFORE + 1)},
        {"authorization": signed(validAfter=1)},
        {"authorization": signed(signature="0x" + "cd" * 64 + "1c")},
    ],
    ids=["another stake", "another validBefore", "another validAfter", "another signature"],
)
def test_another_claim_with_the_same_commitment_is_409(api, make_challenge, check, change):
    challenge = make_challenge()
    assert post(api, body(challenge)).status_code == 201
    answer = post(api, body(challenge, **change))
    assert answer.status_code == 409, answer.content
    assert answer.json() == {"message": "This authorization has already been used for a submission.", "errors": {}}
    assert Response.objects.count() == 1 and len(check.claims) == 1


def test_a_transfer_claim_of_the_same_guess_is_another_claim(api, make_challenge, check):
    """The commitment names one claim per payment method: the transfer's rows are unique by hash."""
    challenge = make_challenge()
    assert post(api, body(challenge)).status_code == 201
    by_transfer = post(api, body(challenge, authorization=None, transactionHash="0x" + "e1" * 32))
    assert by_transfer.status_code == 201, by_transfer.content
    assert by_transfer.json()["paymentMethod"] == "transfer"
    assert Response.objects.count() == 2


@pytest.mark.parametrize("code", REFUSED_AUTHORIZATION_AT_POST)
def test_a_refusal_is_422_with_its_code_and_stores_nothing(api, make_challenge, check, code):
    check.read = hooks.AuthorizationRead(code=code)
    answer = post(api, body(make_challenge()))
    assert answer.status_code == 422, answer.content
    assert answer.json() == {"message": REASON_SENTENCES[code], "errors": {}, "code": code}
    assert not Response.objects.exists() and not StakeAuthorization.objects.exists()


@pytest.mark.parametrize(
    ("read", "status", "message"),
    [
        (hooks.AuthorizationRead(unsupported=True), 409, "This token does not accept payment authorizations."),
        (hooks.AuthorizationRead(unavailable=True), 503, "Payment authorizations cannot be checked right now."),
    ],
)
def test_a_token_without_authorizations_or_unreadable_stores_nothing(api, make_challenge, check, read, status, message):
    check.read = read
    answer = post(api, body(make_challenge()))
    assert answer.status_code == status, answer.content
    assert answer.json() == {"message": message, "errors": {}}
    assert not Response.objects.exists()


def test_with_no_chain_app_check_no_token_is_known_to_take_authorizations(api, make_challenge):
    before = hooks.register_authorization_check(None)
    try:
        answer = post(api, body(make_challenge()))
    finally:
        hooks.register_authorization_check(before)
    assert answer.status_code == 409 and not Response.objects.exists()


@pytest.mark.parametrize("state", ["draft", "not anchored"])
def test_a_challenge_never_open_is_409_before_the_chain_is_asked(api, make_challenge, check, state):
    challenge = make_challenge(publish=state != "draft", anchored=False)
    answer = post(api, body(challenge))
    assert answer.status_code == 409
    assert answer.json()["message"] == "This challenge is not accepting submissions."
    assert check.claims == []


@pytest.mark.parametrize("used", [False, True])
def test_a_closed_challenge_takes_an_authorization_only_once_used_in_time(api, make_challenge, check, used):
    """A closed challenge still takes claims of payments mined before the close (docs/protocol.md
    section 4), but an authorization not used yet can only be mined after it: refused, nothing
    stored, nothing relayed (the page posts it again). One the chain shows used is stored and
    verified: its use may be in the window."""
    from challenges.services import challenge_close

    challenge = make_challenge()
    challenge_close(challenge=challenge)
    check.read = hooks.AuthorizationRead(used=used, search_from_block=5)
    answer = post(api, body(challenge))
    if used:
        assert answer.status_code == 201, answer.content
        assert answer.json()["authorization"]["relayStatus"] == "not_needed"
    else:
        assert answer.status_code == 409
        assert answer.json()["message"] == "This challenge is not accepting submissions."
        assert not Response.objects.exists()


def test_the_throttle_counts_claims_by_authorization(api, make_challenge, check):
    from unittest import mock

    from rest_framework.throttling import ScopedRateThrottle

    challenge = make_challenge()
    with mock.patch.object(ScopedRateThrottle, "THROTTLE_RATES", {"response_create": "2/min"}):
        codes = [post(api, body(challenge, submissionSalt=f"{i:02x}" * 32)).status_code for i in range(4)]
    assert codes == [201, 201, 429, 429]
    assert Response.objects.count() == 2


# --- The body's form ------------------------------------------------------------------------------


def test_both_a_hash_and_an_authorization_is_400(api, make_challenge, check):
    answer = post(api, body(make_challenge(), transactionHash="0x" + "a1" * 32))
    assert answer.status_code == 400
    assert answer.json()["errors"] == {
        "authorization": ["Send either transactionHash (a payment sent) or authorization (a payment signed), not both."]
    }
    assert not Response.objects.exists() and check.claims == []


@pytest.mark.parametrize("absent", [{}, {"authorization": None}, {"authorization": None, "transactionHash": None}])
def test_neither_a_hash_nor_an_authorization_is_400(api, make_challenge, check, absent):
    data = body(make_challenge())
    del data["authorization"]
    answer = post(api, {**data, **absent})
    assert answer.status_code == 400
    assert answer.json()["errors"] == {
        "transactionHash": ["Send transactionHash (a payment sent) or authorization (a payment signed)."]
    }


def test_a_null_hash_beside_an_authorization_is_a_claim_by_authorization(api, make_challenge, check):
    answer = post(api, body(make_challenge(), transactionHash=None))
    assert answer.status_code == 201, answer.content
    assert answer.json()["paymentMethod"] == "authorization"


SECONDS = "Unix seconds must be a whole number from 0 to 2^256 - 1."
SIGNATURE_FORM = "The signature must be 0x followed by 130 hexadecimal characters."


@pytest.mark.parametrize(
    ("authorization", "field", "message"),
    [
        (signed(signature="0x" + "ab" * 64), "authorization.signature", SIGNATURE_FORM),  # 64 bytes
        (signed(signature="ab" * 65), "authorization.signature", SIGNATURE_FORM),
        (signed(signature="0x" + "ag" * 65), "authorization.signature", SIGNATURE_FORM),
        (signed(signature="0x" + "ab" * 66), "authorization.signature", None),  # too long for the field
        (signed(validBefore="1900000000"), "authorization.validBefore", SECONDS),
        (signed(validBefore=-1), "authorization.validBefore", SECONDS),
        (signed(validBefore=True), "authorization.validBefore", SECONDS),
        (signed(validAfter=None), "authorization.validAfter", None),
        ({"validBefore": VALID_BEFORE, "signature": SIGNATURE}, "authorization.validAfter", None),
        ("0x" + "ab" * 65, "authorization", None),
    ],
)
def test_an_authorization_out_of_form_is_400_naming_it(api, make_challenge, check, authorization, field, message):
    answer = post(api, body(make_challenge(), authorization=authorization))
    assert answer.status_code == 400, answer.content
    errors = answer.json()["errors"]
    assert list(errors) == [field]
    if message is not None:
        assert errors[field] == [message] and answer.json()["message"] == message
    assert not Response.objects.exists() and check.claims == []


def test_fractional_or_huge_seconds_are_400(api, make_challenge, check):
    challenge = make_challenge()
    fraction = json.dumps(body(challenge)).replace(f'"validBefore": {VALID_BEFORE}', f'"validBefore": {VALID_BEFORE}.5')
    huge = json.dumps(body(challenge)).replace(f'"validBefore": {VALID_BEFORE}', '"validBefore": ' + "9" * 79)
    for raw in (fraction, huge):
        answer = api.post(URL, data=raw, content_type="application/json")
        assert answer.status_code == 400, answer.content
    assert not Response.objects.exists()


def test_seconds_take_the_whole_uint256_range_and_no_more():
    """The parser refuses a JSON number over 40 characters before the field sees it
    (responses/parsers.py); the field itself holds the token's range."""
    from rest_framework.exceptions import ValidationError

    from responses.serializers import UnixSecondsField

    field = UnixSecondsField()
    assert field.to_internal_value(0) == 0 and field.to_internal_value(2**256 - 1) == 2**256 - 1
    with pytest.raises(ValidationError):
        field.to_internal_value(2**256)
