"""The pot's calls and events as chain/pot/abi.py writes and reads them, against the compiled contract's
own ABI (contracts/build/GeopoemPot.json) encoded by web3, an encoder the module does not share: a
change of the contract's interface fails here rather than on a node. Pure: no node."""

from __future__ import annotations

import pytest
from eth_abi import encode
from eth_utils import keccak, to_checksum_address
from web3 import Web3

from chain.node.contracts import load_artifact
from chain.pot import abi
from chain.pot.encoding import Terms

POT = to_checksum_address("0x" + "9a" * 20)
PAYER = "0x" + "ab" * 20
COMMITMENT = "cd" * 32
SALT = "ef" * 32
TERMS = Terms(
    solution_commitment="11" * 32,
    terms_hash="22" * 32,
    threshold_m=150,
    opens_at=1_800_000_000,
    closes_at=1_800_003_600,
    solution_deadline=1_800_090_000,
    guess_window=3600,
    min_stake=1_000_000,
    bond=2**96 - 1,
)


def b32(text: str) -> bytes:
    return bytes.fromhex(text)


# TERMS as web3 takes the contract's Terms tuple.
TERMS_ARGS = (
    b32("11" * 32),
    b32("22" * 32),
    150,
    1_800_000_000,
    1_800_003_600,
    1_800_090_000,
    3600,
    1_000_000,
    2**96 - 1,
)


@pytest.fixture(scope="module")
def pot():
    return Web3().eth.contract(address=POT, abi=load_artifact("GeopoemPot")["abi"])


def test_every_call_the_site_sends_is_the_contracts_encoding(pot):
    payer = to_checksum_address(PAYER)
    signature = "0x" + "aa" * 32 + "bb" * 32 + "1c"
    cases = [
        (abi.open_data(challenge_id=7, terms=TERMS), "open", [7, TERMS_ARGS]),
        (
            abi.stake_with_authorization_data(
                abi.SignedStakeCall(7, COMMITMENT, PAYER, 5_000_000, 0, 2**256 - 1, signature)
            ),
            "stakeWithAuthorization",
            [7, b32(COMMITMENT), payer, 5_000_000, 0, 2**256 - 1, 28, b32("aa" * 32), b32("bb" * 32)],
        ),
        (abi.stake_data(challenge_id=7, commitment=COMMITMENT, amount=5), "stake", [7, b32(COMMITMENT), 5]),
        (
            abi.reveal_solution_data(challenge_id=7, lat_e6=-90_000_000, lon_e6=180_000_000, salt=SALT),
            "revealSolution",
            [7, -90_000_000, 180_000_000, b32(SALT)],
        ),
        (
            abi.reveal_guess_data(challenge_id=7, seq=3, payer=PAYER, amount=5, lat_e6=-1, lon_e6=2, salt=SALT),
            "revealGuess",
            [7, 3, payer, 5, -1, 2, b32(SALT)],
        ),
        (abi.finalize_data(challenge_id=7), "finalize", [7]),
        (
            abi.pay_prize_data(challenge_id=7, kind=1, payer=PAYER, amount=5, commitment=COMMITMENT),
            "payPrize",
            [7, 1, payer, 5, b32(COMMITMENT)],
        ),
        (abi.pay_share_data(challenge_id=7), "payShare", [7]),
        (
            abi.refund_data(challenge_id=7, seq=3, payer=PAYER, amount=5, commitment=COMMITMENT),
            "refund",
            [7, 3, payer, 5, b32(COMMITMENT)],
        ),
    ]
    for data, function, args in cases:
        assert data == pot.encode_abi(function, args=args), function
    # A signature whose v a wallet gave as 0 or 1 is sent with the 27 or 28 the token's ECRecover takes.
    for v, sent in ((0, 27), (1, 28), (27, 27), (28, 28)):
        call = abi.SignedStakeCall(7, COMMITMENT, PAYER, 5, 0, 9, "0x" + "aa" * 32 + "bb" * 32 + f"{v:02x}")
        assert abi.stake_with_authorization_data(call) == pot.encode_abi(
            "stakeWithAuthorization", args=[7, b32(COMMITMENT), payer, 5, 0, 9, sent, b32("aa" * 32), b32("bb" * 32)]
        )


def log_of(pot, name: str, values: dict, *, block: int = 12, index: int = 3) -> dict:
    """A log of event `name` as a node returns it, encoded from the artifact's event ABI."""
    (event,) = [item for item in pot.abi if item.get("type") == "event" and item["name"] == name]
    types = [i["type"] if i["type"] != "tuple" else f"({','.join(c['type'] for c in i['components'])})" for i in
             event["inputs"]]  # fmt: skip
    signature = f"{name}({','.join(types)})"
    topics = ["0x" + keccak(text=signature).hex()]
    data_types, data_values = [], []
    for item, kind in zip(event["inputs"], types, strict=True):
        if item["indexed"]:
            topics.append("0x" + encode([kind], [values[item["name"]]]).hex())
        else:
            data_types.append(kind)
            data_values.append(values[item["name"]])
    return {
        "topics": topics,
        "data": "0x" + encode(data_types, data_values).hex(),
        "blockNumber": hex(block),
        "blockHash": "0x" + "0b" * 32,
        "transactionHash": "0x" + "0c" * 32,
        "logIndex": hex(index),
    }


def test_every_event_of_the_pot_is_read_with_its_fields(pot):
    payer = to_checksum_address(PAYER)
    cases: dict[str, tuple[dict, dict]] = {
        "Opened": ({"challengeId": 7, "terms": TERMS_ARGS, "termsDigest": b32("33" * 32)}, {"termsDigest": "33" * 32}),
        "Staked": (
            {"challengeId": 7, "payer": payer, "seq": 2, "amount": 2**64 - 1, "commitment": b32(COMMITMENT)},
            {"payer": PAYER, "seq": 2, "amount": str(2**64 - 1), "commitment": COMMITMENT},
        ),
        "SolutionRevealed": (
            {"challengeId": 7, "latE6": -90_000_000, "lonE6": 180_000_000, "salt": b32(SALT), "guessDeadline": 99},
            {"latE6": -90_000_000, "lonE6": 180_000_000, "salt": SALT, "guessDeadline": 99},
        ),
        "GuessRevealed": (
            {"challengeId": 7, "payer": payer, "seq": 2, "latE6": -1, "lonE6": 1, "correct": True},
            {"payer": PAYER, "seq": 2, "latE6": -1, "lonE6": 1, "correct": True},
        ),
        "Finalized": (
            {"challengeId": 7, "earliestSeq": 1, "highestSeq": 2, "earliestPrize": 4, "highestPrize": 4, "share": 2},
            {"earliestSeq": 1, "highestSeq": 2, "earliestPrize": 4, "highestPrize": 4, "share": 2},
        ),
        "Paid": ({"challengeId": 7, "kind": 2, "to": payer, "amount": 5}, {"kind": 2, "to": PAYER, "amount": 5}),
        "Refunded": (
            {"challengeId": 7, "payer": payer, "seq": 4, "stake": 5, "bondShare": 1},
            {"payer": PAYER, "seq": 4, "stake": 5, "bondShare": 1},
        ),
    }
    for name, (values, expected) in cases.items():
        event = abi.decode_log(log_of(pot, name, values))
        assert event is not None and (event.name, event.challenge_id) == (name, 7), name
        assert {key: event.args[key] for key in expected} == expected, name
        assert (event.block_number, event.log_index, event.transaction_hash) == (12, 3, "0x" + "0c" * 32)
    opened = abi.decode_log(log_of(pot, "Opened", cases["Opened"][0]))
    assert opened is not None and opened.args["terms"] == {
        "solutionCommitment": "11" * 32, "termsHash": "22" * 32, "thresholdM": 150, "opensAt": 1_800_000_000,
        "closesAt": 1_800_003_600, "solutionDeadline": 1_800_090_000, "guessWindow": 3600, "minStake": 1_000_000,
        "bond": str(2**96 - 1),
    }  # fmt: skip
    swept = abi.decode_log(log_of(pot, "Swept", {"to": payer, "amount": 9}))
    assert swept is not None and (swept.name, swept.challenge_id, swept.args) == (
        "Swept",
        None,
        {"to": PAYER, "amount": "9"},
    )
    assert set(abi.TOPICS) == {
        item["name"] for item in pot.abi if item.get("type") == "event" and not item["name"].startswith("Ownership")
    }


def test_another_event_of_the_contract_is_not_the_games(pot):
    transferred = log_of(pot, "OwnershipTransferred", {"previousOwner": POT, "newOwner": POT})
    assert abi.decode_log(transferred) is None
