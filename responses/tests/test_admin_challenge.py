"""The staff workflow through the real admin, authoring and the lifecycle of a challenge: Django's
test client logged in as staff, the real database, the real forms, templates and services."""

import re
from html.parser import HTMLParser

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.urls import reverse

from challenges.commitments import solution_commitment_v1
from challenges.coordinates import COORDINATES_MESSAGE
from challenges.models import Challenge, ChallengeStatus, Payout
from responses.models import ResponseStatus

from .admin_support import add_url, change_url, form_data, step_url, texts

pytestmark = pytest.mark.django_db


# --- Authoring ------------------------------------------------------------------------------------


def test_authoring_sanitises_html_says_what_was_removed_and_commits_to_the_canonical_solution(staff):
    poem = (
        '<p onclick="steal()">Where the sun <strong>sleeps</strong></p><script>alert(1)</script>'
        '<img src=x onerror="alert(2)"><a href="javascript:alert(3)">here</a>'
        '<a href="https://example.org" target="_blank">there</a><p style="color:red">red</p>'
    )
    response = staff.post(
        add_url(), form_data(poem_text=poem, solution_input="  29.9791759 ,+31.1342581 "), follow=True
    )
    assert response.status_code == 200
    challenge = Challenge.objects.get()
    assert challenge.poem_text == (
        '<p>Where the sun <strong>sleeps</strong></p><a rel="noopener noreferrer">here</a>'
        '<a href="https://example.org" rel="noopener noreferrer">there</a><p>red</p>'
    )
    warning = next(m for m in texts(response) if m.startswith("Removed from the poem text"))
    for part in ['"onclick" attribute on <p>', "<script> element", "<img> element", "javascript: link", '"style"']:
        assert part in warning
    assert challenge.status == ChallengeStatus.DRAFT
    assert challenge.solution == "29.979175, 31.134258"
    assert re.fullmatch(r"[0-9a-f]{64}", challenge.solution_salt)
    assert challenge.solution_sha256 == solution_commitment_v1(
        challenge_id=challenge.pk, text=challenge.solution, salt=challenge.solution_salt
    )
    page = staff.get(change_url(challenge)).content.decode()
    assert challenge.solution_sha256 in page  # computed and shown, never typed
    assert challenge.solution_salt not in page  # the salt stays secret until the reveal
    assert "alert(" not in page


def preview_document(page: str) -> str:
    """The srcdoc of the preview frame, as the browser reads the attribute."""

    class Frame(HTMLParser):
        srcdoc = None

        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            if tag == "iframe" and "geopoem-preview" in (attrs.get("class") or ""):
                assert "sandbox" in attrs  # no scripts, an opaque origin
                Frame.srcdoc = attrs["srcdoc"]

    Frame().feed(page)
    assert Frame.srcdoc is not None
    return Frame.srcdoc


def test_the_preview_shows_exactly_the_sanitised_poem(staff):
    staff.post(
        add_url(),
        form_data(
            poem_text='<h2>Title</h2><p>line<br>two</p><svg onload="x()"><b>bold</b></svg>',
            instructions_text='<p>See <a href="https://example.org/a?b=1" title=\'say "hi"\'>this</a></p>',
        ),
    )
    challenge = Challenge.objects.get()
    page = staff.get(change_url(challenge)).content.decode()
    document = preview_document(page)
    # The whole document survives as one attribute value (quotes in the poem cannot break out).
    assert "<h2>Stone Steps</h2><div><h2>Title</h2><p>line<br>two</p><b>bold</b></div>" in document
    assert (
        '<div><p>See <a href="https://example.org/a?b=1" title="say &quot;hi&quot;" rel="noopener noreferrer">'
        "this</a></p></div>"
    ) in document
    assert document.endswith(f"Solution SHA256: <code>{challenge.solution_sha256}</code></small></p>")
    assert "Proximity threshold: 150 meters" in document
    assert "<svg" not in document and "onload" not in page


@pytest.mark.parametrize("solution", ["91, 0", "0, 180.0000001", "29.9, ", "1e2, 3", "north, east", ""])
def test_an_invalid_solution_is_refused_with_the_players_sentence(staff, solution):
    response = staff.post(add_url(), form_data(solution_input=solution))
    assert response.status_code == 200
    assert COORDINATES_MESSAGE in response.content.decode()
    assert not Challenge.objects.exists()


def test_a_draft_solution_can_change_and_gets_a_new_salt(staff, make_challenge):
    challenge = make_challenge(publish=False)
    old_salt = challenge.solution_salt
    response = staff.post(change_url(challenge), form_data(solution_input="-33.8568, 151.2153"))
    assert response.status_code == 302
    challenge.refresh_from_db()
    assert challenge.solution == "-33.8568, 151.2153"
    assert challenge.solution_salt != old_salt
    assert challenge.solution_sha256 == solution_commitment_v1(
        challenge_id=challenge.pk, text=challenge.solution, salt=challenge.solution_salt
    )


# --- Lifecycle ------------------------------------------------------------------------------------


def test_publish_asks_for_confirmation_then_publishes_and_logs_who(staff, make_challenge):
    challenge = make_challenge(publish=False)
    page = staff.get(step_url(challenge, "publish"))
    assert page.status_code == 200 and b"Yes, publish" in page.content
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.DRAFT  # the confirmation page changes nothing

    response = staff.post(step_url(challenge, "publish"), follow=True)
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.ACTIVE and challenge.start_timestamp is not None
    assert any(m.startswith("Published") for m in texts(response))
    entry = LogEntry.objects.get(object_id=str(challenge.pk))
    assert entry.user == staff.user and entry.get_change_message().startswith("Publish")
    history = staff.get(reverse("admin:challenges_challenge_history", args=[challenge.pk])).content.decode()
    assert "poet" in history and "Publish" in history


def test_publishing_a_second_active_challenge_is_refused_naming_the_active_one(staff, make_challenge):
    first = make_challenge(title="First Light")
    second = make_challenge(publish=False, title="Second Wind")
    page = staff.get(step_url(second, "publish")).content.decode()
    assert "First Light" in page  # warned before confirming
    response = staff.post(step_url(second, "publish"), follow=True)
    assert response.status_code == 200
    refusal = next(m for m in texts(response) if "refused" in m)
    assert f"Challenge #{first.pk}: First Light is already active" in refusal
    second.refresh_from_db()
    assert second.status == ChallengeStatus.DRAFT
    assert not LogEntry.objects.filter(object_id=str(second.pk)).exists()


def test_the_changelist_action_leads_to_the_confirmation_page(staff, make_challenge):
    challenge = make_challenge(publish=False)
    response = staff.post(
        reverse("admin:challenges_challenge_changelist"),
        {"action": "publish_selected", "_selected_action": [challenge.pk]},
    )
    assert response.status_code == 302 and response["Location"] == step_url(challenge, "publish")


def test_a_published_challenge_is_read_only_and_an_edit_is_refused(staff, make_challenge):
    challenge = make_challenge()
    before = Challenge.objects.values().get(pk=challenge.pk)
    page = staff.get(change_url(challenge)).content.decode()
    assert 'name="poem_text"' not in page and 'name="solution_input"' not in page
    for change in (
        {"poem_text": "<p>A different poem</p>"},
        {"solution_input": "1, 1"},
        {"proximity_threshold_m": "100000"},
        {"poem_title": "Renamed"},
    ):
        response = staff.post(change_url(challenge), {**form_data(solution_input=""), **change}, follow=True)
        assert response.status_code == 200
        assert any("can no longer change. Nothing was saved." in m for m in texts(response))
        assert Challenge.objects.values().get(pk=challenge.pk) == before


def test_a_published_challenge_cannot_be_deleted(staff, make_challenge):
    challenge = make_challenge()
    response = staff.post(reverse("admin:challenges_challenge_delete", args=[challenge.pk]), {"post": "yes"})
    assert response.status_code == 403
    assert Challenge.objects.filter(pk=challenge.pk).exists()


def test_close_stops_claims_and_is_logged(staff, make_challenge):
    challenge = make_challenge()
    staff.post(step_url(challenge, "close"))
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.CLOSED and challenge.closed_at is not None
    assert LogEntry.objects.filter(object_id=str(challenge.pk), change_message__startswith="Close").exists()


def test_resolving_a_draft_is_refused_and_nothing_changes(staff, make_challenge):
    challenge = make_challenge(publish=False)
    response = staff.post(step_url(challenge, "resolve"), follow=True)
    assert response.status_code == 200
    assert any("Only an active or closed challenge can be resolved" in m for m in texts(response))
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.DRAFT and challenge.resolved_at is None


def test_resolving_with_pending_claims_is_an_admin_message_not_a_500(staff, make_challenge, make_response):
    challenge = make_challenge()
    make_response(challenge, "29.979175, 31.134258", "5")
    make_response(challenge, "29.979175, 31.134258", "5", status=ResponseStatus.PENDING)
    assert b"still being verified" in staff.get(step_url(challenge, "resolve")).content
    response = staff.post(step_url(challenge, "resolve"), follow=True)
    assert response.status_code == 200
    assert any("1 claim(s) are still being verified" in m for m in texts(response))
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.ACTIVE
    assert not Payout.objects.exists()


# --- Who gets in ----------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["anonymous", "player"])
def test_a_non_staff_user_gets_nothing(client, make_challenge, who):
    challenge = make_challenge(publish=False)
    if who == "player":
        client.force_login(get_user_model().objects.create_user("player", password="long-enough-pass-1"))
    urls = [
        reverse("admin:index"),
        change_url(challenge),
        step_url(challenge, "publish"),
        reverse("admin:challenges_challenge_export", args=[challenge.pk]),
        reverse("admin:responses_response_changelist"),
        reverse("admin:challenges_payout_changelist"),
    ]
    for url in urls:
        for response in (client.get(url), client.post(url)):
            assert response.status_code == 302
            assert response["Location"].startswith(reverse("admin:login"))
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.DRAFT
