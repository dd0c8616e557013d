from django.middleware.csrf import CsrfViewMiddleware
from rest_framework.permissions import BasePermission


class CsrfProtected(BasePermission):
    """Enforce Django's CSRF check on an anonymous API write. DRF skips CSRF for requests without
    session authentication; this API has no logins but must still refuse cross-site posts."""

    message = "CSRF check failed: send the csrftoken cookie's value in the X-CSRFToken header."

    def has_permission(self, request, view) -> bool:
        check = CsrfViewMiddleware(lambda req: None)
        check.process_request(request._request)
        return check.process_view(request._request, None, (), {}) is None
