"""Both verifiers over a pot of 3,000 stakes, against anvil and the real site (docs/protocol.md section
5): every outcome reproduced, within the 10 seconds the goal gives 10,000 stakes. The goal itself, at
10,000 stakes, is measured by `make bench` (bench/verifier.py, docs/performance.md section 5); this
test keeps a suite's worth of it, a minute less in `make test`.

How the stakes are made quickly: five of anvil's unlocked accounts (2 to 6: 1 is the token's
proxy admin, 8 and 9 the pot's receivers) approve the pot once, then each stake is a plain
`stake(challengeId, commitment, amount)` from one of them (a real stake by approval, its payer bound
into its commitment), sent in JSON-RPC batches of eth_sendTransaction with automine off and the block
gas limit raised, so that anvil mines them all in a few blocks. The site's follower then reads them
like any stakes; the players' guesses (one in a thousand correct) are stored as the guess POST would
store them, in one insert, and the worker reveals the solution and the winners, finalizes and pays.
The game takes a minute or so to set up; only the verifiers are timed."""

from __future__ import annotations

import json
import time
import urllib.request
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone
from web3 import Web3

from chain.pot.abi import stake_data
from challenges.commitments import guess_commitment, new_salt
from challenges.coordinates import micro_degrees
from challenges.models import PotState
from responses.models import Guess, Stake

from ..pot_support import follow, settle
from .verifier_support import FAR, GIZA, NEAR, assert_reproduced, run_page_verifier, verify

pytestmark = pytest.mark.integration

STAKES = 3_000
PAYERS = 5
SECONDS = 10.0


def rpc_batch(url: str, calls: list[tuple[str, list]]) -> list:
    payload = [{"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(calls)]
    request = urllib.request.Request(url, json.dumps(payload).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as answer:
        results = sorted(json.loads(answer.read()), key=lambda item: item["id"])
    errors = [item["error"] for item in results if "error" in item]
    assert not errors, errors[:3]
    return [item["result"] for item in results]


def stake_many(chain, challenge) -> list[dict]:
    """The stakes, sent and mined; returns what each player's page keeps (payer, guess, salt, commitment)."""
    payers = [Web3.to_checksum_address(a) for a in chain.w3.eth.accounts[2 : 2 + PAYERS]]
    token = chain.token()
    for payer in payers:
        chain.send({"from": chain.deployer, "to": chain.usdc, "data": token.encode_abi("mint", [payer, 10**12])})
        chain.send({"from": payer, "to": chain.usdc, "data": token.encode_abi("approve", [chain.pot, 2**255])})
    nonces = {p: chain.w3.eth.get_transaction_count(p) for p in payers}
    kept, calls = [], []
    for index in range(STAKES):
        payer = payers[index % PAYERS]
        text = NEAR if index % 1000 == 999 else FAR
        lat, lon = micro_degrees(text)
        salt = new_salt()
        commitment = guess_commitment(
            chain_id=settings.CHAIN_ID, pot=chain.pot, challenge_id=challenge.pk, payer=payer,
            lat_e6=lat, lon_e6=lon, salt=salt,
        )  # fmt: skip
        amount = 1_000_000 * (1 + index % 7)
        kept.append(
            {"payer": payer.lower(), "text": text, "lat": lat, "lon": lon, "salt": salt, "commitment": commitment}
        )
        data = stake_data(challenge_id=challenge.pk, commitment=commitment, amount=amount)
        tx = {"from": payer, "to": chain.pot, "data": data, "gas": hex(200_000), "nonce": hex(nonces[payer])}
        nonces[payer] += 1
        calls.append(("eth_sendTransaction", [tx]))
    chain.rpc("anvil_setBlockGasLimit", [hex(1_000_000_000)])
    chain.rpc("evm_setAutomine", [False])
    try:
        for start in range(0, STAKES, 500):
            rpc_batch(chain.url, calls[start : start + 500])
        while int(chain.rpc("txpool_status")["pending"], 16):
            chain.mine(1)
    finally:
        chain.rpc("evm_setAutomine", [True])
    return kept


def test_both_verifiers_reproduce_every_outcome_of_thousands_of_stakes(chain, make_challenge, api, site):
    challenge = make_challenge(solution=GIZA, threshold=150, closes_at=timezone.now() + timedelta(hours=1))
    kept = stake_many(chain, challenge)
    chain.mine(2)
    follow()
    assert Stake.objects.filter(challenge=challenge).count() == STAKES
    Guess.objects.bulk_create(
        Guess(challenge=challenge, payer=k["payer"], commitment=k["commitment"], text=k["text"], salt=k["salt"],
              lat_e6=k["lat"], lon_e6=k["lon"])
        for k in kept
    )  # fmt: skip
    chain.warp(3_600 + 60)
    settle(chain)
    chain.warp(86_400 + 60)
    settle(chain)
    # anvil orders a block's transactions by sender and nonce, not as sent: the winners from the sequences.
    correct = {k["commitment"] for k in kept if k["text"] == NEAR}
    winning = [(s.seq, int(s.amount_units)) for s in Stake.objects.filter(challenge=challenge, commitment__in=correct)]
    expected = (min(winning)[0], min(winning, key=lambda w: (-w[1], w[0]))[0])
    state = PotState.objects.get(challenge=challenge)
    assert (state.earliest_seq, state.highest_seq, state.settled) == (*expected, True)

    started = time.monotonic()
    result = verify(site, chain, challenge)
    elapsed = time.monotonic() - started
    assert_reproduced(result)
    assert result.last_line == f"{STAKES} of {STAKES} outcomes reproduced"
    print(f"verify_challenge.py, {STAKES} stakes: {elapsed:.2f} s")
    assert elapsed <= SECONDS, f"{elapsed:.2f} s for {STAKES} stakes"

    started = time.monotonic()
    report = run_page_verifier(site, chain, challenge)
    print(f"the page's verifier under node, {STAKES} stakes: {time.monotonic() - started:.2f} s")
    assert report["ok"] is True and report["total"] == STAKES, report["differences"][:5]
