"""The follower (chain/pot/follow.py) on anvil: a stake is pending in its block and confirmed once
CHAIN_CONFIRMATIONS deep; a reorg takes events and everything projected from them away, and they come
back when their transaction is mined again; a node behind the head already read is skipped, never
read as "the events are gone"; nodes that hang or err are skipped for the next one, and when none
answers nothing changes."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from chain.models import PotEvent, RelayTransaction
from chain.node.client import ChainUnavailable
from chain.pot.follow import HEAD_RESET_SECONDS, pot_follow
from challenges.models import ChainClock, PotState
from devtools.processes import ANVIL_CHAIN_ID, anvil
from responses.models import Stake

from ..bad_nodes import bad_nodes
from ..pot_support import follow, post, relay, sign_stake

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _no_throttle(monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"response_create": "1000000/min"})


def staked(chain, challenge, api, *, player: int = 0, stake: str = "5"):
    signed = sign_stake(chain, challenge, player=player, stake=stake)
    assert post(api, challenge, signed).status_code == 201
    relay()
    return signed


def status(api, signed) -> str:
    return api.get(f"/api/responses/{signed.commitment}").json()["status"]


def test_a_stake_is_pending_in_its_block_and_confirmed_chain_confirmations_deep(chain, make_challenge, api, settings):
    settings.CHAIN_CONFIRMATIONS = "3"
    challenge = make_challenge()
    signed = staked(chain, challenge, api)
    follow()
    state = PotState.objects.get(challenge=challenge)
    assert status(api, signed) == "pending" and (state.stake_count, state.staked_units) == (0, 0)
    chain.mine(1)
    follow()
    assert status(api, signed) == "pending"  # two blocks deep of three
    chain.mine(1)
    follow()
    state.refresh_from_db()
    assert status(api, signed) == "confirmed" and (state.stake_count, state.staked_units) == (1, 5_000_000)
    assert api.get(f"/api/challenges/{challenge.pk}").json()["stakedSum"] == "5.000000"


def test_a_reorg_takes_a_stake_away_and_brings_it_back_when_mined_again(chain, make_challenge, api):
    challenge = make_challenge()
    fork = chain.snapshot()  # the chain before the stake: a branch without it
    signed = staked(chain, challenge, api)
    raw = RelayTransaction.objects.get().attempts[-1]["raw"]
    chain.mine(2)
    follow()
    first = Stake.objects.get(challenge=challenge)
    assert status(api, signed) == "confirmed" and PotState.objects.get(challenge=challenge).stake_count == 1

    chain.revert(fork)  # every block after the fork leaves the chain...
    chain.mine(6)  # ...and another branch, longer, takes its place
    result = pot_follow()
    assert result.removed >= 1 and challenge.pk in result.changed
    assert not Stake.objects.filter(challenge=challenge).exists()
    assert not PotEvent.objects.filter(challenge_id=challenge.pk, name="Staked").exists()
    state = PotState.objects.get(challenge=challenge)
    assert (state.stake_count, state.staked_units) == (0, 0)
    shown = api.get(f"/api/responses/{signed.commitment}").json()
    assert (shown["status"], shown["id"], shown["transactionHash"]) == ("relaying", None, None)
    assert api.get(f"/api/challenges/{challenge.pk}").json()["responseCount"] == 0

    chain.rpc("eth_sendRawTransaction", [raw])  # the same transaction, mined in the new branch
    chain.mine(2)
    follow()
    again = Stake.objects.get(challenge=challenge)
    assert (again.seq, again.transaction_hash) == (1, first.transaction_hash)
    assert again.block_number != first.block_number or again.block_hash != first.block_hash
    assert status(api, signed) == "confirmed" and PotState.objects.get(challenge=challenge).stake_count == 1


def test_a_node_behind_is_skipped_and_not_read_as_gone(chain, make_challenge, api, settings):
    challenge = make_challenge()
    staked(chain, challenge, api)
    chain.mine(2)
    follow()
    events = set(PotEvent.objects.values_list("block_number", "log_index"))
    clock = ChainClock.objects.get()
    # Another node far behind (a fresh one: no pot at all), the only one the follower is given.
    with anvil(chain_id=ANVIL_CHAIN_ID) as (behind, _):
        settings.CHAIN_RPC_URLS = [behind]
        result = pot_follow()
    assert "behind" in result.skipped, result
    settings.CHAIN_RPC_URLS = [chain.url]
    # The same node, its head lower than the one read (evm_revert, nothing mined since).
    fork = chain.snapshot()
    chain.mine(3)
    follow()
    chain.revert(fork)
    assert "behind" in pot_follow().skipped
    assert set(PotEvent.objects.values_list("block_number", "log_index")) == events
    assert Stake.objects.filter(challenge=challenge).count() == 1
    # Nothing moved for HEAD_RESET_SECONDS: a development chain started afresh; read over from the
    # pot's deploy block (here: the same events again).
    ChainClock.objects.update(updated_at=timezone.now() - timedelta(seconds=HEAD_RESET_SECONDS + 1))
    result = pot_follow()
    assert not result.skipped and result.head == chain.w3.eth.block_number
    assert set(PotEvent.objects.values_list("block_number", "log_index")) == events
    assert ChainClock.objects.get().block_number < clock.block_number + 4


def test_nodes_that_hang_or_err_are_skipped_and_none_answering_changes_nothing(chain, make_challenge, api, settings):
    """CHAIN_RPC_URLS lists a node that hangs, one that answers HTTP 503, one a JSON-RPC error and one
    garbage, then the working node: a round waits out the hanging one's timeout once (1 s), skips
    each erring one and is answered entirely by the last (chain/node/client.py, on_one_node). With
    only the bad ones: "no node answered", and nothing the follower holds changes."""
    challenge = make_challenge()
    staked(chain, challenge, api)
    chain.mine(2)
    settings.CHAIN_RPC_TIMEOUT_SECONDS = 1.0
    with bad_nodes() as (hang, servers, urls):
        settings.CHAIN_RPC_URLS = urls
        with pytest.raises(ChainUnavailable):
            pot_follow()
        assert not Stake.objects.filter(challenge=challenge).exists()
        assert hang.accepted >= 1 and all(server.hits >= 1 for server in servers)
        settings.CHAIN_RPC_URLS = [*urls, chain.url]
        started = time.monotonic()
        result = pot_follow()
        took = time.monotonic() - started
    assert result.added >= 1 and Stake.objects.filter(challenge=challenge).count() == 1
    assert 1.0 <= took < 10, took


def test_a_phase_the_clock_alone_moves_makes_the_public_answers_stale(
    chain, make_challenge, api, settings, django_capture_on_commit_callbacks
):
    """At the solution deadline no event comes (nobody revealed the solution) and the pot's state as
    the site stores it does not change, yet the phase does (aborted): the cached public answers must
    go stale with that round, as with any change the follower reads (docs/protocol.md 3.6)."""
    challenge = make_challenge(closes_at=timezone.now() + timedelta(hours=1))
    staked(chain, challenge, api)
    settings.RELAYER_KEY = ""  # nothing is sent: no event comes
    with django_capture_on_commit_callbacks(execute=True):
        chain.warp(3_600 + 60)
        follow()
    assert api.get(f"/api/challenges/{challenge.pk}").json()["phase"] == "closed"  # cached now
    chain.warp(86_400)
    with django_capture_on_commit_callbacks(execute=True):
        result = pot_follow()
    assert challenge.pk in result.changed
    assert api.get(f"/api/challenges/{challenge.pk}").json()["phase"] == "aborted"
