from django.db.models import QuerySet

from challenges.models import ChallengeStatus

from .models import Response, ResponseStatus


def response_list_public(*, challenge_id: int | None = None, after_id: int = 0) -> QuerySet[Response]:
    """Confirmed responses of resolved challenges only: nothing of an open challenge is public."""
    responses = Response.objects.filter(
        status=ResponseStatus.CONFIRMED, challenge__status=ChallengeStatus.RESOLVED, id__gt=after_id
    )
    if challenge_id is not None:
        responses = responses.filter(challenge_id=challenge_id)
    return responses.select_related("challenge").order_by("id")


def response_get_by_hash(*, transaction_hash: str) -> Response | None:
    return Response.objects.select_related("challenge").filter(transaction_hash=transaction_hash.lower()).first()
