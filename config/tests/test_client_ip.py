"""Client identity behind TRUSTED_PROXY_HOPS proxies, through the real test client: the claim
throttle, the admin lockout (django-axes) and the request log all see the same client, and a
client-written X-Forwarded-For never moves anyone to another bucket. The throttle and the lockout
count an IPv6 client by its /64 (config/client_ip.py, client_key); the log names the address."""

import logging
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from django.urls import reverse

from config.client_ip import client_ip

ROUTER = "10.1.2.3"  # the address every request comes from behind a platform router


@pytest.mark.parametrize(
    ("hops", "forwarded", "expected"),
    [
        (0, "", ROUTER),
        (0, "198.51.100.7", ROUTER),  # no trusted proxy: the header is the client's own words
        (1, "198.51.100.7", "198.51.100.7"),  # what the router appended
        (1, "1.1.1.1, 198.51.100.7", "198.51.100.7"),  # a forged left part is not read
        (1, "1.1.1.1,2.2.2.2 ,  198.51.100.7", "198.51.100.7"),
        (2, "1.1.1.1, 198.51.100.7, 10.0.0.5", "198.51.100.7"),  # the second from the right
        (2, "198.51.100.7", ROUTER),  # fewer entries than hops: not through every proxy
        (1, "", ROUTER),
        (1, "not-an-address", ROUTER),
        (1, "2001:db8::1", "2001:db8::1"),
    ],
)
def test_the_client_is_the_nth_address_from_the_right(settings, hops, forwarded, expected):
    settings.TRUSTED_PROXY_HOPS = hops
    meta: dict[str, Any] = {"REMOTE_ADDR": ROUTER}
    if forwarded:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded
    assert client_ip(RequestFactory().get("/", **meta)) == expected


def test_the_default_trusts_no_proxy(settings):
    assert settings.TRUSTED_PROXY_HOPS == 0


# --- The claim throttle ----------------------------------------------------------------------


def _claim(client, *, forwarded: str):
    # An empty body: refused with 400 after the throttle counted it, or 429 when the bucket is full.
    return client.post(
        "/api/responses", data="{}", content_type="application/json", REMOTE_ADDR=ROUTER, HTTP_X_FORWARDED_FOR=forwarded
    )


@pytest.fixture
def claim_rate(settings, monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    # The class attribute DRF read at import; monkeypatch puts the original back after the test
    # (reassigning it from api_settings at teardown kept 3/min for every later test).
    rates = {**ScopedRateThrottle.THROTTLE_RATES, "response_create": "3/min"}
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", rates)
    yield 3


@pytest.mark.django_db
def test_behind_the_router_each_player_has_a_bucket_and_cannot_choose_it(client, settings, claim_rate):
    settings.TRUSTED_PROXY_HOPS = 1
    statuses = [_claim(client, forwarded=f"{n}.{n}.{n}.{n}, 198.51.100.7").status_code for n in range(1, 6)]
    # Five forged left parts, one real client (what the router appended): one bucket of 3.
    assert statuses == [400, 400, 400, 429, 429]
    # Another player behind the same router is not held back by the first.
    assert _claim(client, forwarded="203.0.113.9").status_code == 400


# One IPv6 subscriber holds a /64 (2^64 addresses) and picks any of them per connection: counted per
# address, one player would have 2^64 buckets. IPv4 is counted per address; an IPv4 address written
# as IPv4-mapped IPv6 (a dual-stack socket) is that IPv4 address.
SAME_64 = [
    "2001:db8:1:2::1",
    "2001:db8:1:2:aaaa:bbbb:cccc:dddd",
    "2001:0DB8:0001:0002:0000:0000:0000:0007",
    "2001:db8:1:2:ffff:ffff:ffff:ffff",
    "2001:db8:1:2:1234::5",
]


def _claim_from(client, remote: str, **meta):
    return client.post("/api/responses", data="{}", content_type="application/json", REMOTE_ADDR=remote, **meta)


@pytest.mark.django_db
def test_every_address_of_one_ipv6_64_shares_one_claim_bucket(client, settings, claim_rate):
    settings.TRUSTED_PROXY_HOPS = 0
    assert [_claim_from(client, address).status_code for address in SAME_64] == [400, 400, 400, 429, 429]
    # The neighbouring /64 is another subscriber.
    assert _claim_from(client, "2001:db8:1:3::1").status_code == 400


@pytest.mark.django_db
def test_behind_the_router_one_ipv6_64_is_one_bucket(client, settings, claim_rate):
    settings.TRUSTED_PROXY_HOPS = 1
    statuses = [
        _claim_from(client, ROUTER, HTTP_X_FORWARDED_FOR=f"9.9.9.{n}, {address}").status_code
        for n, address in enumerate(SAME_64)
    ]
    assert statuses == [400, 400, 400, 429, 429]
    assert _claim_from(client, ROUTER, HTTP_X_FORWARDED_FOR="2001:db8:9::1").status_code == 400


@pytest.mark.django_db
def test_an_ipv4_mapped_address_is_its_ipv4_address(client, settings, claim_rate):
    settings.TRUSTED_PROXY_HOPS = 0
    spellings = ["198.51.100.7", "::ffff:198.51.100.7", "::ffff:c633:6407", "198.51.100.7", "::FFFF:198.51.100.7"]
    assert [_claim_from(client, address).status_code for address in spellings] == [400, 400, 400, 429, 429]
    # IPv4 stays per address: the next address is another client.
    assert _claim_from(client, "198.51.100.8").status_code == 400


@pytest.mark.parametrize(
    ("address", "bucket"),
    [
        ("198.51.100.7", "198.51.100.7"),
        ("::ffff:198.51.100.7", "198.51.100.7"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::"),
        ("2001:0DB8:0001:0002::1", "2001:db8:1:2::"),
        ("::1", "::"),
        ("fe80::1", "fe80::"),
        ("", ""),
        ("not-an-address", "not-an-address"),
    ],
)
def test_the_client_key_is_the_ipv4_address_or_the_ipv6_64(settings, address, bucket):
    from config.client_ip import client_key

    settings.TRUSTED_PROXY_HOPS = 0
    assert client_key(RequestFactory().get("/", REMOTE_ADDR=address)) == bucket


@pytest.mark.django_db
def test_without_a_trusted_proxy_a_forged_header_does_not_widen_the_limit(client, settings, claim_rate):
    settings.TRUSTED_PROXY_HOPS = 0
    statuses = [_claim(client, forwarded=f"198.51.100.{n}").status_code for n in range(5)]
    assert statuses == [400, 400, 400, 429, 429]


# --- The admin lockout --------------------------------------------------------------------------

PASSWORD = "long-enough-pass-1"


def _login(client, password: str, *, forwarded: str, username: str = "poet", **headers):
    return client.post(
        reverse("admin:login"),
        {"username": username, "password": password, "next": reverse("admin:index")},
        REMOTE_ADDR=ROUTER,
        HTTP_X_FORWARDED_FOR=forwarded,
        **headers,
    )


@pytest.mark.django_db
def test_one_stranger_behind_the_router_cannot_lock_out_staff(client, settings):
    settings.TRUSTED_PROXY_HOPS = 1
    get_user_model().objects.create_superuser("poet", "poet@example.org", PASSWORD)
    for n in range(settings.AXES_FAILURE_LIMIT):
        # The stranger forges a new left part each time: still one client, locked out at the limit.
        # (It tries another user name: guessing poet's would lock that name out everywhere, by design:
        # config/tests/test_admin_security.py.)
        _login(client, "wrong", forwarded=f"9.9.9.{n}, 198.51.100.66", username="admin")
    assert _login(client, PASSWORD, forwarded="7.7.7.7, 198.51.100.66").status_code == 429
    # Staff at another address, through the same router, signs in.
    assert _login(client, PASSWORD, forwarded="203.0.113.20").status_code == 302


@pytest.mark.django_db
def test_one_ipv6_64_spraying_passwords_over_many_users_is_one_address(client, settings):
    """Password spraying: one guess per user name, each from another address of the attacker's /64.
    The address count is the /64's: locked out at the limit whatever the user name."""
    settings.TRUSTED_PROXY_HOPS = 0
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        answer = client.post(
            reverse("admin:login"),
            {"username": f"staff{n}", "password": "wrong", "next": reverse("admin:index")},
            REMOTE_ADDR=f"2001:db8:1:2::{n + 1:x}",
        )
        assert answer.status_code == 200
    locked = client.post(
        reverse("admin:login"),
        {"username": "someone-else", "password": "wrong", "next": reverse("admin:index")},
        REMOTE_ADDR="2001:db8:1:2:dead:beef::1",
    )
    assert locked.status_code == 429


@pytest.mark.django_db
def test_the_lockout_answer_names_no_user_and_carries_no_cors_header(client, settings):
    settings.TRUSTED_PROXY_HOPS = 1
    get_user_model().objects.create_superuser("poet", "poet@example.org", PASSWORD)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login(client, "wrong", forwarded="198.51.100.66")
    xhr = _login(client, "wrong", forwarded="198.51.100.66", HTTP_X_REQUESTED_WITH="XMLHttpRequest")
    assert xhr.status_code == 429
    assert xhr.json() == {
        "message": "Too many failed sign-in attempts. Try again in 15 minutes.",
        "errors": {},
    }
    assert b"poet" not in xhr.content
    assert not [name for name in xhr.headers if name.lower().startswith("access-control-")]
    page = _login(client, "wrong", forwarded="198.51.100.66")
    assert page.status_code == 429
    assert b"Too many failed sign-in attempts. Try again in 15 minutes." in page.content
    assert b'value="poet"' not in page.content
    assert not [name for name in page.headers if name.lower().startswith("access-control-")]


# --- The request log -------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_request_log_names_the_client_behind_the_router(client, settings, caplog):
    settings.TRUSTED_PROXY_HOPS = 1
    with caplog.at_level(logging.INFO, logger="geopoem.request"):
        client.get("/healthz", REMOTE_ADDR=ROUTER, HTTP_X_FORWARDED_FOR="6.6.6.6, 198.51.100.7")
    (line,) = [r.getMessage() for r in caplog.records if r.name == "geopoem.request"]
    assert line.startswith("GET /healthz ") and line.endswith("client=198.51.100.7")
