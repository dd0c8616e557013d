"""Fuzzing the public API against its own OpenAPI schema (schemathesis, in process).

Every operation of /api/schema/ is called with generated valid and invalid input through Django's
real WSGI stack and a real database; each answer must be no 5xx and conform to the schema (status
code, content type, body). The case count is kept in FUZZ_COUNTS and printed at the end of the run
(docs/reliability.md records it)."""

from collections import Counter

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.throttling import ScopedRateThrottle
from schemathesis.specs.openapi.checks import positive_data_acceptance

# Operations with inputs get this many examples each; the input-free ones have one case each.
EXAMPLES_PER_OPERATION = 550
# A fixed CSRF token sent as both cookie and header, as the page does: without it every POST is 403
# and the fuzzer never reaches the claim code.
CSRF_TOKEN = "reliabilityfuzzcsrftoken01234567"  # 32 characters, as Django requires

FUZZ_COUNTS: Counter[str] = Counter()
FUZZ_STATUSES: Counter[int] = Counter()


@pytest.fixture
def fuzz_data(db, make_challenge, make_response, monkeypatch):
    """Data behind the API: one resolved challenge with
    confirmed responses (winners, lists and statuses have rows to show) and one active challenge
    (claims can be stored)."""
    from challenges.services import challenge_close, challenge_resolve

    resolved = make_challenge(title="Resolved")
    make_response(resolved, "29.979175, 31.134258", stake="5")
    make_response(resolved, "48.858370, 2.294481", stake="7.5")
    challenge_close(challenge=resolved)
    challenge_resolve(challenge=resolved)
    make_challenge(title="Open", solution="51.5007, -0.1246")
    # The throttle has its own test (test_abuse.py); here it would turn most POSTs into 429.
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"response_create": "1000000/min"})
    # Like Django's test Client: the WSGI calls must not close the test's connection (it holds
    # the test transaction) when a request starts or finishes.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


# The schema the app itself serves (drf-spectacular); loading it touches no database.
schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())


@pytest.mark.django_db
@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_and_never_fails(case, fuzz_data):
    # The cookie goes through the case: the WSGI client drops a hand-written Cookie header (every
    # POST was a 403 "CSRF cookie not set" until this was found).
    case.cookies = {**(case.cookies or {}), "csrftoken": CSRF_TOKEN}
    headers = {"X-CSRFToken": CSRF_TOKEN}
    # The cursor is opaque: any string fits its schema, yet only one this API gave is accepted
    # (400 otherwise, documented). With a made-up cursor, "valid by schema => accepted" cannot hold.
    # A claim's rules (coordinates in range, address checksum, at most 6 stake decimals, a salt of
    # 64 lowercase hex) are more than its JSON Schema can say, so a schema-valid body may rightly be
    # a documented 400: for the POST the checks are no 5xx and an answer that conforms.
    excluded = [positive_data_acceptance] if "cursor" in (case.query or {}) or case.method == "POST" else []
    response = case.call_and_validate(headers=headers, excluded_checks=excluded)
    FUZZ_COUNTS[case.operation.label] += 1
    FUZZ_STATUSES[response.status_code] += 1
    assert response.status_code < 500


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    ["limit=%C2%B2", "challengeId=%D9%A1", "challengeId=99999999999999999999999", "limit=0", "limit=1001"],
)
def test_odd_numbers_in_the_query_are_400_not_500(api, query):
    # Found by the fuzzer: "²".isdigit() is True but int("²") raises, which was a 500.
    answer = api.get(f"/api/responses?{query}")
    assert answer.status_code in (200, 400)
    assert "message" in answer.json() or isinstance(answer.json(), list)


@pytest.mark.django_db
def test_cursor_with_a_non_ascii_digit_is_400(api):
    import base64

    cursor = base64.urlsafe_b64encode("after:²".encode()).decode().rstrip("=")
    answer = api.get(f"/api/responses?cursor={cursor}")
    assert answer.status_code == 400
    assert answer.json()["errors"] == {"cursor": ["Not a cursor this API gave."]}
