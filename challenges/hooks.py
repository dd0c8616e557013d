"""Where the chain app plugs into a challenge's publication. challenges is the lowest layer and
never imports chain (docs/architecture.md, "Layers"): chain/apps.py connects its anchoring here when
Django starts.

- `anchor_queued` is sent once a challenge's anchor is queued and committed (challenges/services.py:
  anchor_queue at publish, anchor_retry from the admin); the chain app's receiver queues the task
  that sends it (chain/tasks.py, anchor_challenge). With no receiver connected nothing is sent and
  the challenge stays closed to claims; the beat's anchor sweep picks it up."""

from django.dispatch import Signal

anchor_queued = Signal()  # kwargs: challenge_id
