"""The staff workflow: author a poem, publish, close, resolve and reveal, pay the winners.

Lifecycle steps are buttons on a challenge's page (and changelist actions) that open a
confirmation page; the step itself runs the service in challenges.services, so the admin can do
nothing the rules forbid. Every step is written to the admin log (who and when, on the History
page). Once a challenge is published, the commitment players saw (poem, threshold, solution,
salt) is read-only, and a posted change to it is refused as a whole."""

import csv
import io
from collections.abc import Iterable, Iterator
from decimal import Decimal

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe

from responses.coordinates import COORDINATES_MESSAGE, CoordinateError, canonical_coordinates

from .commitments import new_salt, solution_commitment
from .models import Challenge, ChallengeResolution, ChallengeStatus, Payout, PayoutStatus, ResolutionStatus
from .payouts import (
    PayoutError,
    normalise_tx_hash,
    payout_enqueue_verification,
    payout_record_transaction,
)
from .sanitize import ALLOWED_TAGS, sanitize_html, sanitize_with_report
from .scoring import TOKEN_UNIT
from .selectors import challenge_resolution, challenge_winners, response_export_rows
from .services import ChallengeStateError, challenge_close, challenge_publish, challenge_resolve_start

RESOLVING_REFRESH_SECONDS = 2

# The fields of the commitment players saw: frozen once a challenge is published.
LOCKED_FIELDS = ("poem_title", "poem_text", "instructions_text", "proximity_threshold_m", "solution")
LOCKED_MESSAGE = (
    "This challenge is published: its title, poem, instructions, threshold and solution can no longer "
    "change. Nothing was saved."
)
HTML_HELP = (
    # Plain words: Django renders help texts as HTML.
    "HTML. Allowed tags: "
    + ", ".join(sorted(ALLOWED_TAGS))
    + "; links (a href, title) to http, https and mailto only, given rel=noopener noreferrer. "
    "Anything else is removed on save, and you are told what."
)


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


class ChainSearchMixin:
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


def csv_line(values: Iterable) -> str:
    """One CSV line as PostgreSQL's COPY writes it (quoted only when needed, "\n" line ends)."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(["" if value is None else value for value in values])
    return out.getvalue()


def copy_csv(queryset) -> Iterator[bytes]:
    """The rows of `queryset` (a values_list of text-ready columns) as CSV, written by PostgreSQL
    itself with COPY and streamed as it comes: 200,000 responses in a few seconds, where formatting
    each row in Python took most of a minute (bench/admin_budget.py)."""
    sql, params = queryset.query.get_compiler(connection=connection).as_sql()
    with connection.cursor() as cursor:
        # psycopg 3 merges the parameters client-side for COPY.
        with cursor.cursor.copy(f"COPY ({sql}) TO STDOUT WITH (FORMAT csv)", params) as copy:
            for block in copy:
                yield bytes(block)


def csv_response(filename: str, lines: Iterable[str | bytes]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def resolution_text(resolution: ChallengeResolution) -> str:
    if resolution.status == ResolutionStatus.RUNNING:
        return f"Resolving… {resolution.scored:,} of {resolution.total:,}"
    payouts = f"{resolution.payouts} payout(s) created" if resolution.payouts else "no prize is due"
    return f"Resolved: {resolution.correct:,} correct of {resolution.scored:,} scored; {payouts}."


# --- Challenge authoring --------------------------------------------------------------------------


class ChallengeForm(forms.ModelForm):
    solution_input = forms.CharField(
        label="Solution",
        max_length=100,
        required=False,
        help_text='"latitude, longitude", e.g. 29.979175, 31.134258. Stored canonical (6 decimals, '
        "truncated); a fresh salt is generated and the SHA-256 commitment computed on save.",
    )

    class Meta:
        model = Challenge
        fields = ["poem_title", "poem_text", "instructions_text", "proximity_threshold_m", "is_demo"]
        widgets = {
            "poem_text": forms.Textarea(attrs={"rows": 12, "cols": 80}),
            "instructions_text": forms.Textarea(attrs={"rows": 6, "cols": 80}),
        }
        help_texts = {"poem_text": HTML_HELP, "instructions_text": HTML_HELP}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.removed: dict[str, list[str]] = {}
        if "solution_input" in self.fields:
            if self.instance.pk:
                self.fields["solution_input"].initial = self.instance.solution

    def _clean_html(self, name: str, label: str) -> str:
        result = sanitize_with_report(self.cleaned_data.get(name) or "")
        if result.removed:
            self.removed[label] = result.removed
        return result.html

    def clean_poem_text(self) -> str:
        html = self._clean_html("poem_text", "poem text")
        if not html.strip():
            raise forms.ValidationError("The poem is empty once unsafe HTML is removed.")
        return html

    def clean_instructions_text(self) -> str:
        return self._clean_html("instructions_text", "instructions")

    def clean_solution_input(self) -> str:
        value = self.cleaned_data.get("solution_input") or ""
        if not value.strip():
            if self.instance.pk is None:
                raise forms.ValidationError(COORDINATES_MESSAGE)
            return ""
        try:
            return canonical_coordinates(value)
        except CoordinateError:
            # The sentence players get for the same mistake.
            raise forms.ValidationError(COORDINATES_MESSAGE) from None


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    form = ChallengeForm
    change_form_template = "admin/challenges/challenge/change_form.html"
    list_display = [
        "id",
        "poem_title",
        "status_display",
        "threshold_display",
        "staked_sum",
        "response_count",
        "start_timestamp",
        "resolved_at",
        "is_demo",
    ]
    list_display_links = ["id", "poem_title"]
    list_filter = ["status", "is_demo"]
    search_fields = ["poem_title"]
    actions = ["publish_selected", "close_selected", "resolve_selected", "export_selected"]
    list_select_related = ["resolution"]
    change_list_template = "admin/challenges/challenge/change_list.html"

    # --- Fields --------------------------------------------------------------------------------

    def get_fields(self, request, obj=None):
        authored = ["poem_title", "poem_text", "instructions_text", "proximity_threshold_m", "is_demo"]
        if obj is None or not obj.is_published:
            authored.insert(4, "solution_input")
        else:
            authored.insert(4, "solution")
        shown = ["solution_sha256", "salt_display", "status_display", "start_timestamp", "closed_at", "resolved_at"]
        if obj is None:
            return authored
        return [*authored, *shown, "staked_sum", "response_count", "winners_display", "preview"]

    def get_readonly_fields(self, request, obj=None):
        always = [
            "solution_sha256",
            "salt_display",
            "status_display",
            "start_timestamp",
            "closed_at",
            "resolved_at",
            "staked_sum",
            "response_count",
            "winners_display",
            "preview",
        ]
        if obj is not None and obj.is_published:
            return [*LOCKED_FIELDS, "is_demo", *always]
        return always

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
        if winners.earliest is None:
            return format_html(
                "No correct response: no prize is due. Unallocated: {} USDC of {} USDC.",
                usdc(winners.unallocated),
                usdc(winners.split.total),
            )
        rows = [
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

    def has_delete_permission(self, request, obj=None) -> bool:
        # A published challenge has public history (and maybe stakes): it is never deleted.
        if obj is not None and obj.is_published:
            return False
        return super().has_delete_permission(request, obj)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # While the worker resolves, the page refreshes itself (a meta refresh: no script, so the
        # admin's CSP is untouched) until the result shows.
        obj = self.get_object(request, object_id)
        resolution = challenge_resolution(challenge=obj) if obj is not None else None
        extra_context = {
            **(extra_context or {}),
            "resolving": resolution is not None and resolution.status == ResolutionStatus.RUNNING,
            "refresh_seconds": RESOLVING_REFRESH_SECONDS,
        }
        return super().change_view(request, object_id, form_url, extra_context)

    def changelist_view(self, request, extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "resolving": ChallengeResolution.objects.filter(status=ResolutionStatus.RUNNING).exists(),
            "refresh_seconds": RESOLVING_REFRESH_SECONDS,
        }
        return super().changelist_view(request, extra_context)

    # --- Saving -------------------------------------------------------------------------------

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        if request.method == "POST" and object_id is not None:
            obj = self.get_object(request, object_id)
            if obj is not None and obj.is_published and self._posts_locked_change(request, obj):
                messages.error(request, LOCKED_MESSAGE)
                return HttpResponseRedirect(request.path)
        return super().changeform_view(request, object_id, form_url, extra_context)

    @staticmethod
    def _posts_locked_change(request: HttpRequest, obj: Challenge) -> bool:
        for name in (*LOCKED_FIELDS, "solution_input"):
            if name not in request.POST:
                continue
            posted = request.POST[name].strip()
            current = "" if getattr(obj, name, None) is None else str(getattr(obj, name, "")).strip()
            if name == "solution_input":
                current = obj.solution
            if posted != current:
                return True
        return False

    def save_model(self, request, obj: Challenge, form: ChallengeForm, change: bool) -> None:
        solution = form.cleaned_data.get("solution_input") or ""
        with transaction.atomic():
            if not change:
                # The commitment binds the id, so the row is written first, then committed to.
                obj.solution = solution
                obj.solution_salt = new_salt()
                obj.solution_sha256 = ""
                obj.save()
                self._commit_solution(obj, solution)
            else:
                obj.save()
                if solution and solution != obj.solution:
                    self._commit_solution(obj, solution)
        for label, removed in form.removed.items():
            messages.warning(request, f"Removed from the {label} (not allowed): {', '.join(removed)}.")

    @staticmethod
    def _commit_solution(obj: Challenge, solution: str) -> None:
        obj.solution = solution
        obj.solution_salt = new_salt()
        obj.solution_sha256 = solution_commitment(challenge_id=obj.pk, text=solution, salt=obj.solution_salt)
        obj.save(update_fields=["solution", "solution_salt", "solution_sha256"])

    def construct_change_message(self, request, form, formsets, add=False):
        message = super().construct_change_message(request, form, formsets, add)
        if form.cleaned_data.get("solution_input") and (add or "solution_input" in form.changed_data):
            message.append({"changed": {"fields": ["Solution (new salt and commitment)"]}})
        return message

    # --- Lifecycle ----------------------------------------------------------------------------

    LIFECYCLE = {
        "publish": {
            "title": "Publish",
            "explain": "The challenge becomes the active one: players see the poem and can stake on it. "
            "Its poem, threshold and solution commitment can no longer change.",
        },
        "close": {
            "title": "Close",
            "explain": "No new claims are accepted. Payments mined after this moment are rejected as late.",
        },
        "resolve": {
            "title": "Resolve and reveal",
            "explain": "The challenge is closed at once if it is active. The worker then scores every "
            "confirmed response, publishes the solution and its salt, and creates the payouts; the "
            "challenge's page shows its progress. This cannot be undone.",
        },
    }

    def get_urls(self):
        urls = super().get_urls()
        own = [
            path(
                "<path:object_id>/lifecycle/<str:step>/",
                self.admin_site.admin_view(self.lifecycle_view),
                name="challenges_challenge_lifecycle",
            ),
            path(
                "<path:object_id>/export.csv",
                self.admin_site.admin_view(self.export_view),
                name="challenges_challenge_export",
            ),
        ]
        return own + urls

    def lifecycle_view(self, request: HttpRequest, object_id: str, step: str) -> HttpResponse:
        if step not in self.LIFECYCLE:
            raise PermissionDenied
        challenge = get_object_or_404(Challenge, pk=object_id)
        if not self.has_change_permission(request, challenge):
            raise PermissionDenied
        change_url = reverse("admin:challenges_challenge_change", args=[challenge.pk])
        if request.method == "POST":
            self.run_lifecycle(request, challenge, step)
            return HttpResponseRedirect(change_url)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "object": challenge,
            "step": step,
            "step_title": self.LIFECYCLE[step]["title"],
            "explain": self.LIFECYCLE[step]["explain"],
            "change_url": change_url,
            "active": Challenge.objects.filter(status=ChallengeStatus.ACTIVE).exclude(pk=challenge.pk).first(),
            "pending": challenge.responses.filter(status="pending").count(),
            "title": f"{self.LIFECYCLE[step]['title']}: {challenge}",
        }
        return TemplateResponse(request, "admin/challenges/challenge/confirm_lifecycle.html", context)

    def run_lifecycle(self, request: HttpRequest, challenge: Challenge, step: str) -> bool:
        """Run one step; a refusal is an admin message and changes nothing."""
        try:
            if step == "publish":
                challenge = challenge_publish(challenge=challenge)
                done = "Published: it is now the active challenge."
            elif step == "close":
                challenge = challenge_close(challenge=challenge)
                done = "Closed: no new claims are accepted."
            else:
                resolution = challenge_resolve_start(challenge=challenge, user=request.user)
                done = (
                    f"Resolution started: the worker scores {resolution.total:,} confirmed response(s), then "
                    "reveals the solution and creates the payouts. Its progress is shown below."
                )
        except (ChallengeStateError, PayoutError) as exc:
            messages.error(request, f"{self.LIFECYCLE[step]['title']} refused: {exc}")
            return False
        self.log_change(request, challenge, f"{self.LIFECYCLE[step]['title']}: {done}")
        messages.success(request, done)
        return True

    def _one_selected(self, request, queryset, step: str):
        if queryset.count() != 1:
            messages.error(request, f"{self.LIFECYCLE[step]['title']}: select exactly one challenge.")
            return None
        challenge = queryset.get()
        return HttpResponseRedirect(reverse("admin:challenges_challenge_lifecycle", args=[challenge.pk, step]))

    @admin.action(description="Publish the selected challenge…")
    def publish_selected(self, request, queryset):
        return self._one_selected(request, queryset, "publish")

    @admin.action(description="Close the selected challenge…")
    def close_selected(self, request, queryset):
        return self._one_selected(request, queryset, "close")

    @admin.action(description="Resolve and reveal the selected challenge…")
    def resolve_selected(self, request, queryset):
        return self._one_selected(request, queryset, "resolve")

    @admin.action(description="Export responses and payouts (CSV)")
    def export_selected(self, request, queryset):
        if queryset.count() != 1:
            messages.error(request, "Export: select exactly one challenge.")
            return None
        return HttpResponseRedirect(reverse("admin:challenges_challenge_export", args=[queryset.get().pk]))

    # --- CSV ----------------------------------------------------------------------------------

    EXPORT_HEADER = [
        "record",
        "id",
        "challenge_id",
        "kind",
        "status",
        "reason",
        "address",
        "submission_text",
        "amount_usdc",
        "transaction_hash",
        "block_number",
        "transaction_index",
        "log_index",
        "submission_timestamp",
        "distance_m",
        "is_correct",
    ]

    def export_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        challenge = get_object_or_404(Challenge, pk=object_id)
        if not self.has_view_permission(request, challenge):
            raise PermissionDenied

        def payout_rows():
            for p in Payout.objects.filter(challenge=challenge).order_by("id"):
                yield [
                    "payout",
                    p.pk,
                    challenge.pk,
                    p.kind,
                    p.status,
                    p.failure_code,
                    p.address,
                    "",
                    p.amount,
                    p.transaction_hash,
                    p.block_number,
                    "",
                    p.log_index,
                    "",
                    "",
                    "",
                ]

        def lines():
            yield csv_line(self.EXPORT_HEADER)
            if connection.vendor == "postgresql":
                yield from copy_csv(response_export_rows(challenge=challenge))
            else:  # make run's SQLite fallback: the same rows, formatted in Python
                for row in response_export_rows(challenge=challenge).iterator(chunk_size=2000):
                    *before, distance, correct = row
                    yield csv_line([*before, None if distance is None else f"{float(distance):.2f}", correct])
            for row in payout_rows():
                yield csv_line(row)

        stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
        return csv_response(f"challenge-{challenge.pk}-{stamp}.csv", lines())


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
        count = 0
        for payout in queryset.filter(status__in=[PayoutStatus.VERIFYING, PayoutStatus.FAILED]).exclude(
            transaction_hash=""
        ):
            Payout.objects.filter(pk=payout.pk).update(status=PayoutStatus.VERIFYING)
            payout_enqueue_verification(payout=payout)
            self.log_change(request, payout, "Verification requested again.")
            count += 1
        messages.info(request, f"{count} payout(s) queued for verification.")


class PayoutInline(admin.TabularInline):
    model = Payout
    extra = 0
    can_delete = False
    show_change_link = True
    fields = ["kind", "address", "amount", "status", "transaction_hash", "verified_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


ChallengeAdmin.inlines = [PayoutInline]
