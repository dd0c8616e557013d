"""The admins' chain links (challenges/admin/links.py): one function makes every transaction and address
link, to the configured explorer; with no explorer (a local chain) the value is plain text, never a
link to /tx/... or /address/... on the site itself, which answers 404."""

import pytest

from challenges.admin.links import address_link, chain_link, tx_link

TX = "0x" + "ab" * 32
ADDRESS = "0x" + "cd" * 20


@pytest.mark.parametrize("explorer", ["https://sepolia.etherscan.io", "https://sepolia.etherscan.io/"])
def test_a_configured_explorer_gets_the_link(settings, explorer):
    settings.CHAIN_EXPLORER_URL = explorer
    assert tx_link(TX) == (
        f'<a href="https://sepolia.etherscan.io/tx/{TX}" target="_blank" rel="noopener noreferrer">{TX}</a>'
    )
    assert address_link(ADDRESS) == (
        f'<a href="https://sepolia.etherscan.io/address/{ADDRESS}" target="_blank" rel="noopener noreferrer">'
        f"{ADDRESS}</a>"
    )


def test_without_an_explorer_the_value_is_text_and_no_link(settings):
    settings.CHAIN_EXPLORER_URL = ""
    assert tx_link(TX) == f"<code>{TX}</code>"
    assert address_link(ADDRESS) == f"<code>{ADDRESS}</code>"


@pytest.mark.parametrize("explorer", ["", "https://etherscan.io"])
def test_no_value_is_a_dash_and_a_value_is_escaped(settings, explorer):
    settings.CHAIN_EXPLORER_URL = explorer
    assert chain_link("tx", "") == "-"
    assert "<b>" not in chain_link("tx", "<b>0x</b>")
