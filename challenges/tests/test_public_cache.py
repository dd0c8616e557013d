"""The public challenge answers are cached (config/public_cache.py) and go stale the moment a
challenge changes or its sums move. The cache here is the test settings' local-memory cache;
config/tests/test_public_copy.py and bench/ run the same code against Redis."""

import pytest

from challenges.models import Challenge, PotState
from config.public_cache import public_answers_mark_stale

pytestmark = pytest.mark.django_db


def test_active_is_served_from_the_cache_without_a_query(api, make_challenge, django_assert_num_queries):
    make_challenge(title="Cached")
    assert api.get("/api/challenges/active").json()["poemTitle"] == "Cached"
    with django_assert_num_queries(0):
        again = api.get("/api/challenges/active")
    assert again.status_code == 200
    assert again.json()["poemTitle"] == "Cached"


def test_null_active_is_cached_too(api, django_assert_num_queries):
    assert api.get("/api/challenges/active").json() is None
    with django_assert_num_queries(0):
        assert api.get("/api/challenges/active").json() is None


def test_a_stake_the_follower_projects_invalidates_after_commit(
    api, make_challenge, make_stake, django_capture_on_commit_callbacks
):
    challenge = make_challenge(title="Before")
    assert api.get("/api/challenges/active").json()["stakedSum"] == "0.000000"
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        make_stake(challenge, stake="3")
    assert callbacks, "the version is bumped on commit"
    assert api.get("/api/challenges/active").json()["stakedSum"] == "3.000000"


def test_the_close_reached_on_chain_invalidates_after_commit(
    api, make_challenge, pot_recorder, django_capture_on_commit_callbacks
):
    challenge = make_challenge(title="Closing")
    assert api.get("/api/challenges/active").json()["phase"] == "open"
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        pot_recorder.advance(int((challenge.closes_at - pot_recorder.now()).total_seconds()))
    assert callbacks, "the follower's projection marked the answers stale"
    assert api.get("/api/challenges/active").json()["phase"] == "closed"


def test_nothing_is_invalidated_before_commit(api, make_challenge, django_capture_on_commit_callbacks):
    """A reader must not cache the old rows under a new version while the write is uncommitted."""
    challenge = make_challenge(title="Before")
    api.get("/api/challenges/active")
    with django_capture_on_commit_callbacks(execute=False):
        Challenge.objects.filter(pk=challenge.pk).update(poem_title="After")
        public_answers_mark_stale()
        assert api.get("/api/challenges/active").json()["poemTitle"] == "Before"


def test_a_bulk_update_needs_the_explicit_call(api, make_challenge, django_capture_on_commit_callbacks):
    """A write nothing marks stale stays cached; the call every such writer makes (challenges/services.py,
    pot_state_write, for the pot's sums) shows it."""
    challenge = make_challenge()
    assert api.get("/api/challenges/active").json()["stakedSum"] == "0.000000"
    PotState.objects.filter(challenge=challenge).update(staked_units=5_000_000)
    assert api.get("/api/challenges/active").json()["stakedSum"] == "0.000000"  # cached, as designed
    with django_capture_on_commit_callbacks(execute=True):
        public_answers_mark_stale()
    assert api.get("/api/challenges/active").json()["stakedSum"] == "5.000000"


def test_a_hit_answers_the_same_bytes_as_the_miss(api, make_challenge):
    make_challenge(title="Same bytes")
    miss = api.get("/api/challenges/active")
    hit = api.get("/api/challenges/active")
    assert hit.content == miss.content
    assert hit["Content-Type"] == miss["Content-Type"] == "application/json"


def test_an_entry_built_before_a_bump_is_never_served(api, make_challenge, django_capture_on_commit_callbacks):
    """The race: a reader built from old rows and stored them after the writer bumped the version."""
    from django.core.cache import cache

    from config.public_cache import VERSION_KEY

    challenge = make_challenge(title="Old")
    api.get("/api/challenges/active")
    old_version = cache.get(VERSION_KEY)
    with django_capture_on_commit_callbacks(execute=True):
        Challenge.objects.filter(pk=challenge.pk).update(poem_title="New")
        public_answers_mark_stale()
    cache.set("challenges:public:active", (old_version, b'{"poemTitle": "Old"}'))
    assert api.get("/api/challenges/active").json()["poemTitle"] == "New"
