"""Transitional, to be deleted: the public answers are config/public_cache.py's, and every service
marks them stale by calling its `public_answers_mark_stale()` in the transaction of its write.

Three writers do not call it yet: responses/resolution.py (the close at the start of a resolution,
the reveal and the payouts at its end: `Challenge.save()`, `Payout.objects.get_or_create`) and
challenges/payouts.py (`payout_record_transaction`: `Payout.save()`); and chain/payouts.py and
challenges/payouts.py import the function under its old name from here. Until they call
`public_answers_mark_stale()` themselves, a saved Challenge or Payout marks the answers stale here.
Then delete this module and its import in challenges/apps.py."""

from django.db.models.signals import post_save
from django.dispatch import receiver

from config.public_cache import public_answers_mark_stale as invalidate_public_challenge_cache

from .models import Challenge, Payout

__all__ = ["invalidate_public_challenge_cache"]


@receiver(post_save, sender=Challenge, dispatch_uid="challenges.cache.challenge_saved")
@receiver(post_save, sender=Payout, dispatch_uid="challenges.cache.payout_saved")
def _saved(sender, **kwargs) -> None:
    invalidate_public_challenge_cache()
