"""One JSON error shape for every API rejection: {"message": "<one sentence>", "errors": {...}}."""

from typing import Any

from django.core.exceptions import RequestDataTooBig
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.settings import api_settings


class ApiError(exceptions.APIException):
    """A domain rejection with its status, sentence and per-field details."""

    def __init__(
        self, message: str, *, status_code: int = 400, errors: dict[str, list[str]] | None = None, code: str = ""
    ):
        super().__init__(detail=message)
        self.status_code = status_code
        self.message = message
        self.errors = errors or {}
        self.reason_code = code  # a machine-readable reason, sent as "code" when set


_SENTENCES = {
    status.HTTP_400_BAD_REQUEST: "The request is not valid.",
    status.HTTP_403_FORBIDDEN: "The request was refused.",
    status.HTTP_404_NOT_FOUND: "Not found.",
    status.HTTP_405_METHOD_NOT_ALLOWED: "That method is not allowed here.",
    status.HTTP_415_UNSUPPORTED_MEDIA_TYPE: "The request body must be JSON sent as application/json.",
}


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """Field errors as {field: [sentences]}; a nested object's fields as "object.field" (a signed
    stake's `authorization.signature`), and its own errors under the object's name."""
    if not isinstance(detail, dict):
        return {}
    flat: dict[str, list[str]] = {}
    for field, value in detail.items():
        name = prefix.rstrip(".") if str(field) == api_settings.NON_FIELD_ERRORS_KEY and prefix else prefix + str(field)
        if isinstance(value, dict):
            flat.update(_flatten(value, prefix=name + "."))
        else:
            flat.setdefault(name, []).extend(str(item) for item in (value if isinstance(value, list) else [value]))
    return flat


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, RequestDataTooBig):
        return Response({"message": "The request body is too large.", "errors": {}}, status=413)
    # Imported here: rest_framework.views imports the default parser (responses/parsers.py), which
    # raises ApiError from this module.
    from rest_framework.views import exception_handler

    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ApiError):
        body = {"message": exc.message, "errors": exc.errors}
        if exc.reason_code:
            body["code"] = exc.reason_code
    elif isinstance(exc, exceptions.ValidationError):
        errors = _flatten(exc.detail)
        first = next((messages[0] for messages in errors.values() if messages), None)
        body = {"message": first or _SENTENCES[400], "errors": errors}
    elif isinstance(exc, exceptions.Throttled):
        body = {"message": "Too many submissions from this client; please wait a minute and try again.", "errors": {}}
    elif isinstance(exc, exceptions.ParseError):
        body = {"message": "The request body is not valid JSON.", "errors": {}}
    else:
        detail = getattr(exc, "detail", None)
        message = str(detail) if isinstance(detail, str) else _SENTENCES.get(response.status_code, "Request failed.")
        body = {"message": message, "errors": {}}
    response.data = body
    return response
