"""The Challenge admin's form: authoring a poem with sanitised HTML and a canonical solution."""

from django import forms

from challenges.coordinates import COORDINATES_MESSAGE, CoordinateError, canonical_coordinates
from challenges.models import Challenge, ChallengeResolution, ResolutionStatus
from challenges.sanitize import ALLOWED_TAGS, sanitize_with_report

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
