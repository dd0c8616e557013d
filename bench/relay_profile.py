"""Where the relayer's time goes per stake (docs/performance.md, the relayed burst): its sending run
(chain/relayer.py, relay_send_now) over CLAIMS queued claims, in this one process, timed by part:
every SQL statement (Django's execute_wrapper, by verb and table), the commits (one per claim: each
claim is decided under the account row's lock in a transaction of its own), the signing, the
broadcast (one eth_sendRawTransaction per stake), the round's batched chain reads, and the rest
(Python). Then the head watcher's two rounds over those claims once their stakes are mined in one
block (chain/heads.py): the inclusion block's (their transactions found) and the deep-enough
block's, which confirms them all: its RPC requests, statements and time per claim. Run by
bench/relay_burst.py on its chain once its servers have stopped (no worker may
send these), on claims signed by payers with keys of their own, stored queued as the POST stores
them (responses/authorizations.py's rows, without the POST's chain checks).

    python -m bench.relay_profile RPC_URL INFO_JSON CHALLENGE_ID FIRST_PAYER COUNT   (Django set up by env)"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections import defaultdict
from decimal import Decimal

_TABLE = {
    "SELECT": re.compile(r'\bFROM\s+"(\w+)"', re.I),
    "INSERT": re.compile(r'^INSERT\s+INTO\s+"(\w+)"', re.I),
    "UPDATE": re.compile(r'^UPDATE\s+"(\w+)"', re.I),
    "DELETE": re.compile(r'^DELETE\s+FROM\s+"(\w+)"', re.I),
}


def statement_kind(sql: str) -> str:
    """ "VERB table" of a statement (for a SELECT the first table it reads from), with FOR UPDATE
    when it locks, e.g. 'SELECT chain_relayeraccount FOR UPDATE'."""
    text = sql.strip()
    verb = text.split(None, 1)[0].upper() if text else "?"
    pattern = _TABLE.get(verb)
    match = pattern.search(text) if pattern else None
    if match is None:
        return verb
    locked = " FOR UPDATE" if verb == "SELECT" and re.search(r"\bFOR\s+UPDATE\b", text, re.I) else ""
    return f"{verb} {match.group(1)}{locked}"


class Timed:
    """Seconds and calls by part."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def add(self, part: str, seconds: float) -> None:
        self.seconds[part] += seconds
        self.calls[part] += 1

    def wrap(self, part: str, function):
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.add(part, time.perf_counter() - started)

        return timed


def queue_claims(rpc_url: str, info: dict, challenge_id: int, first: int, count: int) -> None:
    """`count` claims by payers `first`... (bench/relay_chain.py), stored queued."""
    from responses.models import PaymentMethod, Response, StakeAuthorization
    from responses.services import guess_fields

    from . import relay_chain

    domain = relay_chain.token_domain(rpc_url, info)
    for n, payer in enumerate(relay_chain.payers(count, start=first)):
        claim = relay_chain.signed_claim(domain=domain, info=info, challenge_id=challenge_id, payer=payer, n=50_000 + n)
        body = claim.body
        guess = guess_fields(challenge_id=challenge_id, text=body["submissionText"], submitter_address=payer.address,
                             salt=body["submissionSalt"])  # fmt: skip
        assert guess["commitment"] == claim.commitment
        response = Response.objects.create(
            challenge_id=challenge_id,
            **guess,
            submission_stake=Decimal(body["submissionStake"]),
            payment_method=PaymentMethod.AUTHORIZATION,
            transaction_hash="",
            submitter_address=payer.address,
            sent_by_submitter=True,
        )
        StakeAuthorization.objects.create(
            response=response,
            valid_after=0,
            valid_before=body["authorization"]["validBefore"],
            signature=body["authorization"]["signature"],
        )


def profile(count: int) -> dict:
    from chain import relayer
    from django.db import connection

    timed = Timed()
    for name, part in (("sign_stake", "sign"), ("broadcast", "broadcast"), ("read_facts", "chain reads")):
        setattr(relayer, name, timed.wrap(part, getattr(relayer, name)))
    connection.ensure_connection()
    commit = connection.commit
    connection.commit = timed.wrap("commit", commit)  # type: ignore[method-assign]
    by_statement = Timed()

    def sql(execute, statement, params, many, context):
        started = time.perf_counter()
        try:
            return execute(statement, params, many, context)
        finally:
            by_statement.add(statement_kind(statement), time.perf_counter() - started)

    started, cpu = time.perf_counter(), time.process_time()
    with connection.execute_wrapper(sql):
        summary = relayer.relay_send_now()
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    connection.commit = commit  # type: ignore[method-assign]
    sent = max(1, summary.sent)
    parts = {k: v / sent * 1000 for k, v in timed.seconds.items()}
    parts["SQL statements"] = sum(by_statement.seconds.values()) / sent * 1000
    parts["the rest (Python: the checks, the claims' and rows' objects)"] = wall / sent * 1000 - sum(parts.values())
    return {
        "claims": count,
        "sent": summary.sent,
        "wallMsPerClaim": wall / sent * 1000,
        "cpuMsPerClaim": cpu / sent * 1000,
        "partsMsPerClaim": parts,
        "statementsPerClaim": sum(by_statement.calls.values()) / sent,
        "statements": {
            k: {"perClaim": by_statement.calls[k] / sent, "msPerClaim": v / sent * 1000}
            for k, v in sorted(by_statement.seconds.items(), key=lambda kv: -kv[1])
        },
        "loadAverage": [round(x, 2) for x in os.getloadavg()],
    }


def head_rounds(rpc_url: str) -> list[dict]:
    """The stakes just sent mined in one block, then one more: the head watcher's round at each."""
    from chain.client import get_client
    from chain.heads import pending_claims_on_head
    from django.db import connection

    from .data import _rpc_batch

    rounds = []
    _rpc_batch(rpc_url, [("evm_setIntervalMining", [0]), ("evm_setAutomine", [False])])
    try:
        head = None
        for label in ("inclusion block", "deep-enough block"):
            _rpc_batch(rpc_url, [("evm_mine", [])])
            by_statement = Timed()

            def sql(execute, statement, params, many, context, by_statement=by_statement):
                started = time.perf_counter()
                try:
                    return execute(statement, params, many, context)
                finally:
                    by_statement.add(statement_kind(statement), time.perf_counter() - started)

            client = get_client()
            started, cpu = time.perf_counter(), time.process_time()
            with connection.execute_wrapper(sql):
                done = pending_claims_on_head(client=client, last_head=head)
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
            assert done is not None
            head = done.head
            rounds.append({
                "block": label,
                "claims": done.claims,
                "decided": done.decided,
                "rpcRequests": done.http_requests,
                "seconds": wall,
                "cpuSeconds": cpu,
                "statements": sum(by_statement.calls.values()),
                "statementSeconds": sum(by_statement.seconds.values()),
                "byStatement": {k: by_statement.calls[k] for k in sorted(by_statement.calls)},
            })  # fmt: skip
    finally:
        _rpc_batch(rpc_url, [("evm_setAutomine", [True])])
    return rounds


if __name__ == "__main__":
    import django

    django.setup()
    rpc_url, info, challenge_id, first, count = sys.argv[1], json.loads(sys.argv[2]), *map(int, sys.argv[3:6])
    queue_claims(rpc_url, info, challenge_id, first, count)
    # The relayer's stakes wait in the pool while it sends (no block meanwhile), then the rounds.
    from .data import _rpc_batch

    _rpc_batch(rpc_url, [("evm_setIntervalMining", [0]), ("evm_setAutomine", [False])])
    result = profile(count)
    result["headRounds"] = head_rounds(rpc_url)
    print(json.dumps(result))
