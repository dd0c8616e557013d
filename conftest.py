"""Fixtures shared by every app's tests."""

import json
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
def api_reads_rows(api):
    """Each GET of `api` reads the rows: the public answers are cached and marked stale after each
    write commits, and a test's transaction never commits (challenges/tests/test_public_cache.py
    tests the cache). A module asks for it with pytest.mark.usefixtures("api_reads_rows")."""
    from django.core.cache import cache

    get = api.get

    def fresh_get(*args, **kwargs):
        cache.clear()
        return get(*args, **kwargs)

    api.get = fresh_get


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
            "BACKEND": "config.redis_cache.RedisCache",
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
def pot_recorder(db):
    """The pot's events recorded without a chain (devtools/pot_records.py): what the follower would
    write, projected by its own code. chain/tests/ run anvil instead."""
    from devtools.pot_records import PotRecorder

    return PotRecorder()


@pytest.fixture
def challenge_opener(pot_recorder):
    """How make_challenge opens a published challenge: the pot's Opened event recorded with its terms
    (pot_recorder). Test data for tests without a chain; chain/tests/conftest.py opens on anvil for
    real."""
    return pot_recorder.open


@pytest.fixture
def make_challenge(db, settings, challenge_opener):
    """A challenge through the services. Published (the default), it is also opened
    (challenge_opener), so it takes stakes (`opened=False` leaves the open queued)."""
    from challenges.services import challenge_create, challenge_create_published

    settings.POT_ADDRESS = settings.POT_ADDRESS or "0x" + "9a" * 20

    def make(
        *, solution="29.979175, 31.134258", threshold=150, publish=True, title="Stone Steps", opened=True, **kwargs
    ):
        challenge = (challenge_create_published if publish else challenge_create)(
            poem_title=title,
            poem_text="<p>A poem</p>",
            instructions_text="<p>Guess</p>",
            proximity_threshold_m=threshold,
            solution=solution,
            **kwargs,
        )
        if publish and opened:
            challenge_opener(challenge)
        challenge.refresh_from_db()
        return challenge

    return make


@pytest.fixture
def make_stake(db, settings, pot_recorder):
    """A stake in the pot as its Staked event says (recorded: pot_recorder), with the guess the site
    holds for it (`guess=False`: none). Returns (stake, guess or None)."""
    from challenges.commitments import guess_commitment, new_salt
    from challenges.coordinates import micro_degrees
    from responses.models import Guess, Stake

    counter = {"n": 0}

    def make(challenge, text="29.979175, 31.134258", stake="1", *, payer=None, guess=True, deep=True):
        counter["n"] += 1
        payer = (payer or "0x" + f"{counter['n']:040x}").lower()
        salt = new_salt()
        lat, lon = micro_degrees(text)
        commitment = guess_commitment(
            chain_id=settings.CHAIN_ID,
            pot=settings.POT_ADDRESS,
            challenge_id=challenge.pk,
            payer=payer,
            lat_e6=lat,
            lon_e6=lon,
            salt=salt,
        )
        seq = pot_recorder.stake(
            challenge, payer=payer, amount=int(Decimal(stake) * 10**6), commitment=commitment, deep=deep
        )
        row = None
        if guess:
            row = Guess.objects.create(
                challenge=challenge, payer=payer, commitment=commitment, text=text, salt=salt, lat_e6=lat, lon_e6=lon
            )
        return Stake.objects.get(challenge=challenge, seq=seq), row

    return make
