"""What staff see on a challenge's page and on "Resolve and reveal…" before they resolve: the close,
the end of the grace period, how far the ledger has read, why resolution must still wait, and the
payments of the open window that no claim names; after resolution, the exceptions recorded
(docs/protocol.md section 4, "Close, grace period and resolution"; responses/barrier.py)."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from challenges.admin.links import address_link, tx_link, usdc
from challenges.models import Challenge, ChallengeResolution, ChallengeStatus
from responses.barrier import (
    ledger_state,
    resolution_opens_at,
    resolution_waits_for,
    unclaimed_in_window,
    utc_text,
)
from responses.exceptions import exceptions_of


def before_resolving(challenge: Challenge) -> str:
    """The readiness of a challenge that is not resolved yet, as HTML: the waits and the unclaimed
    payments of its open window."""
    closes = "not closed yet" if challenge.closed_at is None else f"closed at {utc_text(challenge.closed_at)}"
    opens_at = resolution_opens_at(challenge=challenge)
    grace = "its close plus the grace period" if opens_at is None else utc_text(opens_at)
    waits = resolution_waits_for(challenge=challenge)
    unclaimed = unclaimed_in_window(challenge=challenge)
    rows = format_html_join(
        "",
        "<tr><td>{}</td><td>{}</td><td>{} USDC</td><td>{}</td><td>{}</td></tr>",
        (
            (tx_link(p.transaction_hash), address_link(p.from_address), usdc(p.amount), p.block_number, p.block_time)
            for p in unclaimed
        ),
    )
    table = (
        format_html(
            '<table class="geopoem-unclaimed"><thead><tr><th>Transaction</th><th>From</th><th>Amount</th>'
            "<th>Block</th><th>Block time</th></tr></thead><tbody>{}</tbody></table>",
            rows,
        )
        if unclaimed
        else format_html("<p>{}</p>", "None: every payment of the open window the ledger holds has its claim.")
    )
    return format_html(
        '<div class="geopoem-before-resolving"><p>The challenge is {}; resolution can start from {} '
        "(the grace period after the close). {}</p>{}"
        "<p><strong>Payments of the open window that no claim names ({}):</strong> the player paid and the "
        "page has not posted the claim (yet). Such a claim still counts if it arrives before resolution "
        "starts; after that it is recorded as an exception.</p>{}</div>",
        closes,
        grace,
        ledger_state(challenge=challenge),
        format_html('<p class="errornote">Resolution must wait: {}</p>', waits) if waits else "",
        len(unclaimed),
        table,
    )


class ChallengeBarrierMixin:
    @admin.display(description="Before resolving")
    def before_resolving_display(self, obj: Challenge) -> str:
        if obj.status not in (ChallengeStatus.ACTIVE, ChallengeStatus.CLOSED):
            return "-"
        if ChallengeResolution.objects.filter(challenge=obj).exists():
            return "Resolution has started: its progress is the status above."
        return before_resolving(obj)

    @admin.display(description="Exceptions after resolution")
    def exceptions_display(self, obj: Challenge) -> str:
        """What the chain changed after resolution started: the sums stayed (responses/barrier.py)."""
        exceptions = list(exceptions_of(challenge=obj))
        if not exceptions:
            return "None."
        items = format_html_join(
            "",
            '<li><a href="{}">{}</a>: {} USDC, {}{}</li>',
            (
                (
                    reverse("admin:responses_resolutionexception_change", args=[e.pk]),
                    e.get_kind_display(),
                    usdc(e.stake),
                    e.transaction_hash,
                    " (settled)" if e.settled_at else "",
                )
                for e in exceptions
            ),
        )
        return format_html("<ul>{}</ul>", items)
