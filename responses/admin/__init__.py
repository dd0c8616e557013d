"""Admins of responses, and the Challenge admin: it shows the winners and payments from the stakes,
so it sits here above challenges (docs/architecture.md, "Layers"). Templates stay under
templates/admin/challenges/challenge/ (Django finds them by the model's app label)."""

from . import challenge, response  # noqa: F401 - registers the admins
