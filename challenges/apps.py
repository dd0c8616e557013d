from django.apps import AppConfig


class ChallengesConfig(AppConfig):
    name = "challenges"
    verbose_name = "Challenges"

    def ready(self) -> None:
        # Connects the signals that invalidate the cached public answers (challenges/cache.py).
        from . import cache  # noqa: F401
