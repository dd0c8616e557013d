"""Fixtures of the responses app's tests."""

import pytest
from django.contrib.auth import get_user_model


@pytest.fixture
def staff(client):
    user = get_user_model().objects.create_superuser("poet", "poet@example.org", "long-enough-pass-1")
    client.force_login(user)
    client.user = user
    return client


@pytest.fixture
def ledger_read_past_close():
    """The ledger indexer has read past every close: the chain-free tests' stand-in for the chain
    app's hook (responses/hooks.py, ledger_read_until), as make_response stands in for a
    confirmation. Resolution through the admin waits for it (responses/barrier.py); the chain's own
    side is tested on anvil (chain/tests/test_resolution_wait.py)."""
    from datetime import timedelta

    from django.utils import timezone

    from responses import hooks

    read_until, unclaimed = hooks.register_ledger(read_until=lambda: timezone.now() + timedelta(days=1), unclaimed=None)
    yield
    hooks.register_ledger(read_until=read_until, unclaimed=unclaimed)
