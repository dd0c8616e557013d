"""The local game of `make run`: one challenge, published as staff would publish it, so the worker
opens it in the local pot and players stake real test USDC on it. Nothing is made up: the Resolved
tab and the Winners' Circle fill as the game goes on (README, "Play locally"; `scripts/devchain.py
warp` moves the local chain's clock past the close and the guess window). Idempotent: with any
published challenge there, it creates nothing."""

from django.core.management.base import BaseCommand

from challenges.models import Challenge, ChallengeStatus
from challenges.services import ChallengeStateError, challenge_create_published

INSTRUCTIONS = (
    "<p>Find the place this poem describes and enter its latitude and longitude.</p>"
    "<p>A guess within the proximity threshold of the hidden solution is correct.</p>"
)
TITLE = "The Torch on the Tide"
POEM = (
    "<p>A copper woman, gone green with the weather,<br>"
    "keeps her lamp lit for the ones who came by sea.<br>"
    "Seven points on her crown for seven waters,<br>"
    "a tablet dated in the numerals of Rome.</p>"
    "<p>She stands on a star that was once a fort,<br>"
    "on an island that bears her name.</p>"
)


class Command(BaseCommand):
    help = "Publish the local game's challenge (opened in the local pot by the worker). Idempotent."

    def handle(self, *args, **options) -> None:
        if Challenge.objects.filter(status=ChallengeStatus.PUBLISHED).exists():
            self.stdout.write("seed_demo: a published challenge is there already; nothing created")
            return
        try:
            challenge = challenge_create_published(
                poem_title=TITLE,
                poem_text=POEM,
                instructions_text=INSTRUCTIONS,
                proximity_threshold_m=250,
                solution="40.689247, -74.044502",
            )
        except ChallengeStateError as exc:
            self.stdout.write(f"seed_demo: not published: {exc}")
            return
        self.stdout.write(f"seed_demo: published '{TITLE}' (#{challenge.pk}); the worker opens it in the pot")
