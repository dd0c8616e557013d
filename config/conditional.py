"""Conditional GET for the answers the page follows while a claim is pending (docs/decisions.md,
"Following a pending claim"): each carries an ETag, a strong validator made from the rendered
bytes, and `Cache-Control: no-cache` (the public challenge answers: `public, max-age=0,
must-revalidate, s-maxage=1`, the same for a browser) so the browser keeps the body and asks again
with If-None-Match every time; an unchanged answer is then a 304 with no body.

The tag hashes the body rather than a version token: it is right whatever changed the answer
(also when the cache is down and the body is built from the database), and hashing a few hundred
bytes costs microseconds."""

import hashlib

from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response

_PRECONDITIONS = ("HTTP_IF_NONE_MATCH", "HTTP_IF_MATCH", "HTTP_IF_MODIFIED_SINCE", "HTTP_IF_UNMODIFIED_SINCE")


def body_etag(body: bytes) -> str:
    return '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'


def conditional_json(
    request: HttpRequest, body: bytes, cache_control: str = "no-cache", etag: str | None = None
) -> HttpResponse:
    """`body` as a JSON 200 with its ETag, or a 304 when the request's If-None-Match names it.
    `cache_control` is the same on both; the public challenge answers pass one a CDN may honour
    (config/public_cache.py, PUBLIC_CACHE_CONTROL). `etag`, when given, is `body_etag(body)` computed
    before (the public answers' copy keeps it with the body)."""
    etag = etag or body_etag(body)
    response = HttpResponse(body, content_type="application/json")
    response["ETag"] = etag
    response["Cache-Control"] = cache_control
    if not any(header in request.META for header in _PRECONDITIONS):
        return response  # no precondition: what get_conditional_response would return, without parsing
    conditional = get_conditional_response(request, etag=etag, response=response)
    if conditional is None:  # only when no response is passed in; narrows the type
        return response
    if conditional.status_code == 304:
        conditional["Cache-Control"] = cache_control
    return conditional
