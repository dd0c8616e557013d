"""Fixtures of the responses app's tests."""

import pytest
from django.contrib.auth import get_user_model


@pytest.fixture
def staff(client):
    user = get_user_model().objects.create_superuser("poet", "poet@example.org", "long-enough-pass-1")
    client.force_login(user)
    client.user = user
    return client
