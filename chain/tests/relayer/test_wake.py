"""The relayer's message (chain/relayer/outbox.py, WAKE_KEY) on a real Redis as both the cache and the
broker, as production runs them: the POSTs of signed stakes publish one message while one is pending,
the sender's run takes every call they queued, and a call committed after a run deleted the flag
publishes a message of its own. The sender's task body runs in the test's process on anvil; the
message it would have been started by is taken off the broker's queue first, as a worker does."""

from __future__ import annotations

import pytest
import redis
from django.core.cache import cache

import chain.relayer.sender as sender_module
from chain import tasks
from chain.relayer.outbox import WAKE_KEY
from devtools.workers import point_app_at

from ..pot_support import post, sign_stake
from ..relay_support import relay_status

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _no_throttle(monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"response_create": "1000000/min"})


@pytest.fixture
def broker(redis_cache):
    """The project's Celery app publishing to the test's Redis (the cache's too); its queue read raw."""
    from config.celery_app import app

    url, _ = redis_cache
    saved = (app.conf.broker_url, app.conf.broker_transport_options)
    app.set_current()
    point_app_at(url)
    try:
        yield redis.Redis.from_url(url)
    finally:
        point_app_at(saved[0])
        app.conf.broker_transport_options = saved[1]


def relay_messages(broker: redis.Redis) -> int:
    return int(broker.llen("relay"))


def take_message(broker: redis.Redis) -> None:
    """What a worker does first: the message off the queue (the run itself is the task's body)."""
    assert broker.rpop("relay") is not None


def test_a_burst_of_posts_publishes_one_message_and_its_run_sends_every_call(chain, make_challenge, api, broker):
    challenge = make_challenge()
    signed = [sign_stake(chain, challenge, player=n % 4, stake=str(n + 1)) for n in range(5)]
    for one in signed:
        assert post(api, challenge, one).status_code == 201
    assert relay_messages(broker) == 1 and cache.get(WAKE_KEY) == 1

    take_message(broker)
    assert tasks.relay_send() == 5
    assert all(relay_status(one) == ("sent", "") for one in signed)
    assert cache.get(WAKE_KEY) is None and relay_messages(broker) == 0

    # Nothing pending any more: the next stake publishes again, and its run sends it.
    later = sign_stake(chain, challenge, player=4)
    assert post(api, challenge, later).status_code == 201
    assert relay_messages(broker) == 1
    take_message(broker)
    assert tasks.relay_send() == 1
    assert relay_status(later) == ("sent", "")


def test_a_post_committed_after_the_run_deleted_the_flag_publishes_its_own_message(
    chain, make_challenge, api, broker, monkeypatch
):
    """The race the delete's place settles: the run has let the sender's flag go and deleted WAKE_KEY,
    and not yet looked at the queue again, when another stake commits. That stake publishes a message
    of its own; the run's look finds it and sends it too, and the second message's run finds nothing."""
    challenge = make_challenge()
    first, second = (sign_stake(chain, challenge, player=n) for n in range(2))
    assert post(api, challenge, first).status_code == 201
    take_message(broker)

    clear = sender_module.wake_clear
    posted: list[int] = []

    def clear_then_post() -> None:
        clear()
        if not posted:
            posted.append(post(api, challenge, second).status_code)

    monkeypatch.setattr(sender_module, "wake_clear", clear_then_post)
    assert tasks.relay_send() == 2
    assert posted == [201] and relay_messages(broker) == 1
    monkeypatch.setattr(sender_module, "wake_clear", clear)

    take_message(broker)
    assert tasks.relay_send() == 0
    assert relay_status(first) == relay_status(second) == ("sent", "")
    assert cache.get(WAKE_KEY) is None


def test_a_run_that_finds_another_sending_leaves_the_flag_to_it(chain, make_challenge, api, broker):
    """Another worker's run holds the sender's flag: a message taken meanwhile ends at once and leaves
    WAKE_KEY set, so the stakes posted during the other run publish nothing; the holder, once it lets
    its flag go, deletes the key, looks again and sends them."""
    challenge = make_challenge()
    first, second = (sign_stake(chain, challenge, player=n) for n in range(2))
    assert cache.add(sender_module.SENDER_KEY, "another run", timeout=30)
    assert post(api, challenge, first).status_code == 201
    take_message(broker)
    assert tasks.relay_send() == 0
    assert cache.get(WAKE_KEY) == 1
    assert post(api, challenge, second).status_code == 201
    assert relay_messages(broker) == 0

    # The other run lets its flag go; the run that takes it next sends both and deletes the key.
    cache.delete(sender_module.SENDER_KEY)
    assert sender_module.relay_send().sent == 2
    assert cache.get(WAKE_KEY) is None and relay_messages(broker) == 0


def test_a_message_that_could_not_be_published_leaves_no_flag(chain, make_challenge, api, broker, redis_cache):
    """The broker down while the cache answers: the stake is stored, and the flag is not left set, so
    the next stake's POST tries to publish again instead of counting on a message that never left."""
    from devtools.processes import free_port

    challenge = make_challenge()
    first, second = (sign_stake(chain, challenge, player=n) for n in range(2))
    point_app_at(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    assert post(api, challenge, first).status_code == 201
    assert cache.get(WAKE_KEY) is None and relay_status(first) == ("queued", "")

    point_app_at(redis_cache[0])
    assert post(api, challenge, second).status_code == 201
    assert relay_messages(broker) == 1
    take_message(broker)
    assert tasks.relay_send() == 2


def test_a_lost_message_holds_back_no_call_past_the_watchers_sweep(chain, make_challenge, api, broker, settings):
    """The message lost while its flag stays (the broker emptied, a worker gone): the next stakes
    publish nothing, and the beat's watcher queues the sender for calls left queued too long."""
    challenge = make_challenge()
    first, second = (sign_stake(chain, challenge, player=n) for n in range(2))
    assert post(api, challenge, first).status_code == 201
    take_message(broker)  # lost: nobody runs it
    assert post(api, challenge, second).status_code == 201
    assert relay_messages(broker) == 0 and cache.get(WAKE_KEY) == 1

    settings.RELAY_SWEEP_STALE_SECONDS = 0
    tasks.relay_watch()
    assert relay_messages(broker) == 1
    take_message(broker)
    assert tasks.relay_send() == 2
