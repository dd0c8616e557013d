from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie

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
