"""The staff workflow on a challenge: author a poem and its terms, publish (the worker opens it in the
pot), and retry an opening that failed. Everything after is the pot's and the worker's: the close is
a term, the solution is revealed by the worker after it, and the pot pays (docs/protocol.md section
2). Lifecycle steps are buttons on a challenge's page (and changelist actions) that open a confirmation
page; each runs a service (challenges/services.py), so the admin can do nothing the rules forbid, and
is written to the admin log. Once published, the terms are read-only, and a posted change to them is
refused as a whole."""

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse

from challenges.models import Challenge, OpeningStatus
from challenges.services import ChallengeStateError, challenge_publish, challenge_save, opening_retry

from .challenge_display import ChallengeDisplayMixin
from .challenge_export import ChallengeExportMixin
from .challenge_form import LOCKED_FIELDS, LOCKED_MESSAGE, ChallengeForm

# Shown on a saved challenge, below what staff write, and never editable.
SHOWN_FIELDS = (
    "blanket_display",
    "solution_sha256",
    "salt_display",
    "phase_display",
    "opens_at",
    "opening_display",
    "winners_display",
    "preview",
)


@admin.register(Challenge)
class ChallengeAdmin(ChallengeDisplayMixin, ChallengeExportMixin, admin.ModelAdmin):
    form = ChallengeForm
    change_form_template = "admin/challenges/challenge/change_form.html"
    list_display = ["id", "poem_title", "status", "threshold_display", "opens_at", "closes_at", "opening_column"]
    list_display_links = ["id", "poem_title"]
    list_filter = ["status"]
    search_fields = ["poem_title"]
    actions = ["publish_selected", "retry_opening_selected", "export_selected"]
    list_select_related = ["opening", "pot"]

    # --- Fields --------------------------------------------------------------------------------

    def get_fields(self, request, obj=None):
        authored = list(ChallengeForm.Meta.fields)  # what staff write, the solution put in below
        if obj is None or not obj.is_published:
            authored.insert(4, "solution_input")
        else:
            authored.insert(4, "solution")
        if obj is None:
            return authored
        return [*authored, *SHOWN_FIELDS]

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.is_published:
            return [*LOCKED_FIELDS, *SHOWN_FIELDS]
        return list(SHOWN_FIELDS)

    def get_changeform_initial_data(self, request: HttpRequest) -> dict:
        # A new challenge starts from the operator's terms (as challenge_create does), not the model's
        # defaults: the guess window and the bond the deployment configured.
        return {
            "guess_window_seconds": settings.POT_GUESS_WINDOW_SECONDS,
            "bond": settings.POT_BOND_USDC,
            **super().get_changeform_initial_data(request),
        }

    def has_delete_permission(self, request, obj=None) -> bool:
        # A published challenge has public history (and maybe stakes): it is never deleted.
        if obj is not None and obj.is_published:
            return False
        return super().has_delete_permission(request, obj)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, object_id)
        opening = getattr(obj, "opening", None) if obj is not None else None
        extra_context = {
            **(extra_context or {}),
            "opening_retryable": opening is not None and opening.status == OpeningStatus.FAILED,
        }
        return super().change_view(request, object_id, form_url, extra_context)

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
            "explain": "The worker opens the challenge in the pot with its terms: the solution commitment, the "
            "poem, instructions and threshold, the close, the solution deadline, the guess window, the minimum "
            "stake and the bond. Players can stake once the open is on chain, a block or two later. From then "
            "on nobody, staff and the operator included, can change any of them.",
        },
        "retry_opening": {
            "title": "Retry opening",
            "explain": "The worker sends the pot's open again, with the same terms. If the pot already holds "
            "other terms for this challenge id, the first open wins and this challenge cannot take stakes.",
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
            "title": f"{self.LIFECYCLE[step]['title']}: {challenge}",
        }
        return TemplateResponse(request, "admin/challenges/challenge/confirm_lifecycle.html", context)

    def run_lifecycle(self, request: HttpRequest, challenge: Challenge, step: str) -> bool:
        """Run one step; a refusal is an admin message and changes nothing."""
        try:
            if step == "publish":
                challenge = challenge_publish(challenge=challenge)
                done = "Published: the worker opens it in the pot; players can stake once the open is on chain."
            else:
                opening_retry(challenge=challenge)
                done = "Opening queued again: the worker sends it; players can stake once it is on chain."
        except ChallengeStateError as exc:
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

    @admin.action(description="Retry the opening of the selected challenge…")
    def retry_opening_selected(self, request, queryset):
        return self._one_selected(request, queryset, "retry_opening")
