"""Admins of responses, and the Challenge admin: it starts resolution, shows the winners and exports
the responses, all services of this app, so it sits here above challenges (docs/architecture.md,
"Layers"). Templates stay under templates/admin/challenges/challenge/ (Django finds them by the
model's app label)."""

from . import challenge, exceptions, response  # noqa: F401 - registers the admins
