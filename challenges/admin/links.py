"""Helpers every admin of the project shares: explorer links, hash-or-address search, money, read-only
records."""

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils.html import format_html

from challenges.scoring import TOKEN_UNIT

if TYPE_CHECKING:
    from django.contrib.admin import ModelAdmin

    # The admins' mixins are only ever mixed into a ModelAdmin: to the type checker they are one,
    # so their super() calls and ModelAdmin attributes resolve. At run time they stay plain classes.
    AdminMixinBase = ModelAdmin[Any]
else:
    AdminMixinBase = object

# --- Explorer links, shared by the responses and chain admins ------------------------------------


def explorer_url(kind: str, value: str) -> str:
    return f"{settings.CHAIN_EXPLORER_URL.rstrip('/')}/{kind}/{value}"


def chain_link(kind: str, value: str) -> str:
    """A transaction ("tx") or an address linked to the explorer when CHAIN_EXPLORER_URL is set; else
    the value as text (a local chain has no explorer, and a link to /tx/... on the site is a 404)."""
    if not value:
        return "-"
    if not settings.CHAIN_EXPLORER_URL:
        return format_html("<code>{}</code>", value)
    return format_html(
        '<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>', explorer_url(kind, value), value
    )


def tx_link(tx_hash: str) -> str:
    return chain_link("tx", tx_hash)


def address_link(address: str) -> str:
    return chain_link("address", address)


class ReadOnlyMixin(AdminMixinBase):
    """Records staff look at and never add, change or delete: what the pot's events say, what a
    player signed, what the relayer sent."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ChainSearchMixin(AdminMixinBase):
    """Search by transaction hash or address in whatever case staff paste: hashes and addresses are
    stored lowercase. `address_field` names the model's address column."""

    address_field = ""

    def get_search_results(self, request, queryset, search_term):
        term = search_term.strip()
        if term.lower().startswith("0x"):
            return (
                queryset.filter(transaction_hash=term.lower())
                | queryset.filter(**{f"{self.address_field}__iexact": term}),
                False,
            )
        return super().get_search_results(request, queryset, search_term)


def usdc(value) -> str:
    """Money as staff read it: exact, 6 decimals, never in exponent notation."""
    return f"{Decimal(value).quantize(TOKEN_UNIT):f}"
