"""A change of a claim makes the cached public challenge answers stale (challenges/cache.py says
how). Connected in responses/apps.py."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from challenges.cache import invalidate_public_challenge_cache

from .models import Response, ResponseStatus


@receiver(post_save, sender=Response, dispatch_uid="responses.signals.response_saved")
def _response_saved(sender, instance: Response, created: bool, **kwargs) -> None:
    # A new claim is `pending` (invisible) unless something records it already confirmed.
    if not created or instance.status != ResponseStatus.PENDING:
        invalidate_public_challenge_cache()


@receiver(post_delete, sender=Response, dispatch_uid="responses.signals.response_deleted")
def _response_deleted(sender, **kwargs) -> None:
    invalidate_public_challenge_cache()
