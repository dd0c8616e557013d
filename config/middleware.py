from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from .bodies import charset_problem, declared_charset


class ApiBodySizeLimitMiddleware:
    """Refuse API bodies over API_MAX_BODY_BYTES with 413 before anything reads them.
    A body without a Content-Length (chunked) is refused too: the API never needs one."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/") and request.method in ("POST", "PUT", "PATCH"):
            limit = settings.API_MAX_BODY_BYTES
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = limit + 1
            chunked = "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
            if length > limit or chunked:
                return JsonResponse(
                    {"message": f"The request body is larger than {limit // 1024} KiB.", "errors": {}},
                    status=413,
                )
        return self.get_response(request)


class ApiBodyCharsetMiddleware:
    """Refuse an API body declared in a charset other than UTF-8 with 415, before anything reads it
    (config/bodies.py). Django's own form parsing (the CSRF check reads request.POST) answered such
    a body with a bare 400 page; JSON in latin-1 or UTF-16 was read as garbage."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/") and request.method in ("POST", "PUT", "PATCH", "DELETE"):
            problem = charset_problem(declared_charset(request.META.get("CONTENT_TYPE", "")))
            if problem:
                return JsonResponse({"message": problem, "errors": {}}, status=415)
        return self.get_response(request)
