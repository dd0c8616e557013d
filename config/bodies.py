"""What the server accepts as a request body's charset, checked before anything decodes the body.

JSON is UTF-8 (RFC 8259) and the page sends nothing else, so a body declared in another charset is
refused with 415 and a sentence naming it. The WSGI wrapper exists because Django builds its request
object by decoding the query string in the declared charset: "charset=rot13" (a codec Python can
look up that is not a text encoding, like hex, base64 or zlib) raised LookupError there, before any
middleware or exception handler ran, and the server answered a bare 500 on every path; so did
"charset=undefined" (a registered text codec that raises UnicodeError on any use)."""

import codecs
import json
from collections.abc import Callable, Iterable

# utf-8 and its aliases (utf8, UTF-8, ...), and ASCII, which is a subset of it.
ACCEPTED_CHARSETS = frozenset({"utf-8", "ascii"})


def declared_charset(content_type: str) -> str | None:
    """The charset parameter of a Content-Type header as sent, or None when there is none."""
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip('"')
    return None


def charset_problem(charset: str | None) -> str | None:
    """Why a body declared in this charset cannot be read as JSON, or None when it can."""
    if charset is None:
        return None
    try:
        name = codecs.lookup(charset).name
    except (LookupError, ValueError, TypeError):
        name = None
    if name not in ACCEPTED_CHARSETS:
        return f'The request body must be JSON encoded as UTF-8; the charset "{charset[:40]}" is not supported.'
    return None


def _is_text_codec(charset: str) -> bool:
    """Whether Django can decode a query string in this charset: a text encoding that decodes plain
    ASCII ("undefined" is registered as a text encoding but raises on any use)."""
    try:
        info = codecs.lookup(charset)
    except (LookupError, ValueError, TypeError):
        return True  # Django ignores a charset it cannot look up
    if not info._is_text_encoding:
        return False
    try:
        info.decode(b"a=1")
    except Exception:  # noqa: BLE001 - any failure means Django would fail the same way
        return False
    return True


def refuse_undecodable_charsets(application: Callable) -> Callable:
    """A WSGI wrapper answering 415 for a Content-Type whose charset is a codec but not a text
    encoding (Django would raise LookupError building the request). Under /api/ the answer is the
    API's JSON error shape; elsewhere a plain sentence."""

    def guarded(environ: dict, start_response: Callable) -> Iterable[bytes]:
        charset = declared_charset(environ.get("CONTENT_TYPE", ""))
        if charset is None or _is_text_codec(charset):
            return application(environ, start_response)
        message = charset_problem(charset) or ""
        if environ.get("PATH_INFO", "").startswith("/api/"):
            body, content_type = json.dumps({"message": message, "errors": {}}).encode(), "application/json"
        else:
            body, content_type = message.encode(), "text/plain; charset=utf-8"
        start_response(
            "415 Unsupported Media Type",
            [("Content-Type", content_type), ("Content-Length", str(len(body))), ("X-Content-Type-Options", "nosniff")],
        )
        return [body]

    return guarded
