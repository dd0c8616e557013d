"""The answers the page follows while a claim is pending carry an ETag; asking again with it gets a
bodiless 304 until the answer changes (docs/decisions.md, "Following a pending claim")."""

from decimal import Decimal

import pytest
from django.db.models import F

from challenges.cache import invalidate_public_challenge_cache
from challenges.models import Challenge
from responses.models import ResponseStatus

pytestmark = pytest.mark.django_db


def _status_url(claim) -> str:
    return f"/api/responses/{claim.transaction_hash}?commitment={claim.commitment}"


def test_status_answer_has_an_etag_and_an_unchanged_one_is_a_bodiless_304(api, make_challenge, make_response):
    claim = make_response(make_challenge(), "29.979175, 31.134258", status=ResponseStatus.PENDING)
    first = api.get(_status_url(claim))
    assert first.status_code == 200
    etag = first["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    assert first["Cache-Control"] == "no-cache"
    again = api.get(_status_url(claim), HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    # A tag that is not the current one gets the full answer.
    other = api.get(_status_url(claim), HTTP_IF_NONE_MATCH='"something-else"')
    assert other.status_code == 200 and other.json()["status"] == "pending"


@pytest.mark.parametrize("settled", [ResponseStatus.CONFIRMED, ResponseStatus.REJECTED])
def test_a_changed_status_changes_the_etag(api, make_challenge, make_response, settled):
    claim = make_response(make_challenge(), "29.979175, 31.134258", status=ResponseStatus.PENDING)
    etag = api.get(_status_url(claim))["ETag"]
    claim.status = settled
    claim.save()
    changed = api.get(_status_url(claim), HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200
    assert changed.json()["status"] == settled
    assert changed["ETag"] != etag


def test_active_challenge_etag_follows_the_total_bids(api, make_challenge, django_capture_on_commit_callbacks):
    challenge = make_challenge()
    first = api.get("/api/challenges/active")
    etag = first["ETag"]
    # A browser revalidates every time, as with no-cache; a CDN may keep it 1 s (docs/protocol.md).
    assert first["Cache-Control"] == "public, max-age=0, must-revalidate, s-maxage=1"
    cached = api.get("/api/challenges/active", HTTP_IF_NONE_MATCH=etag)
    assert (cached.status_code, cached.content) == (304, b"")
    assert cached["Cache-Control"] == first["Cache-Control"]
    # Confirmation moves the sum with update() and bumps the public cache's version (chain/verification.py).
    with django_capture_on_commit_callbacks(execute=True):
        Challenge.objects.filter(pk=challenge.pk).update(staked_sum=F("staked_sum") + Decimal("3.5"))
        invalidate_public_challenge_cache()
    changed = api.get("/api/challenges/active", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200
    assert changed["ETag"] != etag
    assert Decimal(changed.json()["stakedSum"]) == Decimal("3.5")


def test_null_active_challenge_has_an_etag_too(api, db):
    first = api.get("/api/challenges/active")
    assert first.json() is None
    assert api.get("/api/challenges/active", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
