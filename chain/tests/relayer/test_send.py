"""The relayer's sender (chain/relayer/sender.py) on anvil: the calls go out in the order they were
queued under consecutive nonces, many into one block, each once, also with two senders at once; and
before a nonce is spent each call is checked again, so a signed stake no longer worth sending (its
challenge closed, its authorization about to expire, sent already by someone else, refused by the
token) is never sent and says why."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from chain.models import PotCall, RelayTransaction, RelayTxStatus
from chain.relayer.sender import relay_send, relay_send_now
from chain.relayer.watch import relay_watch
from responses.models import Stake

from ..pot_support import follow, post, send_as, sign_stake, stake_call, token_as
from ..relay_support import Mining, assert_gap_free, relay_status

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _no_throttle(monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"response_create": "1000000/min"})


def test_stakes_go_out_in_arrival_order_under_consecutive_nonces_into_one_block(chain, make_challenge, api):
    challenge = make_challenge()
    signed = [sign_stake(chain, challenge, player=n % 4, stake=str(n + 1)) for n in range(6)]
    for one in signed:
        assert post(api, challenge, one).status_code == 201
    with Mining(chain) as mining:
        assert relay_send().sent == 6
        assert mining.pool() == 6
        calls = list(PotCall.objects.order_by("id"))
        rows = {row.call_id: row for row in RelayTransaction.objects.all()}
        nonces = [rows[call.pk].nonce for call in calls]
        assert nonces == list(range(nonces[0], nonces[0] + 6))  # the order they were posted in
        assert relay_send().sent == 0  # nothing queued: sent once
        mining.mine()
    chain.mine(1)  # CHAIN_CONFIRMATIONS (2) deep
    assert relay_watch().mined == 6
    blocks = {row.block_number for row in RelayTransaction.objects.all()}
    assert len(blocks) == 1 and set(RelayTransaction.objects.values_list("status", flat=True)) == {RelayTxStatus.MINED}
    chain.mine(1)
    follow()
    assert list(Stake.objects.filter(challenge=challenge).order_by("seq").values_list("commitment", flat=True)) == [
        one.commitment for one in signed
    ]
    assert all(relay_status(one) == ("sent", "") for one in signed)
    assert_gap_free(chain)


def test_a_stake_no_longer_worth_sending_is_never_sent(chain, make_challenge, api, settings):
    """Each checked again under the relayer's lock, before a nonce is spent."""
    challenge = make_challenge(closes_at=timezone.now() + timedelta(hours=1))
    sent_by_player, paused = (sign_stake(chain, challenge, player=n) for n in range(2))
    expiring = sign_stake(chain, challenge, player=2, valid_before=int(timezone.now().timestamp()) + 200)
    for one in (sent_by_player, paused, expiring):
        assert post(api, challenge, one).status_code == 201
    # The player sends it from their own wallet first ("Send it yourself").
    assert (
        send_as(chain, sent_by_player.key, to=chain.pot, data=stake_call(challenge.pk, sent_by_player))["status"] == 1
    )
    follow()
    # Another's authorization is no longer valid long enough; the token is paused for the third.
    settings.RELAY_MIN_REMAINING_SECONDS = 300
    token_as(chain, "pause")
    summary = relay_send()
    assert summary.sent == 0 and summary.failed == 3
    assert relay_status(sent_by_player) == ("not_needed", "used")
    assert relay_status(expiring) == ("failed", "expired")
    assert relay_status(paused) == ("failed", "token_paused")
    assert not RelayTransaction.objects.exists()
    token_as(chain, "unpause")

    # A challenge that has closed: its queued stakes are never sent (the pot would refuse them).
    settings.RELAY_MIN_REMAINING_SECONDS = 60
    late = sign_stake(chain, challenge, player=3)
    assert post(api, challenge, late).status_code == 201
    balance = chain.balance(late.payer)
    chain.warp(3_600)
    follow()
    assert relay_send().sent == 0
    assert relay_status(late) == ("failed", "closed")
    assert not RelayTransaction.objects.exists()
    assert chain.balance(late.payer) == balance and Stake.objects.filter(challenge=challenge).count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_senders_at_once_send_each_stake_once(chain, make_challenge, api):
    """Two workers' senders started at a barrier: the relayer's account row is the lock, so the nonces
    stay one sequence and each stake goes out once."""
    challenge = make_challenge()
    signed = [sign_stake(chain, challenge, player=n % 4, stake=str(n + 1)) for n in range(8)]
    for one in signed:
        assert post(api, challenge, one).status_code == 201
    barrier = threading.Barrier(2)
    sent: list[int] = []

    def send() -> None:
        try:
            barrier.wait()
            sent.append(relay_send_now().sent)
        finally:
            connection.close()

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(sent) == 8
    assert RelayTransaction.objects.count() == 8
    assert len(set(RelayTransaction.objects.values_list("call_id", flat=True))) == 8
    relay_watch()
    chain.mine(2)
    follow()
    assert Stake.objects.filter(challenge=challenge).count() == 8
    assert_gap_free(chain)
