"""The exceptions of resolved challenges, for staff: a claim the chain changed after resolution had
started (responses/models.py, ResolutionException). Everything is what the barrier recorded and is
read-only, except staff's note and whether it is settled, written by a service
(responses/exceptions.py, exception_settle)."""

from django import forms
from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from challenges.admin.links import address_link, tx_link
from responses.exceptions import exception_settle
from responses.models import ResolutionException


class SettleForm(forms.ModelForm):
    settled = forms.BooleanField(
        required=False, help_text="Tick once it is dealt with (a refund sent, or nothing to do); the note says what."
    )

    class Meta:
        model = ResolutionException
        fields = ["staff_note"]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["settled"].initial = self.instance.settled_at is not None


@admin.register(ResolutionException)
class ResolutionExceptionAdmin(admin.ModelAdmin):
    form = SettleForm
    list_display = ["id", "challenge", "kind", "response_link", "stake", "tx_display", "created_at", "settled_at"]
    list_filter = ["kind", ("settled_at", admin.EmptyFieldListFilter), "challenge"]
    list_select_related = ["challenge"]
    search_fields = ["=transaction_hash"]
    readonly_fields = [
        "challenge",
        "kind",
        "response_link",
        "submitter_display",
        "stake",
        "tx_display",
        "created_at",
        "settled_at",
        "settled_by",
    ]
    fields = [*readonly_fields, "staff_note", "settled"]

    @admin.display(description="Claim")
    def response_link(self, obj: ResolutionException) -> str:
        url = reverse("admin:responses_response_change", args=[obj.response_id])
        return format_html('<a href="{}">Response #{}</a>', url, obj.response_id)

    @admin.display(description="Submitter")
    def submitter_display(self, obj: ResolutionException) -> str:
        return address_link(obj.response.submitter_address)

    @admin.display(description="Transaction", ordering="transaction_hash")
    def tx_display(self, obj: ResolutionException) -> str:
        return tx_link(obj.transaction_hash)

    def save_model(self, request, obj: ResolutionException, form: SettleForm, change: bool) -> None:
        exception_settle(
            exception=obj,
            note=form.cleaned_data.get("staff_note") or "",
            settled=bool(form.cleaned_data.get("settled")),
            user=request.user,
        )

    def has_add_permission(self, request) -> bool:
        return False  # recorded by the barrier only

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # part of the published outcome
