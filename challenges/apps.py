from django.apps import AppConfig


class ChallengesConfig(AppConfig):
    name = "challenges"
    verbose_name = "Challenges"

    def ready(self) -> None:
        # The writers that do not mark the public answers stale themselves yet (challenges/cache.py says which).
        from . import cache  # noqa: F401
