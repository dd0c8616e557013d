"""One log line per request, with the client as config/client_ip.py resolves it (behind the router
gunicorn's access log would only ever show the router's address)."""

import logging
import time

from django.http import HttpRequest, HttpResponse

from config.client_ip import client_ip

logger = logging.getLogger("geopoem.request")


class RequestLogMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.monotonic()
        response = self.get_response(request)
        logger.info(
            "%s %s %s %.0fms client=%s",
            request.method,
            request.path,
            response.status_code,
            (time.monotonic() - started) * 1000,
            client_ip(request),
        )
        return response
