"""The reconciliation of the relayed-stake burst (`make bench`, bench/relay.py; bench/reconcile.py)
finds each way a burst can lose or double a stake: a POST not answered 201, a stake never in the pot
or in it twice, one of another payer or amount, a sequence number skipped, a stake in a transaction
that is not the relayer's or that failed, the relayer's nonces skipped or reused, the pot's `owed`
off by one unit. The blocks are counted from the POSTs."""

from __future__ import annotations

import copy

from bench.reconcile import blocks_from, nonce_gaps, reconcile

RELAYER = "0xA4b8B3A45487De138d5Fd75Cd7b74b6B9155f2fC"
OTHER = "0x" + "be" * 20


def burst(count: int = 4) -> dict:
    """What a clean burst of `count` stakes leaves: one transaction of the relayer's per stake."""
    expected, staked, transactions, receipts = {}, [], {}, {}
    for n in range(count):
        commitment, payer, amount, tx = f"{n:064x}", "0x" + f"{n + 1:040x}", 1_000_000 + n, "0x" + f"{n + 9:064x}"
        expected[commitment] = (payer, amount)
        staked.append({"commitment": commitment, "payer": payer, "amount": amount, "seq": 7 + n,
                       "transactionHash": tx, "blockNumber": 40})  # fmt: skip
        transactions[tx] = {"from": RELAYER.lower(), "nonce": hex(30 + n)}
        receipts[tx] = {"status": "0x1"}
    return {
        "expected": expected,
        "answers": {c: 201 for c in expected},
        "staked": staked,
        "transactions": transactions,
        "receipts": receipts,
        "relayer": RELAYER,
        "owed_delta": sum(a for _, a in expected.values()),
    }


def problems(**change) -> list[str]:
    return reconcile(**change)["problems"]


def test_a_clean_burst_reconciles():
    checked = reconcile(**burst())
    assert checked["nothingLostOrDoubled"] and checked["problems"] == []
    assert checked["nonces"] == {"first": 30, "last": 33, "missing": [], "repeated": []}
    assert checked["owedDelta"] == checked["stakesSum"] == 4_000_006


def test_each_fault_is_found():
    clean = burst()

    def with_(edit) -> list[str]:
        data = copy.deepcopy(clean)
        edit(data)
        return problems(**data)

    assert any("201" in p for p in with_(lambda d: d["answers"].update({next(iter(d["expected"])): 409})))
    assert any("1 never" in p for p in with_(lambda d: d["staked"].pop()))
    assert any("1 twice" in p for p in with_(lambda d: d["staked"].append(dict(d["staked"][0]))))
    assert any("1 of another payer" in p for p in with_(lambda d: d["staked"][1].update(payer=OTHER)))
    assert any("1 of another payer or amount" in p for p in with_(lambda d: d["staked"][1].update(amount=5)))
    assert any("with gaps" in p for p in with_(lambda d: d["staked"][2].update(seq=99)))
    first_tx = clean["staked"][0]["transactionHash"]
    assert any("1 not the relayer's" in p for p in with_(lambda d: d["transactions"][first_tx].update({"from": OTHER})))
    assert any("without a good receipt" in p for p in with_(lambda d: d["receipts"][first_tx].update(status="0x0")))
    second_tx = clean["staked"][1]["transactionHash"]
    assert any("missing [31]" in p for p in with_(lambda d: d["transactions"][second_tx].update(nonce=hex(34))))
    assert any("repeated [31]" in p for p in with_(lambda d: d["transactions"][first_tx].update(nonce=hex(31))))
    assert any("owed: +4000005" in p for p in with_(lambda d: d.update(owed_delta=d["owed_delta"] - 1)))


def test_nonces_and_blocks_are_counted_as_the_tables_show_them():
    assert nonce_gaps([]) == {"first": None, "last": None, "missing": [], "repeated": []}
    assert nonce_gaps([5, 7, 7, 8]) == {"first": 5, "last": 8, "missing": [6], "repeated": [7]}
    assert blocks_from(19, [20, 20, 21, 20]) == {1: 3, 2: 1}
