"""Helpers every admin of the project shares: explorer links, hash-or-address search, money."""

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


def tx_link(tx_hash: str) -> str:
    if not tx_hash:
        return "-"
    return format_html(
        '<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>', explorer_url("tx", tx_hash), tx_hash
    )


def address_link(address: str) -> str:
    if not address:
        return "-"
    return format_html(
        '<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>', explorer_url("address", address), address
    )


class ChainSearchMixin(AdminMixinBase):
    """Search by transaction hash or address in whatever case staff paste: hashes are stored
    lowercase, addresses checksummed. `address_field` names the model's address column."""

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
