"""Staff's new challenge starts from the deployment's terms: the guess window and the bond of
POT_GUESS_WINDOW_SECONDS and POT_BOND_USDC, as a challenge made by challenge_create does."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_add_form_offers_the_configured_guess_window_and_bond(client, settings):
    settings.POT_GUESS_WINDOW_SECONDS = 3_600
    settings.POT_BOND_USDC = Decimal("5")
    staff = get_user_model().objects.create_superuser("staff", "staff@example.org", "long-enough-pass-1")
    client.force_login(staff)
    form = client.get(reverse("admin:challenges_challenge_add")).context["adminform"].form
    assert form.initial["guess_window_seconds"] == 3_600
    assert form.initial["bond"] == Decimal("5")
    page = client.get(reverse("admin:challenges_challenge_add")).content.decode()
    assert 'name="guess_window_seconds" value="3600"' in page
