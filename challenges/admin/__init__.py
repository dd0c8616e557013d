"""Admins of the challenges app's models that need only challenges' services (links.py, payout.py).
The Challenge admin resolves, reads winners and exports responses: it is in responses/admin/
(docs/architecture.md, "Layers")."""

from . import payout  # noqa: F401 - registers PayoutAdmin
