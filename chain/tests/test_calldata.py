"""The calldata codec against the shared vectors (the TypeScript encoder passes the same ones)."""

import pytest

from chain.calldata import (
    CalldataError,
    decode_transfer,
    encode_stake_transfer,
)


def test_encode_matches_every_vector(vectors):
    for v in vectors["calldata"]:
        data = encode_stake_transfer(
            treasury=v["treasury"],
            amount_units=int(v["amountUnits"]),
            commitment=v["commitment"],
            challenge_id=v["challengeId"],
            timestamp=v["timestamp"],
        )
        assert data == v["data"]
        assert len(bytes.fromhex(data[2:])) == 164


def test_decode_matches_every_vector(vectors):
    for v in vectors["calldata"]:
        decoded = decode_transfer(v["data"])
        assert decoded.is_stake_transfer
        assert decoded.to.lower() == v["treasury"].lower()
        assert decoded.amount_units == int(v["amountUnits"])
        assert decoded.commitment == v["commitment"]
        assert decoded.challenge_id == v["challengeId"]
        assert decoded.timestamp == v["timestamp"]


def test_plain_transfer_decodes_without_the_geopoem_words(vectors):
    plain = vectors["calldata"][0]["data"][: 2 + 68 * 2]
    decoded = decode_transfer(plain)
    assert decoded.amount_units == 1_000_000
    assert decoded.commitment is None and not decoded.is_stake_transfer


@pytest.mark.parametrize(
    "data",
    [
        "0x095ea7b3" + "00" * 160,  # approve, not transfer
        "0xa9059cbb" + "00" * 100,  # neither 68 nor 164 bytes
        "0xa9059cbb" + "ff" * 32 + "00" * 128,  # recipient word is not a padded address
        "0xzz",
    ],
)
def test_decode_refuses_other_calls(data):
    with pytest.raises(CalldataError):
        decode_transfer(data)


def test_encode_refuses_out_of_range_values():
    with pytest.raises(CalldataError):
        encode_stake_transfer(
            treasury="0x" + "11" * 20, amount_units=-1, commitment="00" * 32, challenge_id=1, timestamp=1
        )
    with pytest.raises(CalldataError):
        encode_stake_transfer(
            treasury="0x" + "11" * 20, amount_units=1, commitment="00" * 31, challenge_id=1, timestamp=1
        )
