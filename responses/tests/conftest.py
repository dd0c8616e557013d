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


class StubAuthorizationCheck:
    """The chain's check of a claim paid by authorization (chain/authorization_checks.py) replaced by a
    verdict the test sets, for the tests of what the responses layer does with each verdict; it
    keeps the claims it was asked about. The check itself is tested on anvil in chain/tests/."""

    def __init__(self) -> None:
        from responses import hooks

        self.read = hooks.AuthorizationRead(search_from_block=1234)
        self.claims: list = []

    def __call__(self, claim, *, client):
        self.claims.append(claim)
        return self.read


@pytest.fixture
def check():
    from responses import hooks

    stub = StubAuthorizationCheck()
    before = hooks.register_authorization_check(stub)
    yield stub
    hooks.register_authorization_check(before)
