"""Payout verification on a real EVM: an anvil node on a free loopback port (stopped by its PID)
with the project's TestUSDC, the treasury paying winners for real. Only an exact USDC Transfer
from the treasury to the winner marks a payout paid."""

from decimal import Decimal
from typing import cast

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from web3 import HTTPProvider, Web3
from web3.types import RPCEndpoint, TxParams

from chain.contracts import contract_at, deploy, mint
from chain.payouts import PayoutPending, payout_verify
from chain.tasks import verify_payout
from challenges.models import Payout, PayoutKind, PayoutStatus
from challenges.payouts import payout_record_transaction
from devtools.processes import anvil
from responses.resolution import challenge_resolve, payouts_create

from .conftest import OPERATOR_KEY, deploy_registry

pytestmark = [pytest.mark.django_db, pytest.mark.integration]


class Node:
    def __init__(self, url: str) -> None:
        self.url = url
        self.w3 = Web3(HTTPProvider(url, request_kwargs={"timeout": 10}))
        accounts = list(self.w3.eth.accounts)  # list(): web3 annotates `accounts` as a tuple of one address
        self.deployer, self.treasury, self.winner, self.stranger = accounts[:4]
        self.usdc = deploy(self.w3, "TestUSDC", sender=self.deployer)
        self.other_token = deploy(self.w3, "TestUSDC", sender=self.deployer)
        self.fake_token = deploy(self.w3, "FakeTransferToken", sender=self.deployer)
        for token in (self.usdc, self.other_token):
            for holder in (self.treasury, self.stranger):
                mint(self.w3, token, holder, 1_000_000 * 10**6, sender=self.deployer)
        # The chain tests' make_challenge anchors a challenge's terms for real (chain/tests/conftest.py).
        self.registry = deploy_registry(self.w3, deployer=self.deployer)

    def send(self, tx: dict) -> str:
        tx_hash = self.w3.eth.send_transaction(cast(TxParams, {"gas": 200_000, "value": 0, **tx}))
        self.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)
        return "0x" + bytes(tx_hash).hex()

    def transfer(self, *, to: str, units: int, sender: str | None = None, token: str | None = None) -> str:
        """An ERC-20 transfer(to, units) sent by `sender` (the treasury by default) to `token`."""
        contract = contract_at(self.w3, "TestUSDC", token or self.usdc)
        data = contract.encode_abi("transfer", args=[Web3.to_checksum_address(to), units])
        return self.send({"from": sender or self.treasury, "to": token or self.usdc, "data": data})

    def mine(self, blocks: int = 1) -> None:
        self.w3.provider.make_request(RPCEndpoint("anvil_mine"), [hex(blocks)])


@pytest.fixture(scope="module")
def node():
    with anvil() as (url, _proc):  # stopped by its PID when the module ends, also on failure
        yield Node(url)


@pytest.fixture
def chain(node, settings):
    snapshot = node.w3.provider.make_request("evm_snapshot", [])["result"]
    settings.CHAIN_RPC_URLS = [node.url]
    settings.CHAIN_RPC_TIMEOUT_SECONDS = 5.0
    settings.USDC_ADDRESS = node.usdc
    settings.TREASURY_ADDRESS = node.treasury
    settings.OPERATIONS_ADDRESS = ""
    settings.CHAIN_CONFIRMATIONS = "2"
    settings.ANCHOR_REGISTRY_ADDRESS = node.registry
    settings.ANCHOR_OPERATOR_KEY = OPERATOR_KEY
    try:
        yield node
    finally:
        node.w3.provider.make_request("evm_revert", [snapshot])


@pytest.fixture
def prize(chain, make_challenge, make_response):
    """The earliest-correct payout of a resolved challenge whose winner is an anvil account:
    10 + 2.5 USDC staked, so 40 % is 5.000000 USDC."""
    challenge = make_challenge()
    make_response(challenge, "29.979175, 31.134258", "10", address=chain.winner)
    make_response(challenge, "0, 0", "2.5", address=chain.stranger)
    challenge = challenge_resolve(challenge=challenge)
    payouts_create(challenge=challenge)
    payout = Payout.objects.get(challenge=challenge, kind=PayoutKind.EARLIEST)
    assert payout.amount == Decimal("5.000000") and payout.address == chain.winner
    return payout


def record(payout, tx_hash: str) -> Payout:
    return payout_record_transaction(payout=payout, transaction_hash=tx_hash, user=None)


def test_an_exact_transfer_from_the_treasury_is_paid_once_deep_enough(chain, prize, api):
    tx_hash = chain.transfer(to=chain.winner, units=5_000_000)
    record(prize, tx_hash)
    # anvil mined it in the latest block: one confirmation of the two required, so not decided yet.
    assert chain.w3.eth.get_transaction_receipt(tx_hash)["blockNumber"] == chain.w3.eth.get_block_number()
    with pytest.raises(PayoutPending):
        payout_verify(payout_id=prize.pk)
    prize.refresh_from_db()
    assert prize.status == PayoutStatus.VERIFYING
    chain.mine(1)
    assert payout_verify(payout_id=prize.pk) == PayoutStatus.PAID
    prize.refresh_from_db()
    assert prize.status == PayoutStatus.PAID and prize.verified_at is not None
    receipt = chain.w3.eth.get_transaction_receipt(tx_hash)
    assert prize.block_number == receipt["blockNumber"]
    # Public once verified: the winners endpoint carries the payout transaction for that prize only.
    winners = api.get(f"/api/challenges/{prize.challenge_id}/winners").json()
    assert winners["earliest"]["payoutTransactionHash"] == tx_hash
    assert winners["highest"]["payoutTransactionHash"] is None
    # Verifying again changes nothing.
    assert payout_verify(payout_id=prize.pk) == PayoutStatus.PAID


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("wrong_amount", "amount_mismatch"),
        ("one_unit_short", "amount_mismatch"),
        ("wrong_recipient", "wrong_recipient"),
        ("not_from_treasury", "wrong_sender"),
        ("other_token", "wrong_token"),
        ("fake_token", "wrong_token"),
        ("reverted", "tx_failed"),
        ("no_token_moved", "no_transfer_log"),
    ],
)
def test_anything_but_the_exact_usdc_transfer_is_never_paid(chain, prize, api, case, code):
    if case == "wrong_amount":
        tx_hash = chain.transfer(to=chain.winner, units=50_000_000)
    elif case == "one_unit_short":
        tx_hash = chain.transfer(to=chain.winner, units=4_999_999)
    elif case == "wrong_recipient":
        tx_hash = chain.transfer(to=chain.stranger, units=5_000_000)
    elif case == "not_from_treasury":
        tx_hash = chain.transfer(to=chain.winner, units=5_000_000, sender=chain.stranger)
    elif case == "other_token":
        tx_hash = chain.transfer(to=chain.winner, units=5_000_000, token=chain.other_token)
    elif case == "fake_token":
        # Its receipt holds Transfer(treasury, winner, 5 USDC), emitted by a contract that is not USDC.
        tx_hash = chain.transfer(to=chain.winner, units=5_000_000, token=chain.fake_token)
        receipt = chain.w3.eth.get_transaction_receipt(tx_hash)
        assert receipt["status"] == 1 and len(receipt["logs"]) == 1
    elif case == "reverted":
        tx_hash = chain.transfer(to=chain.winner, units=10**18)  # more than the treasury holds
        assert chain.w3.eth.get_transaction_receipt(tx_hash)["status"] == 0
    else:
        tx_hash = chain.send({"from": chain.treasury, "to": chain.winner, "value": 1})
    chain.mine(2)
    record(prize, tx_hash)
    assert payout_verify(payout_id=prize.pk) == PayoutStatus.FAILED
    prize.refresh_from_db()
    assert prize.status == PayoutStatus.FAILED and prize.failure_code == code and prize.failure_reason
    assert prize.verified_at is None
    assert api.get(f"/api/challenges/{prize.challenge_id}/winners").json()["earliest"]["payoutTransactionHash"] is None


def test_an_unknown_transaction_stays_verifying(chain, prize):
    record(prize, "0x" + "12" * 32)
    with pytest.raises(PayoutPending):
        payout_verify(payout_id=prize.pk)
    prize.refresh_from_db()
    assert prize.status == PayoutStatus.VERIFYING


def test_after_a_failure_staff_record_the_right_transaction_through_the_admin_and_the_worker_pays_it(
    chain, prize, client, django_capture_on_commit_callbacks
):
    wrong = chain.transfer(to=chain.stranger, units=5_000_000)
    chain.mine(2)
    record(prize, wrong)
    assert verify_payout.apply(args=[prize.pk]).get() == PayoutStatus.FAILED

    staff = get_user_model().objects.create_superuser("treasurer", "t@example.org", "long-enough-pass-1")
    client.force_login(staff)
    right = chain.transfer(to=chain.winner, units=5_000_000)
    chain.mine(2)
    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post(reverse("admin:challenges_payout_change", args=[prize.pk]), {"transaction_hash": right})
    # The verification task, queued once; and the public answers made stale (the winners list payouts).
    queued = [c for c in callbacks if "payout_enqueue_verification" in c.__qualname__]
    assert response.status_code == 302 and len(queued) == 1 and len(callbacks) == 2
    prize.refresh_from_db()
    assert prize.status == PayoutStatus.VERIFYING and prize.recorded_by == staff and prize.failure_code == ""
    # The task the admin queued, run as the worker runs it.
    assert verify_payout.apply(args=[prize.pk]).get() == PayoutStatus.PAID
    prize.refresh_from_db()
    assert prize.status == PayoutStatus.PAID and prize.transaction_hash == right
    page = client.get(reverse("admin:challenges_payout_changelist")).content.decode()
    assert f"/tx/{right}" in page
    # A paid payout cannot be re-pointed at another transaction.
    client.post(reverse("admin:challenges_payout_change", args=[prize.pk]), {"transaction_hash": wrong})
    prize.refresh_from_db()
    assert prize.transaction_hash == right


def test_the_sweeper_requeues_a_payout_left_verifying(chain, prize):
    from datetime import timedelta

    from django.utils import timezone

    from chain.payouts import payouts_stale_verifying
    from chain.tasks import sweep_payouts

    record(prize, "0x" + "34" * 32)
    assert payouts_stale_verifying(older_than_seconds=60) == []  # just recorded: its task is on the way
    Payout.objects.filter(pk=prize.pk).update(updated_at=timezone.now() - timedelta(minutes=5))
    assert payouts_stale_verifying(older_than_seconds=60) == [prize.pk]
    assert sweep_payouts() == 1
    # Touched when queued: the next sweep leaves it to the task it just queued.
    assert payouts_stale_verifying(older_than_seconds=60) == []


@pytest.mark.postgresql  # the worker process must share the test database: not SQLite's in-memory one
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_verifies_the_payout_staff_recorded(chain, prize, client, django_capture_on_commit_callbacks):
    """Admin → broker (Redis) → a Celery worker process → anvil → paid, with committed rows."""
    import os
    import subprocess
    import time
    import uuid

    from celery import current_app
    from django.db import connection

    from devtools import processes

    broker = os.environ.get("GEOPOEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/6")
    queue = f"payouts-{uuid.uuid4().hex[:8]}"  # this test's own queue: no stray message reaches it
    staff = get_user_model().objects.create_superuser("treasurer", "t@example.org", "long-enough-pass-1")
    client.force_login(staff)
    tx_hash = chain.transfer(to=chain.winner, units=5_000_000)
    chain.mine(2)
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(
            reverse("admin:challenges_payout_change", args=[prize.pk]), {"transaction_hash": tx_hash}
        )
    assert response.status_code == 302

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": _database_url(connection.settings_dict),
        "REDIS_URL": broker,
        "CHAIN_RPC_URLS": chain.url,
        "USDC_ADDRESS": chain.usdc,
        "TREASURY_ADDRESS": chain.treasury,
        "CHAIN_CONFIRMATIONS": "2",
    }
    worker = processes.start(
        processes.celery("worker", *processes.SOLO_WORKER, "-Q", queue, "-l", "WARNING"),
        env=env,
        log=subprocess.DEVNULL,
    )
    try:
        # What the admin's on-commit hook sends, sent to this test's broker and queue.
        with current_app.connection_for_write(broker) as conn:
            verify_payout.apply_async(args=[prize.pk], connection=conn, queue=queue)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            prize.refresh_from_db()
            if prize.status != PayoutStatus.VERIFYING:
                break
            assert worker.poll() is None, "the worker exited"
            time.sleep(0.25)
        assert prize.status == PayoutStatus.PAID
        assert prize.transaction_hash == tx_hash and prize.recorded_by == staff
    finally:
        processes.stop(worker, timeout=10)


def _database_url(db: dict) -> str:
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or "postgres"
    return f"postgres://{user}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"
