"""The pure parts of the relay benchmarks (`make bench`: bench/relay_burst.py and the signed phases of
bench/live.py) that their figures rest on: the reconciliation of a burst finds what was lost or
doubled (a claim not stored or stored twice, a nonce skipped or used twice, an authorization used
twice, a Transfer of another amount, a treasury short by one unit); the blocks are counted from the
POSTs; the chain's floor of a relayed stake is the CONFIRMATIONS-th block after the signature, and a
stake the relayer sent after the first block is a miss said with why; the relayer's runs are read
from the worker's log; the
claims the benchmark posts carry the payer's own signature of its stake to the treasury under the
token's domain, its nonce the guess commitment; the relayer's SQL statements are named by table."""

from __future__ import annotations

import copy

import pytest

from bench.live_signed import claim_timeline, missed_first_block
from bench.relay_chain import Payer, payers, signed_claim
from bench.relay_figures import Expected, blocks_from, floor_block, nonce_gaps, reconcile
from bench.relay_profile import statement_kind
from bench.worker_log import relay_runs, sending_run, task_stats
from chain.authorization import (
    AUTHORIZATION_USED_TOPIC,
    Signature,
    TokenDomain,
    TransferAuthorization,
    address_topic,
    recover_signer,
)
from challenges.commitments import guess_commitment_v1

TREASURY = "0x" + "7e" * 20
TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"


def test_nonces_are_consecutive_only_without_a_gap_or_a_repeat():
    assert nonce_gaps([7, 5, 6]) == {"first": 5, "last": 7, "missing": [], "repeated": []}
    assert nonce_gaps([5, 7, 7, 9]) == {"first": 5, "last": 9, "missing": [6, 8], "repeated": [7]}
    assert nonce_gaps([]) == {"first": None, "last": None, "missing": [], "repeated": []}


def test_blocks_are_numbered_from_the_head_at_the_release():
    assert blocks_from(40, [41, 41, 43, 42, 41]) == {1: 3, 2: 1, 3: 1}


def test_the_floor_of_a_signed_stake_is_the_confirmations_th_block_produced_after_the_signature():
    seen = {10: 1_000.0, 11: 13_000.0, 12: 25_000.0, 13: 37_000.0}  # block -> first seen (ms)
    # Signed at 14 s: block 12 (25 s) would have mined it, block 13 (37 s) made it 2 deep.
    assert floor_block(14_000.0, seen, 2) == (13, 37_000.0)
    assert floor_block(14_000.0, seen, 1) == (12, 25_000.0)
    # A signature the very moment a block is seen waits for the next one.
    assert floor_block(13_000.0, seen, 1) == (12, 25_000.0)
    assert floor_block(30_000.0, seen, 2) is None  # the head poll has not seen that block (yet)


def _word(value: int | str) -> str:
    text = value if isinstance(value, str) else f"{value:x}"
    return "0x" + text.lower().removeprefix("0x").rjust(64, "0")


class Burst:
    """Three claims relayed and confirmed as they should be, in the raw shapes the benchmark reads."""

    def __init__(self) -> None:
        self.expected = [Expected(f"0x{n:040x}", f"{n:064x}", 1_010_000 + n) for n in (1, 2, 3)]
        self.answers = {e.commitment: 201 for e in self.expected}
        self.stored, self.relayed, self.used, self.transfers, self.status = [], [], [], [], {}
        for i, e in enumerate(self.expected):
            tx = f"0x{0xABC0 + i:064x}"
            self.stored.append({"commitment": e.commitment, "submitter": e.payer, "status": "confirmed",
                                "transactionHash": tx, "paymentMethod": "authorization"})  # fmt: skip
            self.relayed.append({"commitment": e.commitment, "nonce": 10 + i, "transactionHash": tx, "status": "mined",
                                 "kind": "stake", "attempts": 1})  # fmt: skip
            self.used.append({"topics": [AUTHORIZATION_USED_TOPIC, address_topic(e.payer), "0x" + e.commitment],
                              "transactionHash": tx, "logIndex": hex(2 * i)})  # fmt: skip
            self.transfers.append({"topics": [TRANSFER, _word(e.payer), _word(TREASURY)], "data": _word(e.stake_units),
                                   "transactionHash": tx, "logIndex": hex(2 * i + 1)})  # fmt: skip
            self.status[tx] = 1
        self.delta = sum(e.stake_units for e in self.expected)

    def check(self) -> dict:
        return reconcile(expected=self.expected, answers=self.answers, stored=self.stored, relayed=self.relayed,
                         used_logs=self.used, transfer_logs=self.transfers, receipt_status=self.status,
                         treasury=TREASURY, treasury_delta=self.delta)  # fmt: skip


def test_a_burst_that_lost_and_doubled_nothing_reconciles():
    checked = Burst().check()
    assert checked["nothingLostOrDoubled"], checked["problems"]
    assert checked["pairedTransfers"] == 3 and checked["treasuryDeltaUnits"] == checked["stakesSumUnits"] == 3_030_006


def _stored_twice(b: Burst) -> None:
    b.stored.append(copy.deepcopy(b.stored[0]))


def _not_stored(b: Burst) -> None:
    b.stored.pop()


def _nonce_skipped(b: Burst) -> None:
    b.relayed[2]["nonce"] = 13


def _nonce_twice(b: Burst) -> None:
    b.relayed[2]["nonce"] = 11


def _two_transactions_for_a_claim(b: Burst) -> None:
    b.relayed.append({**b.relayed[0], "nonce": 13, "transactionHash": "0x" + "ee" * 32})


def _used_twice(b: Burst) -> None:
    b.used.append({**b.used[0], "logIndex": hex(40)})


def _transfer_of_another_amount(b: Burst) -> None:
    b.transfers[1]["data"] = _word(999)


def _transfer_elsewhere(b: Burst) -> None:
    b.transfers[1]["topics"] = [TRANSFER, b.transfers[1]["topics"][1], _word("0x" + "66" * 20)]


def _treasury_short_by_a_unit(b: Burst) -> None:
    b.delta -= 1


def _answered_409(b: Burst) -> None:
    b.answers[b.expected[0].commitment] = 409


def _left_pending(b: Burst) -> None:
    b.stored[0]["status"] = "pending"


def _used_in_a_failed_transaction(b: Burst) -> None:
    b.status[b.relayed[0]["transactionHash"]] = 0


@pytest.mark.parametrize(
    "break_it",
    [
        _stored_twice,
        _not_stored,
        _nonce_skipped,
        _nonce_twice,
        _two_transactions_for_a_claim,
        _used_twice,
        _transfer_of_another_amount,
        _transfer_elsewhere,
        _treasury_short_by_a_unit,
        _answered_409,
        _left_pending,
        _used_in_a_failed_transaction,
    ],
)
def test_each_thing_lost_or_doubled_is_found(break_it):
    burst = Burst()
    break_it(burst)
    checked = burst.check()
    assert not checked["nothingLostOrDoubled"]
    assert len(checked["problems"]) >= 1


def test_the_posted_claim_carries_the_payers_own_signature_of_its_stake_bound_to_its_guess():
    domain = TokenDomain("Test USD Coin", "2", 31337, "0x" + "0c" * 20)
    info = {"chainId": 31337, "treasuryAddress": TREASURY}
    [payer] = payers(1)
    assert isinstance(payer, Payer) and payer.address != payers(1, start=1)[0].address
    claim = signed_claim(domain=domain, info=info, challenge_id=7, payer=payer, n=3)
    body = claim.body
    assert body["submitterAddress"] == payer.address and body["submissionStake"] == "1.04"
    assert claim.commitment == guess_commitment_v1(
        chain_id=31337,
        challenge_id=7,
        submitter_address=payer.address,
        text=body["submissionText"],
        salt=body["submissionSalt"],
    )
    signed = body["authorization"]
    authorization = TransferAuthorization(
        payer.address, TREASURY, 1_040_000, 0, signed["validBefore"], claim.commitment
    )
    assert recover_signer(authorization, domain, Signature.parse(signed["signature"])) == payer.address
    # The same signature says nothing for another amount: the server (and the token) would refuse it.
    other = TransferAuthorization(payer.address, TREASURY, 1_050_000, 0, signed["validBefore"], claim.commitment)
    assert recover_signer(other, domain, Signature.parse(signed["signature"])) != payer.address


def test_the_relayers_statements_are_named_by_what_they_touch():
    assert statement_kind('SELECT "a"."id" FROM "chain_relayeraccount" WHERE id = 1 FOR UPDATE') == (
        "SELECT chain_relayeraccount FOR UPDATE"
    )
    assert statement_kind('SELECT %s AS "a" FROM "challenges_challenge" LIMIT 1') == "SELECT challenges_challenge"
    assert statement_kind('SELECT COUNT(*) FROM (SELECT DISTINCT "t"."x" FROM "chain_relaytransaction") s') == (
        "SELECT chain_relaytransaction"
    )
    assert statement_kind('UPDATE "responses_stakeauthorization" SET x = 1') == "UPDATE responses_stakeauthorization"
    assert statement_kind('INSERT INTO "chain_relaytransaction" ("a") VALUES (1)') == "INSERT chain_relaytransaction"


CELERY_LOG = """\
2026-11-27 18:19:20,383 INFO celery.worker.strategy Task chain.relay_send[7a15-aa] received
2026-11-27 18:19:20,400 INFO celery.worker.strategy Task chain.watch_head[0b0b-cc] received
2026-11-27 18:19:20,950 INFO celery.worker.strategy Task chain.relay_send[d8ec-bb] received
2026-11-27 18:19:20,970 INFO celery.app.trace Task chain.relay_send[d8ec-bb] succeeded in 0.007s: 0
2026-11-27 18:19:21,131 INFO celery.app.trace Task chain.relay_send[7a15-aa] succeeded in 0.731s: 2
"""


def test_the_relayers_runs_are_read_from_the_worker_log_in_utc():
    runs = relay_runs(CELERY_LOG)
    assert [(r["task"], r["sent"]) for r in runs] == [("7a15-aa", 2), ("d8ec-bb", 0)]
    first = runs[0]
    assert first["receivedAt"] == 1795803560383.0  # 2026-11-27 18:19:20.383 UTC, in ms
    assert first["endedAt"] - first["startedAt"] == pytest.approx(731.0)
    assert sending_run(runs, 1795803560800.0) is first  # sent while it ran
    assert sending_run(runs, 1795803561300.0) is None  # no run that sent anything was running then
    assert sending_run(runs, None) is None


def test_the_workers_tasks_in_a_window_and_the_head_watchers_messages_that_expired():
    log = CELERY_LOG + (
        "2026-11-27 18:19:21,200 INFO celery.worker.request Discarding revoked task: chain.watch_head[0b0b-cc]\n"
        "2026-11-27 18:19:22,500 INFO celery.app.trace Task chain.watch_head[1c1c-dd] succeeded in 0.02s: None\n"
        "2026-11-27 18:29:22,500 INFO celery.app.trace Task chain.watch_head[2d2d-ee] succeeded in 0.05s: None\n"
    )
    start = 1795803560000.0  # 18:19:20.000 UTC
    stats = task_stats(log, start, start + 10_000)
    assert stats["discarded"] == {"chain.watch_head": 1}
    assert stats["tasks"]["chain.relay_send"] == {"runs": 2, "p50Seconds": 0.007, "maxSeconds": 0.731,
                                                  "sumSeconds": pytest.approx(0.738)}  # fmt: skip
    assert stats["tasks"]["chain.watch_head"]["runs"] == 1  # the one ten minutes later is outside


def test_a_stake_signed_too_close_to_the_next_block_is_counted_a_miss_with_why():
    blocks = {100: 0.0, 101: 12_000.0, 102: 24_000.0, 103: 36_000.0}
    claim = {"signedAt": 11_500.0, "postAt": 11_550.0, "postAnsweredAt": 11_900.0, "relaySentAt": 12_300.0,
             "includedBlock": 102, "includedBlockAt": 24_000.0, "deepBlockAt": 36_000.0,
             "serverConfirmedAt": 36_400.0, "confirmedShownAt": 36_700.0, "commitment": "ab" * 32}  # fmt: skip
    t = claim_timeline(claim, blocks, 2)
    assert t["floor"] == pytest.approx(12.5)  # block 101 would have mined it, 102 made it deep enough
    assert t["inclusionIndex"] == 2 and t["aboveFloor"] == pytest.approx(25.2 - 12.5)
    assert t["deepBlockToServer"] == pytest.approx(0.4) and t["serverToPage"] == pytest.approx(0.3)
    assert "sent it 0.80 s after the signature, the first block came 0.50 s after it" in missed_first_block(claim, t)
    # Sent in time: in the first block, Confirmed at the floor's block plus what the server and the page add.
    on_time = {**claim, "relaySentAt": 11_950.0, "includedBlock": 101, "includedBlockAt": 12_000.0,
               "deepBlockAt": 24_000.0, "serverConfirmedAt": 24_400.0, "confirmedShownAt": 24_700.0}  # fmt: skip
    t = claim_timeline(on_time, blocks, 2)
    assert t["inclusionIndex"] == 1 and t["aboveFloor"] == pytest.approx(0.7)
    assert claim_timeline({**claim, "confirmedShownAt": None}, blocks, 2) is None
