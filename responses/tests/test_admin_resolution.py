"""The staff workflow through the real admin, from "Resolve and reveal" on: scoring and payouts,
recording a payout's transaction, the CSV export and the responses' pages. Django's test client
logged in as staff, the real database, the real forms, templates and services."""

import csv
import io
import re
from decimal import Decimal

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from challenges.models import ChallengeStatus, Payout, PayoutKind, PayoutStatus
from responses.models import Response, ResponseStatus
from responses.selectors import responses_with_scores

from .admin_support import change_url, resolve_in_admin, texts

# Chain-free: the ledger indexer is taken to have read past the close (responses/tests/conftest.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("ledger_read_past_close")]


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
    assert far.distance_meters is not None and edge.distance_meters is not None
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
    assert payout is not None
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
