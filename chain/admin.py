"""The chain app's records for staff, read-only: the pot's events as the follower read them, the calls
the site sends to the pot, and the relayer (Chain -> Relayer)."""

from django.contrib import admin

from challenges.admin.links import ReadOnlyMixin, tx_link

from .models import PotCall, PotEvent
from .relayer.admin import RelayerAccountAdmin, RelayTransactionAdmin  # noqa: F401 - registers Chain -> Relayer


@admin.register(PotEvent)
class PotEventAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["block_number", "log_index", "name", "challenge_id", "tx_display", "block_time"]
    list_filter = ["name"]
    search_fields = ["transaction_hash"]

    @admin.display(description="Transaction")
    def tx_display(self, obj: PotEvent) -> str:
        return tx_link(obj.transaction_hash)


@admin.register(PotCall)
class PotCallAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["id", "key", "status", "code", "reason", "tx_display", "created_at"]
    list_filter = ["kind", "status"]
    search_fields = ["key", "transaction_hash"]

    @admin.display(description="Transaction")
    def tx_display(self, obj: PotCall) -> str:
        return tx_link(obj.transaction_hash)
