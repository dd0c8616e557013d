"""Twenty browsers posting claims on one transaction hash at the same moment, on PostgreSQL."""

import json
from functools import partial

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client

from devtools.concurrency import at_once
from responses.models import Response, ResponseStatus

pytestmark = [pytest.mark.postgresql, pytest.mark.django_db(transaction=True)]

WORKERS = 20


def hammer(bodies: list[dict]) -> list[int]:
    def one(body: dict) -> int:
        return Client().post("/api/responses", data=json.dumps(body), content_type="application/json").status_code

    return at_once([partial(one, body) for body in bodies], timeout=60)


def claim(challenge, salt_byte: int) -> dict:
    return {
        "challengeId": challenge.pk,
        "submissionText": "29.979175, 31.134258",
        "submissionStake": "2",
        "transactionHash": "0x" + "77" * 32,
        "submitterAddress": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
        "submissionSalt": f"{salt_byte:02x}" * 32,
    }


def test_twenty_different_claims_on_one_hash_all_wait_and_none_keeps_another_out(make_challenge):
    # No chain to read (the test RPC is unreachable): every claim is stored pending, one row each;
    # verification later confirms at most one (chain/tests/test_squatting.py).
    assert connection.vendor == "postgresql"
    challenge = make_challenge()
    codes = hammer([claim(challenge, i) for i in range(WORKERS)])
    assert codes == [201] * WORKERS
    assert Response.objects.count() == WORKERS
    assert Response.objects.values("commitment").distinct().count() == WORKERS
    assert set(Response.objects.values_list("status", flat=True)) == {ResponseStatus.PENDING}


def test_twenty_different_claims_on_a_confirmed_hash_are_all_409(make_challenge):
    challenge = make_challenge()
    assert hammer([claim(challenge, 99)]) == [201]
    Response.objects.update(status=ResponseStatus.CONFIRMED)
    cache.clear()  # the throttle's counter: twenty more from one client
    codes = hammer([claim(challenge, i) for i in range(WORKERS)])
    assert codes == [409] * WORKERS
    assert Response.objects.count() == 1


def test_twenty_identical_retries_give_one_201_and_one_row(make_challenge):
    challenge = make_challenge()
    codes = hammer([claim(challenge, 1)] * WORKERS)
    assert codes.count(201) == 1
    assert codes.count(200) == WORKERS - 1
    assert Response.objects.count() == 1
