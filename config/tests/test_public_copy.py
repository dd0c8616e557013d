"""Each process's copy of the public answers (config/public_copy.py) on a real Redis: the test's
own redis-server on a free port (conftest.py, `redis_cache`: so a test can kill connections, freeze
or stop it), and a second process that commits a change and bumps the version as a Celery worker or
another web process would. The copy may serve an answer only until the message of the change that made it stale
arrives, and never while it cannot be sure it hears the messages."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from django.db import connection

from challenges.models import Challenge
from config import public_cache, public_copy
from config.public_cache import VERSION_KEY, public_answer
from devtools.processes import stop

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.integration,  # its own redis-server, and a second process
    pytest.mark.postgresql,  # the second process must see the test's committed rows
    pytest.mark.django_db(transaction=True),
]

PROPAGATION_BOUND_SECONDS = 1.0


def _live_copy(timeout: float = 5.0) -> public_copy.PublicCopy:
    copy = public_cache.copy_for_process()
    assert copy is not None, "with RedisCache every process keeps a copy"
    copy.get("warm-up")  # starts the subscriber
    deadline = time.monotonic() + timeout
    while not copy.live:
        assert time.monotonic() < deadline, "the subscriber did not subscribe"
        time.sleep(0.01)
    return copy


def _title_answer(challenge_id: int, builds: list):
    def build():
        builds.append(1)
        return {"title": Challenge.objects.get(pk=challenge_id).poem_title}

    def read() -> str:
        return json.loads(public_answer("probe", build).content)["title"]

    return read


def _read_before(make_challenge):
    """A challenge titled "Before", this process's copy live, and the probe answer read once (built):
    (the challenge, the copy, the builds so far, the reader)."""
    challenge = make_challenge(title="Before")
    copy = _live_copy()
    builds: list[int] = []
    read = _title_answer(challenge.pk, builds)
    assert read() == "Before"
    return challenge, copy, builds, read


def _database_url() -> str:
    db = connection.settings_dict
    user, host, port = db.get("USER") or "postgres", db.get("HOST") or "127.0.0.1", db.get("PORT") or 5432
    return f"postgres://{user}@{host}:{port}/{db['NAME']}"


WRITER = """
import time, django
django.setup()
from django.db import transaction
from challenges.models import Challenge
from config.public_cache import public_answers_mark_stale
with transaction.atomic():
    Challenge.objects.filter(pk={pk}).update(poem_title="After")
    public_answers_mark_stale()  # bumped and published when this block commits
    print(time.time(), flush=True)  # just before the commit
print(time.time(), flush=True)  # committed, bumped and published
time.sleep(2)  # still running while the reader polls
"""


def test_another_process_commit_reaches_this_process_copy_within_one_message(redis_cache, make_challenge):
    url, _ = redis_cache
    challenge, copy, builds, read = _read_before(make_challenge)
    assert len(builds) == 1
    # Served from this process's memory: even with Redis's entry gone, no build and no miss.
    redis.Redis.from_url(url).delete(*redis.Redis.from_url(url).keys("*challenges:public:probe"))
    assert read() == "Before"
    assert len(builds) == 1
    messages = copy.messages

    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER.format(pk=challenge.pk)],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.local",
            "DATABASE_URL": _database_url(),
            "REDIS_URL": url,
            "PYTHONPATH": str(ROOT),
        },
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        # Process A keeps answering (from its copy) while process B starts, commits and bumps.
        started = time.monotonic()
        while read() == "Before":
            assert time.monotonic() - started < 60, "the change never reached this process"
            time.sleep(0.001)
        seen = time.time()
        assert writer.stdout is not None
        committing_at = float(writer.stdout.readline())
        published_at = float(writer.stdout.readline())
    finally:
        stop(writer)
    print(
        f"\nprocess B: commit and bump {(published_at - committing_at) * 1000:.1f} ms; "
        f"its message read in process A {(copy.last_message_at - published_at) * 1000:+.1f} ms after B's bump "
        f"returned; A's first new answer {(seen - published_at) * 1000:+.1f} ms after it"
    )
    assert copy.messages == messages + 1
    assert committing_at < copy.last_message_at <= seen
    assert seen - published_at <= PROPAGATION_BOUND_SECONDS
    assert len(builds) == 2


def test_a_killed_subscription_drops_the_copy_and_reads_redis_until_resubscribed(redis_cache, make_challenge):
    url, _ = redis_cache
    challenge, copy, builds, read = _read_before(make_challenge)
    assert len(copy) == 1

    admin = redis.Redis.from_url(url)
    assert admin.client_kill_filter(_type="pubsub") == 1
    deadline = time.monotonic() + PROPAGATION_BOUND_SECONDS
    while copy.live:
        assert time.monotonic() < deadline, "a killed subscription went unnoticed"
        time.sleep(0.005)
    # A change whose message this process cannot hear (its subscription is gone): published as
    # another process would, without touching this process's copy.
    Challenge.objects.filter(pk=challenge.pk).update(poem_title="After")
    public_cache.store_for_process().bump("bumped-while-unsubscribed")
    assert copy.get("probe") == (None, None), "no copy is used while unsubscribed"
    assert read() == "After"  # from Redis: the new version, built again
    assert len(builds) == 2

    deadline = time.monotonic() + 5
    while not (copy.live and copy.subscriptions == 2):
        assert time.monotonic() < deadline, "the subscriber did not come back"
        time.sleep(0.01)
    assert read() == "After"
    assert len(copy) == 1, "kept again once subscribed"


def test_a_silent_redis_stops_the_copy_being_used(redis_cache, make_challenge):
    """Redis frozen (SIGSTOP): the connection stays open but no PING is answered, so no message could
    arrive either; within SILENCE_SECONDS the copy is no longer served, and the database answers."""
    url, proc = redis_cache
    challenge, copy, builds, read = _read_before(make_challenge)
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        Challenge.objects.filter(pk=challenge.pk).update(poem_title="After")
        time.sleep(public_copy.SILENCE_SECONDS + 0.1)
        assert copy.get("probe") == (None, None)
        assert read() == "After"  # Redis times out: built from the database, as without a copy
    finally:
        os.kill(proc.pid, signal.SIGCONT)


def test_redis_down_answers_from_the_database(redis_cache, make_challenge):
    url, proc = redis_cache
    challenge, copy, builds, read = _read_before(make_challenge)
    stop(proc)
    deadline = time.monotonic() + PROPAGATION_BOUND_SECONDS
    while copy.live:
        assert time.monotonic() < deadline
        time.sleep(0.005)
    Challenge.objects.filter(pk=challenge.pk).update(poem_title="After")
    assert read() == "After"
    assert read() == "After"
    assert len(builds) == 3, "every answer built from the database while Redis is down"


def test_this_process_own_write_is_read_at_once(redis_cache, make_challenge, django_capture_on_commit_callbacks):
    from config.public_cache import public_answers_mark_stale

    challenge, _, _, read = _read_before(make_challenge)
    with django_capture_on_commit_callbacks(execute=True):
        Challenge.objects.filter(pk=challenge.pk).update(poem_title="After")
        public_answers_mark_stale()
    assert read() == "After"  # no wait for the message: the bump dropped this process's copy


def test_a_store_after_a_bump_is_refused(redis_cache):
    """The race: a reader read Redis, a bump's message arrived, then the reader stores what it read."""
    copy = _live_copy()
    body, epoch = copy.get("active")
    assert body is None and epoch is not None
    copy.drop()  # the message
    assert copy.put("active", b"old", epoch) is False
    assert copy.get("active")[0] is None
    _, epoch = copy.get("active")
    assert epoch is not None
    assert copy.put("active", b"new", epoch) is True
    assert copy.get("active") == (b"new", None)


def test_the_copy_keeps_a_bounded_number_of_answers(redis_cache):
    copy = _live_copy()
    for n in range(public_copy.MAX_ENTRIES + 10):
        _, epoch = copy.get(f"winners:{n}")
        assert epoch is not None
        assert copy.put(f"winners:{n}", b"{}", epoch)
    assert len(copy) == public_copy.MAX_ENTRIES
    assert copy.get("winners:0")[0] is None  # the oldest went
    assert copy.get(f"winners:{public_copy.MAX_ENTRIES + 9}")[0] == b"{}"


def test_an_answer_is_kept_at_most_max_age_without_a_message(redis_cache, monkeypatch):
    """A bump that failed to reach Redis sends no message either: the copy still lets go."""
    copy = _live_copy()
    monkeypatch.setattr(public_copy, "MAX_AGE_SECONDS", 0.3)
    _, epoch = copy.get("active")
    assert epoch is not None
    copy.put("active", b"kept", epoch)
    assert copy.get("active") == (b"kept", None)
    time.sleep(0.4)
    body, epoch = copy.get("active")
    assert body is None and epoch is not None


def test_a_forked_child_starts_empty_and_subscribes_itself(redis_cache):
    """gunicorn forks its workers from a master that may have read already: the child has no
    entries and no subscriber thread of the parent's; it subscribes on its own first read."""
    copy = _live_copy()
    _, epoch = copy.get("active")
    assert epoch is not None
    copy.put("active", b"parent's", epoch)
    pid = os.fork()
    if pid == 0:  # the child: report through the exit code only
        code = 1
        try:
            first = copy.get("active")
            deadline = time.monotonic() + 5
            while not copy.live and time.monotonic() < deadline:
                time.sleep(0.01)
            code = 0 if first == (None, None) and copy.live and copy.subscriptions == 1 else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert copy.get("active") == (b"parent's", None)


def test_the_bump_sets_the_version_and_publishes_in_one_step(redis_cache):
    url, _ = redis_cache
    listener = redis.Redis.from_url(url, protocol=2).pubsub()
    store = public_cache.store_for_process()
    assert isinstance(store, public_cache.RedisStore)
    assert store.channel == ":1:challenges:public:bumped@db0"  # this deployment's, not global
    copy = public_cache.copy_for_process()
    assert copy is not None and copy.channel == store.channel
    listener.subscribe(store.channel)
    assert listener.get_message(timeout=1)["type"] == "subscribe"
    assert store.bump("token-1") is True
    message = listener.get_message(timeout=1)
    assert message["data"] == b"token-1"
    # Under the cache's key prefix and version, as Django's own keys are.
    assert redis.Redis.from_url(url).get(":1:" + VERSION_KEY) == b"token-1"
    listener.close()


def test_a_view_answered_from_the_copy_is_what_drf_answers(redis_cache, api, make_challenge):
    url, _ = redis_cache
    make_challenge(title="Same")
    copy = _live_copy()
    first = api.get("/api/challenges/active")  # through DRF: built, stored in Redis and in the copy
    assert len(copy) == 1
    redis.Redis.from_url(url).flushdb()  # what follows can only come from this process's copy
    for accept in ({}, {"HTTP_ACCEPT": "*/*"}, {"HTTP_ACCEPT": "application/json"}):
        hit = api.get("/api/challenges/active", **accept)
        assert hit.status_code == 200
        assert hit.content == first.content
        for header in ("Content-Type", "ETag", "Cache-Control", "Allow"):
            assert hit[header] == first[header]
    not_modified = api.get("/api/challenges/active", HTTP_IF_NONE_MATCH=first["ETag"])
    assert (not_modified.status_code, not_modified.content) == (304, b"")
    assert not_modified["Cache-Control"] == first["Cache-Control"]
    # Anything else still goes through DRF: JSON not acceptable is a 406 as before.
    assert api.get("/api/challenges/active", HTTP_ACCEPT="text/html").status_code == 406
    assert api.head("/api/challenges/active").status_code == 200


def test_winners_of_several_challenges_each_have_their_answer_and_a_404_is_not_kept(
    redis_cache, api, make_challenge, pot_recorder, django_capture_on_commit_callbacks
):
    copy = _live_copy()
    challenges = [make_challenge(title=title) for title in ("One", "Two")]
    with django_capture_on_commit_callbacks(execute=True):
        pot_recorder.advance(int((challenges[-1].closes_at - pot_recorder.now()).total_seconds()))
        for challenge in challenges:
            pot_recorder.reveal_solution(challenge)
    resolved = [challenge.pk for challenge in challenges]
    answers = [api.get(f"/api/challenges/{pk}/winners").json() for pk in resolved]
    assert [a["challengeId"] for a in answers] == resolved
    assert [api.get(f"/api/challenges/{pk}/winners").json()["challengeId"] for pk in resolved] == resolved
    missing = max(resolved) + 1
    assert api.get(f"/api/challenges/{missing}/winners").status_code == 404
    assert copy.get(f"winners:{missing}")[0] is None
    assert api.get(f"/api/challenges/{missing}/winners").status_code == 404
