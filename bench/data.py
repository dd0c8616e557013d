"""Benchmark data built with the project's own services (challenges) and rows shaped exactly as
verification leaves a confirmed claim. Run under Django: `python -m bench.data api`."""

import hashlib
import json
import random
import sys
from decimal import Decimal

SOLUTION = "48.85837, 2.294481"  # near the Eiffel Tower
THRESHOLD_M = 1000


def address(n: int) -> str:
    """A checksummed address per player; checksumming is slow, so a few hundred are reused."""
    from eth_utils import to_checksum_address

    return to_checksum_address("0x" + hashlib.sha256(f"player{n}".encode()).hexdigest()[:40])


def tx_hash(challenge_id: int, n: int) -> str:
    return "0x" + hashlib.sha256(f"tx:{challenge_id}:{n}".encode()).hexdigest()


def guess(rng: random.Random, n: int) -> str:
    """One in 500 guesses lands within the threshold, the rest anywhere on earth."""
    if n % 500 == 0:
        lat, lon = 48.85837 + rng.uniform(-0.005, 0.005), 2.294481 + rng.uniform(-0.005, 0.005)
    else:
        lat, lon = rng.uniform(-90, 90), rng.uniform(-180, 180)
    return f"{lat:.6f}, {lon:.6f}"


def add_confirmed(challenge, count: int, *, seed: int = 1) -> None:
    """`count` confirmed claims through the ORM (small counts), and the challenge's sums."""
    from challenges.services import challenge_stake_moved
    from django.utils import timezone
    from responses.models import Response, ResponseStatus
    from responses.services import guess_fields

    rng = random.Random(seed)
    rows, total = [], Decimal("0")
    for n in range(count):
        who = address(n % 50)
        stake = Decimal(rng.randint(100, 100000)) / 100
        total += stake
        rows.append(
            Response(
                challenge=challenge,
                **guess_fields(challenge_id=challenge.pk, text=guess(rng, n), submitter_address=who),
                submission_stake=stake,
                submission_timestamp=timezone.now(),
                transaction_hash=tx_hash(challenge.pk, n),
                submitter_address=who,
                status=ResponseStatus.CONFIRMED,
                block_number=1000 + n // 10,
                transaction_index=n % 10,
                log_index=0,
            )
        )
    Response.objects.bulk_create(rows)
    challenge_stake_moved(challenge_id=challenge.pk, stake=total, count=count)
    challenge.refresh_from_db()


def new_challenge(title: str, *, anchored_by_worker: bool = False):
    """A published challenge. Its terms are anchored by the benchmark's worker on the benchmark's
    chain when `anchored_by_worker` (bench/verify.py); otherwise, for the benchmarks without a chain,
    its anchor is recorded confirmed as data (devtools/anchors.py), as add_confirmed records claims."""
    from challenges.services import challenge_create_published
    from devtools.anchors import record_confirmed_anchor

    challenge = challenge_create_published(
        poem_title=title,
        poem_text="<p>Iron lace above the river,<br>a thousand stairs to count the wind.</p>",
        instructions_text="<p>Give the place as latitude, longitude.</p>",
        proximity_threshold_m=THRESHOLD_M,
        solution=SOLUTION,
    )
    if not anchored_by_worker:
        record_confirmed_anchor(challenge)
    return challenge


def seed_api() -> dict:
    """Five resolved challenges of 10 responses each and an active one: the API benchmark's data."""
    from responses.resolution import challenge_resolve

    resolved = []
    for i in range(5):
        challenge = new_challenge(f"Resolved poem {i + 1}")
        add_confirmed(challenge, 10, seed=i)
        resolved.append(challenge_resolve(challenge=challenge).pk)
    active = new_challenge("The active poem")
    add_confirmed(active, 10, seed=99)
    return {"resolved": resolved, "active": active.pk}


def copy_confirmed(challenge, count: int, *, seed: int = 7, chunk: int = 50_000) -> int:
    """`count` confirmed claims written with PostgreSQL COPY, shaped as verification leaves them
    (block, index, status, block time), and the challenge's sums moved as verification moves them.
    Returns the number of guesses placed within the threshold."""
    from django.db import connection
    from django.utils import timezone
    from responses.services import guess_fields

    rng = random.Random(seed)
    players = [address(n) for n in range(500)]
    now = timezone.now().isoformat()
    columns = (
        "challenge_id, submission_text, submission_lat, submission_lon, submission_salt, commitment, "
        "submission_stake, submission_timestamp, transaction_hash, submitter_address, status, rejection_code, "
        "rejection_reason, block_number, block_hash, transaction_index, log_index, created_at, updated_at, is_demo, "
        "sent_by_submitter, payment_method"
    )
    total_cents = 0
    near = 0
    with connection.cursor() as django_cursor:
        raw = django_cursor.cursor  # psycopg 3's cursor, for COPY
        with raw.copy(f"COPY responses_response ({columns}) FROM STDIN") as copy:
            for start in range(0, count, chunk):
                lines = []
                for n in range(start, min(start + chunk, count)):
                    who = players[n % 500]
                    digest = hashlib.sha256(f"{challenge.pk}:{n}".encode()).hexdigest()
                    # The same row values as every other Response (responses/services.py), a
                    # deterministic salt so that a load is repeatable.
                    row = guess_fields(
                        challenge_id=challenge.pk, text=guess(rng, n), submitter_address=who, salt=digest
                    )
                    near += n % 500 == 0
                    cents = rng.randint(100, 100000)
                    total_cents += cents
                    lines.append(
                        f"{challenge.pk}\t{row['submission_text']}\t{row['submission_lat']}\t{row['submission_lon']}\t"
                        f"{row['submission_salt']}\t{row['commitment']}\t"
                        f"{cents // 100}.{cents % 100:02d}\t{now}\t0x{digest}\t{who}\tconfirmed\t\t\t"
                        f"{1000 + n // 10}\t0x{digest[::-1]}\t{n % 10}\t0\t{now}\t{now}\tf\tt\ttransfer\n"
                    )
                copy.write("".join(lines))
    # As chain confirmation does: the sums, and the public answers marked stale.
    from challenges.services import challenge_stake_moved

    challenge_stake_moved(challenge_id=challenge.pk, stake=Decimal(total_cents) / 100, count=count)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE responses_response")
    challenge.refresh_from_db()
    return near


def timed_gets(client, path: str, *, times: int, cold: bool) -> dict:
    """`times` GETs of `path`; cold: the public cache made stale before each (the answer is built)."""
    import time

    from config.public_cache import public_answers_mark_stale

    durations, size = [], None
    for _ in range(times):
        if cold:
            public_answers_mark_stale()  # outside a transaction: at once
        started = time.perf_counter()
        answer = client.get(path)
        durations.append((time.perf_counter() - started) * 1000)
        assert answer.status_code == 200, (path, answer.status_code)
        size = len(answer.content)
    durations.sort()
    return {
        "bytes": size,
        "medianMs": durations[len(durations) // 2],
        "maxMs": durations[-1],
        "times": times,
    }


def download_all(client, challenge_id: int, limit: int = 1000) -> dict:
    """What the spec's client downloads to derive winners itself: every page of GET /api/responses
    for the challenge, following the Link header, as bytes of bodies (and headers' Link)."""
    import time

    path = f"/api/responses?challengeId={challenge_id}&limit={limit}"
    pages = rows = body_bytes = 0
    started = time.perf_counter()
    while path:
        answer = client.get(path)
        assert answer.status_code == 200, answer.status_code
        pages += 1
        body_bytes += len(answer.content)
        rows += len(answer.json()) if pages == 1 else answer.content.count(b'"transactionHash"')
        link = answer.headers.get("Link")
        path = link[link.index("<") + 1 : link.index(">")].removeprefix("http://testserver") if link else None
    return {"pages": pages, "rows": rows, "bytes": body_bytes, "seconds": time.perf_counter() - started, "limit": limit}


# The statement challenges.services ran before (haversine of services.distance_expression).
LEGACY_DISTANCE = (
    "12742000.0 * asin(sqrt(least(1.0, power(sin((radians(submission_lat::float8) - radians(%(lat)s::float8)) / 2), 2)"
    " + cos(radians(submission_lat::float8)) * cos(radians(%(lat)s::float8))"
    " * power(sin((radians(submission_lon::float8) - radians(%(lon)s::float8)) / 2), 2))))"
)
# Built of this module's constants; the values are bound parameters.
LEGACY_UPDATE = (
    f"UPDATE responses_response SET legacy_distance_m = {LEGACY_DISTANCE}, "  # noqa: S608
    f"is_correct = ({LEGACY_DISTANCE}) <= %(threshold)s WHERE challenge_id = %(cid)s AND status = 'confirmed'"
)


def resolve_legacy(challenge) -> float:
    """The resolution as it was before only the correct rows were written, kept as the reference:
    one UPDATE that writes distance_m and is_correct on every confirmed row (is_correct in the
    winner indexes' predicates, so no HOT update). distance_m no longer exists, so it is added for
    the measure, all rolled back."""
    import time

    from django.db import connection, transaction

    lat, lon = challenge.solution.split(", ")
    params = {"cid": challenge.pk, "lat": lat, "lon": lon, "threshold": float(challenge.proximity_threshold_m or 0)}
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE responses_response ADD COLUMN legacy_distance_m double precision")
        started = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute(LEGACY_UPDATE, params)
        seconds = time.perf_counter() - started
        transaction.set_rollback(True)
    return seconds


def run_scale(count: int) -> dict:
    """Benchmark 2 under Django: a 10-response challenge and a `count`-response one, both resolved."""
    import time

    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from responses.resolution import challenge_resolve

    small = new_challenge("Ten responses")
    add_confirmed(small, 10, seed=3)
    small_started = time.perf_counter()
    challenge_resolve(challenge=small)
    small_resolve = time.perf_counter() - small_started

    big = new_challenge("A million responses")
    started = time.perf_counter()
    near = copy_confirmed(big, count)
    load_seconds = time.perf_counter() - started
    statements = []

    def timed(execute, sql, params, many, context):
        began = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            statements.append({"sql": " ".join(sql.split())[:90], "seconds": time.perf_counter() - began})

    # The old approach first, side by side on the same rows: one UPDATE writing a distance and
    # is_correct on every row (a column added for it), then rolled back, and the table vacuumed so
    # the new approach starts from the same clean table.
    legacy_seconds = resolve_legacy(big)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE responses_response")

    from responses.resolution import challenge_resolve_start
    from responses.tasks import resolve_challenge

    started = time.perf_counter()
    # What the admin request does, less the wait for late claims (no chain here: responses/barrier.py).
    challenge_resolve_start(challenge=big, enqueue=False, wait_for_late_claims=False)
    start_seconds = time.perf_counter() - started
    started = time.perf_counter()
    with connection.execute_wrapper(timed):
        # The Celery task's own body, in this process (apply() runs it as a worker would).
        assert resolve_challenge.apply(args=[big.pk]).get() == "done"
    resolve_seconds = time.perf_counter() - started
    big.refresh_from_db()
    # Resolution left a million dead row versions; autovacuum would clean them up soon after, and
    # until it does the machine's two cores are busy with it. The answers are timed in that steady state.
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE responses_response")
    vacuum_seconds = time.perf_counter() - started

    client = Client()
    winners = {}
    for name, challenge in (("ten", small), ("million", big)):
        path = f"/api/challenges/{challenge.pk}/winners"
        client.get(path)  # warms connection and code paths
        winners[name] = {
            "responses": challenge.response_count,
            "built": timed_gets(client, path, times=20, cold=True),
            "cached": timed_gets(client, path, times=20, cold=False),
            "answer": client.get(path).json(),
        }
    body = client.get(f"/api/challenges/{big.pk}/winners").json()
    assert body["earliest"] is not None and body["highest"] is not None, body
    download = download_all(client, big.pk)
    assert download["rows"] == count, download
    return {
        "count": count,
        "correctPlaced": near,
        "loadSeconds": load_seconds,
        "resolveSeconds": resolve_seconds,
        "resolveStartSeconds": start_seconds,
        "resolveLegacySeconds": legacy_seconds,
        "chunk": settings.CHALLENGE_RESOLVE_CHUNK,
        "vacuumSeconds": vacuum_seconds,
        "resolveStatements": [s for s in statements if s["seconds"] > 0.05],
        "resolveTenSeconds": small_resolve,
        "winners": winners,
        "download": download,
    }


def stake_payment(info: dict, challenge_id: int, player: str, n: int) -> tuple[str, Decimal, str, str]:
    """The n-th benchmark claim of `player`: its guess text, stake, salt and the stake transfer's
    calldata (chain/calldata.py) carrying its commitment. Needs no Django setup."""
    import secrets
    import time

    from chain.calldata import encode_stake_transfer
    from challenges.commitments import guess_commitment_v1
    from challenges.coordinates import parse_coordinates

    text = parse_coordinates(f"{48 + n / 1000:.6f}, {2 + n / 1000:.6f}").text
    stake, salt = Decimal(1 + n % 7) + Decimal("0.25"), secrets.token_hex(32)
    commitment = guess_commitment_v1(
        chain_id=info["chainId"], challenge_id=challenge_id, submitter_address=player, text=text, salt=salt
    )
    data = encode_stake_transfer(
        treasury=info["treasuryAddress"],
        amount_units=int(stake * 10**6),
        commitment=commitment,
        challenge_id=challenge_id,
        timestamp=int(time.time()),
    )
    return text, stake, salt, data


def run_heads(rpc_url: str, info: dict, challenge_id: int, counts: list[int]) -> dict:
    """The RPC requests of the head watcher's round (chain/heads.py, pending_claims_on_head)
    per block, at each count of pending claims; they must stay bounded however many are pending.
    For each count, that many stake payments are mined together in one block (one confirmation of
    CHAIN_CONFIRMATIONS=2) and claimed through the POST's service; then three rounds, each with a
    fresh client counting its requests: the block that decides none, the block that makes them deep
    enough, and a beat that finds no new block. Run on the verification benchmark's anvil once its
    servers are stopped, so no worker confirms the claims first."""
    import math

    from chain.client import get_client
    from chain.heads import pending_claims_on_head
    from django.conf import settings
    from responses.models import Response, ResponseStatus
    from responses.services import response_create

    sys.path.insert(0, "scripts")
    import devchain  # scripts/ is not a package

    player = info["players"][0]
    devchain.rpc(rpc_url, "evm_setIntervalMining", [0])
    devchain.rpc(rpc_url, "evm_setAutomine", [False])
    batch = settings.CHAIN_RPC_BATCH_SIZE
    rows = []
    for count in counts:
        drafts = []
        for n in range(count):
            text, stake, salt, data = stake_payment(info, challenge_id, player, n)
            tx = {"from": player, "to": info["usdcAddress"], "data": data, "gas": hex(200_000)}
            drafts.append((text, stake, salt, devchain.rpc(rpc_url, "eth_sendTransaction", [tx])))
        devchain.rpc(rpc_url, "evm_mine")
        blocks = {int(devchain.rpc(rpc_url, "eth_getTransactionReceipt", [h])["blockNumber"], 16) for *_, h in drafts}
        assert len(blocks) == 1, f"{count} payments spread over blocks {sorted(blocks)}"
        for text, stake, salt, tx_hash in drafts:
            response_create(
                challenge_id=challenge_id,
                submission_text=text,
                submission_stake=stake,
                transaction_hash=tx_hash,
                submitter_address=player,
                submission_salt=salt,
            )
        assert Response.objects.filter(status=ResponseStatus.PENDING).count() == count
        not_deep = pending_claims_on_head(client=get_client(), last_head=None)
        devchain.rpc(rpc_url, "evm_mine")
        deep = pending_claims_on_head(client=get_client(), last_head=not_deep.head)
        idle_client = get_client()
        assert pending_claims_on_head(client=idle_client, last_head=deep.head) is None
        rows.append(
            {
                "pendingClaims": count,
                "notDeepRequests": not_deep.http_requests,
                "notDeepDecided": not_deep.decided,
                "deepRequests": deep.http_requests,
                "deepDecided": deep.decided,
                "noNewBlockRequests": idle_client.http_requests,
                # docs/chain.md: 1 + ceil(claims / B) + ceil((deep claims + their blocks) / B)
                "boundNotDeep": 1 + math.ceil(count / batch),
                "boundDeep": 1 + math.ceil(count / batch) + math.ceil((count + 1) / batch),
            }
        )
    devchain.rpc(rpc_url, "evm_setAutomine", [True])
    return {"batchSize": batch, "rows": rows}


def _rpc_batch(rpc_url: str, calls: list[tuple[str, list]]) -> list:
    """One JSON-RPC batch request to our own loopback node; results in call order."""
    import urllib.request

    payload = [{"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(calls)]
    request = urllib.request.Request(
        rpc_url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as answer:
        replies = {item["id"]: item for item in json.loads(answer.read())}
    results = []
    for i, (method, _) in enumerate(calls):
        if "error" in replies[i]:
            raise RuntimeError(f"{method}: {replies[i]['error']}")
        results.append(replies[i]["result"])
    return results


def build_verifier_challenge(rpc_url: str, info: dict, size: int, *, per_block: int = 400) -> dict:
    """A resolved, anchored challenge of `size` responses, each backed by a real stake transfer on
    the benchmark's anvil: published and anchored through the services and the worker's anchor step,
    paid by the development accounts in blocks of `per_block` transfers, its claims stored as
    verification leaves them (positions read back from the receipts), then closed and resolved."""
    import time
    from datetime import UTC, datetime

    from chain.anchors import AnchorPending, anchor_advance
    from challenges.models import Challenge
    from challenges.services import challenge_close
    from django.db.models import F
    from responses.models import Response, ResponseStatus
    from responses.resolution import challenge_resolve
    from responses.services import guess_fields

    started = time.monotonic()
    challenge = new_challenge(f"The verifier's poem of {size:,}", anchored_by_worker=True)
    while True:  # the worker's own anchor step; anvil mines the anchor at once, one more block makes it deep
        try:
            if anchor_advance(challenge_id=challenge.pk) == "confirmed":
                break
        except AnchorPending:
            _rpc_batch(rpc_url, [("evm_mine", [])])
    players = info["players"]
    drafts = []
    # Explicit nonces: anvil numbers the sends of one batch concurrently.
    counts = _rpc_batch(rpc_url, [("eth_getTransactionCount", [p, "pending"]) for p in players])
    nonces = {p: int(c, 16) for p, c in zip(players, counts, strict=True)}
    _rpc_batch(rpc_url, [("evm_setAutomine", [False])])
    try:
        for start in range(0, size, per_block):
            sends = []
            for n in range(start, min(size, start + per_block)):
                player = players[n % len(players)]
                text, stake, salt, data = stake_payment(info, challenge.pk, player, n)
                drafts.append((player, text, stake, salt))
                tx = {"from": player, "to": info["usdcAddress"], "data": data, "gas": hex(120_000)}
                tx["nonce"] = hex(nonces[player])
                nonces[player] += 1
                sends.append(("eth_sendTransaction", [tx]))
            hashes = _rpc_batch(rpc_url, sends)
            _rpc_batch(rpc_url, [("evm_mine", [])])
            drafts[start:] = [(*d, h) for d, h in zip(drafts[start:], hashes, strict=True)]
        _rpc_batch(rpc_url, [("evm_mine", [])])  # the last payments 2 deep, as the verifier asks by default
    finally:
        _rpc_batch(rpc_url, [("evm_setAutomine", [True])])
    receipts = []
    for start in range(0, size, 500):
        receipts += _rpc_batch(rpc_url, [("eth_getTransactionReceipt", [d[4]]) for d in drafts[start : start + 500]])
    numbers = sorted({int(r["blockNumber"], 16) for r in receipts})
    blocks = _rpc_batch(rpc_url, [("eth_getBlockByNumber", [hex(n), False]) for n in numbers])
    times = {n: int(b["timestamp"], 16) for n, b in zip(numbers, blocks, strict=True)}
    rows, total = [], 0
    for (player, text, stake, salt, tx_hash), receipt in zip(drafts, receipts, strict=True):
        assert receipt["status"] == "0x1", f"stake {tx_hash} reverted"
        block = int(receipt["blockNumber"], 16)
        total += stake
        rows.append(
            Response(
                challenge=challenge,
                **guess_fields(challenge_id=challenge.pk, text=text, submitter_address=player, salt=salt),
                submission_stake=stake,
                submission_timestamp=datetime.fromtimestamp(times[block], tz=UTC),
                transaction_hash=tx_hash,
                submitter_address=player,
                status=ResponseStatus.CONFIRMED,
                block_number=block,
                transaction_index=int(receipt["transactionIndex"], 16),
                log_index=int(receipt["logs"][0]["logIndex"], 16),
            )
        )
    Response.objects.bulk_create(rows, batch_size=2000)
    Challenge.objects.filter(pk=challenge.pk).update(staked_sum=F("staked_sum") + total, response_count=size)
    # Close after the last payment's block time (anvil's clock may run ahead of the wall clock).
    while time.time() < max(times.values()) + 1:
        time.sleep(0.2)
    challenge_close(challenge=challenge)
    resolved = challenge_resolve(challenge=Challenge.objects.get(pk=challenge.pk))
    return {
        "challenge": resolved.pk,
        "responses": size,
        "blocks": len(numbers),
        "correct": Response.objects.filter(challenge=challenge, is_correct=True).count(),
        "buildSeconds": round(time.monotonic() - started, 1),
    }


if __name__ == "__main__":
    import django

    django.setup()
    if sys.argv[1:] == ["api"]:
        print(json.dumps(seed_api()))
    elif sys.argv[1:] == ["verify"]:
        print(json.dumps({"challenge": new_challenge("The verification poem", anchored_by_worker=True).pk}))
    elif sys.argv[1:2] == ["heads"]:
        rpc_url, info, challenge_id, counts = sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
        print(json.dumps(run_heads(rpc_url, info, challenge_id, [int(c) for c in counts.split(",")])))
    elif sys.argv[1:2] == ["verifier"]:
        rpc_url, info, size = sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
        print(json.dumps(build_verifier_challenge(rpc_url, info, size)))
    elif sys.argv[1:2] == ["scale"]:
        print(json.dumps(run_scale(int(sys.argv[2]))))
    else:
        raise SystemExit(
            "usage: python -m bench.data api | verify | scale COUNT | heads RPC INFO CHALLENGE COUNTS"
            " | verifier RPC INFO SIZE"
        )
