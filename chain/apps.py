from django.apps import AppConfig


class ChainConfig(AppConfig):
    name = "chain"
    verbose_name = "Chain"

    def ready(self) -> None:
        # responses and challenges sit below chain and do not import it: the chain's checks, the
        # anchoring and the payouts' verification plug in here (responses/hooks.py, challenges/hooks.py).
        from challenges import hooks as challenge_hooks
        from responses import hooks

        from .checks import claim_check_for_post
        from .tasks import enqueue_anchor, enqueue_payout_verification, enqueue_verification

        hooks.register_claim_check(claim_check_for_post)
        hooks.claim_stored.connect(enqueue_verification, dispatch_uid="chain.verify_stored_claim")
        # A published challenge's terms are anchored on chain by the worker (challenges/hooks.py).
        challenge_hooks.anchor_queued.connect(enqueue_anchor, dispatch_uid="chain.anchor_queued")
        # A payout's recorded transaction is checked on chain by the worker (challenges/hooks.py).
        challenge_hooks.payout_recorded.connect(enqueue_payout_verification, dispatch_uid="chain.payout_recorded")
