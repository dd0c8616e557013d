"""Keyset pagination over ids: `?limit=` and an opaque `?cursor=`, the next page in a Link
header so the body stays the plain list the spec's client reads."""

import base64
import binascii

from rest_framework.request import Request
from rest_framework.utils.urls import replace_query_param

from config.api_errors import ApiError

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000


def is_whole_number(text: str) -> bool:
    """ASCII digits only: str.isdigit() alone accepts "²" or "١", which int() then refuses (a 500)."""
    return text.isascii() and text.isdigit()


def read_limit(request: Request) -> int:
    raw = request.query_params.get("limit")
    if raw is None:
        return DEFAULT_LIMIT
    if not is_whole_number(raw) or not 1 <= int(raw) <= MAX_LIMIT:
        raise ApiError(f"limit must be a whole number from 1 to {MAX_LIMIT}.", errors={"limit": ["Out of range."]})
    return int(raw)


def encode_cursor(last_id: int, direction: str = "after") -> str:
    return base64.urlsafe_b64encode(f"{direction}:{last_id}".encode()).decode().rstrip("=")


def read_cursor(request: Request, direction: str = "after") -> int | None:
    """The id the page goes on from: ids after it (oldest first) or before it (newest first, the
    address list). None without a cursor; a cursor of the other direction is refused."""
    raw = request.query_params.get("cursor")
    if not raw:
        return None
    try:
        text = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode()
        prefix, _, number = text.partition(":")
        if prefix != direction or not is_whole_number(number):
            raise ValueError
        return int(number)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ApiError("The cursor is not valid.", errors={"cursor": ["Not a cursor this API gave."]}) from None


def next_link(request: Request, last_id: int, direction: str = "after") -> str:
    url = replace_query_param(request.build_absolute_uri(), "cursor", encode_cursor(last_id, direction))
    return f'<{url}>; rel="next"'


def keyset_page(request: Request, rows, *, limit: int, direction: str = "after") -> tuple[list, dict[str, str]]:
    """One page of `rows` (a queryset already in keyset order from the cursor on) and its headers:
    a Link to the next page when there is more (one row past the page is read to know it)."""
    page = list(rows[: limit + 1])
    if len(page) <= limit:
        return page, {}
    page = page[:limit]
    return page, {"Link": next_link(request, page[-1].pk, direction)}
