"""Staff's list of stakes links each payer and transaction to the block explorer through the admins'
one chain link (challenges/admin/links.py); on a chain with no explorer (a local one) they are text,
not links to /tx/... on the site itself."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.fixture
def stakes_page(client, make_challenge, make_stake):
    stake, _ = make_stake(make_challenge())
    staff = get_user_model().objects.create_superuser("staff", "staff@example.org", "long-enough-pass-1")
    client.force_login(staff)
    return stake, lambda: client.get(reverse("admin:responses_stake_changelist")).content.decode()


def test_without_an_explorer_the_list_shows_the_hashes_as_text(settings, stakes_page):
    settings.CHAIN_EXPLORER_URL = ""
    stake, page = stakes_page
    text = page()
    assert f"<code>{stake.transaction_hash}</code>" in text
    assert f"<code>{stake.payer}</code>" in text
    assert not re.search(r'href="[^"]*/(tx|address)/', text)


def test_with_an_explorer_the_list_links_to_it(settings, stakes_page):
    settings.CHAIN_EXPLORER_URL = "https://sepolia.etherscan.io"
    stake, page = stakes_page
    text = page()
    assert f'href="https://sepolia.etherscan.io/tx/{stake.transaction_hash}"' in text
    assert f'href="https://sepolia.etherscan.io/address/{stake.payer}"' in text
