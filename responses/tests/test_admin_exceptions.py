"""The exceptions of a resolved challenge in the admin (responses/admin/exceptions.py): listed, shown on
the challenge's page, read-only but for staff's note and "settled", never added or deleted by hand.
Chain-free: the exception comes from the confirmation service verification calls."""

import pytest
from django.urls import reverse
from django.utils import timezone

from responses.models import ExceptionKind, ResolutionException, Response, ResponseStatus
from responses.resolution import challenge_resolve
from responses.services import response_confirm

from .admin_support import change_url

pytestmark = pytest.mark.django_db


@pytest.fixture
def exception(make_challenge, make_response):
    challenge = make_challenge()
    make_response(challenge, "29.979175, 31.134258", "4")
    late = make_response(challenge, "29.979175, 31.134258", "9", status=ResponseStatus.REJECTED)
    challenge_resolve(challenge=challenge)
    Response.objects.filter(pk=late.pk).update(status=ResponseStatus.PENDING)  # a claim that arrived late
    assert not response_confirm(
        response=late,
        submission_timestamp=timezone.now(),
        block_number=late.block_number,
        block_hash="0x" + "cd" * 32,
        transaction_index=0,
        log_index=0,
    )
    return ResolutionException.objects.get()


def test_an_exception_is_listed_and_shown_on_its_challenge(staff, exception):
    assert exception.kind == ExceptionKind.AFTER_RESOLUTION
    listing = staff.get(reverse("admin:responses_resolutionexception_changelist")).content.decode()
    assert exception.transaction_hash in listing
    page = staff.get(change_url(exception.challenge)).content.decode()
    assert "Exceptions after resolution" in page
    assert "Confirmed after resolution started: not counted</a>: 9.000000 USDC" in page
    late = Response.objects.get(pk=exception.response_id)
    assert (late.status, late.rejection_code) == (ResponseStatus.REJECTED, "after_resolution")
    assert exception.challenge.staked_sum == 4


def test_staff_settle_an_exception_with_a_note(staff, exception):
    url = reverse("admin:responses_resolutionexception_change", args=[exception.pk])
    answer = staff.post(url, {"staff_note": "Refunded 9 USDC in 0xabc", "settled": "on"})
    assert answer.status_code == 302, answer.content
    exception.refresh_from_db()
    assert exception.staff_note == "Refunded 9 USDC in 0xabc"
    assert exception.settled_at is not None and exception.settled_by_id == staff.user.pk
    first = exception.settled_at
    staff.post(url, {"staff_note": "Refunded 9 USDC in 0xabc (checked)", "settled": "on"})
    exception.refresh_from_db()
    assert exception.settled_at == first  # the first time it was settled is kept
    staff.post(url, {"staff_note": "Refund bounced", "settled": ""})
    exception.refresh_from_db()
    assert exception.settled_at is None and exception.staff_note == "Refund bounced"


def test_what_the_barrier_recorded_cannot_be_changed_added_or_deleted(staff, exception):
    url = reverse("admin:responses_resolutionexception_change", args=[exception.pk])
    staff.post(url, {"staff_note": "", "kind": "reorged", "stake": "1", "transaction_hash": "0x" + "00" * 32})
    exception.refresh_from_db()
    assert (exception.kind, exception.stake) == (ExceptionKind.AFTER_RESOLUTION, 9)
    assert staff.get(reverse("admin:responses_resolutionexception_add")).status_code == 403
    delete = reverse("admin:responses_resolutionexception_delete", args=[exception.pk])
    assert staff.post(delete, {"post": "yes"}).status_code == 403
    assert ResolutionException.objects.count() == 1
