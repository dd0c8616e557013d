"""The payouts admin: staff record which transaction paid a prize and can ask for it to be checked
again. Both go through services (challenges/payouts.py); the check on chain is the chain app's
(chain/payouts.py), queued through challenges/hooks.py (payout_recorded)."""

from django import forms
from django.contrib import admin, messages

from challenges.models import Payout, PayoutStatus
from challenges.payouts import PayoutError, normalise_tx_hash, payout_record_transaction, payouts_verify_again

from .links import address_link, tx_link

# --- Payouts --------------------------------------------------------------------------------------


class PayoutForm(forms.ModelForm):
    class Meta:
        model = Payout
        fields = ["transaction_hash"]

    def clean_transaction_hash(self) -> str:
        value = self.cleaned_data.get("transaction_hash") or ""
        try:
            tx_hash = normalise_tx_hash(value)
        except PayoutError as exc:
            raise forms.ValidationError(str(exc)) from None
        if Payout.objects.filter(transaction_hash=tx_hash).exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError("That transaction is already recorded for another payout.")
        return tx_hash


@admin.register(Payout)
class PayoutAdmin(admin.ModelAdmin):
    form = PayoutForm
    list_display = ["id", "challenge", "kind", "address_display", "amount", "status", "tx_display", "verified_at"]
    list_filter = ["status", "kind", "challenge"]
    search_fields = ["address", "transaction_hash"]
    list_select_related = ["challenge"]
    actions = ["verify_again"]
    readonly = [
        "challenge",
        "kind",
        "response",
        "address_display",
        "amount",
        "status",
        "failure_code",
        "failure_reason",
        "recorded_by",
        "recorded_at",
        "tx_display",
        "block_number",
        "log_index",
        "verified_at",
    ]

    def get_fields(self, request, obj=None):
        if obj is not None and obj.status in (PayoutStatus.DUE, PayoutStatus.FAILED, PayoutStatus.VERIFYING):
            return [*self.readonly[:6], "transaction_hash", *self.readonly[6:]]
        return self.readonly

    def get_readonly_fields(self, request, obj=None):
        return self.readonly

    @admin.display(description="Address")
    def address_display(self, obj: Payout) -> str:
        return address_link(obj.address)

    @admin.display(description="Payout transaction")
    def tx_display(self, obj: Payout) -> str:
        return tx_link(obj.transaction_hash)

    def has_add_permission(self, request) -> bool:
        return False  # created by resolution only, with the exact amounts

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj: Payout, form, change: bool) -> None:
        # The service, not the form, writes the row: status, who and when, and the verification.
        if "transaction_hash" not in form.cleaned_data:
            return  # paid or kept: nothing is editable
        try:
            payout_record_transaction(
                payout=obj, transaction_hash=form.cleaned_data["transaction_hash"], user=request.user
            )
        except PayoutError as exc:
            messages.error(request, f"Not recorded: {exc}")
            return
        messages.info(request, "Recorded; the worker now verifies the transfer on chain.")

    @admin.action(description="Verify the recorded transaction again")
    def verify_again(self, request, queryset):
        queued = payouts_verify_again(payouts=queryset)
        for payout in queued:
            self.log_change(request, payout, "Verification requested again.")
        messages.info(request, f"{len(queued)} payout(s) queued for verification.")


class PayoutInline(admin.TabularInline):
    model = Payout
    extra = 0
    can_delete = False
    show_change_link = True
    readonly_fields = ("kind", "address", "amount", "status", "transaction_hash", "verified_at")
    fields = readonly_fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False
