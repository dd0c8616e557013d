from django.http import HttpRequest, JsonResponse

# A constant body of about the size of the active-challenge answer, so the floor pays the same
# bytes on the wire; what it skips is DRF, the cache look-up and serialisation.
FLOOR_BODY = {"floor": True, "padding": "x" * 600}


def floor(request: HttpRequest) -> JsonResponse:
    """The cheapest JSON answer this server can give: the same middleware, no work."""
    return JsonResponse(FLOOR_BODY)
