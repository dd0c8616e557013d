from django.apps import AppConfig


class ChainConfig(AppConfig):
    name = "chain"
    verbose_name = "Chain"

    def ready(self) -> None:
        # responses and challenges sit below chain and do not import it: the chain's checks, the
        # anchoring and the payouts' verification plug in here (responses/hooks.py, challenges/hooks.py).
        from challenges import hooks as challenge_hooks
        from responses import hooks

        from .authorization_checks import authorization_check_for_post
        from .checks import claim_check_for_post
        from .indexer import ledger_read_until
        from .relay_admission import relay_admit
        from .selectors import payments_unclaimed_in_window
        from .tasks import enqueue_anchor, enqueue_payout_verification, enqueue_relay, enqueue_verification

        hooks.register_claim_check(claim_check_for_post)
        # A claim paid by a signed authorization: its signature, window and token state while its
        # POST waits (docs/protocol.md 3.3a).
        hooks.register_authorization_check(authorization_check_for_post)
        # The relayer says whether it takes a new claim's authorization (docs/protocol.md section 2a).
        hooks.register_relay_admit(relay_admit)
        # A claim committed with its relay queued: the relayer's sender is queued (chain/relayer.py).
        hooks.relay_queued.connect(enqueue_relay, dispatch_uid="chain.relay_queued")
        # Resolution waits for the ledger to have read past the close, and staff see the unclaimed
        # payments of the open window before they resolve (responses/barrier.py).
        hooks.register_ledger(read_until=ledger_read_until, unclaimed=payments_unclaimed_in_window)
        hooks.claim_stored.connect(enqueue_verification, dispatch_uid="chain.verify_stored_claim")
        # A published challenge's terms are anchored on chain by the worker (challenges/hooks.py).
        challenge_hooks.anchor_queued.connect(enqueue_anchor, dispatch_uid="chain.anchor_queued")
        # A payout's recorded transaction is checked on chain by the worker (challenges/hooks.py).
        challenge_hooks.payout_recorded.connect(enqueue_payout_verification, dispatch_uid="chain.payout_recorded")
