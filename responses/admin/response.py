"""Players' claims, for staff to look at: everything is read-only, because every field is either
what the player sent or what the chain said. Claims change only through verification."""

from typing import TYPE_CHECKING

from django.contrib import admin
from django.db.models import Q

from challenges.admin.links import ChainSearchMixin, address_link, tx_link
from challenges.models import ChallengeStatus
from responses.models import Response, ResponseStatus
from responses.selectors import responses_with_scores

if TYPE_CHECKING:
    from responses.selectors import ScoredResponse


class CorrectFilter(admin.SimpleListFilter):
    """Correct or not, as the public reads it: resolution writes `is_correct` on the correct
    responses only, so "no" is every other confirmed response of a resolved challenge."""

    title = "correct"
    parameter_name = "correct"

    def lookups(self, request, model_admin):
        return [("yes", "Yes"), ("no", "No")]

    def queryset(self, request, queryset):
        scored = Q(status=ResponseStatus.CONFIRMED, challenge__status=ChallengeStatus.RESOLVED)
        if self.value() == "yes":
            return queryset.filter(scored, is_correct=True)
        if self.value() == "no":
            return queryset.filter(scored).exclude(is_correct=True)
        return queryset


@admin.register(Response)
class ResponseAdmin(ChainSearchMixin, admin.ModelAdmin):
    address_field = "submitter_address"
    list_display = [
        "id",
        "challenge",
        "status",
        "rejection_code",
        "submitter_display",
        "submission_stake",
        "tx_display",
        "block_number",
        "distance_display",
        "correct_display",
        "created_at",
    ]
    list_filter = ["challenge", "status", "rejection_code", CorrectFilter]
    search_fields = ["=submitter_address", "=transaction_hash"]
    list_select_related = ["challenge"]
    date_hierarchy = "created_at"
    readonly_fields = (
        "challenge",
        "status",
        "rejection_code",
        "rejection_reason",
        "submitter_display",
        "submission_text",
        "submission_stake",
        "commitment",
        "tx_display",
        "block_number",
        "block_hash",
        "transaction_index",
        "log_index",
        "submission_timestamp",
        # The payer's own claim as a read of its transaction showed it, at that nonce (a replaced
        # transaction's claim ends not_found: docs/protocol.md section 3.3), and its re-check dates.
        "sent_by_submitter",
        "sender_nonce",
        "reorged_at",
        "reopened_at",
        "distance_display",
        "correct_display",
        "created_at",
        "updated_at",
    )
    fields = readonly_fields

    def get_queryset(self, request):
        # Distance and correctness are computed for the rows of the page shown (not stored).
        return responses_with_scores(super().get_queryset(request))

    @admin.display(description="Distance (m)")
    def distance_display(self, obj: "ScoredResponse") -> str:
        return "-" if obj.distance_meters is None else f"{obj.distance_meters:.2f}"

    @admin.display(description="Correct", boolean=True)
    def correct_display(self, obj: "ScoredResponse") -> bool | None:
        return obj.correct

    @admin.display(description="Submitter", ordering="submitter_address")
    def submitter_display(self, obj: Response) -> str:
        return address_link(obj.submitter_address)

    @admin.display(description="Transaction", ordering="transaction_hash")
    def tx_display(self, obj: Response) -> str:
        return tx_link(obj.transaction_hash)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # view permission still shows every field

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
