"""Players' stakes, for staff to look at: read-only, because every field is what the pot's events say
or what a player signed. The guesses are not shown here: the site publishes them at the solution's
reveal, and staff have no need to read them before."""

from django.contrib import admin

from challenges.admin.links import ChainSearchMixin, ReadOnlyMixin, address_link, tx_link, usdc
from responses.models import PotPayment, SignedStake, Stake


@admin.register(Stake)
class StakeAdmin(ReadOnlyMixin, ChainSearchMixin, admin.ModelAdmin):
    address_field = "payer"
    list_display = [
        "challenge",
        "seq",
        "payer_display",
        "amount_display",
        "tx_display",
        "block_number",
        "revealed_correct",
    ]
    list_filter = ["challenge"]
    search_fields = ["payer", "transaction_hash", "commitment"]
    ordering = ["-challenge_id", "-seq"]

    @admin.display(description="Payer")
    def payer_display(self, obj: Stake) -> str:
        return address_link(obj.payer)

    @admin.display(description="Stake (USDC)")
    def amount_display(self, obj: Stake) -> str:
        return usdc(obj.amount_units / 10**6)

    @admin.display(description="Transaction")
    def tx_display(self, obj: Stake) -> str:
        return tx_link(obj.transaction_hash)


@admin.register(SignedStake)
class SignedStakeAdmin(ReadOnlyMixin, ChainSearchMixin, admin.ModelAdmin):
    address_field = "payer"
    list_display = ["id", "challenge", "payer", "relay_status", "relay_code", "created_at"]
    list_filter = ["relay_status", "challenge"]
    search_fields = ["payer", "commitment", "relay_transaction_hash"]
    exclude = ["signature"]


@admin.register(PotPayment)
class PotPaymentAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["challenge", "kind", "seq", "to", "amount_units", "bond_units", "transaction_hash"]
    list_filter = ["kind", "challenge"]
