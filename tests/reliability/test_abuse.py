"""Abuse, against the real server: gunicorn with the production settings, 2 worker processes,
Redis as the shared cache (so the throttle holds across workers), PostgreSQL.

In-process versions of some of these live beside the code (tests/test_bodies.py, challenges/tests);
these prove the same promises hold in the deployed shape, where a mistake in middleware order,
proxy headers, cookie flags or a per-process cache would break them. No node answers this server
(procs.production_env), so a well-formed signed stake gets as far as the chain's check of its
signature and answers 503 there: what these tests need is that it got past the throttle, CSRF and
the body's rules."""

import logging
import secrets
from io import StringIO

import pytest
import redis
import requests
from django.conf import settings
from django.contrib.auth import get_user_model

from config.log_redaction import MASK, RedactingFormatter
from responses.models import SignedStake

from .conftest import REDIS_DB_URL

pytestmark = [pytest.mark.integration, pytest.mark.postgresql]

ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
PAST_THE_BODY = 503  # the chain's check, where no node answers (the module's docstring)


class Browser:
    """What the page does over HTTPS behind the proxy: read the CSRF cookie from GET /, send it
    back in X-CSRFToken with a same-origin Referer."""

    def __init__(self, url: str):
        self.url = url
        self.https = {"X-Forwarded-Proto": "https"}
        page = requests.get(url + "/", headers=self.https, timeout=10)
        assert page.status_code == 200
        self.token = page.cookies.get("csrftoken") or page.headers["Set-Cookie"].split("csrftoken=")[1].split(";")[0]

    def headers(self, **extra: str) -> dict:
        origin = self.url.replace("http://", "https://")
        return {
            **self.https,
            "Cookie": f"csrftoken={self.token}",
            "X-CSRFToken": self.token,
            "Referer": origin + "/",
            "Content-Type": "application/json",
            **extra,
        }

    def stake(self, challenge_id: int, **overrides) -> dict:
        """A signed stake's body (docs/protocol.md 3.1), well-formed."""
        data = {
            "challengeId": challenge_id,
            "submitterAddress": ADDRESS,
            "submissionStake": "2.50",
            "commitment": secrets.token_hex(32),
            "authorization": {"validAfter": 0, "validBefore": 1_900_000_000, "signature": "0x" + secrets.token_hex(65)},
        }
        data.update(overrides)
        return data

    def post_stake(self, data: dict, **headers: str) -> requests.Response:
        return requests.post(self.url + "/api/responses", json=data, headers=self.headers(**headers), timeout=10)


@pytest.fixture
def open_challenge(transactional_db, make_challenge):
    redis.Redis.from_url(REDIS_DB_URL).flushdb()  # a fresh throttle minute for each test
    return make_challenge(title="Abuse")


def test_stakes_are_throttled_across_workers(production_server, open_challenge):
    browser = Browser(production_server.url)
    rate = int(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["response_create"].split("/")[0])
    codes = [browser.post_stake(browser.stake(open_challenge.pk)).status_code for _ in range(rate + 3)]
    # Two gunicorn workers answer these; the count lives in Redis, so the limit is per client, not per worker.
    assert codes == [PAST_THE_BODY] * rate + [429] * 3
    last = browser.post_stake(browser.stake(open_challenge.pk))
    assert last.json() == {
        "message": "Too many submissions from this client; please wait a minute and try again.",
        "errors": {},
    }
    # The guesses' POST counts in the same scope: a client throttled on stakes is throttled there too.
    guess = {"challengeId": open_challenge.pk, "submitterAddress": ADDRESS, "commitment": "ab" * 32,
             "submissionText": "1, 1", "submissionSalt": "cd" * 32}  # fmt: skip
    answer = requests.post(
        production_server.url + "/api/responses/guess", json=guess, headers=browser.headers(), timeout=10
    )
    assert answer.status_code == 429
    assert not SignedStake.objects.exists()


def test_a_cross_site_html_form_post_is_refused(production_server, open_challenge):
    """The attacker's page can submit a form to us with the victim's cookies, but cannot read the
    CSRF cookie, and its Origin is its own."""
    browser = Browser(production_server.url)
    form = {k: str(v) for k, v in browser.stake(open_challenge.pk).items()}
    answer = requests.post(
        production_server.url + "/api/responses",
        data=form,
        headers={
            "X-Forwarded-Proto": "https",
            "Cookie": f"csrftoken={browser.token}",
            "Origin": "https://evil.example",
            "Content-Type": "application/x-www-form-urlencoded",
        },
        timeout=10,
    )
    assert answer.status_code == 403
    assert answer.json()["message"].startswith("CSRF check failed")
    assert not SignedStake.objects.exists()


def test_a_text_plain_post_is_refused(production_server, open_challenge):
    """text/plain is the one "simple" content type a cross-site fetch may send JSON in without a
    preflight. Cross-site it fails CSRF; even same-site with a token, it is not JSON to us."""
    browser = Browser(production_server.url)
    import json

    body = json.dumps(browser.stake(open_challenge.pk))
    cross_site = requests.post(
        production_server.url + "/api/responses",
        data=body,
        headers={"X-Forwarded-Proto": "https", "Origin": "https://evil.example", "Content-Type": "text/plain"},
        timeout=10,
    )
    assert cross_site.status_code == 403
    same_site = requests.post(
        production_server.url + "/api/responses",
        data=body,
        headers=browser.headers(**{"Content-Type": "text/plain"}),
        timeout=10,
    )
    assert same_site.status_code == 415
    assert set(same_site.json()) == {"message", "errors"}
    assert not SignedStake.objects.exists()


def test_a_right_token_from_a_foreign_origin_is_refused(production_server, open_challenge):
    browser = Browser(production_server.url)
    answer = browser.post_stake(browser.stake(open_challenge.pk), Origin="https://evil.example")
    assert answer.status_code == 403
    assert not SignedStake.objects.exists()


def test_request_bodies_are_bounded(production_server, open_challenge):
    browser = Browser(production_server.url)
    big = browser.stake(open_challenge.pk, submissionStake="1" + " " * (1024 * 1024))
    answer = browser.post_stake(big)
    assert answer.status_code == 413
    assert answer.json()["message"] == "The request body is larger than 16 KiB."

    def chunks():
        yield b'{"challengeId": 1, '
        yield b'"submissionStake": "1"}'

    chunked = requests.post(
        production_server.url + "/api/responses", data=chunks(), headers=browser.headers(), timeout=10
    )
    assert chunked.status_code == 413  # no Content-Length: the API never needs a streamed body
    assert not SignedStake.objects.exists()


def test_admin_login_is_throttled_on_the_real_server(production_server, transactional_db):
    """django-axes keeps the failures in the database, so the lockout holds whichever worker answers,
    and then even the right password is refused."""
    get_user_model().objects.create_user("poet", password="right-password-123", is_staff=True)
    url = production_server.url + "/" + settings.ADMIN_URL + "login/"
    session = requests.Session()
    https = {"X-Forwarded-Proto": "https", "Referer": production_server.url.replace("http://", "https://") + "/"}

    def attempt(password: str) -> requests.Response:
        page = session.get(url, headers=https, timeout=10)
        token = page.headers["Set-Cookie"].split("csrftoken=")[1].split(";")[0]
        return session.post(
            url,
            data={"username": "poet", "password": password, "csrfmiddlewaretoken": token, "next": "/"},
            headers={**https, "Cookie": f"csrftoken={token}"},
            allow_redirects=False,
            timeout=10,
        )

    codes = [attempt("wrong").status_code for _ in range(settings.AXES_FAILURE_LIMIT)]
    assert codes[:-1] == [200] * (settings.AXES_FAILURE_LIMIT - 1)  # the form again, with an error
    locked = attempt("right-password-123")
    assert locked.status_code == 429 or locked.status_code == 403
    assert "sessionid" not in locked.headers.get("Set-Cookie", "")


def test_the_server_log_holds_no_secret(production_server, open_challenge):
    """After stakes (well-formed and not) and errors, and a guess posted, the server's log holds
    neither the signatures, the guess and its salt, nor the SECRET_KEY."""
    browser = Browser(production_server.url)
    good = browser.stake(open_challenge.pk)
    bad = browser.stake(open_challenge.pk, submitterAddress="0x123")
    assert browser.post_stake(good).status_code == PAST_THE_BODY
    assert browser.post_stake(bad).status_code == 400
    guess = {"challengeId": open_challenge.pk, "submitterAddress": ADDRESS, "commitment": good["commitment"],
             "submissionText": "12.345678, 98.765432", "submissionSalt": secrets.token_hex(32)}  # fmt: skip
    answer = requests.post(
        production_server.url + "/api/responses/guess", json=guess, headers=browser.headers(), timeout=10
    )
    assert answer.status_code == 422  # it opens no commitment of this payer
    text = production_server.log.read_text()
    assert "Bad Request: /api/responses" in text  # the log is the server's, and it did log
    secrets_posted = [good["authorization"]["signature"][2:66], bad["authorization"]["signature"][2:66]]
    for secret in (*secrets_posted, guess["submissionSalt"], "12.345678", production_server.env["SECRET_KEY"]):
        assert secret not in text


def test_the_configured_log_formatter_redacts_secrets(settings):
    """Whatever a line carries: a salt, a private key, the SECRET_KEY, an RPC URL's API key, a
    Redis password. Transaction hashes and addresses stay readable."""
    settings.SECRET_KEY = "s3cr3t-" + secrets.token_urlsafe(30)
    settings.CHAIN_RPC_URLS = ["https://sepolia.provider.example/v3/abcdef0123456789deadbeef"]
    settings.SIGNER_PRIVATE_KEY = "0x" + secrets.token_hex(32)
    configured = settings.LOGGING["formatters"]["plain"]
    assert configured["()"] == "config.log_redaction.RedactingFormatter"
    stream = StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(RedactingFormatter(configured["format"]))
    logger = logging.getLogger("tests.reliability.redaction")
    logger.addHandler(handler)
    salt = secrets.token_hex(32)
    tx = "0x" + secrets.token_hex(32)
    try:
        logger.warning("claim %s salt %s", tx, salt)
        logger.warning("key=%s signer %s", secrets.token_hex(32), settings.SIGNER_PRIVATE_KEY)
        logger.warning("RPC eth_call failed on %s", settings.CHAIN_RPC_URLS[0])
        logger.warning("broker redis://:hunter2pass@127.0.0.1:6379/0 down")
        try:
            raise ValueError(f"boom with {settings.SECRET_KEY}")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    out = stream.getvalue()
    for secret in (salt, settings.SIGNER_PRIVATE_KEY, settings.SECRET_KEY, "abcdef0123456789deadbeef", "hunter2pass"):
        assert secret not in out
    assert tx in out and MASK in out
    assert "https://sepolia.provider.example/" in out  # which provider failed is still told
