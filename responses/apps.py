from django.apps import AppConfig


class ResponsesConfig(AppConfig):
    name = "responses"
    verbose_name = "Responses"

    def ready(self) -> None:
        # Connects the signals that invalidate the cached public answers (responses/signals.py).
        from . import signals  # noqa: F401
