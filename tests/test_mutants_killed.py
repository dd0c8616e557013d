"""Tests written to kill the mutants `make mutate` (scripts/mutate.py) finds alive in the pure rules:
each names the change it catches. The list of survivors and why the rest are harmless:
docs/reliability.md."""

from datetime import UTC, datetime, timedelta

import pytest

from challenges.abi import int_word, uint_word
from challenges.commitments import is_salt, new_salt
from challenges.terms import (
    HALF_CIRCUMFERENCE_M,
    MAX_GUESS_WINDOW_SECONDS,
    MAX_OPEN_SECONDS,
    MAX_SOLUTION_DELAY_SECONDS,
    MIN_GUESS_WINDOW_SECONDS,
    MIN_STAKE_FLOOR_UNITS,
    Terms,
    TermsError,
    terms_check,
)


def test_new_salt_is_64_lowercase_hex_and_fresh_each_time():
    # Kills: new_salt returns None; token_hex(33) (a 66-character salt the pot's bytes32 cannot hold).
    salts = {new_salt() for _ in range(20)}
    assert len(salts) == 20
    assert all(isinstance(salt, str) and len(salt) == 64 and is_salt(salt) for salt in salts)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("ab" * 32, True),
        ("0" * 64, True),
        ("AB" * 32, False),
        ("ab" * 31, False),
        ("ab" * 33, False),
        ("xyz", False),
        ("", False),
        (None, False),
        (b"ab" * 32, False),
        (12, False),
    ],
)
def test_is_salt_accepts_only_64_lowercase_hex_strings(value, expected):
    # Kills: is_salt returns None; `and` -> `or`; `is not None` -> `is None`.
    assert is_salt(value) is expected


def test_coordinates_input_length_bound_is_exactly_100_characters():
    # Kills: `len(text) > MAX_INPUT_LENGTH` -> `>=` (100 characters refused) and `or` -> `and`
    # (an over-long string let through to the regex; a non-string reaching len()).
    from challenges.coordinates import MAX_INPUT_LENGTH, CoordinateError, parse_coordinates

    core = "12.5, 45.25"
    at_limit = core + " " * (MAX_INPUT_LENGTH - len(core))
    assert len(at_limit) == MAX_INPUT_LENGTH
    assert parse_coordinates(at_limit).text == "12.5, 45.25"
    with pytest.raises(CoordinateError):
        parse_coordinates(at_limit + " ")
    for not_text in (None, 12.5, ["12.5, 45.25"], b"12.5, 45.25"):
        with pytest.raises(CoordinateError):
            parse_coordinates(not_text)


@pytest.mark.parametrize("bits", [32, 64, 96, 256])
def test_abi_words_take_their_types_whole_range_and_nothing_beyond(bits):
    # Kills (challenges/abi.py): `<` -> `<=` on the upper bound, `0 <=` -> `0 <` (a zero refused),
    # and the signed range's bounds moved by one: a value the Solidity type cannot hold would hash to a
    # terms digest or a commitment the pot can never reproduce.
    assert uint_word(0, bits) == bytes(32)
    assert uint_word(2**bits - 1, bits) == (2**bits - 1).to_bytes(32, "big")
    assert int_word(-(2 ** (bits - 1)), bits) == (-(2 ** (bits - 1))).to_bytes(32, "big", signed=True)
    assert int_word(2 ** (bits - 1) - 1, bits)[-1] == 0xFF
    for bad in (-1, 2**bits, True):
        with pytest.raises(ValueError):
            uint_word(bad, bits)
    for bad in (-(2 ** (bits - 1)) - 1, 2 ** (bits - 1), False):
        with pytest.raises(ValueError):
            int_word(bad, bits)


NOW = 1_800_000_000


def terms(**changes) -> Terms:
    values = {
        "solution_commitment": "ab" * 32,
        "terms_hash": "cd" * 32,
        "threshold_m": 150,
        "opens_at": NOW - 10,
        "closes_at": NOW + 3600,
        "solution_deadline": NOW + 7200,
        "guess_window": 3600,
        "min_stake": 1_000_000,
        "bond": 0,
    }
    return Terms(**{**values, **changes})


@pytest.mark.parametrize(
    ("changes", "refused"),
    [
        ({"closes_at": NOW - 10}, True),  # not after the opening
        ({"closes_at": NOW}, True),  # not in the future
        ({"closes_at": NOW + 1, "solution_deadline": NOW + 2}, False),
        ({"closes_at": NOW - 10 + MAX_OPEN_SECONDS, "solution_deadline": NOW + MAX_OPEN_SECONDS}, False),
        ({"closes_at": NOW - 9 + MAX_OPEN_SECONDS, "solution_deadline": NOW + MAX_OPEN_SECONDS}, True),
        ({"solution_deadline": NOW + 3600}, True),  # at the close
        ({"solution_deadline": NOW + 3600 + MAX_SOLUTION_DELAY_SECONDS}, False),
        ({"solution_deadline": NOW + 3601 + MAX_SOLUTION_DELAY_SECONDS}, True),
        ({"guess_window": MIN_GUESS_WINDOW_SECONDS}, False),
        ({"guess_window": MIN_GUESS_WINDOW_SECONDS - 1}, True),
        ({"guess_window": MAX_GUESS_WINDOW_SECONDS}, False),
        ({"guess_window": MAX_GUESS_WINDOW_SECONDS + 1}, True),
        ({"min_stake": MIN_STAKE_FLOOR_UNITS}, False),
        ({"min_stake": MIN_STAKE_FLOOR_UNITS - 1}, True),
        ({"threshold_m": HALF_CIRCUMFERENCE_M - 1}, False),
        ({"threshold_m": HALF_CIRCUMFERENCE_M}, True),
        ({"threshold_m": 0}, False),
    ],
)
def test_the_terms_check_refuses_exactly_what_the_pot_refuses(changes, refused):
    # Kills (challenges/terms.py terms_check): any bound moved by one or its comparison flipped. The same
    # edges on the contract: chain/tests/pot/test_operator.py.
    if refused:
        with pytest.raises(TermsError):
            terms_check(terms(**changes), now=NOW)
    else:
        terms_check(terms(**changes), now=NOW)


def test_a_challenge_takes_stakes_until_half_the_margin_before_its_close(settings):
    # Kills (challenges/selectors.py challenge_takes_stakes): the margin not halved, `<` -> `<=`, and a
    # challenge taking stakes in another phase than open.
    from challenges.models import Challenge, ChallengeStatus, OpeningStatus, PotOpening, PotState
    from challenges.selectors import challenge_takes_stakes

    settings.STAKE_CLOSE_MARGIN_SECONDS = 60
    closes = datetime(2026, 6, 1, 13, 0, tzinfo=UTC)
    challenge = Challenge(
        status=ChallengeStatus.PUBLISHED, opens_at=closes - timedelta(hours=1), closes_at=closes,
        solution_deadline=closes + timedelta(days=1),
    )  # fmt: skip
    challenge.opening = PotOpening(status=OpeningStatus.CONFIRMED)
    challenge.pot = PotState()
    assert challenge_takes_stakes(challenge=challenge, now=closes - timedelta(seconds=31))
    assert not challenge_takes_stakes(challenge=challenge, now=closes - timedelta(seconds=30))
    challenge.opening.status = OpeningStatus.SENT
    assert not challenge_takes_stakes(challenge=challenge, now=closes - timedelta(hours=1))


@pytest.mark.django_db
@pytest.mark.parametrize(
    "address",
    [
        "0xF39fd6e51aad88f6f4ce6ab8827279cfffb92266",  # only the first hex character upper case
        "0xf39FD6E51AAD88F6F4CE6AB8827279CFFFB92266",  # only the first hex character lower case
    ],
)
def test_a_wallet_address_mixed_case_only_in_its_first_character_is_checked(api, make_challenge, address):
    # Kills (responses/serializers.py address_value): `value[2:]` -> `value[3:]` in either half of the
    # mixed-case test, which let a wrong checksum through as "not mixed case".
    from responses.models import SignedStake

    body = {
        "challengeId": make_challenge().pk,
        "submitterAddress": address,
        "submissionStake": "3",
        "commitment": "ab" * 32,
        "authorization": {"validAfter": 0, "validBefore": 1_900_000_000, "signature": "0x" + "1c" * 65},
    }
    answer = api.post("/api/responses", body, format="json")
    assert answer.status_code == 400, answer.content
    assert answer.json()["errors"] == {"submitterAddress": ["The wallet address has an invalid checksum."]}
    assert not SignedStake.objects.exists()


@pytest.mark.parametrize(
    "address",
    ["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266"],
)
def test_a_wallet_address_in_one_case_needs_no_checksum(address):
    # Kills (address_value): any `value[2:]` -> `value[3:]` in the mixed-case test makes one side compare
    # strings of different lengths, so an all-lower or all-upper address (no checksum to check) was
    # refused; and the lowercase the site stores it in.
    from responses.serializers import address_value

    assert address_value(address) == "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
