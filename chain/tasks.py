"""Celery tasks of the chain app. verify_response is a named placeholder until the
payment-verification issue lands: it never marks a claim confirmed."""

import logging

from celery import shared_task

logger = logging.getLogger(__name__)


@shared_task(name="chain.verify_response", acks_late=True)
def verify_response(response_id: int) -> None:
    logger.info("verification of response %s is not implemented yet; it stays pending", response_id)
