"""Benchmark: the gas of every transaction of the pot, from the receipts of a real play on anvil behind
the proxied test USDC (docs/performance.md section 1), beside Forge's gas test of the same steps
(contracts/test/PotGas.t.sol, which asserts the goals).

The play runs the site's own code in one Django process (`python -m bench.gas play`), as the worker
would run it: two challenges published by the services and opened in the pot by the worker's opening
step; stakes signed as the page signs them and POSTed to /api/responses, sent by the site's relayer
(chain/relayer/sender.py); a stake sent by its player with ETH (stakeWithAuthorization) and one by
approval (approve, then stake); the guesses posted once confirmed; the chain's clock moved past the
close and the guess window, and the follower and the game's steps (chain/pot/steps.py) left to reveal,
finalize, pay and refund, each call sent by the relayer. The first challenge has winners; the second
none, so its stakes are refunded. Every figure is its transaction's receipt (gasUsed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from . import node, tables
from .common import (
    NODE_MODULES,
    ROOT,
    anvil,
    command,
    django_main,
    fresh_database,
    in_django,
    load_average,
    log,
    write_result,
)

STAKE_GOAL = 125_000  # a relayed stake after the pot's first
REVEAL_GOAL = 45_000  # a guess's reveal
FORGE_TIMEOUT = 900

# Each figure of the play: its name, and the label of Forge's gas test for the same step.
STEPS = [
    ("open (the operator's, by the worker)", None, None),
    ("stakeWithAuthorization by the relayer: the pot's very first stake", "the pot's very first with no bond", None),
    ("stakeWithAuthorization by the relayer: a later stake", "a later stake", STAKE_GOAL),
    ("stakeWithAuthorization by the relayer: the same payer again", "the same payer again", STAKE_GOAL),
    ("stakeWithAuthorization by the relayer: a later challenge's first", "a later challenge's first", STAKE_GOAL),
    ("stakeWithAuthorization sent by its player", None, None),
    ("approve (the player's)", "approve (the payer's own transaction)", None),
    ("stake by approval (the player's)", "stake (by approval)", None),
    ("revealSolution", "revealSolution", None),
    ("revealGuess: the earliest correct", "revealGuess, the first correct", REVEAL_GOAL),
    ("revealGuess: a correct one that beats the best", "revealGuess, a correct one that beats the best", REVEAL_GOAL),
    ("finalize", "finalize", None),
    ("payPrize: the earliest", "payPrize, the earliest", None),
    ("payPrize: the highest", "payPrize, the highest", None),
    ("payShare", "payShare", None),
    ("finalize, no correct guess", "finalize, no correct guess", None),
    ("refund, no correct guess", "refund, no correct guess", None),
]


def run() -> dict:
    load_before = load_average()
    forge = forge_gas()
    log("forge's gas test: " + ", ".join(f"{k} {v}" for k, v in forge["figures"].items()))
    with anvil() as (url, _process):
        info = node.setup_chain(url)
        env = fresh_database(**node.chain_env(info, url, CHAIN_CONFIRMATIONS="2"))
        log("the play: two challenges from publish to paid, every call sent by the site")
        play = in_django("bench.gas", env, "play", url, json.dumps(info))
    rows = []
    for name, forge_label, goal in STEPS:
        used = play["gas"].get(name)
        rows.append({"step": name, "gasUsed": used, "forge": forge["figures"].get(forge_label or ""), "goal": goal,
                     "meetsGoal": None if goal is None or used is None else used <= goal})  # fmt: skip
    return write_result(
        "gas",
        {
            "command": command("gas"),
            "forgeCommand": forge["command"],
            "forgePassed": forge["passed"],
            "rows": rows,
            "play": play,
            "meetsGoal": forge["passed"] and all(r["meetsGoal"] is not False for r in rows),
        },
        load_before=load_before,
    )


def forge_gas() -> dict:
    """FOUNDRY_PROFILE=gas forge test (contracts/test/PotGas.t.sol): every figure it logs, by label."""
    root = NODE_MODULES.parent
    out = ROOT / "var" / "forge"
    env = {**os.environ, "FOUNDRY_PROFILE": "gas", "NODE_PATH": str(NODE_MODULES), "FOUNDRY_OUT": str(out / "out"),
           "FOUNDRY_CACHE_PATH": str(out / "cache"),
           "FOUNDRY_TEST_FAILURES_FILE": str(out / "cache" / "failures")}  # fmt: skip
    cmd = [str(NODE_MODULES / ".bin" / "forge"), "test", "-vv", "--json", "--root", str(root)]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=FORGE_TIMEOUT)
    figures: dict[str, int] = {}
    passed = done.returncode == 0
    try:
        suites = json.loads(done.stdout[done.stdout.index("{") :])
    except ValueError:
        sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
        raise RuntimeError(f"forge test gave no JSON (exit {done.returncode})") from None
    for suite in suites.values():
        for test in suite["test_results"].values():
            passed = passed and test["status"] == "Success"
            for line in test.get("decoded_logs", []):
                label, _, value = line.rpartition(" ")
                if value.isdigit():
                    figures[label.split(", ", 1)[-1] if label.startswith("stakeWith") else label] = int(value)
    return {"command": "FOUNDRY_PROFILE=gas node_modules/.bin/forge test -vv", "passed": passed, "figures": figures}


def render(result: dict) -> dict[str, str]:
    rows = [
        [r["step"], tables.number(r["gasUsed"]), tables.number(r["forge"]),
         tables.number(r["goal"]) if r["goal"] else "", tables.met(r["meetsGoal"])]
        for r in result["rows"]
    ]  # fmt: skip
    headers = ["transaction", "gasUsed (receipt of the play)", "Forge's gas test", "goal", ""]
    forge = "passed" if result["forgePassed"] else "**failed**"
    meta = tables.provenance(result) + "\n\n" + tables.table(["Forge's gas test (it asserts the goals)", "result"],
                                                                [[f"`{result['forgeCommand']}`", forge]])  # fmt: skip
    return {"gas": tables.table(headers, rows, right=(1, 2, 3)) + "\n\n" + meta}


# --- The play, under Django -------------------------------------------------------------------


def play(url: str, info_json: str) -> dict:
    from .play import Play

    game = Play(url, json.loads(info_json))
    return game.run()


if __name__ == "__main__":
    django_main({"play": play}, sys.argv[1:])
