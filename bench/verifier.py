"""Benchmark: the players' verifier over a pot of 10,000 stakes (docs/performance.md section 5; goal: at
most 10 s). verify_challenge.py run as a player runs it (a separate `python -S`: the standard library
only), against the site served by gunicorn under the production settings and the local anvil that
holds the pot, the game played to the end.

How the stakes are made quickly (`python -m bench.verifier build`, under Django): five of anvil's
unlocked accounts approve the pot once, then each stake is a plain `stake(challengeId, commitment,
amount)` from one of them (a real stake by approval, its payer bound into its commitment), sent in
JSON-RPC batches with automine off and the block gas limit raised. The site's follower reads them like
any stakes; the players' guesses (one in a thousand correct) are stored as the guess POST stores them;
the worker's steps reveal the solution and the winners, finalize and pay. Only the verifier is timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from . import node, tables
from .common import (
    PY,
    ROOT,
    anvil,
    collectstatic,
    command,
    django_main,
    fresh_database,
    gunicorn,
    in_django,
    load_average,
    log,
    rpc,
    rpc_batch,
    write_result,
)

SIZE = int(os.environ.get("BENCH_VERIFIER_STAKES", "10000"))
GOAL_SECONDS = 10.0
PAYERS = 5
VERIFY_TIMEOUT = 600.0
APPROVE_ALL = "0x095ea7b3"  # approve(address,uint256)


def run() -> dict:
    load_before = load_average()
    with anvil() as (url, _process):
        info = node.setup_chain(url)
        env = fresh_database(**node.chain_env(info, url, CHAIN_CONFIRMATIONS="2"))
        log(f"verifier: a pot of {SIZE:,} stakes, played to the end by the site")
        built = in_django("bench.verifier", env, "build", url, json.dumps(info), str(SIZE))
        collectstatic(env)  # the verifier reads the public configuration the page embeds
        with gunicorn(env) as base:
            load = load_average()
            started = time.monotonic()
            done = subprocess.run(
                [PY, "-S", str(ROOT / "verify_challenge.py"), "--site", base, "--rpc", url,
                 "--challenge", str(built["challenge"]), "--quiet"],
                cwd=ROOT, capture_output=True, text=True, timeout=VERIFY_TIMEOUT, check=False,
            )  # fmt: skip
            seconds = time.monotonic() - started
    last = (done.stdout.strip().splitlines() or [""])[-1]
    log(f"verifier: {SIZE:,} stakes in {seconds:.2f} s, exit {done.returncode}: {last}")
    if done.returncode != 0:
        log(done.stdout[-3000:] + done.stderr[-2000:])
    return write_result(
        "verifier",
        {
            "command": command("verifier", "BENCH_VERIFIER_STAKES"),
            "stakes": SIZE,
            "built": built,
            "seconds": round(seconds, 2),
            "exitStatus": done.returncode,
            "lastLine": last,
            "loadAverageAtStart": load,
            "goals": {"stakes": 10_000, "secondsAtMost": GOAL_SECONDS},
            "meetsGoal": SIZE >= 10_000 and done.returncode == 0 and seconds <= GOAL_SECONDS,
        },
        load_before=load_before,
    )


def render(result: dict) -> dict[str, str]:
    row = [f"{result['stakes']:,}", f"{result['seconds']:.2f}", f"≤ {GOAL_SECONDS:g}", result["exitStatus"],
           result["lastLine"], tables.met(result["meetsGoal"])]  # fmt: skip
    body = tables.table(["stakes", "seconds", "goal", "exit status", "its last line", ""], [row], right=(0, 1, 3))
    return {"verifier": body + "\n\n" + tables.provenance(result)}


# --- The pot of SIZE stakes, under Django -----------------------------------------------------


def build(url: str, info_json: str, size: str) -> dict:
    from chain.pot.abi import stake_data
    from challenges.commitments import guess_commitment, new_salt
    from challenges.coordinates import micro_degrees
    from challenges.models import PotState
    from django.conf import settings
    from responses.models import Guess, Stake

    from .play import Worker
    from .site import FAR_TEXTS, SOLUTION, follow, open_challenge

    started = time.monotonic()
    info, count = json.loads(info_json), int(size)
    worker = Worker(url)
    challenge = open_challenge(url, "3600")["challenge"]
    payers = rpc(url, "eth_accounts")[2 : 2 + PAYERS]
    node.fund(url, info, payers, count * 7 * 10**6 // PAYERS + 10**9)
    approve = APPROVE_ALL + node.word(info["potAddress"]) + "f" * 64
    rpc_batch(url, [("eth_sendTransaction", [{"from": p, "to": info["usdcAddress"], "data": approve}]) for p in payers])
    worker.mine()
    nonces = {p: int(n, 16) for p, n in zip(payers, rpc_batch(url, [("eth_getTransactionCount", [p, "pending"])
                                                                     for p in payers]), strict=True)}  # fmt: skip
    near = "48.8584, 2.2945"
    kept, calls = [], []
    for index in range(count):
        payer = payers[index % PAYERS]
        text = near if index % 1000 == 999 else FAR_TEXTS[index % len(FAR_TEXTS)]
        lat, lon = micro_degrees(text)
        salt = new_salt()
        commitment = guess_commitment(chain_id=settings.CHAIN_ID, pot=settings.POT_ADDRESS, challenge_id=challenge,
                                      payer=payer, lat_e6=lat, lon_e6=lon, salt=salt)  # fmt: skip
        kept.append(Guess(challenge_id=challenge, payer=payer.lower(), commitment=commitment, text=text, salt=salt,
                          lat_e6=lat, lon_e6=lon))  # fmt: skip
        data = stake_data(challenge_id=challenge, commitment=commitment, amount=10**6 * (1 + index % 7))
        calls.append(("eth_sendTransaction", [{"from": payer, "to": settings.POT_ADDRESS, "data": data,
                                               "gas": hex(200_000), "nonce": hex(nonces[payer])}]))  # fmt: skip
        nonces[payer] += 1
    rpc(url, "anvil_setBlockGasLimit", [hex(1_000_000_000)])
    rpc(url, "evm_setAutomine", [False])
    try:
        for start in range(0, count, 500):
            rpc_batch(url, calls[start : start + 500])
        while int(rpc(url, "txpool_status")["pending"], 16):
            worker.mine()
    finally:
        rpc(url, "evm_setAutomine", [True])
    worker.mine(2)
    follow()
    assert Stake.objects.filter(challenge_id=challenge).count() == count, "the follower did not read every stake"
    Guess.objects.bulk_create(kept, batch_size=2000)
    worker.warp(3600 + 60)
    worker.settle()
    worker.warp(settings.POT_GUESS_WINDOW_SECONDS + 60)
    worker.settle()
    state = PotState.objects.get(challenge_id=challenge)
    assert state.settled, "the pot of the verifier's challenge was not paid out"
    return {"challenge": challenge, "stakes": count, "solution": SOLUTION, "earliest": state.earliest_seq,
            "highest": state.highest_seq, "buildSeconds": round(time.monotonic() - started, 1)}  # fmt: skip


if __name__ == "__main__":
    django_main({"build": build}, sys.argv[1:])
