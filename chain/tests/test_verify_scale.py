"""verify_challenge.py at 10,000 responses (docs/protocol.md section 6): every one a real stake
transfer on the session anvil, the completeness scan included, verified as a player runs it
(`python -S`, default batches and pages) well within a minute. The claims are written to the
database as verification leaves them (bulk, with the chain positions the chain gives), so that the
test measures the verifier, not the server's verification."""

import random
import time
from datetime import UTC, datetime
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest

from chain.contracts import mint
from challenges.services import challenge_stake_moved
from responses.models import Response, ResponseStatus
from responses.services import guess_fields

from .verifier_support import GIZA, resolve, run_verifier

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]

RESPONSES = 10_000
PER_BLOCK = 400  # about 20 M gas of 50 k-gas transfers: within anvil's 30 M block gas limit
GOAL_SECONDS = 60.0


def rpc(chain, calls: list[tuple[str, list]]) -> list:
    """One JSON-RPC batch, straight to anvil (web3's per-call overhead would dominate here)."""
    import requests

    payload: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(calls)
    ]
    answer = requests.post(chain.url, json=payload, timeout=120).json()
    by_id = {item["id"]: item for item in answer}
    errors = [by_id[i] for i in range(len(calls)) if "result" not in by_id[i]]
    assert not errors, errors[:3]
    return [by_id[i]["result"] for i in range(len(calls))]


def test_ten_thousand_responses_verify_well_within_a_minute(chain, make_challenge, live_server):
    from django.conf import settings

    from challenges.commitments import guess_commitment_v1
    from challenges.coordinates import parse_coordinates

    challenge = make_challenge(solution=GIZA, threshold=100)
    players = chain.w3.eth.accounts[:10]
    for player in players:
        mint(chain.w3, chain.usdc, player, 100_000 * 10**6, sender=chain.deployer)
    rng = random.Random(21)
    drafts = []
    for n in range(RESPONSES):
        address = players[n % len(players)]
        text = parse_coordinates(f"{rng.uniform(-60, 60):.6f}, {rng.uniform(-170, 170):.6f}").text
        salt = f"{rng.getrandbits(256):064x}"
        commitment = guess_commitment_v1(
            chain_id=settings.CHAIN_ID, challenge_id=challenge.pk, submitter_address=address, text=text, salt=salt
        )
        drafts.append((address, text, salt, commitment))
    # Explicit nonces: anvil numbers the sends of one batch concurrently.
    nonces = {a: chain.w3.eth.get_transaction_count(a, "pending") for a in players}
    chain.w3.provider.make_request("evm_setAutomine", [False])
    try:
        hashes = []
        for start in range(0, RESPONSES, PER_BLOCK):
            calls = []
            for address, _, _, commitment in drafts[start : start + PER_BLOCK]:
                stake = SimpleNamespace(submission_stake=Decimal(1), commitment=commitment, challenge_id=challenge.pk)
                tx = {"from": address, "to": chain.usdc, "data": chain.stake_calldata(stake), "gas": hex(80_000)}
                tx["nonce"] = hex(nonces[address])
                nonces[address] += 1
                calls.append(("eth_sendTransaction", [tx]))
            hashes += rpc(chain, calls)
            chain.mine(1)
    finally:
        chain.w3.provider.make_request("evm_setAutomine", [True])
    chain.mine(2)
    receipts = []
    for start in range(0, RESPONSES, 1000):
        receipts += rpc(chain, [("eth_getTransactionReceipt", [h]) for h in hashes[start : start + 1000]])
    assert all(r["status"] == "0x1" for r in receipts)
    blocks = {n: rpc(chain, [("eth_getBlockByNumber", [n, False])])[0] for n in {r["blockNumber"] for r in receipts}}
    rows = []
    for (address, text, salt, _), tx_hash, receipt in zip(drafts, hashes, receipts, strict=True):
        rows.append(
            Response(
                challenge=challenge,
                **guess_fields(challenge_id=challenge.pk, text=text, submitter_address=address, salt=salt),
                submission_stake=Decimal(1),
                transaction_hash=tx_hash,
                submitter_address=address,
                status=ResponseStatus.CONFIRMED,
                block_number=int(receipt["blockNumber"], 16),
                block_hash=receipt["blockHash"],
                transaction_index=int(receipt["transactionIndex"], 16),
                log_index=int(receipt["logs"][0]["logIndex"], 16),
                submission_timestamp=datetime.fromtimestamp(
                    int(blocks[receipt["blockNumber"]]["timestamp"], 16), tz=UTC
                ),
            )
        )
    Response.objects.bulk_create(rows, batch_size=2000)
    challenge_stake_moved(challenge_id=challenge.pk, stake=Decimal(RESPONSES), count=RESPONSES)
    resolve(chain, challenge)

    started = time.monotonic()
    result = run_verifier(live_server.url, "--challenge", str(challenge.pk), rpc=chain.url, registry=chain.registry)
    elapsed = time.monotonic() - started
    print(f"verify_challenge.py, {RESPONSES} responses with the completeness scan: {elapsed:.1f} s")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    assert result.last_line == f"{RESPONSES} of {RESPONSES} outcomes reproduced"
    assert f"{RESPONSES} payments to the treasury name challenge {challenge.pk}" in result.stdout
    assert elapsed < GOAL_SECONDS
