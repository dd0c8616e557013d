"""Fuzzing the public API against its own OpenAPI schema (schemathesis, in process).

Every operation of /api/schema/ is called with generated valid and invalid input through Django's
real WSGI stack and a real database; each answer must be no 5xx and conform to the schema (status
code, content type, body). The case count is kept in FUZZ_COUNTS and printed at the end of the run
(docs/reliability.md records it)."""

import json
import time
from collections import Counter
from urllib.parse import urlencode

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.throttling import ScopedRateThrottle
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.http_bodies import (
    TOKEN,
    ServedApp,
    assert_api_error,
    huge_number_literals,
    odd_content_types,
    with_literal,
)

# Operations with inputs get this many examples each; the input-free ones have one case each.
EXAMPLES_PER_OPERATION = 550
# A fixed CSRF token sent as both cookie and header, as the page does: without it every POST is 403
# and the fuzzer never reaches the stake's code.
CSRF_TOKEN = "reliabilityfuzzcsrftoken01234567"  # 32 characters, as Django requires

FUZZ_COUNTS: Counter[str] = Counter()
FUZZ_STATUSES: Counter[int] = Counter()
# Answers to the odd twins and to the hypothesis body fuzzing (huge numbers, odd charsets).
TWIN_STATUSES: Counter[int] = Counter()


@pytest.fixture
def fuzz_data(db, make_challenge, make_stake, pot_recorder, monkeypatch):
    """Data behind the API: one challenge whose solution is revealed, with stakes and their guesses
    (winners, lists and statuses have rows to show), and one open challenge (stakes can be posted)."""
    revealed = make_challenge(title="Revealed")
    make_stake(revealed, "29.979175, 31.134258", stake="5")
    make_stake(revealed, "48.858370, 2.294481", stake="7.5")
    pot_recorder.advance(int((revealed.closes_at - pot_recorder.now()).total_seconds()))
    pot_recorder.reveal_solution(revealed)
    make_challenge(title="Open", solution="51.5007, -0.1246", now=pot_recorder.now())
    # The throttle has its own test (test_abuse.py); here it would turn most POSTs into 429.
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"response_create": "1000000/min"})
    # Like Django's test Client: the WSGI calls must not close the test's connection (it holds
    # the test transaction) when a request starts or finishes.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


# The schema the app itself serves (drf-spectacular), through the WSGI application gunicorn serves
# (config/wsgi.py: Django behind the charset guard); loading it touches no database.
get_wsgi_application()
from config.wsgi import application  # noqa: E402 - after Django is set up

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
# Each generated case also sends two twins of itself straight to the served application: its body
# with one member written as a huge JSON number literal, and its body declared in an odd charset.
TWIN_SECONDS = 5.0  # loose: the machine is shared; the refusals themselves take milliseconds


@pytest.mark.django_db
@schema.parametrize()
@schema.given(literal=huge_number_literals(), content_type=odd_content_types(), position=st.integers(0, 9))
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_and_never_fails(case, fuzz_data, literal, content_type, position):
    # The cookie goes through the case: the WSGI client drops a hand-written Cookie header (every
    # POST was a 403 "CSRF cookie not set" until this was found).
    case.cookies = {**(case.cookies or {}), "csrftoken": CSRF_TOKEN}
    headers = {"X-CSRFToken": CSRF_TOKEN}
    # The cursor is opaque: any string fits its schema, yet only one this API gave is accepted
    # (400 otherwise, documented). With a made-up cursor, "valid by schema => accepted" cannot hold.
    # A stake's and a guess's rules (coordinates in range, address checksum, whole cents, a salt of
    # 64 lowercase hex) are more than their JSON Schema can say, so a schema-valid body may rightly be
    # a documented 400: for the POSTs the checks are no 5xx and an answer that conforms.
    # Likewise a mixed-case address must carry its checksum, which a pattern cannot say.
    query = case.query or {}
    excluded = [positive_data_acceptance] if "cursor" in query or "address" in query or case.method == "POST" else []
    response = case.call_and_validate(headers=headers, excluded_checks=excluded)
    FUZZ_COUNTS[case.operation.label] += 1
    FUZZ_STATUSES[response.status_code] += 1
    assert response.status_code < 500 or chain_check(case.method, case.formatted_path, response)
    send_the_odd_twins(case, literal=literal, content_type=content_type, position=position)


def chain_check(method: str, path: str, response) -> bool:
    """A well-formed signed stake reaches the chain's check of its signature, where no node answers in
    these tests: the POST's one documented 503 ("may pass: post again", docs/protocol.md 3.1)."""
    return (method, path, response.status_code) == ("POST", "/api/responses", 503) and response.json()[
        "message"
    ] == "Payment authorizations cannot be checked right now."


def send_the_odd_twins(case, *, literal: str, content_type: str, position: int) -> None:
    """The case's request with a huge number in its body, then in an odd charset. A POST must
    answer the exact refusal (400 naming the number, 415 naming the charset); a GET ignores its body
    and must still answer below 500, a refusal in the API's error shape. Both in bounded time."""
    url = case.formatted_path + (("?" + urlencode(case.query, doseq=True)) if case.query else "")
    body = case.body if isinstance(case.body, dict) else {}
    twins = [
        ("number", with_literal(body, literal, position=position), "application/json"),
        ("charset", json.dumps(body).encode(), content_type),
    ]
    for kind, data, twin_type in twins:
        started = time.perf_counter()
        answer = ServedApp().generic(case.method, url, data, twin_type, HTTP_X_CSRFTOKEN=TOKEN)
        assert time.perf_counter() - started < TWIN_SECONDS, (kind, url, twin_type)
        TWIN_STATUSES[answer.status_code] += 1
        assert answer.status_code < 500, (kind, url, twin_type, answer.content[:200])
        if case.method == "POST" and kind == "number":
            assert_api_error(answer, 400, "A number in the request body is too long or too large")
        elif case.method == "POST":
            assert_api_error(answer, 415, "must be JSON encoded as UTF-8")
        elif answer.status_code >= 400:
            assert_api_error(answer, answer.status_code)


ENDPOINTS = [
    ("GET", "/api/challenges/active"),
    ("GET", "/api/challenges/resolved"),
    ("GET", "/api/challenges/1"),
    ("GET", "/api/challenges/1/winners"),
    ("GET", "/api/responses?challengeId=1"),
    ("GET", "/api/responses?address=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"),
    ("GET", "/api/responses/" + "a1" * 32),
    ("GET", "/api/payments/authorization"),
    ("POST", "/api/responses"),
    ("POST", "/api/responses/guess"),
    ("PUT", "/api/responses"),
    ("PATCH", "/api/challenges/active"),
    ("DELETE", "/api/responses/" + "a1" * 32),
    ("POST", "/api/challenges/active"),
    ("POST", "/api/unknown"),
]
# A signed stake's body and a guess's in one: each POST reads the members it knows (and refuses a guess
# in a stake's body).
STAKE = {
    "challengeId": 2,
    "submitterAddress": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    "submissionStake": "2.00",
    "commitment": "b2" * 32,
    "authorization": {"validAfter": 0, "validBefore": 1_900_000_000, "signature": "0x" + "1c" * 65},
    "submissionText": "51.5007, -0.1246",
    "submissionSalt": "cd" * 32,
}


@pytest.mark.django_db
@given(
    endpoint=st.sampled_from(ENDPOINTS),
    literal=huge_number_literals(),
    content_type=st.one_of(st.just("application/json"), odd_content_types()),
    position=st.integers(0, 9),
)
@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_every_endpoint_refuses_odd_bodies_with_a_4xx(fuzz_data, endpoint, literal, content_type, position):
    """Hypothesis: every API endpoint and method, a body with a huge number literal in one
    member, sent as JSON or in an odd charset: never 5xx, a refusal in the API's error shape that
    names the problem, in bounded time. Nothing is stored."""
    method, url = endpoint
    started = time.perf_counter()
    answer = ServedApp().generic(
        method, url, with_literal(STAKE, literal, position=position), content_type, HTTP_X_CSRFTOKEN=TOKEN
    )
    assert time.perf_counter() - started < TWIN_SECONDS
    TWIN_STATUSES[answer.status_code] += 1
    assert answer.status_code < 500, (method, url, content_type, answer.content[:200])
    if method == "POST" and url in ("/api/responses", "/api/responses/guess"):
        if content_type == "application/json":
            assert_api_error(answer, 400, "A number in the request body is too long or too large")
        else:
            assert_api_error(answer, 415, "must be JSON encoded as UTF-8")
    elif answer.status_code >= 400:
        assert_api_error(answer, answer.status_code)
    from responses.models import Guess, SignedStake

    assert not SignedStake.objects.exists() and not Guess.objects.filter(commitment=STAKE["commitment"]).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "field"),
    [("limit=%C2%B2", "limit"), ("challengeId=%D9%A1", "challengeId"), ("limit=0", "limit"), ("limit=1001", "limit")],
)
def test_odd_numbers_in_the_query_are_400_not_500(api, query, field):
    # Found by the fuzzer: "²".isdigit() is True but int("²") raises, which was a 500.
    answer = api.get(f"/api/responses?{query}")
    assert answer.status_code == 400, answer.content
    payload = answer.json()
    assert set(payload) == {"message", "errors"} and field in payload["errors"]
    assert payload["message"].startswith(field)


@pytest.mark.django_db
def test_a_challenge_id_beyond_any_row_lists_nothing(api, make_challenge, make_stake, pot_recorder):
    """10^22 is a whole number no challenge has (beyond PostgreSQL's bigint): an empty list, as for
    any unknown id, not a 500 from the database."""
    challenge = make_challenge()
    make_stake(challenge, "29.979175, 31.134258")
    pot_recorder.advance(int((challenge.closes_at - pot_recorder.now()).total_seconds()))
    pot_recorder.reveal_solution(challenge)
    assert api.get(f"/api/responses?challengeId={challenge.pk}").json() != []
    answer = api.get("/api/responses?challengeId=99999999999999999999999")
    assert answer.status_code == 200 and answer.json() == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("address", "sentence"),
    [
        ("0xa3F1989e80C68a070dce71f600FBd47f4ee5ADdc", "The wallet address has an invalid checksum."),
        ("0x1234", "The wallet address must be 0x followed by 40 hexadecimal characters."),
    ],
)
def test_an_address_in_the_query_is_refused_saying_why(api, address, sentence):
    # Found by the fuzzer: a wrong checksum was answered "must be 0x followed by 40 hexadecimal characters".
    answer = api.get(f"/api/responses?address={address}")
    assert answer.status_code == 400
    assert answer.json() == {
        "message": sentence.replace("The wallet address", "address"),
        "errors": {"address": [sentence]},
    }
    assert api.get(f"/api/responses?address={address.lower()}").status_code == (400 if len(address) < 42 else 200)


@pytest.mark.django_db
def test_cursor_with_a_non_ascii_digit_is_400(api):
    import base64

    cursor = base64.urlsafe_b64encode("after:²".encode()).decode().rstrip("=")
    answer = api.get(f"/api/responses?cursor={cursor}")
    assert answer.status_code == 400
    assert answer.json()["errors"] == {"cursor": ["Not a cursor this API gave."]}
