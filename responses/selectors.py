from django.db.models import QuerySet

from challenges.models import ChallengeStatus
from challenges.selectors import responses_with_scores

from .models import Response, ResponseStatus


def response_list_public(*, challenge_id: int | None = None, after_id: int = 0) -> QuerySet[Response]:
    """Confirmed responses of resolved challenges only: nothing of an open challenge is public."""
    responses = Response.objects.filter(
        status=ResponseStatus.CONFIRMED, challenge__status=ChallengeStatus.RESOLVED, id__gt=after_id
    )
    if challenge_id is not None:
        responses = responses.filter(challenge_id=challenge_id)
    # Distance and correctness are computed for the page's rows only (LIMIT applies first).
    return responses_with_scores(responses.select_related("challenge")).order_by("id")


def response_list_by_address(
    *, address: str, challenge_id: int | None = None, before_id: int | None = None
) -> QuerySet[Response]:
    """Every claim naming `address` as its payer, any status, newest first (My submissions on
    another device). Claims the verification found are not the payer's (another sender, or a guess
    the payment did not commit to: a stranger writing the address into a claim) are left out, so
    nobody can put claims into someone else's list. The serializer hides coordinates until the
    challenge is resolved."""
    from chain.services import NOT_THE_PAYERS_CLAIM  # chain imports responses: import on use

    claims = Response.objects.filter(submitter_address__iexact=address).exclude(
        status=ResponseStatus.REJECTED, rejection_code__in=NOT_THE_PAYERS_CLAIM
    )
    if challenge_id is not None:
        claims = claims.filter(challenge_id=challenge_id)
    if before_id is not None:
        claims = claims.filter(id__lt=before_id)
    return claims.select_related("challenge").order_by("-id")


def response_get_by_hash(*, transaction_hash: str, commitment: str | None = None) -> Response | None:
    """The claim a player asks about. With its commitment (the page computes it from the guess it
    kept): that claim, whatever its status. Without (links made before several claims could name a
    hash): the confirmed claim; else the only claim; else None, since which of several waiting
    claims is the asker's cannot be told."""
    claims = Response.objects.select_related("challenge").filter(transaction_hash=transaction_hash.lower())
    if commitment is not None:
        return claims.filter(commitment=commitment.lower()).first()
    confirmed = claims.filter(status=ResponseStatus.CONFIRMED).first()
    if confirmed is not None:
        return confirmed
    first_two = list(claims.order_by("id")[:2])
    return first_two[0] if len(first_two) == 1 else None
