"""What a refusal of the pot, or of the token behind it, says to a player (chain/pot/errors.py): every
named error of the compiled pot is known by name, each turns into the sentence of docs/protocol.md's
table (section 2, "Refusals"), and the token's revert texts (Circle's, as TestUSDC copies them) into
theirs. Pure: the errors are encoded from the build artifact's ABI, as a node returns them."""

import re
from pathlib import Path

import pytest
from eth_abi import encode
from eth_utils import keccak

from chain.node.contracts import load_artifact
from chain.pot.errors import ERROR_STRING, POT_ERRORS, UNKNOWN, refusal

PROTOCOL = Path(__file__).resolve().parents[3] / "docs" / "protocol.md"


def pot_errors() -> list[dict]:
    return [item for item in load_artifact("GeopoemPot")["abi"] if item["type"] == "error"]


def revert_data(error: dict) -> str:
    types = [i["type"] for i in error["inputs"]]
    selector = keccak(text=f"{error['name']}({','.join(types)})")[:4]
    values = [7 if t.startswith("uint") else "0x" + "ab" * 20 if t == "address" else b"\x01" * 32 for t in types]
    return "0x" + (selector + encode(types, values)).hex()


def error_string(text: str) -> str:
    return ERROR_STRING + encode(["string"], [text]).hex()


def protocol_sentences() -> dict[str, str]:
    """docs/protocol.md's Refusals table: each error name or revert text, and the sentence shown."""
    section = PROTOCOL.read_text().split("### Refusals", 1)[1].split("\n## ", 1)[0]
    sentences = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[0].startswith("`"):
            continue
        for name in re.findall(r"`([^`]+)`", cells[0]):
            sentences[name] = cells[1]
    return sentences


def test_every_named_error_of_the_pot_is_known_by_name():
    for error in pot_errors():
        said = refusal(revert_data(error))
        assert said.code != UNKNOWN and said.detail == error["name"], error["name"]
    assert set(entry[0] for entry in POT_ERRORS.values()) <= {error["name"] for error in pot_errors()}


def test_each_refusal_a_player_meets_says_the_protocols_sentence():
    table = protocol_sentences()
    errors = {error["name"]: error for error in pot_errors()}
    checked = 0
    for name, sentence in table.items():
        if sentence.startswith("("):  # "(staff and the worker only)", "(settlement ...)": no player sentence
            continue
        data = revert_data(errors[name]) if name in errors else error_string(name)
        assert refusal(data).sentence == sentence, name
        checked += 1
    assert checked >= 15


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Pausable: paused", "token_paused"),
        ("Blacklistable: account is blacklisted", "payer_blacklisted"),
        ("FiatTokenV2: invalid signature", "invalid_authorization"),
        ("FiatTokenV2: authorization is used or canceled", "authorization_used"),
        ("FiatTokenV2: authorization is expired", "authorization_expired"),
        ("FiatTokenV2: authorization is not yet valid", "authorization_window"),
        ("ERC20: transfer amount exceeds balance", "insufficient_balance"),
        ("ERC20: transfer amount exceeds allowance", "insufficient_allowance"),
    ],
)
def test_the_tokens_revert_texts_from_the_data_or_from_the_nodes_message(text, code):
    assert refusal(error_string(text)).code == code
    # A node that gives the text in its message only (no revert data).
    assert refusal("0x", f"execution reverted: {text}").code == code


def test_what_is_not_known_is_an_unknown_refusal_never_a_crash():
    for data, message in (("0x", ""), ("0xdeadbeef", "execution reverted"), (ERROR_STRING + "00", "")):
        said = refusal(data, message)
        assert said.code == UNKNOWN and said.sentence == "The chain refused this call."
    # Error(string) whose string is not decodable: the node's message is read instead.
    assert refusal(ERROR_STRING + "ff" * 3, "Pausable: paused").code == "token_paused"
