"""Fixtures shared by every app's tests."""

import json
import time
from decimal import Decimal
from pathlib import Path

import pytest
from rest_framework.test import APIClient

VECTORS_PATH = Path(__file__).parent / "tests" / "vectors.json"


def pytest_collection_modifyitems(config, items):
    """Tests marked `postgresql` prove PostgreSQL behaviour (row locks, concurrent unique inserts).
    `make test` and CI run on PostgreSQL; a run on the embedded SQLite leaves them out and says so."""
    from django.conf import settings

    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        return
    kept = [item for item in items if item.get_closest_marker("postgresql") is None]
    left = len(items) - len(kept)
    if left:
        config.hook.pytest_deselected(items=[i for i in items if i.get_closest_marker("postgresql")])
        items[:] = kept
        print(f"\nNOTE: {left} PostgreSQL-only tests left out: this run uses SQLite (make test uses PostgreSQL).")


@pytest.fixture(scope="session")
def vectors() -> dict:
    return json.loads(VECTORS_PATH.read_text())


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def csrf_api() -> APIClient:
    """A client that, like a browser, must send the CSRF cookie's token back in X-CSRFToken."""
    return APIClient(enforce_csrf_checks=True)


@pytest.fixture(autouse=True)
def _clear_cache():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def redis_url():
    """A redis-server of this test's own, on a free loopback port, stopped by its PID."""
    from devtools.processes import free_port, start_redis, stop

    port = free_port()
    proc = start_redis(port)
    try:
        yield f"redis://127.0.0.1:{port}/0", proc
    finally:
        stop(proc)


@pytest.fixture
def redis_cache(settings, redis_url):
    """The default cache on this test's Redis, as production configures it (shorter timeouts), and a
    fresh copy of the public answers for this process (config/public_cache.py)."""
    from config import public_cache

    url, proc = redis_url
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    public_cache.reset_for_tests()
    try:
        yield url, proc
    finally:
        public_cache.reset_for_tests()


@pytest.fixture
def make_challenge(db):
    """A challenge through the services. Published (the default), it is also open: its anchor is
    recorded confirmed through the anchor's services with made-up chain values (`anchored=False`
    leaves it queued, so the challenge is active but not open). This is test data for tests without
    a chain; chain/tests/conftest.py overrides this fixture to anchor on anvil for real."""
    from challenges.services import challenge_create, challenge_create_published
    from devtools.anchors import record_confirmed_anchor

    def make(
        *, solution="29.979175, 31.134258", threshold=150, publish=True, title="Stone Steps", anchored=True, **kwargs
    ):
        challenge = (challenge_create_published if publish else challenge_create)(
            poem_title=title,
            poem_text="<p>A poem</p>",
            instructions_text="<p>Guess</p>",
            proximity_threshold_m=threshold,
            solution=solution,
            **kwargs,
        )
        if publish and anchored and not challenge.is_demo:
            record_confirmed_anchor(challenge)
        return challenge

    return make


@pytest.fixture
def make_response(db):
    """A claim row as verification would leave it (confirmed) without a chain: for scoring and
    read-side tests only. Confirmation through a real EVM is tested in the chain app."""
    from challenges.services import challenge_stake_moved
    from responses.models import Response, ResponseStatus
    from responses.services import guess_fields

    counter = {"n": 0}

    def make(
        challenge,
        text,
        stake="1",
        *,
        block=None,
        tx_index=0,
        log_index=0,
        status=ResponseStatus.CONFIRMED,
        address=None,
        sent_by_submitter=True,
    ):
        """sent_by_submitter: a read of the transaction showed the payer's own claim (the payer's
        claims, as verification leaves them); False for a stranger's claim naming the address."""
        counter["n"] += 1
        n = counter["n"]
        address = address or "0x" + f"{n:040x}"
        response = Response.objects.create(
            challenge=challenge,
            **guess_fields(challenge_id=challenge.pk, text=text, submitter_address=address),
            submission_stake=Decimal(stake),
            transaction_hash="0x" + f"{n:064x}",
            submitter_address=address,
            status=status,
            block_number=block if block is not None else 100 + n,
            transaction_index=tx_index,
            log_index=log_index,
            sent_by_submitter=sent_by_submitter,
        )
        if status == ResponseStatus.CONFIRMED:
            # As a confirmation moves them (responses/services.py, response_confirm), public answers included.
            challenge_stake_moved(challenge_id=challenge.pk, stake=Decimal(stake), count=1)
        challenge.refresh_from_db()
        return response

    return make


# A deterministic payer per claim when a test names none: a key the fixture can sign with.
_PAYER_KEY_SEED = b"geopoem-test-payer"


@pytest.fixture
def make_authorization_response(db, settings):
    """A claim paid by a signed authorization, as POST /api/responses stores it (docs/protocol.md
    3.3a): `pending`, paid_by `authorization`, no transaction yet (`transaction_hash` ""),
    `sent_by_submitter` (the signature proves it is the payer's), with its StakeAuthorization. The one
    place tests build such rows; the POST's own checks are not run.

    The signature is a real EIP-712 signature of the claim's TransferWithAuthorization (from the
    submitter, to the treasury, the stake's units, validAfter and validBefore, nonce = the claim's
    commitment) under `domain` (default: the test token's, contracts/TestUSDC.sol: "Test USD Coin",
    version "2", settings.CHAIN_ID, settings.USDC_ADDRESS), made by:
    - `sign`, given: called with the chain.authorization.TransferAuthorization, returns the
      signature (an anvil account through eth_signTypedData_v4, as a wallet signs; `address` names it);
    - else `key`, given (the submitter is its address);
    - else a key of the fixture's own, one per claim.
    `signature` stores that text instead (a forgery, a malformed one). `valid_before` defaults to
    RELAY_AUTHORIZATION_SECONDS from now. The row is returned with its `authorization`."""
    from eth_account import Account
    from eth_utils import keccak

    from chain.authorization import Signature, TokenDomain, TransferAuthorization
    from challenges.money import token_units
    from responses.models import PaymentMethod, RelayStatus, Response, StakeAuthorization
    from responses.services import guess_fields

    counter = {"n": 0}

    def make(
        challenge,
        text="29.979, 31.134",
        stake="2.5",
        *,
        address=None,
        key=None,
        sign=None,
        signature=None,
        domain=None,
        salt=None,
        valid_after=0,
        valid_before=None,
        search_from_block=None,
        relay_status=RelayStatus.QUEUED,
    ):
        counter["n"] += 1
        if sign is None and key is None and address is None:
            key = "0x" + keccak(_PAYER_KEY_SEED + counter["n"].to_bytes(4, "big")).hex()
        if key is not None:
            address = Account.from_key(key).address
        guess = guess_fields(challenge_id=challenge.pk, text=text, submitter_address=address, salt=salt)
        if valid_before is None:
            valid_before = int(time.time()) + settings.RELAY_AUTHORIZATION_SECONDS
        authorization = TransferAuthorization(
            from_address=address,
            to_address=settings.TREASURY_ADDRESS,
            value=token_units(Decimal(stake)),
            valid_after=valid_after,
            valid_before=valid_before,
            nonce=guess["commitment"],
        )
        if signature is None:
            if sign is not None:
                signature = sign(authorization)
            else:
                domain = domain or TokenDomain("Test USD Coin", "2", settings.CHAIN_ID, settings.USDC_ADDRESS)
                signed = Account.unsafe_sign_hash(authorization.digest(domain), key)
                signature = Signature(v=signed.v, r=signed.r, s=signed.s).hex()
        response = Response.objects.create(
            challenge=challenge,
            **guess,
            submission_stake=Decimal(stake),
            payment_method=PaymentMethod.AUTHORIZATION,
            transaction_hash="",
            submitter_address=address,
            sent_by_submitter=True,
        )
        StakeAuthorization.objects.create(
            response=response,
            valid_after=valid_after,
            valid_before=valid_before,
            signature=signature,
            search_from_block=search_from_block,
            relay_status=relay_status,
        )
        return Response.objects.select_related("authorization", "challenge").get(pk=response.pk)

    return make
