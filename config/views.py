from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_safe

from .public_config import public_config


@ensure_csrf_cookie
def index(request: HttpRequest) -> HttpResponse:
    """The single page. It sets the CSRF cookie the page sends back in X-CSRFToken."""
    return render(request, "index.html", {"public_config": public_config()})


@ensure_csrf_cookie
def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Any other path: the same page with status 404 (the front end shows "404 Page Not Found");
    an unknown /api/ path gets the API's JSON error instead."""
    if request.path.startswith("/api/"):
        return JsonResponse({"message": "Not found.", "errors": {}}, status=404)
    return render(request, "index.html", {"public_config": public_config()}, status=404)


@require_safe
def verify_challenge_script(request: HttpRequest) -> HttpResponse:
    """The outcome verifier (verify_challenge.py at the repository's top level, standard library
    only) as a download, the very file the tests run: players re-check a challenge without
    installing the project (docs/protocol.md section 5)."""
    script = (settings.BASE_DIR / "verify_challenge.py").read_bytes()
    response = HttpResponse(script, content_type="text/x-python; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="verify_challenge.py"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's own 400 (a body its form parser refuses, a bad Host): JSON in the API's error shape
    under /api/, Django's plain page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"message": "The request is not valid.", "errors": {}}, status=400)
    from django.views.defaults import bad_request as django_bad_request

    return django_bad_request(request, exception)
