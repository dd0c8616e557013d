from django.apps import AppConfig


class ChainConfig(AppConfig):
    name = "chain"
    verbose_name = "Chain"

    def ready(self) -> None:
        # responses sits below chain and does not import it: the chain's checks plug in here
        # (responses/hooks.py).
        from responses import hooks

        from .services import claim_check_for_post
        from .tasks import enqueue_verification

        hooks.register_claim_check(claim_check_for_post)
        hooks.claim_stored.connect(enqueue_verification, dispatch_uid="chain.verify_stored_claim")
