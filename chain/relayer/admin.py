"""Geopoem's relayer for staff (Chain -> Relayer): its address, balance and when it was read, the
alarm, the next nonce, what is in flight, what it spent and how many calls it sent and refused in the
last 24 hours; and every transaction it sent, read-only, linking to the call it carried. Everything
is read through chain/relayer/selectors.py; nothing here writes."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html

from challenges.admin.links import ChainSearchMixin, ReadOnlyMixin, address_link, tx_link

from ..models import RelayerAccount, RelayTransaction
from .selectors import RelaySummary, relay_summary, wei_as_eth

# What one stake costs at most, and a day's worth at the budget: what a top-up should cover.
TOP_UP = (
    "Send its address ETH (never USDC): at least {day} covers a day at the budget "
    "(RELAY_MAX_WEI_PER_DAY); one stake may cost {stake} at the last fees read."
)


def _alarm(account: RelayerAccount) -> str:
    """The alarm's state, always with its threshold and what to do (staff read "no" as "no alarm"
    only when they also see what would raise one)."""
    threshold = wei_as_eth(settings.RELAY_BALANCE_ALARM_WEI)
    advice = TOP_UP.format(day=wei_as_eth(settings.RELAY_MAX_WEI_PER_DAY), stake=wei_as_eth(account.stake_cost_wei))
    if not account.alarm:
        return format_html("no: the balance is above the alarm of {}. {}", threshold, advice)
    return format_html(
        '<strong style="color:#ba2121">ALARM since {}: below {}.</strong> {}',
        account.alarm_since or "-",
        threshold,
        advice,
    )


@admin.register(RelayerAccount)
class RelayerAccountAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = [
        "address_display",
        "balance_display",
        "balance_read_at",
        "alarm_display",
        "next_nonce",
        "in_flight",
        "spent_24h",
        "relayed_24h",
        "refused_24h",
        "transactions_link",
    ]
    readonly_fields = (
        "address_display",
        "balance_display",
        "balance_read_at",
        "alarm_display",
        "next_nonce",
        "stake_cost_display",
        "in_flight",
        "queued",
        "spent_24h",
        "mined_cost_24h",
        "relayed_24h",
        "refused_24h",
        "failed_24h",
        "not_needed_24h",
        "last_error",
        "transactions_link",
        "created_at",
        "updated_at",
    )
    fields = readonly_fields

    def changelist_view(self, request, extra_context=None):
        for account in RelayerAccount.objects.filter(alarm=True):
            messages.error(
                request,
                f"The relayer {account.address} holds {wei_as_eth(account.balance_wei)}, below the alarm of "
                f"{wei_as_eth(settings.RELAY_BALANCE_ALARM_WEI)}: send it ETH (never USDC), or stakes will be refused.",
            )
        return super().changelist_view(request, extra_context)

    def summary(self, account: RelayerAccount) -> RelaySummary:
        """The figures, read once per row of this request (kept on the row object, never on the
        admin, which every thread of a web process shares)."""
        found = getattr(account, "_relay_summary", None)
        if found is None:
            found = relay_summary(account=account)
            account._relay_summary = found  # type: ignore[attr-defined]
        return found

    @admin.display(description="Address", ordering="address")
    def address_display(self, obj: RelayerAccount) -> str:
        return address_link(obj.address)

    @admin.display(description="Balance")
    def balance_display(self, obj: RelayerAccount) -> str:
        return wei_as_eth(obj.balance_wei)

    @admin.display(description="One stake may cost (at the last fees read)")
    def stake_cost_display(self, obj: RelayerAccount) -> str:
        return wei_as_eth(obj.stake_cost_wei)

    @admin.display(description="Alarm")
    def alarm_display(self, obj: RelayerAccount) -> str:
        return _alarm(obj)

    @admin.display(description="In flight")
    def in_flight(self, obj: RelayerAccount) -> int:
        return self.summary(obj).in_flight

    @admin.display(description="Calls queued")
    def queued(self, obj: RelayerAccount) -> int:
        return self.summary(obj).queued

    @admin.display(description="Spent, 24 h (in flight at its most)")
    def spent_24h(self, obj: RelayerAccount) -> str:
        return wei_as_eth(self.summary(obj).spent_wei)

    @admin.display(description="Mined cost, 24 h")
    def mined_cost_24h(self, obj: RelayerAccount) -> str:
        return wei_as_eth(self.summary(obj).mined_cost_wei)

    @admin.display(description="Calls sent, 24 h")
    def relayed_24h(self, obj: RelayerAccount) -> int:
        return self.summary(obj).relayed

    @admin.display(description="Signed stakes refused, 24 h")
    def refused_24h(self, obj: RelayerAccount) -> int:
        return self.summary(obj).refused

    @admin.display(description="Not sent after a re-check (failed), 24 h")
    def failed_24h(self, obj: RelayerAccount) -> int:
        return self.summary(obj).failed

    @admin.display(description="Not needed (done by someone else), 24 h")
    def not_needed_24h(self, obj: RelayerAccount) -> int:
        return self.summary(obj).not_needed

    @admin.display(description="Transactions")
    def transactions_link(self, obj: RelayerAccount) -> str:
        url = reverse("admin:chain_relaytransaction_changelist") + f"?account__id__exact={obj.pk}"
        return format_html('<a href="{}">Its transactions</a>', url)


@admin.register(RelayTransaction)
class RelayTransactionAdmin(ReadOnlyMixin, ChainSearchMixin, admin.ModelAdmin):
    address_field = "account__address"
    list_display = [
        "nonce",
        "tx_display",
        "kind",
        "status",
        "call_link",
        "max_fee_gwei",
        "tip_gwei",
        "attempt_count",
        "gas_used",
        "price_gwei",
        "cost_display",
        "sent_at",
        "mined_at",
        "last_error",
    ]
    list_filter = ["status", "kind", "account"]
    list_select_related = ["account"]
    search_fields = ["=transaction_hash", "=call__key"]
    readonly_fields = (
        "account",
        "nonce",
        "tx_display",
        "kind",
        "status",
        "call_link",
        "hashes",
        "max_fee_gwei",
        "tip_gwei",
        "gas_limit",
        "max_cost_display",
        "replaced_because",
        "sent_at",
        "resent_at",
        "mined_at",
        "block_number",
        "gas_used",
        "price_gwei",
        "cost_display",
        "last_error",
    )
    fields = readonly_fields

    @admin.display(description="Transaction", ordering="transaction_hash")
    def tx_display(self, obj: RelayTransaction) -> str:
        return tx_link(obj.transaction_hash)

    @admin.display(description="Call")
    def call_link(self, obj: RelayTransaction) -> str:
        if obj.call_id is None:
            return "-"
        url = reverse("admin:chain_potcall_change", args=[obj.call_id])
        return format_html('<a href="{}">{}</a>', url, obj.call.key if obj.call else obj.call_id)

    @admin.display(description="Every transaction sent under this nonce")
    def hashes(self, obj: RelayTransaction) -> str:
        lines = [f"{a['hash']} ({a['kind']}, maxFeePerGas {a['maxFeePerGas']}, at {a['at']})" for a in obj.attempts]
        return format_html("<pre>{}</pre>", "\n".join(lines))

    @admin.display(description="Sent")
    def attempt_count(self, obj: RelayTransaction) -> int:
        return len(obj.attempts)

    @admin.display(description="maxFeePerGas (gwei)")
    def max_fee_gwei(self, obj: RelayTransaction) -> str:
        return _gwei(obj.max_fee_per_gas)

    @admin.display(description="Tip (gwei)")
    def tip_gwei(self, obj: RelayTransaction) -> str:
        return _gwei(obj.max_priority_fee_per_gas)

    @admin.display(description="Effective price (gwei)")
    def price_gwei(self, obj: RelayTransaction) -> str:
        return _gwei(obj.effective_gas_price)

    @admin.display(description="Cost", ordering="cost_wei")
    def cost_display(self, obj: RelayTransaction) -> str:
        return wei_as_eth(obj.cost_wei)

    @admin.display(description="Most it may cost")
    def max_cost_display(self, obj: RelayTransaction) -> str:
        return wei_as_eth(obj.max_cost_wei)


def _gwei(value) -> str:
    return "-" if value is None else f"{value / 10**9:.3f}"
