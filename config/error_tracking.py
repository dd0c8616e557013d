"""Errors of the web process and the worker sent to an error tracker when the operator configures one:
Sentry's SDK, the field's default, when SENTRY_DSN is set, and nothing at all without it. Every event
passes through the log redaction first (config/log_redaction.py): a salt, a key or a signature in an
exception's message or a local variable is masked before it leaves the process, as it is in the logs.
No request bodies are sent, and no cookies or user data (the SDK's default)."""

from __future__ import annotations

from typing import Any

from .log_redaction import redact


def redact_event(event: Any, hint: dict | None = None) -> Any:
    """Every string of a Sentry event (messages, exception values, frames' local variables,
    breadcrumbs), redacted; the event's shape is kept."""
    if isinstance(event, str):
        return redact(event)
    if isinstance(event, dict):
        return {key: redact_event(value) for key, value in event.items()}
    if isinstance(event, list | tuple):
        return [redact_event(value) for value in event]
    return event


def error_tracking_init(dsn: str, *, environment: str, transport: Any = None) -> bool:
    """Start the SDK for this process when `dsn` is set; returns whether it did. Django's and
    Celery's integrations report unhandled errors of views and tasks."""
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    options: dict[str, Any] = {}
    if transport is not None:
        options["transport"] = transport
    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        max_request_body_size="never",
        traces_sample_rate=0,
        before_send=redact_event,
        before_breadcrumb=redact_event,
        **options,
    )
    return True
