"""Conditional GET for the answers the page follows while a claim is pending (docs/decisions.md,
"Following a pending claim"): each carries an ETag, a strong validator made from the rendered
bytes, and `Cache-Control: no-cache` so the browser keeps the body and asks again with
If-None-Match every time; an unchanged answer is then a 304 with no body.

The tag hashes the body rather than a version token: it is right whatever changed the answer
(also when the cache is down and the body is built from the database), and hashing a few hundred
bytes costs microseconds."""

import hashlib

from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response


def body_etag(body: bytes) -> str:
    return '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'


def conditional_json(request: HttpRequest, body: bytes) -> HttpResponse:
    """`body` as a JSON 200 with its ETag, or a 304 when the request's If-None-Match names it."""
    etag = body_etag(body)
    response = HttpResponse(body, content_type="application/json")
    response["ETag"] = etag
    response["Cache-Control"] = "no-cache"
    conditional = get_conditional_response(request, etag=etag, response=response)
    if conditional.status_code == 304:
        conditional["Cache-Control"] = "no-cache"
    return conditional
