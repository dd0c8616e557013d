"""The payment ledger for staff: what the chain says, read-only, with the unclaimed payments (a
stake whose claim never reached the server) one filter away."""

from decimal import Decimal

from django.conf import settings
from django.contrib import admin
from django.db.models import Exists, OuterRef
from django.urls import reverse
from django.utils.html import format_html

from challenges.admin.links import ChainSearchMixin, address_link, tx_link

from .models import ChainCursor, Payment
from .relay_admin import RelayerAccountAdmin, RelayTransactionAdmin  # noqa: F401 - registers Chain -> Relayer
from .selectors import payer_claims


class ClaimFilter(admin.SimpleListFilter):
    title = "claim"
    parameter_name = "claim"

    def lookups(self, request, model_admin):
        return [
            ("unclaimed", "Unclaimed (no claim names it)"),
            ("claimed", "Backs a claim"),
            ("removed", "Reorged away"),
        ]

    def queryset(self, request, queryset):
        # The same rule as chain.selectors.payments_unclaimed: matched by transaction hash.
        claimed = Exists(payer_claims().filter(transaction_hash=OuterRef("transaction_hash")))
        if self.value() == "unclaimed":
            return queryset.filter(removed=False).exclude(claimed)
        if self.value() == "claimed":
            return queryset.filter(removed=False).filter(claimed)
        if self.value() == "removed":
            return queryset.filter(removed=True)
        return queryset


@admin.register(Payment)
class PaymentAdmin(ChainSearchMixin, admin.ModelAdmin):
    address_field = "from_address"
    list_display = [
        "id",
        "tx_display",
        "log_index",
        "block_number",
        "from_display",
        "amount_usdc",
        "challenge_id_word",
        "response_link",
        "removed",
        "block_timestamp",
    ]
    list_filter = [ClaimFilter, "removed"]
    search_fields = ["=transaction_hash", "=from_address"]
    readonly_fields = (
        "tx_display",
        "log_index",
        "block_number",
        "block_hash",
        "transaction_index",
        "from_display",
        "to_display",
        "amount_usdc",
        "amount_units",
        "commitment",
        "challenge_id_word",
        "timestamp_word",
        "block_timestamp",
        "response_link",
        "removed",
        "created_at",
        "updated_at",
    )
    fields = readonly_fields

    @admin.display(description="Transaction", ordering="transaction_hash")
    def tx_display(self, obj: Payment) -> str:
        return tx_link(obj.transaction_hash)

    @admin.display(description="From", ordering="from_address")
    def from_display(self, obj: Payment) -> str:
        return address_link(obj.from_address)

    @admin.display(description="To")
    def to_display(self, obj: Payment) -> str:
        return address_link(obj.to_address)

    @admin.display(description="Amount (USDC)", ordering="amount_units")
    def amount_usdc(self, obj: Payment) -> str:
        return f"{(Decimal(obj.amount_units).scaleb(-settings.TOKEN_DECIMALS)):.6f}"

    @admin.display(description="Claim")
    def response_link(self, obj: Payment) -> str:
        if obj.response_id is None:
            return "-"
        url = reverse("admin:responses_response_change", args=[obj.response_id])
        return format_html('<a href="{}">Response #{}</a>', url, obj.response_id)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ChainCursor)
class ChainCursorAdmin(admin.ModelAdmin):
    list_display = ["name", "block_number", "updated_at"]
    readonly_fields = ["name", "block_number", "updated_at"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
