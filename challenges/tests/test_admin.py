"""The staff workflow through the real admin: Django's test client logged in as staff, the real
database, the real forms, templates and services."""

import csv
import io
import re
from decimal import Decimal
from html.parser import HTMLParser

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.urls import reverse

from challenges.commitments import solution_commitment
from challenges.coordinates import COORDINATES_MESSAGE
from challenges.models import Challenge, ChallengeStatus, Payout, PayoutKind, PayoutStatus
from responses.models import Response, ResponseStatus
from responses.selectors import responses_with_scores

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client):
    user = get_user_model().objects.create_superuser("poet", "poet@example.org", "long-enough-pass-1")
    client.force_login(user)
    client.user = user
    return client


def add_url() -> str:
    return reverse("admin:challenges_challenge_add")


def change_url(challenge) -> str:
    return reverse("admin:challenges_challenge_change", args=[challenge.pk])


def step_url(challenge, step: str) -> str:
    return reverse("admin:challenges_challenge_lifecycle", args=[challenge.pk, step])


def form_data(**overrides) -> dict:
    data = {
        "poem_title": "Stone Steps",
        "poem_text": "<p>Where the <em>sun</em> sleeps</p>",
        "instructions_text": "<p>Guess the place</p>",
        "proximity_threshold_m": "150",
        "solution_input": "29.979175, 31.134258",
        "payouts-TOTAL_FORMS": "0",
        "payouts-INITIAL_FORMS": "0",
        "payouts-MIN_NUM_FORMS": "0",
        "payouts-MAX_NUM_FORMS": "0",
    }
    data.update(overrides)
    return data


def texts(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def run_resolution_worker(challenge) -> str:
    """What the worker does with the task the admin queued: the task itself, run in this process
    (chain-free; challenges/tests/test_resolve_worker.py runs it in a real worker)."""
    from responses.tasks import resolve_challenge

    return resolve_challenge.apply(args=[challenge.pk]).get()


def resolve_in_admin(staff, challenge, capture) -> object:
    """Staff confirm "Resolve and reveal": the request queues the task on commit (and returns);
    the worker's part then runs. Returns the (followed) answer to the POST."""
    with capture() as callbacks:
        response = staff.post(step_url(challenge, "resolve"), follow=True)
    # The task, queued once the resolution row is committed (beside the public cache's bump).
    assert [c.__qualname__ for c in callbacks].count("challenge_resolve_start.<locals>.<lambda>") == 1
    assert run_resolution_worker(challenge) == "done"
    return response


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
    assert challenge.solution_sha256 == solution_commitment(
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
    assert challenge.solution_sha256 == solution_commitment(
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


def test_resolve_scores_by_the_rules_and_creates_exact_payouts(
    staff, make_challenge, make_response, settings, django_capture_on_commit_callbacks
):
    settings.OPERATIONS_ADDRESS = "0x00000000000000000000000000000000000000Aa"
    # Solution at the pyramid; threshold 150 m. 0.001 degrees of latitude is about 111 m.
    challenge = make_challenge(solution="29.979175, 31.134258", threshold=150)
    far = make_response(challenge, "29.990175, 31.134258", "50", block=10)  # ~1.2 km: wrong
    edge = make_response(challenge, "29.980175, 31.134258", "7", block=11)  # ~111 m: correct
    # Equal highest stakes: the earlier in chain order (same block, lower transaction index) wins.
    late_high = make_response(challenge, "29.979175, 31.134258", "9", block=12, tx_index=3)
    early_high = make_response(challenge, "29.979175, 31.134259", "9", block=12, tx_index=1)
    make_response(challenge, "29.979175, 31.134258", "3", status=ResponseStatus.REJECTED)
    challenge.refresh_from_db()
    assert challenge.staked_sum == Decimal("75")

    response = resolve_in_admin(staff, challenge, django_capture_on_commit_callbacks)
    assert any(m.startswith("Resolution started: the worker scores 4 confirmed response(s)") for m in texts(response))
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.RESOLVED and challenge.resolved_at is not None
    far, edge, late_high, early_high = (
        responses_with_scores(Response.objects.filter(pk=r.pk)).get() for r in (far, edge, late_high, early_high)
    )
    assert far.correct is False and far.distance_meters > 1000
    assert edge.correct is True and 100 < edge.distance_meters < 150
    assert late_high.correct and early_high.correct

    payouts = {p.kind: p for p in Payout.objects.filter(challenge=challenge)}
    assert payouts[PayoutKind.EARLIEST].response == edge
    assert payouts[PayoutKind.EARLIEST].address == edge.submitter_address
    assert payouts[PayoutKind.EARLIEST].amount == Decimal("30.000000")
    assert payouts[PayoutKind.HIGHEST].response == early_high
    assert payouts[PayoutKind.HIGHEST].amount == Decimal("30.000000")
    assert payouts[PayoutKind.OPERATIONS].address == settings.OPERATIONS_ADDRESS
    assert payouts[PayoutKind.OPERATIONS].amount == Decimal("15.000000")
    assert {p.status for p in payouts.values()} == {PayoutStatus.DUE}
    assert LogEntry.objects.filter(object_id=str(challenge.pk), change_message__startswith="Resolve").exists()

    page = staff.get(change_url(challenge)).content.decode()
    assert challenge.solution_salt in page  # public from the reveal
    assert "Unallocated (rounding): 0.000000 USDC" in page
    assert "Resolved: 3 correct of 4 scored; 3 payout(s) created." in page
    assert 'http-equiv="refresh"' not in page  # done: the page no longer refreshes itself


def test_one_response_can_win_both_prizes_and_dust_is_unallocated(
    staff, make_challenge, make_response, django_capture_on_commit_callbacks
):
    challenge = make_challenge(threshold=10)
    winner = make_response(challenge, "29.979175, 31.134258", "1.000001")
    make_response(challenge, "10, 10", "1")
    resolve_in_admin(staff, challenge, django_capture_on_commit_callbacks)
    payouts = {p.kind: p for p in Payout.objects.filter(challenge=challenge)}
    # 2.000001 x 40 % = 0.8000004, rounded down to token units.
    assert payouts[PayoutKind.EARLIEST].response == winner == payouts[PayoutKind.HIGHEST].response
    assert payouts[PayoutKind.EARLIEST].amount == payouts[PayoutKind.HIGHEST].amount == Decimal("0.800000")
    # No operations wallet configured: the 20 % share stays in the treasury.
    assert payouts[PayoutKind.OPERATIONS].status == PayoutStatus.KEPT
    assert payouts[PayoutKind.OPERATIONS].amount == Decimal("0.400000")


def test_with_no_correct_response_no_prize_is_due(
    staff, make_challenge, make_response, django_capture_on_commit_callbacks
):
    challenge = make_challenge(threshold=None)
    make_response(challenge, "29.979176, 31.134258", "4")  # 0.1 m away, but no threshold means 0 m
    resolve_in_admin(staff, challenge, django_capture_on_commit_callbacks)
    assert not Payout.objects.exists()
    page = staff.get(change_url(challenge)).content.decode()
    assert "Resolved: 0 correct of 1 scored; no prize is due." in page
    assert "Unallocated: 4.000000 USDC of 4.000000 USDC" in page


# --- Payouts in the admin, CSV --------------------------------------------------------------------


@pytest.fixture
def resolved(staff, make_challenge, make_response, django_capture_on_commit_callbacks):
    challenge = make_challenge()
    make_response(challenge, "29.979175, 31.134258", "10", address="0x" + "ab" * 20)
    make_response(challenge, "1, 1", "2")
    resolve_in_admin(staff, challenge, django_capture_on_commit_callbacks)
    challenge.refresh_from_db()
    return challenge


def test_staff_record_a_payout_transaction_and_it_waits_for_verification(
    staff, resolved, django_capture_on_commit_callbacks
):
    payout = Payout.objects.get(challenge=resolved, kind=PayoutKind.EARLIEST)
    url = reverse("admin:challenges_payout_change", args=[payout.pk])
    bad = staff.post(url, {"transaction_hash": "0x1234"})
    assert bad.status_code == 200 and b"0x followed by 64 hexadecimal characters" in bad.content
    tx_hash = "0x" + "AB" * 32
    with django_capture_on_commit_callbacks() as callbacks:
        response = staff.post(url, {"transaction_hash": tx_hash})
    assert response.status_code == 302
    payout.refresh_from_db()
    assert payout.transaction_hash == tx_hash.lower()
    assert payout.status == PayoutStatus.VERIFYING and payout.recorded_by == staff.user
    # The verification task is queued once the row is committed, and the winners answer goes stale.
    assert [c.__qualname__.split(".")[0] for c in callbacks] == ["_bump_version", "payout_enqueue_verification"]
    # A transaction pays one prize only.
    other = Payout.objects.get(challenge=resolved, kind=PayoutKind.HIGHEST)
    dup = staff.post(reverse("admin:challenges_payout_change", args=[other.pk]), {"transaction_hash": tx_hash})
    assert b"already recorded for another payout" in dup.content
    # The winners endpoint shows nothing until the chain confirms it.
    winners = staff.get(f"/api/challenges/{resolved.pk}/winners").json()
    assert winners["earliest"]["payoutTransactionHash"] is None


def test_payouts_cannot_be_added_or_deleted_by_hand(staff, resolved):
    assert staff.get(reverse("admin:challenges_payout_add")).status_code == 403
    payout = Payout.objects.filter(challenge=resolved).first()
    assert staff.post(reverse("admin:challenges_payout_delete", args=[payout.pk]), {"post": "yes"}).status_code == 403


def test_csv_export_lists_the_responses_and_payouts_of_a_challenge(staff, resolved):
    from datetime import UTC, datetime

    mined = datetime(2026, 5, 4, 3, 2, 1, 123456, tzinfo=UTC)
    resolved.responses.filter(submission_text="1, 1").update(submission_timestamp=mined)
    response = staff.get(reverse("admin:challenges_challenge_export", args=[resolved.pk]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [r["record"] for r in rows] == ["response", "response", "payout", "payout", "payout"]
    winner, other = rows[0], rows[1]
    assert winner["address"] == "0x" + "ab" * 20 and winner["is_correct"] == "True"
    assert winner["amount_usdc"] == "10.000000" and winner["distance_m"] == "0.00"
    # Written by PostgreSQL's COPY: the same columns and formats as before.
    from challenges.scoring import haversine_m

    assert other["is_correct"] == "False" and other["reason"] == "" and other["kind"] == ""
    assert float(other["distance_m"]) == pytest.approx(haversine_m(1, 1, 29.979175, 31.134258), abs=0.006)
    from django.db import connection

    if connection.vendor == "postgresql":
        assert other["submission_timestamp"] == mined.isoformat()
    assert all(None not in r and len(r) == 16 for r in rows)
    payouts = {r["kind"]: (r["amount_usdc"], r["status"]) for r in rows[2:]}
    assert payouts == {
        "earliest": ("4.800000", "due"),
        "highest": ("4.800000", "due"),
        "operations": ("2.400000", "kept"),
    }


def test_responses_list_shows_the_distance_computed_on_read_and_filters_correctness(staff, resolved):
    url = reverse("admin:responses_response_changelist")
    correct = staff.get(url, {"correct": "yes"}).content.decode()
    assert "1 response" in correct and "0.00" in correct
    wrong = staff.get(url, {"correct": "no"}).content.decode()
    assert "1 response" in wrong
    # The distance shown is computed as the page is read (nothing is stored): "1, 1" to the pyramid.
    from challenges.scoring import haversine_m

    shown = re.findall(r"field-distance_display[^>]*>([0-9.]+)<", wrong)
    assert len(shown) == 1 and float(shown[0]) == pytest.approx(haversine_m(1, 1, 29.979175, 31.134258), abs=0.01)


# --- Responses in the admin -----------------------------------------------------------------------


def test_responses_are_listed_filtered_searched_and_read_only(staff, make_challenge, make_response):
    challenge = make_challenge()
    a = make_response(challenge, "1, 1", "2", address="0x" + "cd" * 20)
    make_response(challenge, "2, 2", "3", status=ResponseStatus.REJECTED)
    url = reverse("admin:responses_response_changelist")
    page = staff.get(url, {"status__exact": "confirmed"}).content.decode()
    assert f">{a.transaction_hash}<" in page and "1 response" in page
    assert "https://sepolia.etherscan.io/tx/" + a.transaction_hash in page
    found = staff.get(url, {"q": ("0x" + "cd" * 20).upper().replace("X", "x")}).content.decode()
    assert "1 response" in found
    detail = staff.get(reverse("admin:responses_response_change", args=[a.pk])).content.decode()
    assert 'name="_save"' not in detail
    before = a.status
    staff.post(reverse("admin:responses_response_change", args=[a.pk]), {"status": "rejected"})
    a.refresh_from_db()
    assert a.status == before


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
