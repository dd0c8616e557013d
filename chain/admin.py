"""The chain app's records for staff, read-only: the pot's events as the follower read them, the calls
the site sends to the pot, and the relayer (Chain -> Relayer)."""

from django.contrib import admin

from challenges.admin.links import tx_link

from .models import PotCall, PotEvent
from .relayer.admin import RelayerAccountAdmin, RelayTransactionAdmin  # noqa: F401 - registers Chain -> Relayer


class _ReadOnly:
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(PotEvent)
class PotEventAdmin(_ReadOnly, admin.ModelAdmin):
    list_display = ["block_number", "log_index", "name", "challenge_id", "tx_display", "block_time"]
    list_filter = ["name"]
    search_fields = ["transaction_hash"]

    @admin.display(description="Transaction")
    def tx_display(self, obj: PotEvent) -> str:
        return tx_link(obj.transaction_hash)


@admin.register(PotCall)
class PotCallAdmin(_ReadOnly, admin.ModelAdmin):
    list_display = ["id", "key", "status", "code", "reason", "tx_display", "created_at"]
    list_filter = ["kind", "status"]
    search_fields = ["key", "transaction_hash"]

    @admin.display(description="Transaction")
    def tx_display(self, obj: PotCall) -> str:
        return tx_link(obj.transaction_hash)
