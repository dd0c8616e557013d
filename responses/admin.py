"""Players' claims, for staff to look at: everything is read-only, because every field is either
what the player sent or what the chain said. Claims change only through verification."""

from django.contrib import admin

from challenges.admin import ChainSearchMixin, address_link, tx_link

from .models import Response


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
        "distance_m",
        "is_correct",
        "created_at",
    ]
    list_filter = ["challenge", "status", "rejection_code", "is_correct"]
    search_fields = ["=submitter_address", "=transaction_hash"]
    list_select_related = ["challenge"]
    date_hierarchy = "created_at"
    fields = [
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
        "distance_m",
        "is_correct",
        "created_at",
        "updated_at",
    ]
    readonly_fields = fields

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
