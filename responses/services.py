"""Writes to responses: storing a player's claim. A claim starts `pending`; only the chain
verification (chain app) moves it to `confirmed` or `rejected`."""

from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction

from challenges.commitments import guess_commitment
from challenges.models import Challenge, ChallengeStatus

from .coordinates import parse_coordinates
from .models import Response


class ChallengeNotFound(Exception):
    pass


class ChallengeNotOpen(Exception):
    pass


class TransactionAlreadyUsed(Exception):
    pass


@dataclass(frozen=True)
class ClaimResult:
    response: Response
    created: bool


def _enqueue_verification(response_id: int) -> None:
    from chain.tasks import verify_response

    try:
        verify_response.delay(response_id)
    except Exception:  # noqa: BLE001 - the broker being down must not lose the claim
        # The claim is committed; the sweeper re-queues stale pending claims once the broker is back.
        import logging

        logging.getLogger(__name__).warning("could not enqueue verification of response %s", response_id)


def response_create(
    *,
    challenge_id: int,
    submission_text: str,
    submission_stake: Decimal,
    transaction_hash: str,
    submitter_address: str,
    submission_salt: str,
) -> ClaimResult:
    """Store a pending claim and queue its verification once the row is committed.

    The transaction hash is unique: re-posting the very same claim (a retry after a lost answer)
    returns the stored one; any other claim on a used hash is refused."""
    coordinates = parse_coordinates(submission_text)
    transaction_hash = transaction_hash.lower()
    challenge = Challenge.objects.filter(pk=challenge_id).first()
    if challenge is None:
        raise ChallengeNotFound
    existing = Response.objects.filter(transaction_hash=transaction_hash).first()
    if existing is not None:
        return _replay_or_refuse(
            existing, challenge_id, coordinates.text, submission_stake, submitter_address, submission_salt
        )
    if challenge.status != ChallengeStatus.ACTIVE:
        raise ChallengeNotOpen
    try:
        with transaction.atomic():
            response = Response.objects.create(
                challenge=challenge,
                submission_text=coordinates.text,
                submission_lat=coordinates.lat,
                submission_lon=coordinates.lon,
                submission_salt=submission_salt,
                commitment=guess_commitment(
                    chain_id=settings.CHAIN_ID,
                    challenge_id=challenge.pk,
                    submitter_address=submitter_address,
                    text=coordinates.text,
                    salt=submission_salt,
                ),
                submission_stake=submission_stake,
                transaction_hash=transaction_hash,
                submitter_address=submitter_address,
            )
            transaction.on_commit(lambda: _enqueue_verification(response.pk))
    except IntegrityError:
        existing = Response.objects.filter(transaction_hash=transaction_hash).first()
        if existing is None:
            raise
        return _replay_or_refuse(
            existing, challenge_id, coordinates.text, submission_stake, submitter_address, submission_salt
        )
    return ClaimResult(response=response, created=True)


def _replay_or_refuse(
    existing: Response, challenge_id: int, text: str, stake: Decimal, address: str, salt: str
) -> ClaimResult:
    same = (
        existing.challenge_id == challenge_id
        and existing.submission_text == text
        and existing.submission_stake == stake
        and existing.submitter_address == address
        and existing.submission_salt == salt
    )
    if not same:
        raise TransactionAlreadyUsed
    return ClaimResult(response=existing, created=False)
