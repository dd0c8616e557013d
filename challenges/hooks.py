"""Where the chain app plugs into a challenge's publication and its payouts. challenges is the
lowest layer and never imports chain (docs/architecture.md, "Layers"): chain/apps.py connects its
receivers here when Django starts.

- `anchor_queued` is sent once a challenge's anchor is queued and committed (challenges/services.py:
  anchor_queue at publish, anchor_retry from the admin); the chain app's receiver queues the task
  that sends it (chain/tasks.py, anchor_challenge). With no receiver connected nothing is sent and
  the challenge stays closed to claims; the beat's anchor sweep picks it up.
- `payout_recorded` is sent once staff's record of a payout's transaction is committed, or staff
  asked for it to be checked again (challenges/payouts.py); the chain app's receiver queues its
  check on chain (chain/tasks.py, verify_payout). With no receiver connected the payout stays
  verifying; the beat's payout sweep picks it up."""

from django.dispatch import Signal

anchor_queued = Signal()  # kwargs: challenge_id
payout_recorded = Signal()  # kwargs: payout_id
