"""The read-only parts of a challenge's admin page: its opening in the pot, its phase and what the
worker does next, the winners and payments as the pot holds them, and a preview of what players see."""

from django.contrib import admin
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe

from challenges.admin.links import chain_link, usdc
from challenges.models import Challenge, OpeningStatus, PotOpening
from challenges.sanitize import sanitize_html
from challenges.scoring import BLANKET_RADIUS_M, blanket
from challenges.selectors import Phase, chain_now, challenge_phase
from responses.selectors import challenge_winners

# What the worker does next in each phase, for staff (docs/protocol.md section 2).
NEXT_STEP = {
    Phase.OPENING: "The worker sends the pot's open with these terms; players can stake once it is deep enough.",
    Phase.OPEN: "Players stake until the close. Nothing for staff to do.",
    Phase.CLOSED: "The worker reveals the solution once the close is deep enough (before the solution deadline).",
    Phase.REVEALING: "Guesses are revealed until the guess deadline; the worker reveals the winners Geopoem holds.",
    Phase.FINAL: "The worker finalizes the pot and sends each payment (or each refund).",
    Phase.PAID: "Everything the pot owed for this challenge is paid.",
    Phase.ABORTED: "The solution was not revealed by its deadline: the worker refunds every stake with the bond.",
}


def opening_of(obj: Challenge) -> PotOpening | None:
    try:
        return obj.opening
    except PotOpening.DoesNotExist:
        return None


class ChallengeDisplayMixin:
    @admin.display(description="Phase")
    def phase_display(self, obj: Challenge) -> str:
        if not obj.is_published:
            return "Draft"
        phase = challenge_phase(obj, now=chain_now())
        return f"{phase.capitalize()}: {NEXT_STEP[phase]}"

    @admin.display(description="Opening in the pot")
    def opening_display(self, obj: Challenge) -> str:
        opening = opening_of(obj)
        if opening is None:
            return "Sent by the worker once published."
        rows = [
            ("State", opening.get_status_display()),
            ("Pot", chain_link("address", opening.pot_address)),
            ("Transaction", chain_link("tx", opening.transaction_hash)),
            ("Block", opening.block_number if opening.block_number is not None else "-"),
            ("Terms SHA-256", opening.terms_sha256),
            ("Attempts", opening.attempts),
            ("Last error", opening.last_error or "-"),
        ]
        return format_html(
            '<ul class="geopoem-opening" data-opening-status="{}">{}</ul>',
            opening.status,
            format_html_join("", "<li>{}: {}</li>", rows),
        )

    @admin.display(description="Opening")
    def opening_column(self, obj: Challenge) -> str:
        opening = opening_of(obj)
        if opening is None:
            return "-"
        if opening.status == OpeningStatus.CONFIRMED:
            return f"Opened, block {opening.block_number}"
        return opening.get_status_display().split(":")[0]

    @admin.display(description="Proximity threshold")
    def threshold_display(self, obj: Challenge) -> str:
        return "Not specified" if obj.proximity_threshold_m is None else f"{obj.proximity_threshold_m} m"

    @admin.display(description="A blanket of cheap guesses")
    def blanket_display(self, obj: Challenge) -> str:
        """What covering an area costs at this threshold and minimum stake: a blanket of guesses wins
        "earliest correct" for sure once the place is inside it."""
        found = blanket(threshold_m=obj.proximity_threshold_m, min_stake=obj.min_stake)
        if found is None:
            return "No threshold: only the exact point is correct, so no number of guesses covers an area."
        return format_html(
            "Covering a {} km circle with guesses each correct within {} m takes about {} stakes of the "
            "minimum ({} USDC). The earliest prize (40 %) pays that back once the pot, those stakes "
            "included, reaches {} USDC: raise the minimum stake or lower the threshold if "
            "pots that size are expected.",
            BLANKET_RADIUS_M // 1000,
            obj.proximity_threshold_m,
            f"{found.stakes:,}",
            usdc(found.cost),
            usdc(found.worth_it_at),
        )

    @admin.display(description="Solution salt")
    def salt_display(self, obj: Challenge) -> str:
        state = getattr(obj, "pot", None)
        if state is not None and state.solution_block is not None:
            return obj.solution_salt
        return "Generated on the server; public from the reveal."

    @admin.display(description="Winners and payments (from the pot)")
    def winners_display(self, obj: Challenge) -> str:
        if not obj.is_published:
            return "-"
        winners = challenge_winners(challenge=obj)
        lines = []
        for kind, label in (("earliest", "Earliest correct"), ("highest", "Highest staked correct")):
            stake = winners[kind]
            if stake is not None:
                lines.append(
                    (
                        label,
                        f"stake #{stake['id']} by {stake['submitterAddress']}, prize {winners['prizes'][kind]} USDC",
                    )
                )
        if not lines:
            lines.append(("Winners", "no correct guess revealed on chain (yet)" if not winners["final"] else "none"))
        lines += [(p["kind"].capitalize(), f"{p['amount']} USDC to {p['to']}") for p in winners["payments"]]
        return format_html("<ul>{}</ul>", format_html_join("", "<li>{}: {}</li>", lines))

    @admin.display(description="Preview: what players see")
    def preview(self, obj: Challenge) -> str:
        if obj.pk is None:
            return "-"
        threshold = "Not specified" if obj.proximity_threshold_m is None else f"{obj.proximity_threshold_m} meters"
        # Sanitised again on display, and shown in a sandboxed frame (no scripts, own origin) so the
        # admin's styles do not restyle the poem: the HTML players get, as a browser renders it.
        document = format_html(
            "<!doctype html><meta charset=utf-8>"
            "<p>Challenge #{} &middot; Proximity threshold: {} &middot; Minimum stake: {} USDC</p><h2>{}</h2>"
            "<div>{}</div><h3>Instructions</h3><div>{}</div><p><small>Solution SHA256: <code>{}</code></small></p>",
            obj.pk,
            threshold,
            usdc(obj.min_stake),
            obj.poem_title,
            mark_safe(sanitize_html(obj.poem_text)),  # noqa: S308 - the allow-list output
            mark_safe(sanitize_html(obj.instructions_text)),  # noqa: S308 - the allow-list output
            obj.solution_sha256,
        )
        return format_html(
            '<iframe class="geopoem-preview" sandbox title="Preview" srcdoc="{}"></iframe>', escape(document)
        )
