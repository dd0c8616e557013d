"""The staff workflow on a challenge: author a poem, publish, close, resolve and reveal.

Lifecycle steps are buttons on a challenge's page (and changelist actions) that open a
confirmation page; the step itself runs a service (challenges/services.py, responses/resolution.py),
so the admin can do nothing the rules forbid. Every step is written to the admin log (who and when,
on the History page). Once a challenge is published, the commitment players saw (poem, threshold,
solution, salt) is read-only, and a posted change to it is refused as a whole. Paying the winners:
challenges/admin/payout.py."""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse

from challenges.admin.payout import PayoutInline
from challenges.models import Challenge, ChallengeResolution, ChallengeStatus, ResolutionStatus
from challenges.payouts import PayoutError
from challenges.selectors import challenge_resolution
from challenges.services import (
    ChallengeStateError,
    anchor_retry,
    anchor_retryable,
    challenge_close,
    challenge_publish,
    challenge_save,
)
from responses.barrier import grace_text, resolution_opens_at, utc_text
from responses.resolution import challenge_resolve_start

from .challenge_barrier import ChallengeBarrierMixin, before_resolving
from .challenge_display import ChallengeDisplayMixin
from .challenge_export import ChallengeExportMixin
from .challenge_form import LOCKED_FIELDS, LOCKED_MESSAGE, RESOLVING_REFRESH_SECONDS, ChallengeForm

# Shown on a saved challenge, below what staff write, and never editable: the commitment, the
# state, the anchor, the sums, the winners and the page's preview.
SHOWN_FIELDS = (
    "solution_sha256",
    "salt_display",
    "status_display",
    "start_timestamp",
    "anchor_display",
    "closed_at",
    "resolved_at",
    "staked_sum",
    "response_count",
    "before_resolving_display",
    "winners_display",
    "exceptions_display",
    "preview",
)


@admin.register(Challenge)
class ChallengeAdmin(ChallengeDisplayMixin, ChallengeBarrierMixin, ChallengeExportMixin, admin.ModelAdmin):
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
        "anchor_column",
        "resolved_at",
        "is_demo",
    ]
    list_display_links = ["id", "poem_title"]
    list_filter = ["status", "is_demo"]
    search_fields = ["poem_title"]
    actions = ["publish_selected", "retry_anchor_selected", "close_selected", "resolve_selected", "export_selected"]
    list_select_related = ["resolution", "anchor"]
    change_list_template = "admin/challenges/challenge/change_list.html"
    inlines = [PayoutInline]

    # --- Fields --------------------------------------------------------------------------------

    def get_fields(self, request, obj=None):
        authored = ["poem_title", "poem_text", "instructions_text", "proximity_threshold_m", "is_demo"]
        if obj is None or not obj.is_published:
            authored.insert(4, "solution_input")
        else:
            authored.insert(4, "solution")
        if obj is None:
            return authored
        return [*authored, *SHOWN_FIELDS]

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.is_published:
            return [*LOCKED_FIELDS, "is_demo", *SHOWN_FIELDS]
        return list(SHOWN_FIELDS)

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
            "anchor_retryable": obj is not None and anchor_retryable(challenge=obj),
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
        # The service writes the row and, when a solution was typed, its salt and commitment.
        challenge_save(challenge=obj, solution=form.cleaned_data.get("solution_input") or "")
        for label, removed in form.removed.items():
            messages.warning(request, f"Removed from the {label} (not allowed): {', '.join(removed)}.")

    def construct_change_message(self, request, form, formsets, add=False):
        message = super().construct_change_message(request, form, formsets, add)
        if form.cleaned_data.get("solution_input") and (add or "solution_input" in form.changed_data):
            message.append({"changed": {"fields": ["Solution (new salt and commitment)"]}})
        return message

    # --- Lifecycle ----------------------------------------------------------------------------

    LIFECYCLE = {
        "publish": {
            "title": "Publish",
            "explain": "The challenge becomes the active one, and the worker anchors its terms on chain "
            "(its solution commitment, poem, instructions, threshold and opening time). Players see the poem "
            "and can stake on it once the anchor is confirmed, a block or two later; a demonstration challenge "
            "opens at once, without an anchor. Its poem, threshold and solution commitment can no longer change.",
        },
        "retry_anchor": {
            "title": "Retry anchor",
            "explain": "The worker anchors the challenge's terms on chain again, in the registry now configured "
            "(ANCHOR_REGISTRY_ADDRESS). It first looks for an anchor of this challenge already there: one with the "
            "same terms is adopted, one with other terms is shown as the error. The challenge accepts claims once "
            "the anchor is confirmed.",
        },
        "close": {
            "title": "Close",
            "explain": "Payments mined after this moment are rejected as late. Claims for payments mined "
            "before it are still accepted until resolution starts, which can be {grace} after the close "
            "(CHALLENGE_CLOSE_GRACE_SECONDS) once the ledger has read past it.",
        },
        "resolve": {
            "title": "Resolve and reveal",
            "explain": "The worker scores every confirmed response, publishes the solution and its salt, and "
            "creates the payouts; the challenge's page shows its progress. From now on nothing changes the "
            "pot: a claim confirmed later, or a payment whose block leaves the chain, is recorded as an "
            "exception for staff and in the published outcome. This cannot be undone.",
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
            "explain": self.LIFECYCLE[step]["explain"].format(grace=grace_text()),
            # Before resolving: the waits, and the payments of the open window without a claim.
            "before_resolving": before_resolving(challenge) if step == "resolve" else "",
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
                done = (
                    "Published: it is now the active challenge. Players see it and can stake once the worker "
                    "has anchored its terms on chain (shown below)."
                    if not challenge.is_demo
                    else "Published: it is now the active challenge."
                )
            elif step == "retry_anchor":
                anchor_retry(challenge=challenge)
                done = "Anchor queued again: the worker sends it and the challenge opens once it is confirmed."
            elif step == "close":
                challenge = challenge_close(challenge=challenge)
                opens_at = resolution_opens_at(challenge=challenge)
                done = (
                    "Closed: payments mined from now on are rejected as late; claims for earlier payments are "
                    "still accepted." + (f" Resolution can start from {utc_text(opens_at)}." if opens_at else "")
                )
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

    @admin.action(description="Retry the anchor of the selected challenge…")
    def retry_anchor_selected(self, request, queryset):
        return self._one_selected(request, queryset, "retry_anchor")

    @admin.action(description="Close the selected challenge…")
    def close_selected(self, request, queryset):
        return self._one_selected(request, queryset, "close")

    @admin.action(description="Resolve and reveal the selected challenge…")
    def resolve_selected(self, request, queryset):
        return self._one_selected(request, queryset, "resolve")
