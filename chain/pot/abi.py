"""The pot's calls and events as bytes (contracts/GeopoemPot.sol; docs/protocol.md section 2, "Events
and views"): the calldata of every function the site sends, and its logs decoded into plain values.
Written against the signatures, not a build artifact, so that a change of the contract's interface
fails the tests that pin these (chain/tests/pot/test_abi.py) rather than passing silently."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eth_abi import decode, encode
from eth_utils import keccak, to_checksum_address

from challenges.terms import Terms

TERMS_TUPLE = "(bytes32,bytes32,uint32,uint32,uint32,uint32,uint32,uint64,uint96)"


def _selector(signature: str) -> bytes:
    return keccak(text=signature)[:4]


def _topic(signature: str) -> str:
    return "0x" + keccak(text=signature).hex()


OPEN = f"open(uint256,{TERMS_TUPLE})"
STAKE_WITH_AUTHORIZATION = (
    "stakeWithAuthorization(uint256,bytes32,address,uint256,uint256,uint256,uint8,bytes32,bytes32)"
)
STAKE = "stake(uint256,bytes32,uint256)"
REVEAL_SOLUTION = "revealSolution(uint256,int256,int256,bytes32)"
REVEAL_GUESS = "revealGuess(uint256,uint256,address,uint256,int256,int256,bytes32)"
FINALIZE = "finalize(uint256)"
PAY_PRIZE = "payPrize(uint256,uint8,address,uint256,bytes32)"
PAY_SHARE = "payShare(uint256)"
REFUND = "refund(uint256,uint256,address,uint256,bytes32)"

# The events, by topic 0. Each entry: name, the indexed fields (after the challenge id where it has
# one), the data fields.
EVENTS: dict[str, tuple[str, list[tuple[str, str]], list[tuple[str, str]]]] = {
    _topic(f"Opened(uint256,{TERMS_TUPLE},bytes32)"): (
        "Opened",
        [],
        [("terms", TERMS_TUPLE), ("termsDigest", "bytes32")],
    ),
    _topic("Staked(uint256,address,uint256,uint256,bytes32)"): (
        "Staked",
        [("payer", "address")],
        [("seq", "uint256"), ("amount", "uint256"), ("commitment", "bytes32")],
    ),
    _topic("SolutionRevealed(uint256,int256,int256,bytes32,uint256)"): (
        "SolutionRevealed",
        [],
        [("latE6", "int256"), ("lonE6", "int256"), ("salt", "bytes32"), ("guessDeadline", "uint256")],
    ),
    _topic("GuessRevealed(uint256,address,uint256,int256,int256,bool)"): (
        "GuessRevealed",
        [("payer", "address")],
        [("seq", "uint256"), ("latE6", "int256"), ("lonE6", "int256"), ("correct", "bool")],
    ),
    _topic("Finalized(uint256,uint256,uint256,uint256,uint256,uint256)"): (
        "Finalized",
        [],
        [
            ("earliestSeq", "uint256"),
            ("highestSeq", "uint256"),
            ("earliestPrize", "uint256"),
            ("highestPrize", "uint256"),
            ("share", "uint256"),
        ],
    ),
    _topic("Paid(uint256,uint8,address,uint256)"): (
        "Paid",
        [("kind", "uint8"), ("to", "address")],
        [("amount", "uint256")],
    ),
    _topic("Refunded(uint256,address,uint256,uint256,uint256)"): (
        "Refunded",
        [("payer", "address")],
        [("seq", "uint256"), ("stake", "uint256"), ("bondShare", "uint256")],
    ),
}
SWEPT_TOPIC = _topic("Swept(address,uint256)")
TOPICS = {name: topic for topic, (name, _, _) in EVENTS.items()} | {"Swept": SWEPT_TOPIC}


def _hex(data: bytes) -> str:
    return "0x" + data.hex()


def _b32(hex_text: str) -> bytes:
    raw = bytes.fromhex(hex_text.removeprefix("0x"))
    if len(raw) != 32:
        raise ValueError(f"expected 32 bytes, got {len(raw)}")
    return raw


def _terms_value(terms: Terms) -> tuple:
    return (
        _b32(terms.solution_commitment),
        _b32(terms.terms_hash),
        terms.threshold_m,
        terms.opens_at,
        terms.closes_at,
        terms.solution_deadline,
        terms.guess_window,
        terms.min_stake,
        terms.bond,
    )


def open_data(*, challenge_id: int, terms: Terms) -> str:
    return _hex(_selector(OPEN) + encode(["uint256", TERMS_TUPLE], [challenge_id, _terms_value(terms)]))


@dataclass(frozen=True)
class SignedStakeCall:
    challenge_id: int
    commitment: str
    payer: str
    amount: int
    valid_after: int
    valid_before: int
    signature: str  # 0x r ‖ s ‖ v


def stake_with_authorization_data(call: SignedStakeCall) -> str:
    raw = bytes.fromhex(call.signature.removeprefix("0x"))
    r, s, v = raw[:32], raw[32:64], raw[64]
    # A wallet may give v as 0 or 1 (chain/token/authorization.py reads it as 27 or 28); the token's
    # ECRecover takes only 27 or 28.
    v = v + 27 if v in (0, 1) else v
    return _hex(
        _selector(STAKE_WITH_AUTHORIZATION)
        + encode(
            ["uint256", "bytes32", "address", "uint256", "uint256", "uint256", "uint8", "bytes32", "bytes32"],
            [
                call.challenge_id,
                _b32(call.commitment),
                to_checksum_address(call.payer),
                call.amount,
                call.valid_after,
                call.valid_before,
                v,
                r,
                s,
            ],
        )
    )


def stake_data(*, challenge_id: int, commitment: str, amount: int) -> str:
    return _hex(_selector(STAKE) + encode(["uint256", "bytes32", "uint256"], [challenge_id, _b32(commitment), amount]))


def reveal_solution_data(*, challenge_id: int, lat_e6: int, lon_e6: int, salt: str) -> str:
    return _hex(
        _selector(REVEAL_SOLUTION)
        + encode(["uint256", "int256", "int256", "bytes32"], [challenge_id, lat_e6, lon_e6, _b32(salt)])
    )


def reveal_guess_data(
    *, challenge_id: int, seq: int, payer: str, amount: int, lat_e6: int, lon_e6: int, salt: str
) -> str:
    return _hex(
        _selector(REVEAL_GUESS)
        + encode(
            ["uint256", "uint256", "address", "uint256", "int256", "int256", "bytes32"],
            [challenge_id, seq, to_checksum_address(payer), amount, lat_e6, lon_e6, _b32(salt)],
        )
    )


def finalize_data(*, challenge_id: int) -> str:
    return _hex(_selector(FINALIZE) + encode(["uint256"], [challenge_id]))


def pay_prize_data(*, challenge_id: int, kind: int, payer: str, amount: int, commitment: str) -> str:
    return _hex(
        _selector(PAY_PRIZE)
        + encode(
            ["uint256", "uint8", "address", "uint256", "bytes32"],
            [challenge_id, kind, to_checksum_address(payer), amount, _b32(commitment)],
        )
    )


def pay_share_data(*, challenge_id: int) -> str:
    return _hex(_selector(PAY_SHARE) + encode(["uint256"], [challenge_id]))


def refund_data(*, challenge_id: int, seq: int, payer: str, amount: int, commitment: str) -> str:
    return _hex(
        _selector(REFUND)
        + encode(
            ["uint256", "uint256", "address", "uint256", "bytes32"],
            [challenge_id, seq, to_checksum_address(payer), amount, _b32(commitment)],
        )
    )


@dataclass(frozen=True)
class Event:
    """One decoded log of the pot. `args` holds JSON-safe values: addresses lowercase, bytes32 as
    lowercase hex without 0x, integers beyond JavaScript's safe range as decimal strings."""

    name: str
    challenge_id: int | None
    args: dict[str, Any]
    block_number: int
    block_hash: str
    transaction_hash: str
    log_index: int


def _json_safe(kind: str, value: Any) -> Any:
    if kind == "address":
        return str(value).lower()
    if kind == "bytes32":
        return bytes(value).hex()
    if kind == "bool":
        return bool(value)
    if kind.startswith(("uint", "int")):
        return int(value) if -(2**53) < int(value) < 2**53 else str(int(value))
    return value


_TERMS_FIELDS = [
    ("solutionCommitment", "bytes32"),
    ("termsHash", "bytes32"),
    ("thresholdM", "uint32"),
    ("opensAt", "uint32"),
    ("closesAt", "uint32"),
    ("solutionDeadline", "uint32"),
    ("guessWindow", "uint32"),
    ("minStake", "uint64"),
    ("bond", "uint96"),
]


def decode_log(log: dict) -> Event | None:
    """The pot's event a log records, or None for a log this module does not know."""
    topics = [_topic_hex(t) for t in log["topics"]]
    if not topics or (topics[0] != SWEPT_TOPIC and topics[0] not in EVENTS):
        return None  # another event of the contract (OpenZeppelin's OwnershipTransferred, ...)
    data = _to_bytes(log["data"])
    block_number, log_index = _quantity(log["blockNumber"]), _quantity(log["logIndex"])
    block_hash, transaction_hash = _topic_hex(log["blockHash"]), _topic_hex(log["transactionHash"])
    if topics[0] == SWEPT_TOPIC:
        (amount,) = decode(["uint256"], data)
        to = "0x" + topics[1][-40:]
        return Event(
            "Swept", None, {"to": to, "amount": str(amount)}, block_number, block_hash, transaction_hash, log_index
        )
    name, indexed, fields = EVENTS[topics[0]]
    args: dict[str, Any] = {}
    for (field, kind), topic in zip(indexed, topics[2:], strict=True):
        args[field] = _json_safe(kind, decode([kind], bytes.fromhex(topic[2:]))[0])
    values = decode([kind for _, kind in fields], data)
    for (field, kind), value in zip(fields, values, strict=True):
        if kind == TERMS_TUPLE:
            args[field] = {f: _json_safe(k, v) for (f, k), v in zip(_TERMS_FIELDS, value, strict=True)}
        else:
            args[field] = _json_safe(kind, value)
    return Event(name, int(topics[1], 16), args, block_number, block_hash, transaction_hash, log_index)


def challenge_topic(challenge_id: int) -> str:
    return "0x" + challenge_id.to_bytes(32, "big").hex()


def _quantity(value: Any) -> int:
    """A JSON-RPC quantity as a raw answer gives it ("0x4") or web3 formatted it (4)."""
    return int(value, 16) if isinstance(value, str) else int(value)


def _to_bytes(value: Any) -> bytes:
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    return bytes.fromhex(str(value).removeprefix("0x"))


def _topic_hex(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return "0x" + bytes(value).hex()
    if hasattr(value, "hex") and not isinstance(value, str):
        text = value.hex()
        return text if text.startswith("0x") else "0x" + text
    return str(value).lower()
