"""Every body gets a 4xx JSON error that says what is wrong, never a 500, in bounded time and memory
(docs/reliability.md, "No body answers 500, secrets guarded in every claim state, mutation
testing"). Through Django's real test client with a valid CSRF cookie and token, as the page
posts, so every request reaches the parser and the serializers.

The three bodies that answered 500: a stake written as the JSON number 1e999999999999999999
(MemoryError formatting the Decimal), 1e99999999999999999999 (decimal.InvalidOperation out of the
parser) and "Content-Type: application/json; charset=rot13" (LookupError). 1e100000000 answered 400
after building a 100 MB string."""

import json
import time
import tracemalloc

import pytest

from responses.models import SignedStake
from tests.http_bodies import HUGE_NUMBERS, ODD_CHARSETS, TOKEN, ServedApp, assert_api_error

pytestmark = pytest.mark.django_db

URL = "/api/responses"
ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
FIELDS = ["challengeId", "submitterAddress", "submissionStake", "commitment", "authorization"]
# A valid body gets past the parser and the serializers to the chain's check of its signature, which
# finds no node here (the tests' CHAIN_RPC_URLS is the discard port): the one 503 of the POST.
PAST_THE_BODY = (503, "Payment authorizations cannot be checked right now.")

CONTENT_TYPES = ["application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]

# Bounds every answer below must keep. Memory is the sharp one: the 1e100000000 body allocated
# 200 MB (and 1e999999999999999999 tried to allocate an exabyte); a refusal now allocates under
# 40 KiB. Time is loose because the machine running the suite is shared (the refusals take 5-30 ms;
# the 1e100000000 body took 0.3 s before).
MAX_SECONDS = 5.0
MAX_PEAK_BYTES = 5_000_000


def claim_json(challenge_id: int, **literals: str) -> str:
    """A well-formed signed stake's body (docs/protocol.md 3.1) written by hand, with some fields
    replaced by raw JSON literals."""
    values = {
        "challengeId": str(challenge_id),
        "submitterAddress": json.dumps(ADDRESS),
        "submissionStake": json.dumps("12.50"),
        "commitment": json.dumps("ab" * 32),
        "authorization": json.dumps({"validAfter": 0, "validBefore": 1_900_000_000, "signature": "0x" + "1c" * 65}),
    }
    values.update(literals)
    return "{" + ", ".join(f'"{name}": {literal}' for name, literal in values.items()) + "}"


@pytest.fixture(autouse=True)
def _no_throttle(monkeypatch):
    """The stake throttle (20 a minute) has its own tests; here it would answer 429 before the body
    is read, and the parser would go untested."""
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"response_create": "1000000/min"})


@pytest.fixture
def page_client(csrf_api):
    """A client that sends the CSRF cookie and its token, as the page does."""
    csrf_api.cookies["csrftoken"] = TOKEN
    # Warm: the first request of a process imports modules, which would count in the bounds.
    for url in ("/api/challenges/active", "/api/responses"):
        csrf_api.get(url)
    csrf_api.post(URL, data=b"{}", content_type="application/json", HTTP_X_CSRFTOKEN=TOKEN)
    return csrf_api


@pytest.fixture
def served_app(db):
    """Like Django's test client, the WSGI calls must not close the test's database connection (it
    holds the test transaction) when a request starts or finishes."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    app = ServedApp()
    app.generic("POST", URL, b"{}", "application/json", HTTP_X_CSRFTOKEN=TOKEN)  # warm, as page_client
    yield app
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def send(client, method: str, url: str, body: str | bytes, content_type: str):
    """The answer, the seconds it took and the peak memory it allocated. The body goes as bytes:
    Django's test client would otherwise encode it in the declared charset itself."""
    if isinstance(body, str):
        body = body.encode()
    tracemalloc.start()
    started = time.perf_counter()
    try:
        answer = client.generic(method, url, data=body, content_type=content_type, HTTP_X_CSRFTOKEN=TOKEN)
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return answer, seconds, peak


@pytest.mark.parametrize("literal", HUGE_NUMBERS)
@pytest.mark.parametrize("field", FIELDS)
def test_a_huge_number_in_any_field_is_a_400_that_says_so_fast_and_small(page_client, make_challenge, field, literal):
    challenge = make_challenge()
    body = claim_json(challenge.pk, **{field: literal})
    answer, seconds, peak = send(page_client, "POST", URL, body, "application/json")
    assert_api_error(answer, 400, "A number in the request body is too long or too large")
    assert seconds < MAX_SECONDS and peak < MAX_PEAK_BYTES, (seconds, peak)
    assert not SignedStake.objects.exists()


@pytest.mark.parametrize("literal", ["1e999999999999999999", "1e99999999999999999999", "1e100000000", "1e40", "1e-40"])
def test_the_three_bodies_that_answered_500_and_the_slow_one(page_client, make_challenge, literal):
    """The stake as the exact literals that answered 500 or built a 100 MB string (the module's
    docstring). 1e40 and 1e-40 are in the parser's bounds and reach the stake's own rule."""
    challenge = make_challenge()
    answer, seconds, peak = send(
        page_client, "POST", URL, claim_json(challenge.pk, submissionStake=literal), "application/json"
    )
    expected = "too long or too large" if len(literal) > 5 else "Stake must be a decimal amount"
    assert_api_error(answer, 400, expected)
    assert seconds < MAX_SECONDS and peak < MAX_PEAK_BYTES, (seconds, peak)
    assert not SignedStake.objects.exists()


def test_a_stake_sent_as_a_plain_json_number_is_still_accepted(page_client, make_challenge):
    challenge = make_challenge()
    answer, _, _ = send(page_client, "POST", URL, claim_json(challenge.pk, submissionStake="12.5"), "application/json")
    assert (answer.status_code, answer.json()["message"]) == PAST_THE_BODY, answer.content


def test_deep_nesting_is_a_400(page_client, make_challenge):
    """Refused above 32 levels, counted before parsing, whatever the interpreter's recursion limit."""
    challenge = make_challenge()
    for body in (
        "[" * 8000 + "]" * 8000,
        "[" * 33 + "]" * 33,
        claim_json(challenge.pk, commitment="[" * 7000 + "]" * 7000),
    ):
        answer, seconds, _ = send(page_client, "POST", URL, body, "application/json")
        assert_api_error(answer, 400, "nested too deeply")
        assert seconds < MAX_SECONDS
    # 32 levels parse (and fail as a claim); brackets inside a string are text, not nesting.
    answer, _, _ = send(page_client, "POST", URL, "[" * 32 + "]" * 32, "application/json")
    assert_api_error(answer, 400, "Invalid data. Expected a dictionary, but got list.")
    answer, _, _ = send(
        page_client, "POST", URL, claim_json(challenge.pk, submitterAddress=json.dumps("[{" * 20)), "application/json"
    )
    assert_api_error(answer, 400, "The wallet address must be 0x followed by 40 hexadecimal characters.")
    assert not SignedStake.objects.exists()


@pytest.mark.parametrize("charset", ODD_CHARSETS)
@pytest.mark.parametrize("media_type", CONTENT_TYPES)
def test_a_body_in_a_charset_that_is_not_utf8_is_415_naming_it(served_app, make_challenge, media_type, charset):
    challenge = make_challenge()
    content_type = f"{media_type}; charset={charset}"
    if media_type == "multipart/form-data":
        content_type += "; boundary=xyz"
    answer, seconds, _ = send(served_app, "POST", URL, claim_json(challenge.pk), content_type)
    assert_api_error(answer, 415, "must be JSON encoded as UTF-8")
    assert seconds < MAX_SECONDS
    assert not SignedStake.objects.exists()


@pytest.mark.parametrize("charset", ["utf-8", "UTF-8", "utf8", '"utf-8"', "us-ascii"])
def test_utf8_and_ascii_charsets_are_accepted(served_app, make_challenge, charset):
    challenge = make_challenge()
    answer, _, _ = send(served_app, "POST", URL, claim_json(challenge.pk), f"application/json; charset={charset}")
    assert (answer.status_code, answer.json()["message"]) == PAST_THE_BODY, answer.content


def test_a_body_that_is_not_utf8_is_a_400(page_client, make_challenge):
    challenge = make_challenge()
    body = claim_json(challenge.pk).encode("utf-16")
    answer, _, _ = send(page_client, "POST", URL, body, "application/json")
    assert_api_error(answer, 400, "The request body is not valid JSON.")
    assert not SignedStake.objects.exists()


def public_endpoints(challenge_id: int) -> list[str]:
    return [
        "/api/challenges/active",
        "/api/challenges/resolved",
        f"/api/challenges/{challenge_id}",
        f"/api/challenges/{challenge_id}/winners",
        "/api/responses",
        "/api/responses/guess",
        f"/api/responses?challengeId={challenge_id}",
        "/api/responses?address=" + ADDRESS,
        "/api/responses/" + "a1" * 32,
        "/api/payments/authorization",
        "/api/schema/",
        "/api/unknown",
    ]


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE"])
def test_every_endpoint_answers_odd_bodies_with_a_4xx_json_error_or_ignores_them(served_app, make_challenge, method):
    """Every API path, every method, the bodies that answered 500 and their relatives: no 5xx; a refusal is
    the API's JSON error shape; a GET that ignores its body answers as usual."""
    challenge = make_challenge()
    bodies = [(claim_json(challenge.pk, submissionStake=literal), "application/json") for literal in HUGE_NUMBERS]
    bodies += [
        (claim_json(challenge.pk), f"{media}; charset={charset}") for media in CONTENT_TYPES for charset in ODD_CHARSETS
    ]
    bodies += [("[" * 8000, "application/json"), (b"\xff\xfe\x00{", "application/json"), ("{}", "application/json")]
    for url in public_endpoints(challenge.pk):
        for body, content_type in bodies:
            answer, seconds, peak = send(served_app, method, url, body, content_type)
            assert answer.status_code < 500, (method, url, content_type, answer.status_code)
            if method == "POST" and url in (URL, "/api/responses/guess"):
                expected = 400 if content_type == "application/json" else 415
                assert answer.status_code == expected, (content_type, answer.content[:200])
            if answer.status_code >= 400:
                assert seconds < MAX_SECONDS and peak < MAX_PEAK_BYTES, (method, url, content_type, seconds, peak)
            openapi = answer["Content-Type"].startswith("application/vnd.oai.openapi")
            if answer.status_code >= 400 and url == "/api/schema/" and openapi:
                # drf-spectacular renders its own answers, errors too, as OpenAPI YAML by default.
                assert b"message: " in answer.content
            elif answer.status_code >= 400:
                assert_api_error(answer, answer.status_code)
    assert not SignedStake.objects.exists()
