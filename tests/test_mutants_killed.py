"""Tests written to kill the mutants `make mutate` (scripts/mutate.py) found alive: each names the
change it catches. The list of survivors and why the rest are harmless: docs/reliability.md."""

import pytest

from challenges.commitments import is_salt, new_salt
from responses.tests.test_api_post import body, post


def test_new_salt_is_64_lowercase_hex_and_fresh_each_time():
    # Kills: new_salt returns None; token_hex(33) (a 66-character salt the claim form would refuse).
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


def test_is_correct_includes_the_threshold_and_a_missing_one_means_an_exact_hit():
    # Kills: `<=` -> `<` (a guess exactly at the threshold lost) and `threshold or 0` -> `or 1`.
    from challenges.scoring import is_correct

    assert is_correct(150.0, 150) is True
    assert is_correct(150.001, 150) is False
    assert is_correct(0.0, None) is True
    assert is_correct(0.5, None) is False
    assert is_correct(0.0, 0) is True


def test_the_pure_reference_picks_by_chain_order_and_stake():
    # Kills: chain_order returns None (min() cannot order the rows), and any reordering of its key.
    from decimal import Decimal
    from types import SimpleNamespace

    from challenges.scoring import chain_order, pick_earliest, pick_highest

    def row(block, tx, log, stake="1"):
        return SimpleNamespace(block_number=block, transaction_index=tx, log_index=log, submission_stake=Decimal(stake))

    first = row(10, 9, 9)
    same_block_later_tx = row(11, 0, 0)
    same_tx_later_log = row(10, 9, 10, stake="5")
    later_tx = row(10, 10, 0, stake="5")
    rows = [same_block_later_tx, later_tx, same_tx_later_log, first]
    assert chain_order(first) == (10, 9, 9)
    assert pick_earliest(rows) is first
    assert pick_highest(rows) is same_tx_later_log
    assert pick_earliest([]) is None and pick_highest([]) is None


@pytest.mark.django_db
def test_resolved_challenges_are_listed_newest_resolution_first_then_newest_id(api, make_challenge):
    # Kills: order_by drops "-resolved_at" (id order instead) and flips "-id" (the tie order).
    from datetime import UTC, datetime

    from challenges.models import Challenge
    from challenges.selectors import challenge_list_resolved
    from responses.resolution import challenge_resolve

    created = []
    for n in range(4):
        created.append(make_challenge(title=f"Poem {n}"))
        challenge_resolve(challenge=created[-1])  # only one challenge is active at a time
    moments = [datetime(2026, 5, 3, tzinfo=UTC), datetime(2026, 5, 1, tzinfo=UTC), datetime(2026, 5, 2, tzinfo=UTC)]
    moments.append(moments[1])  # the last-created ties with the second on resolution time
    for challenge, moment in zip(created, moments, strict=True):
        Challenge.objects.filter(pk=challenge.pk).update(resolved_at=moment)
    expected = [created[0].pk, created[2].pk, created[3].pk, created[1].pk]
    mine = set(expected)  # rows another test committed (chain tests use transactions) are not ours
    assert [c.pk for c in challenge_list_resolved() if c.pk in mine] == expected
    assert [c["id"] for c in api.get("/api/challenges/resolved").json() if c["id"] in mine] == expected


def test_hex_writes_strings_and_bytes_the_same_lowercase_0x_way():
    # Kills (chain/transfers.py `to_hex`): the text branch returning None or "0x" - text. web3 hands
    # HexBytes (the bytes branch), so the verification tests on anvil never reach the text branch;
    # an RPC node or a stored value given as a hex string does.
    from chain.transfers import to_hex as _hex

    assert _hex(bytes.fromhex("ABCD")) == "0xabcd"
    assert _hex("0xABCD") == "0xabcd"
    assert _hex("ABCD") == "0xabcd"


class _FinalizedAt:
    """A stand-in for the chain client with only the two reads `_is_deep_enough` makes: a pure
    rule is tested at its edge here; the real node is used by chain/tests/test_verify.py."""

    def __init__(self, finalized: int, latest: int):
        self.finalized, self.latest = finalized, latest

    def get_block(self, tag):
        assert tag == "finalized"
        return {"number": self.finalized}

    def block_number(self):
        return self.latest


def test_a_block_exactly_at_the_finalized_height_is_deep_enough(settings):
    # Kills: `finalized >= block_number` -> `>` (a claim in the finalized block itself would wait).
    from chain.transfers import is_deep_enough as _is_deep_enough

    settings.CHAIN_CONFIRMATIONS = "finalized"
    assert _is_deep_enough(_FinalizedAt(finalized=100, latest=120), 100) is True
    assert _is_deep_enough(_FinalizedAt(finalized=99, latest=120), 100) is False
    settings.CHAIN_CONFIRMATIONS = "2"
    assert _is_deep_enough(_FinalizedAt(finalized=0, latest=101), 100) is True
    assert _is_deep_enough(_FinalizedAt(finalized=0, latest=100), 100) is False


def test_the_open_window_counts_the_opening_second_and_the_closing_instant():
    # Kills (chain/checks.py `_in_open_window`): an unpublished challenge counted as open,
    # `opened <= block_time` -> `<`, `block_time <= closed_at` -> `<`, and microsecond=0 -> 1.
    from datetime import UTC, datetime, timedelta

    from chain.checks import _in_open_window
    from challenges.models import Challenge

    opened = datetime(2026, 6, 1, 12, 0, 0, 500_000, tzinfo=UTC)  # a sub-second server time
    closed = datetime(2026, 6, 1, 13, 0, 0, tzinfo=UTC)
    second_of_opening = opened.replace(microsecond=0)
    challenge = Challenge(start_timestamp=opened, closed_at=closed)
    assert _in_open_window(challenge, second_of_opening) is True
    assert _in_open_window(challenge, second_of_opening - timedelta(seconds=1)) is False
    assert _in_open_window(challenge, closed) is True
    assert _in_open_window(challenge, closed + timedelta(seconds=1)) is False
    assert _in_open_window(Challenge(start_timestamp=opened, closed_at=None), closed + timedelta(days=9)) is True
    assert _in_open_window(Challenge(start_timestamp=None, closed_at=None), closed) is False


@pytest.mark.django_db
@pytest.mark.parametrize(
    "address",
    [
        "0xF39fd6e51aad88f6f4ce6ab8827279cfffb92266",  # only the first hex character upper case
        "0xf39FD6E51AAD88F6F4CE6AB8827279CFFFB92266",  # only the first hex character lower case
    ],
)
def test_a_wallet_address_mixed_case_only_in_its_first_character_is_checked(api, make_challenge, address):
    # Kills (responses/serializers.py validate_submitterAddress): `value[2:]` -> `value[3:]` in
    # either half of the mixed-case test, which let a wrong checksum through as "not mixed case".
    from responses.models import Response

    challenge = make_challenge()
    answer = post(api, body(challenge, submitterAddress=address))
    assert answer.status_code == 400, answer.content
    assert answer.json()["errors"] == {"submitterAddress": ["The wallet address has an invalid checksum."]}
    assert not Response.objects.exists()


@pytest.mark.django_db
def test_a_confirmed_claim_shows_its_block_time_as_unix_seconds(api, make_challenge, make_response):
    # Kills (responses/serializers.py get_submissionTimestamp): returning None.
    from datetime import UTC, datetime

    from responses.models import Response

    challenge = make_challenge()
    claim = make_response(challenge, "29.979175, 31.134258")
    Response.objects.filter(pk=claim.pk).update(submission_timestamp=datetime(2026, 6, 1, 12, 0, 5, tzinfo=UTC))
    shown = api.get(f"/api/responses/{claim.transaction_hash}").json()
    assert shown["submissionTimestamp"] == 1780315205


@pytest.mark.django_db
@pytest.mark.parametrize(
    "address",
    ["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266"],
)
def test_a_wallet_address_in_one_case_needs_no_checksum(api, make_challenge, address):
    # Kills (validate_submitterAddress): any `value[2:]` -> `value[3:]` in the mixed-case test makes
    # one side compare strings of different lengths, so an all-lower or all-upper address (no
    # checksum to check) was refused.
    challenge = make_challenge()
    answer = post(api, body(challenge, submitterAddress=address))
    assert answer.status_code == 201, answer.content
    assert answer.json()["submitterAddress"] == "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


def test_calldata_words_take_the_whole_uint256_range_and_a_zero_challenge_id_stays_zero():
    # Kills (chain/calldata.py): `0 <= value <= UINT256_MAX` -> `<` on either side or `1 <= value`,
    # and a zero challenge id read back as anything but 0 by decode_transfer.
    from chain.calldata import UINT256_MAX, CalldataError, decode_transfer, encode_stake_transfer

    treasury = "0x" + "12" * 20
    for amount, challenge_id, timestamp in ((0, 0, 0), (UINT256_MAX, UINT256_MAX, UINT256_MAX)):
        data = encode_stake_transfer(
            treasury=treasury, amount_units=amount, commitment="ab" * 32, challenge_id=challenge_id, timestamp=timestamp
        )
        decoded = decode_transfer(data)
        assert (decoded.amount_units, decoded.challenge_id, decoded.timestamp) == (amount, challenge_id, timestamp)
    for bad in (-1, UINT256_MAX + 1):
        with pytest.raises(CalldataError):
            encode_stake_transfer(
                treasury=treasury, amount_units=bad, commitment="cd" * 32, challenge_id=1, timestamp=1
            )


def test_the_verification_deadline_counts_from_creation_or_from_the_reorg(settings):
    # Kills (chain/verification.py verification_deadline): returning None, the branch inverted, and
    # subtracting the timeout instead of adding it.
    from datetime import UTC, datetime, timedelta

    from chain.verification import verification_deadline
    from responses.models import Response

    settings.CHAIN_NOT_FOUND_TIMEOUT_SECONDS = 600
    settings.CHAIN_REORG_TIMEOUT_SECONDS = 3600
    created = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
    fresh = Response(created_at=created, reorged_at=None)
    assert verification_deadline(fresh) == created + timedelta(seconds=600)
    reorged = Response(created_at=created, reorged_at=created + timedelta(hours=2))
    assert verification_deadline(reorged) == created + timedelta(hours=3)


@pytest.mark.django_db
def test_a_reorg_marks_the_claims_payment_removed(make_challenge, make_response):
    # Kills (chain/reorgs.py response_unconfirm_reorged): `removed=True` -> False, which left the
    # payment of a block that left the chain counted in the ledger.
    from decimal import Decimal

    from chain.models import Payment
    from chain.reorgs import response_unconfirm_reorged
    from responses.models import Response

    claim = make_response(make_challenge(), "29.979175, 31.134258", "2")
    block_hash = "0x" + "c3" * 32
    Response.objects.filter(pk=claim.pk).update(block_hash=block_hash)
    claim.refresh_from_db()
    payment = Payment.objects.create(
        transaction_hash=claim.transaction_hash,
        log_index=0,
        block_number=claim.block_number,
        block_hash=block_hash,
        transaction_index=0,
        from_address=claim.submitter_address,
        to_address="0x" + "12" * 20,
        amount_units=Decimal(2_000_000),
        response=claim,
    )
    assert response_unconfirm_reorged(response=claim)
    payment.refresh_from_db()
    assert payment.removed is True
