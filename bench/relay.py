"""Benchmark: 100 relayed stakes in one burst on 12-second blocks (docs/performance.md section 3).

The Procfile's own processes, each its own command line run by bash (devtools/procfile.py for the web,
bound to 127.0.0.1): `web`, `worker` (the default queue and the relayer's `relay`) and `beat`, under
the production settings (bench.settings), on PostgreSQL database geopoem_bench and the benchmarks'
Redis DB, with anvil mining a block every 12 seconds (Sepolia's pace), the test USDC behind its proxy,
the pot, CHAIN_CONFIRMATIONS=2 and the development relayer key (ETH only).

COUNT payers with keys of their own, holding test USDC and no ETH, each sign one stake as the page
signs it (bench/site.py, sign) on a challenge opened by the worker's own step, and all POST at the
same instant, half a block interval after a block, each on its own connection from its own address.
Then until every stake is confirmed on the site: the head polled every 20 ms (when each block was
first seen), the site's database every 100 ms (when each stake was confirmed: its Staked event at or
below the follower's confirmed block). Afterwards everything is reconciled against the chain
(bench/reconcile.py): each Staked once, the pot's `owed` up by exactly the stakes, the relayer's
nonces consecutive, every stake in a transaction of the relayer's."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

from devtools import processes, procfile

from . import client, node, tables
from .common import (
    DATABASE,
    PG_BASE,
    anvil,
    command,
    fresh_database,
    in_django,
    load_average,
    log,
    log_dir,
    stats,
    write_result,
)
from .reconcile import blocks_from, reconcile

COUNT = int(os.environ.get("BENCH_RELAY_COUNT", "100"))
BLOCK_SECONDS = 12
WARMUP = 6  # stakes that warm each web worker and the worker's relay path (not measured)
PHASE = 0.5  # the release, as a share of the block interval after a block was first seen
CONFIRMATIONS = 2
PAYERS_FROM = 20_000
# The relayer's daily budget, raised for the benchmark: config/settings/chain.py's default (0.05 ETH a
# day) is an operator's limit for a day of players, and a burst reserves the gas limit of every stake
# in flight against it at once (reported).
RELAY_BUDGET_WEI = str(10**18)


@contextlib.contextmanager
def procfile_process(name: str, env: dict[str, str], *, log: Path, cwd: Path, ready: str) -> Iterator[None]:
    """The Procfile's process `name`, its own command line run by bash in a session of its own (the
    virtualenv's programs first on PATH), once its log shows `ready`; stopped by its process group."""
    env = {**env, "PATH": f"{processes.BIN}{os.pathsep}{env.get('PATH', '')}"}
    process = processes.start(["/bin/bash", "-c", procfile.procfile_command(name)], log=log, env=env, cwd=cwd,
                              new_session=True)  # fmt: skip
    try:
        processes.wait_until(lambda: ready in log.read_text(errors="replace"), f"{name}: {ready!r}", timeout=90,
                             process=process)  # fmt: skip
        yield
    finally:
        processes.stop(process, timeout=30, group=True)


def confirmed_at(commitments: list[str], *, timeout: float) -> dict[str, float]:
    """When each stake was first seen confirmed on the site (time.time()), polled every 100 ms until all
    are or `timeout` passes."""
    import psycopg

    seen: dict[str, float] = {}
    deadline = time.monotonic() + timeout
    with psycopg.connect(f"{PG_BASE}/{DATABASE}", autocommit=True) as conn:
        while len(seen) < len(commitments) and time.monotonic() < deadline:
            rows = conn.execute(
                "SELECT s.commitment FROM responses_stake s, challenges_chainclock c WHERE c.id = 1 "
                "AND s.block_number <= c.confirmed_block AND s.commitment = ANY(%s)",
                [commitments],
            ).fetchall()
            now = time.time()
            for (commitment,) in rows:
                seen.setdefault(commitment, now)
            time.sleep(0.1)
    return seen


def relay_records(commitments: list[str]) -> tuple[dict[str, list[str]], list[float]]:
    """Every transaction the relayer sent for each stake (re-sends included), and when it first sent
    each (time.time()), from its records."""
    import psycopg

    with psycopg.connect(f"{PG_BASE}/{DATABASE}") as conn:
        rows = conn.execute(
            "SELECT s.commitment, t.attempts, extract(epoch FROM t.sent_at)::float8 FROM chain_relaytransaction t "
            "JOIN chain_potcall c ON t.call_id = c.id JOIN responses_signedstake s ON c.signed_stake_id = s.id "
            "WHERE s.commitment = ANY(%s)",
            [commitments],
        ).fetchall()
    hashes: dict[str, list[str]] = {}
    for commitment, attempts, _ in rows:
        hashes.setdefault(commitment, []).extend(a["hash"].lower() for a in attempts)
    return hashes, sorted(sent for _, _, sent in rows)


def run() -> dict:
    load_before = load_average()
    workdir = log_dir("relay")
    with anvil() as (url, _anvil):
        info = node.setup_chain(url)
        chain = node.chain_env(
            info, url, CHAIN_CONFIRMATIONS=str(CONFIRMATIONS), RELAY_MAX_WEI_PER_DAY=RELAY_BUDGET_WEI
        )
        env = fresh_database(**chain, TRUSTED_PROXY_HOPS="1", LOG_LEVEL="INFO")
        challenge = in_django("bench.site", env, "open", url, "3600")["challenge"]
        payers = node.payers(WARMUP + COUNT, start=PAYERS_FROM)
        node.fund(url, info, [p.address for p in payers], 10 * 10**6)
        signed_file = workdir / "signed.json"
        in_django("bench.site", env, "sign", str(challenge), str(PAYERS_FROM), str(WARMUP + COUNT), str(signed_file))
        signed = json.loads(signed_file.read_text())
        requests = [client.Request("POST", "/api/responses", s["commitment"], f"10.3.{n // 250}.{n % 250 + 1}",
                                   s["body"]) for n, s in enumerate(signed)]  # fmt: skip
        node.set_pace(url, BLOCK_SECONDS)
        with (
            node.HeadWatch(url) as head,
            procfile.web(env, log=workdir / "web.log") as web,
            procfile_process("worker", env, log=workdir / "worker.log", cwd=processes.ROOT, ready=" ready."),
            procfile_process("beat", env, log=workdir / "beat.log", cwd=workdir, ready="beat: Starting"),
        ):
            site = client.Site(web.base)
            warm = client.at_once(site, requests[:WARMUP], time.monotonic())
            found = confirmed_at([r.what for r in requests[:WARMUP]], timeout=4 * BLOCK_SECONDS)
            log(f"warm-up: {client.figures(warm)['statuses']}, {len(found)} confirmed")
            burst = requests[WARMUP:]
            _, seen = head.next_block()
            release = seen + PHASE * BLOCK_SECONDS
            offset = time.time() - time.monotonic()
            owed_before = node.owed(url, info["potAddress"])
            answers = client.at_once(site, burst, release - offset)
            release_head = max(n for n, at in head.blocks.items() if at <= release)
            log(f"{COUNT} stakes POSTed at once after block {release_head}: {client.figures(answers)['statuses']}")
            confirmed = confirmed_at([r.what for r in burst], timeout=8 * BLOCK_SECONDS)
            blocks_seen = dict(head.blocks)
        commitments = [r.what for r in burst]
        sent, sent_at = relay_records(commitments)
        last = max(blocks_seen)
        staked = node.staked_logs(url, info["potAddress"], challenge, from_block=release_head + 1, to_block=last)
        hashes = sorted({h for hs in sent.values() for h in hs} | {s["transactionHash"] for s in staked})
        receipts = node.receipts(url, hashes)
        mined = {h: r for h, r in receipts.items() if r is not None}
        found_tx = node.transactions(url, sorted(mined))
        stake_block = max((s["blockNumber"] for s in staked), default=release_head)
        checked = reconcile(
            expected={s["commitment"]: (s["payer"], s["amount"]) for s in signed[WARMUP:]},
            answers={a.what: a.status for a in answers},
            staked=staked,
            transactions={h: t for h, t in found_tx.items() if t is not None},
            receipts=mined,
            relayer=info["relayerAddress"],
            owed_delta=node.owed(url, info["potAddress"], stake_block) - owed_before,
        )
    figures = timings(answers, offset, release, release_head, blocks_seen, staked, confirmed, mined)
    figures["relaySentSeconds"] = stats([at - release for at in sent_at])
    log(
        f"blocks used {figures['blocksUsed']}, last mined {figures['lastMinedSeconds']} s, last confirmed "
        f"{figures['lastConfirmedSeconds']} s; reconciled: {checked['problems'] or 'nothing lost or doubled'}"
    )
    return write_result(
        "relay",
        {
            "command": command("relay", "BENCH_RELAY_COUNT"),
            "setup": {
                "count": COUNT,
                "blockSeconds": BLOCK_SECONDS,
                "confirmations": CONFIRMATIONS,
                "releasedAfterBlock": PHASE * BLOCK_SECONDS,
                "relayMaxWeiPerDay": RELAY_BUDGET_WEI,
            },
            **figures,
            "reconciled": checked,
            "allMinedAndConfirmed": checked["nothingLostOrDoubled"] and len(confirmed) == COUNT,
        },
        load_before=load_before,
    )


def timings(answers, offset: float, release: float, release_head: int, blocks: dict[int, float], staked: list[dict],
            confirmed: dict[str, float], receipts: dict[str, dict]) -> dict:  # fmt: skip
    """The burst's times in seconds from the POSTs' release, the blocks it used and its gas."""
    included = [s["blockNumber"] for s in staked]
    last_block = max(included) if included else None
    deep = (last_block or 0) + CONFIRMATIONS - 1
    gas = [int(receipts[s["transactionHash"]]["gasUsed"], 16) for s in staked if s["transactionHash"] in receipts]
    price = [int(receipts[s["transactionHash"]]["effectiveGasPrice"], 16) for s in staked
             if s["transactionHash"] in receipts]  # fmt: skip
    return {
        "postAnsweredSeconds": stats([a.done + offset - release for a in answers]),
        "statuses": client.figures(answers)["statuses"],
        "blocksUsed": {str(k): v for k, v in blocks_from(release_head, included).items()},
        "lastMinedSeconds": blocks[last_block] - release if last_block in blocks else None,
        # The chain's floor: the block that makes the last stake CONFIRMATIONS deep, first seen.
        "lastDeepSeconds": blocks[deep] - release if deep in blocks else None,
        "confirmedSeconds": stats([at - release for at in confirmed.values()]),
        "lastConfirmedSeconds": max(confirmed.values()) - release if confirmed else None,
        "confirmedCount": len(confirmed),
        "gasPerStake": stats(gas),
        "gasPerStakeMean": sum(gas) / len(gas) if gas else None,
        "effectiveGasPriceWei": stats(price),
        "costWei": sum(g * p for g, p in zip(gas, price, strict=True)),
    }


def _held(ok: bool) -> str:
    return "reconciled" if ok else "**differs**"


def render(result: dict) -> dict[str, str]:
    c = result["reconciled"]
    blocks = ", ".join(f"block {k}: {v}" for k, v in result["blocksUsed"].items())
    gas = result["gasPerStake"]
    rows = [
        ["POSTs answered", ", ".join(f"{k}: {v}" for k, v in result["statuses"].items()), ""],
        ["POST answered, p50 / p99 / last (s after the release)",
         " / ".join(tables.number(result["postAnsweredSeconds"][k], 2) for k in ("p50", "p99", "max")), ""],
        ["the relayer's sends, p50 / last (s after the release)",
         " / ".join(tables.number(result.get("relaySentSeconds", {}).get(k), 2) for k in ("p50", "max")), ""],
        ["blocks used (1 = the first after the POSTs, 6 s after them; 2 = 12 s later)", blocks, ""],
        ["the last stake mined (its block first seen), s after the POSTs",
         tables.number(result["lastMinedSeconds"], 2), ""],
        [f"the block that makes the last stake {CONFIRMATIONS} deep, first seen (the chain's floor)",
         tables.number(result.get("lastDeepSeconds"), 2), ""],
        ["stakes confirmed on the site, p50 / last (s after the POSTs)",
         f"{tables.number(result['confirmedSeconds']['p50'], 2)} / {tables.number(result['lastConfirmedSeconds'], 2)}"
         f" ({result['confirmedCount']} of {result['setup']['count']})", ""],
        ["each Staked once, of its payer and amount", f"{c['stakedLogs']} logs for {c['stakes']} stakes",
         _held(not c["stakedProblems"])],
        ["the pot's `owed`, up by", f"{c['owedDelta']:,} units (the stakes: {c['stakesSum']:,})",
         _held(c["owedDelta"] == c["stakesSum"])],
        ["the relayer's nonces", f"{c['nonces']['first']} to {c['nonces']['last']}, missing "
         f"{len(c['nonces']['missing'])}, repeated {len(c['nonces']['repeated'])}",
         _held(not c["nonces"]["missing"] and not c["nonces"]["repeated"])],
        ["the relayer's gas per stake, p50 / max (receipts)", f"{gas['p50']:,} / {gas['max']:,}", ""],
        ["its cost, all stakes", f"{result['costWei'] / 10**18:.6f} ETH at "
         f"{result['effectiveGasPriceWei']['p50'] / 10**9:.3f} gwei", ""],
    ]  # fmt: skip
    return {"relay": tables.table(["figure", "measured", ""], rows) + "\n\n" + tables.provenance(result)}
