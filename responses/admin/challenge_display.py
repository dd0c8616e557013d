"""The read-only parts of the Challenge admin's page: status and progress, threshold, salt, the
preview of what players see, and the winners with their prizes."""

from decimal import Decimal
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib import admin
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe

from challenges.admin.links import explorer_url, usdc
from challenges.models import AnchorStatus, Challenge, ChallengeAnchor, ChallengeResolution
from challenges.sanitize import sanitize_html
from responses.selectors import challenge_winners

from .challenge_form import resolution_text

if TYPE_CHECKING:
    from responses.selectors import ScoredResponse


def _chain_link(kind: str, value: str) -> str:
    """A link to the explorer when CHAIN_EXPLORER_URL is set; else the value as text."""
    if not value:
        return "-"
    if not settings.CHAIN_EXPLORER_URL:
        return format_html("<code>{}</code>", value)
    link = '<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>'
    return format_html(link, explorer_url(kind, value), value)


def anchor_of(obj: Challenge) -> ChallengeAnchor | None:
    try:
        return obj.anchor
    except ChallengeAnchor.DoesNotExist:
        return None


class ChallengeDisplayMixin:
    @admin.display(description="Terms on chain")
    def anchor_column(self, obj: Challenge) -> str:
        """The changelist's short state of the anchor (docs/protocol.md section 6)."""
        anchor = anchor_of(obj)
        if anchor is None:
            return "Not anchored (demonstration)" if obj.is_demo and obj.is_published else "-"
        if anchor.status == AnchorStatus.CONFIRMED:
            return f"Confirmed, block {anchor.block_number}"
        return anchor.get_status_display().split(":")[0]

    @admin.display(description="Terms on chain (anchor)")
    def anchor_display(self, obj: Challenge) -> str:
        """The anchor's state, transaction, block, attempts and last error. The challenge accepts
        claims only once it is confirmed (docs/protocol.md section 6)."""
        anchor = anchor_of(obj)
        if anchor is None:
            if obj.is_demo:
                return "A demonstration challenge is never anchored: it is open without one and guarantees nothing."
            return "Anchored by the worker once published."
        rows = [
            ("State", anchor.get_status_display()),
            ("Registry", _chain_link("address", anchor.registry_address) if anchor.registry_address else "not set"),
            ("Transaction", _chain_link("tx", anchor.transaction_hash)),
            ("Block", anchor.block_number if anchor.block_number is not None else "-"),
            ("Block time", anchor.block_timestamp or "-"),
            ("Terms SHA-256", anchor.terms_sha256),
            ("Attempts", anchor.attempts),
            ("Last error", anchor.last_error or "-"),
        ]
        state = "open to claims" if anchor.status == AnchorStatus.CONFIRMED else "not open to claims yet"
        return format_html(
            '<ul class="geopoem-anchor" data-anchor-status="{}">{}</ul><p>{}</p>',
            anchor.status,
            format_html_join("", "<li>{}: {}</li>", rows),
            f"The challenge is {state}." if obj.status == "active" else "",
        )

    @admin.display(description="Status", ordering="status")
    def status_display(self, obj: Challenge) -> str:
        """The status, with the resolution's progress while the worker scores, and its result."""
        try:
            resolution = obj.resolution
        except ChallengeResolution.DoesNotExist:
            return obj.get_status_display()
        return resolution_text(resolution)

    @admin.display(description="Proximity threshold")
    def threshold_display(self, obj: Challenge) -> str:
        return "Not specified" if obj.proximity_threshold_m is None else f"{obj.proximity_threshold_m} m"

    @admin.display(description="Solution salt")
    def salt_display(self, obj: Challenge) -> str:
        if obj.is_resolved:
            return obj.solution_salt
        return "Generated on the server; public from the reveal."

    @admin.display(description="Preview: what players see")
    def preview(self, obj: Challenge) -> str:
        if obj.pk is None:
            return "-"
        threshold = "Not specified" if obj.proximity_threshold_m is None else f"{obj.proximity_threshold_m} meters"
        # Sanitised again on display, so even a row written around the model cannot carry a script;
        # and shown in a sandboxed frame (no scripts, own origin) so the admin's styles do not
        # restyle the poem: the HTML players get, as a browser renders it.
        document = format_html(
            "<!doctype html><meta charset=utf-8>"
            "<p>Challenge #{} &middot; Proximity threshold: {}</p><h2>{}</h2><div>{}</div>"
            "<h3>Instructions</h3><div>{}</div><p><small>Solution SHA256: <code>{}</code></small></p>",
            obj.pk,
            threshold,
            obj.poem_title,
            mark_safe(sanitize_html(obj.poem_text)),  # noqa: S308 - the allow-list output
            mark_safe(sanitize_html(obj.instructions_text)),  # noqa: S308 - the allow-list output
            obj.solution_sha256,
        )
        return format_html(
            '<iframe class="geopoem-preview" sandbox title="Preview" srcdoc="{}"></iframe>',
            escape(document),  # the whole document escaped once more as an attribute value
        )

    @admin.display(description="Winners and prizes")
    def winners_display(self, obj: Challenge) -> str:
        if not obj.is_resolved:
            return "Scored at resolution."
        winners = challenge_winners(challenge=obj)
        # Both are picked from the same correct responses: both or neither (the check narrows the types).
        if winners.earliest is None or winners.highest is None:
            return format_html(
                "No correct response: no prize is due. Unallocated: {} USDC of {} USDC.",
                usdc(winners.unallocated),
                usdc(winners.split.total),
            )
        rows: list[tuple[str, ScoredResponse, Decimal | None]] = [
            ("Earliest correct", winners.earliest, winners.earliest_prize),
            ("Highest staked correct", winners.highest, winners.highest_prize),
        ]
        body = format_html_join(
            "",
            "<li>{}: response #{} by {} ({} m), prize {} USDC</li>",
            (
                (label, r.pk, r.submitter_address, f"{r.distance_meters or 0:.2f}", usdc(prize))
                for label, r, prize in rows
            ),
        )
        return format_html(
            "<ul>{}<li>Operations: {} USDC</li><li>Unallocated (rounding): {} USDC</li></ul>",
            body,
            usdc(winners.operations),
            usdc(winners.unallocated),
        )
