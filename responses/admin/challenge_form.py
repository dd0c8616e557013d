"""The Challenge admin's form: authoring a poem with sanitised HTML, a canonical solution, and the terms
staff choose (the close, the minimum stake, the guess window); the pot's bounds are checked at
publish (challenges/terms.py)."""

from django import forms

from challenges.coordinates import COORDINATES_MESSAGE, CoordinateError, canonical_coordinates
from challenges.models import Challenge
from challenges.sanitize import ALLOWED_TAGS, sanitize_with_report

# The terms players staked on: frozen once a challenge is published (the pot holds them for good).
LOCKED_FIELDS = (
    "poem_title",
    "poem_text",
    "instructions_text",
    "proximity_threshold_m",
    "solution",
    "min_stake",
    "bond",
    "closes_at",
    "solution_deadline",
    "guess_window_seconds",
)
LOCKED_MESSAGE = (
    "This challenge is published: its terms (title, poem, instructions, threshold, solution, minimum stake, "
    "bond, close and deadlines) are in the pot and can no longer change. Nothing was saved."
)
HTML_HELP = (
    # Plain words: Django renders help texts as HTML.
    "HTML. Allowed tags: "
    + ", ".join(sorted(ALLOWED_TAGS))
    + "; links (a href, title) to http, https and mailto only, given rel=noopener noreferrer. "
    "Anything else is removed on save, and you are told what."
)


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
        fields = [
            "poem_title",
            "poem_text",
            "instructions_text",
            "proximity_threshold_m",
            "min_stake",
            "closes_at",
            "solution_deadline",
            "guess_window_seconds",
            "bond",
        ]
        widgets = {
            "poem_text": forms.Textarea(attrs={"rows": 12, "cols": 80}),
            "instructions_text": forms.Textarea(attrs={"rows": 6, "cols": 80}),
        }
        help_texts = {
            "poem_text": HTML_HELP,
            "instructions_text": HTML_HELP,
            "min_stake": "USDC; at least 1.00.",
            "closes_at": "When the pot stops taking stakes (at most 90 days after publishing). Empty: the default "
            "(POT_DEFAULT_OPEN_SECONDS after publishing).",
            "solution_deadline": "The worker reveals the solution right after the close; if it is not revealed by "
            "this time, every stake is refunded with the bond. Empty: the default (POT_SOLUTION_DELAY_SECONDS "
            "after the close).",
            "guess_window_seconds": "After the solution's reveal, how long anyone may reveal a guess (1 hour to "
            "30 days). Players whose winning guess Geopoem does not hold reveal it themselves in this window.",
            "bond": "USDC the operator posts at open; the payers get it if the solution is never revealed. "
            "The operator key must hold it.",
        }

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
