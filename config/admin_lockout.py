"""django-axes' lockout answer (AXES_LOCKOUT_CALLABLE). Axes' own answers an XHR with JSON that
carries the user name tried and `Access-Control-Allow-Origin: *`; this one tells only what the
locked-out client needs to know: that it is locked out and for how long. The lockout counts the
address and the user name each alone (AXES_LOCKOUT_PARAMETERS), and a name that is no account is
counted like one, so the same words answer both: no user name, nothing that tells whether the name
exists or which count ran out, no CORS header, for a form post and an XHR alike."""

# axes.conf is Django's settings with axes' defaults filled in (AXES_HTTP_RESPONSE_CODE among them).
from axes.conf import settings
from axes.helpers import get_cool_off
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render


def lockout_message(request: HttpRequest) -> str:
    cool_off = get_cool_off(request)
    minutes = max(1, round(cool_off.total_seconds() / 60)) if cool_off else None
    wait = f" Try again in {minutes} minute{'s' if minutes != 1 else ''}." if minutes else ""
    return f"Too many failed sign-in attempts.{wait}"


def lockout_response(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    status = settings.AXES_HTTP_RESPONSE_CODE
    message = lockout_message(request)
    if request.headers.get("X-Requested-With") == "XMLHttpRequest" or "application/json" in request.headers.get(
        "Accept", ""
    ):
        return JsonResponse({"message": message, "errors": {}}, status=status)
    return render(request, "admin/lockout.html", {"lockout_message": message}, status=status)
