"""verify_challenge.py, the players' verifier, run as a player runs it: a separate Python process
without site-packages (`-S`: the standard library only), against the site served over HTTP
(pytest-django's live server) and the real anvil node holding the real stake transactions.
It must reproduce every outcome of an honest resolution, and name the response whose stored row
was changed after resolution (text, stake, salt, chain order)."""

import json
import threading
import time
import urllib.request
from contextlib import contextmanager
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.conf import settings

from chain.contracts import mint
from chain.transfers import TRANSFER_TOPIC
from chain.verification import payment_verify
from challenges.models import Challenge
from responses.demo import seed_demo
from responses.models import Response, ResponseStatus
from responses.resolution import challenge_resolve

from .conftest import post_claim
from .verifier_support import Run
from .verifier_support import run_verifier as run

pytestmark = pytest.mark.django_db(transaction=True)

SCRIPT = Path(settings.BASE_DIR) / "verify_challenge.py"


def run_verifier(site: str, challenge_id: int, rpc: str | None = None, registry: str | None = None) -> Run:
    """Small RPC batches and API pages, so that a handful of responses crosses both kinds of boundary."""
    args = ["--challenge", str(challenge_id), "--batch", "3", "--page-size", "2"]
    return run(site, *args, rpc=rpc, registry=registry, quiet=False)


def pay_in_one_block(chain, drafts) -> list[str]:
    """Several stake transfers mined in the same block: they differ by transaction index only."""
    w3 = chain.w3
    w3.provider.make_request("evm_setAutomine", [False])
    try:
        hashes = [
            w3.eth.send_transaction(
                {"from": d.address, "to": chain.usdc, "data": chain.stake_calldata(d), "value": 0, "gas": 200_000}
            )
            for d in drafts
        ]
        chain.mine(1)
    finally:
        w3.provider.make_request("evm_setAutomine", [True])
    for tx_hash in hashes:
        w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)
    return ["0x" + bytes(h).hex() for h in hashes]


@pytest.fixture
def resolved(chain, draft):
    """A challenge with five paid, confirmed responses, resolved: two winners that differ, a tie on
    the highest stake decided by chain order, and three payments sharing a block."""
    third = chain.w3.eth.accounts[4]
    mint(chain.w3, chain.usdc, third, 1_000 * 10**6, sender=chain.deployer)
    first = draft(stake="2.5", text="29.979, 31.134")  # correct, earliest
    challenge = first.challenge
    claims = [post_claim(first, chain.pay(chain.stake_calldata(first)))]
    same_block = [
        draft(challenge=challenge, stake="7", text="29.9795, 31.1343", address=chain.other),  # correct, 7 first
        draft(challenge=challenge, stake="3", text="30.0444, 31.2357"),  # wrong
        draft(challenge=challenge, stake="100.123456", text="-33.856784, 151.215296", address=third),
    ]
    for d, tx in zip(same_block, pay_in_one_block(chain, same_block), strict=True):
        claims.append(post_claim(d, tx))
    later = draft(challenge=challenge, stake="7", text="29.9792, 31.1342")  # correct, ties at 7 but later
    claims.append(post_claim(later, chain.pay(chain.stake_calldata(later))))
    chain.mine(2)
    for claim in claims:
        assert payment_verify(response_id=claim.pk).status == ResponseStatus.CONFIRMED
    # keep_clock runs anvil a second ahead of the wall clock; staff resolve after the payments'
    # blocks in real time, as on a real chain, so the closing time is not before them.
    last_block_time = chain.w3.eth.get_block("latest")["timestamp"]
    while time.time() <= last_block_time:
        time.sleep(0.1)
    challenge_resolve(challenge=Challenge.objects.get(pk=challenge.pk))
    claims = [Response.objects.get(pk=c.pk) for c in claims]
    assert len({c.block_number for c in claims[1:4]}) == 1
    assert sorted(c.transaction_index for c in claims[1:4]) == [0, 1, 2]
    return challenge, claims


def test_an_honest_resolution_is_reproduced_in_full(chain, resolved, live_server):
    challenge, claims = resolved
    # No --registry: the registry the site's page names (registryAddress) is read.
    result = run_verifier(live_server.url, challenge.pk, chain.url)
    print(result.stdout)  # the table, for a reader of `pytest -s`
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("5 of 5 outcomes reproduced")
    assert "DIFFERENCE" not in result.stdout
    for claim in claims:
        assert str(claim.pk) in result.stdout
    # Pages of 2: all 5 rows were reached through the Link header (a missing one is a count difference).
    # The progress goes to stderr (at most a line a second into a pipe), the table to stdout.
    assert "confirmed claims from the site" in result.stderr
    assert "confirmed claims from the site" not in result.stdout


@pytest.mark.parametrize(
    ("what", "change"),
    [
        ("text", {"submission_text": "29.9791, 31.1341"}),
        ("stake", {"submission_stake": Decimal("8")}),
        ("salt", {"submission_salt": "ab" * 32}),
        ("order", {"log_index": 9}),
        ("block", {"block_number": 1}),
    ],
)
def test_a_response_changed_after_resolution_fails_and_is_named(chain, resolved, live_server, what, change):
    challenge, claims = resolved
    target = claims[1]
    Response.objects.filter(pk=target.pk).update(**change)

    result = run_verifier(live_server.url, challenge.pk, chain.url, chain.registry)
    print(result.stdout)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"DIFFERENCE response {target.pk} ({target.transaction_hash})" in result.stdout
    assert result.stdout.rstrip().endswith("(4 of 5 outcomes reproduced)")
    assert result.stdout.rstrip().splitlines()[-1].startswith("DIFFERENCES FOUND: 1 of 5 outcomes differ")
    for other in claims[:1] + claims[2:]:
        assert f"DIFFERENCE response {other.pk} " not in result.stdout


def test_a_wrong_winner_is_named(chain, resolved, live_server):
    """The stored correctness of the true earliest winner is flipped: the site now names another
    response earliest, and the verifier says which one the rules give."""
    challenge, claims = resolved
    Response.objects.filter(pk=claims[0].pk).update(is_correct=False)
    result = run_verifier(live_server.url, challenge.pk, chain.url, chain.registry)
    assert result.returncode == 1
    assert f"the earliest winner is response {claims[0].pk} ({claims[0].transaction_hash}) by the rules" in (
        result.stdout
    )


@pytest.mark.parametrize("with_rpc", [False, True], ids=["without-rpc", "with-rpc"])
def test_a_demo_challenge_is_checked_off_chain_and_says_so(chain, live_server, with_rpc):
    """seed_demo's claims carry made-up hashes no chain holds: their payments cannot be checked and
    the verifier says so instead of failing; everything else about them is checked."""
    seed_demo()
    demo = Challenge.objects.filter(is_demo=True, status="resolved").order_by("id").first()
    assert demo is not None
    result = run_verifier(live_server.url, demo.pk, chain.url if with_rpc else None)
    assert result.returncode == 0, result.stdout + result.stderr
    count = demo.response_count
    assert f"This is a demonstration challenge: {count} of its claims carry made-up transaction hashes" in (
        result.stdout
    )
    assert result.stdout.rstrip().endswith(f"{count} of {count} outcomes reproduced")


def test_a_demo_claim_changed_after_resolution_still_fails(chain, live_server):
    seed_demo()
    demo = Challenge.objects.filter(is_demo=True, status="resolved").order_by("id").first()
    assert demo is not None
    target = demo.responses.order_by("id").first()
    assert target is not None
    Response.objects.filter(pk=target.pk).update(submission_text="1, 1")
    result = run_verifier(live_server.url, demo.pk, chain.url)
    assert result.returncode == 1
    assert f"DIFFERENCE response {target.pk} ({target.transaction_hash}): distance is" in result.stdout


def test_the_site_serves_the_verifier_for_download(client):
    answer = client.get("/verify_challenge.py")
    assert answer.status_code == 200
    assert answer["Content-Disposition"] == 'attachment; filename="verify_challenge.py"'
    assert answer.content == SCRIPT.read_bytes()


def test_the_page_may_connect_to_the_public_rpc_node(client):
    """The in-page verifier reads the chain through CHAIN_PUBLIC_RPC_URL: the CSP must allow it."""
    from urllib.parse import urlsplit

    rpc = urlsplit(settings.CHAIN_PUBLIC_RPC_URL)
    policy = client.get("/")["Content-Security-Policy"]
    connect = next(part for part in policy.split(";") if part.strip().startswith("connect-src"))
    assert f"{rpc.scheme}://{rpc.netloc}" in connect.split()


REFUSED = {"code": -32600, "message": "batch too large"}
TRANSFER_LOGS = "0x" + bytes(TRANSFER_TOPIC).hex()


@contextmanager
def node_refusing_batches_over(limit: int, upstream: str, *, style: str = "object", log_blocks: int = 0):
    """A loopback JSON-RPC endpoint in front of anvil that refuses a batch of more than `limit`
    calls, as hosted providers do (anvil takes any batch, so the refusal has to be made here): with
    one error object ("object"), a list of one error ("short"), or an error for each call ("each").
    With `log_blocks`, it also refuses an eth_getLogs of Transfer logs (the completeness scan's) over
    more blocks than that, and records the ranges it answered. Yields (its URL, the sizes of the
    batches it was sent, the log ranges it answered)."""
    sizes: list[int] = []
    ranges: list[tuple[int, int]] = []

    def too_wide(calls: list) -> bool:
        for call in calls:
            scan = call.get("method") == "eth_getLogs" and call["params"][0]["topics"][0] == TRANSFER_LOGS
            if scan and log_blocks:
                first, last = (int(call["params"][0][key], 16) for key in ("fromBlock", "toBlock"))
                if last - first + 1 > log_blocks:
                    return True
                ranges.append((first, last))
        return False

    def refusal(calls: list) -> object:
        if style == "object":
            return {"jsonrpc": "2.0", "id": None, "error": REFUSED}
        if style == "short":
            return [{"jsonrpc": "2.0", "id": None, "error": REFUSED}]
        return [{"jsonrpc": "2.0", "id": call.get("id"), "error": REFUSED} for call in calls]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            calls = json.loads(body)
            if isinstance(calls, list):
                sizes.append(len(calls))
            if isinstance(calls, list) and len(calls) > limit:
                answer = json.dumps(refusal(calls)).encode()
            elif isinstance(calls, list) and too_wide(calls):
                answer = json.dumps([{"jsonrpc": "2.0", "id": c.get("id"), "error": REFUSED} for c in calls]).encode()
            else:
                request = urllib.request.Request(upstream, data=body, headers={"Content-Type": "application/json"})
                with urllib.request.urlopen(request, timeout=10) as upstream_answer:
                    answer = upstream_answer.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", sizes, ranges
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.mark.parametrize("style", ["object", "short"])
@pytest.mark.parametrize(("limit", "batch"), [(1, 8), (3, 12)])
def test_a_node_that_refuses_large_batches_is_read_in_smaller_ones(chain, resolved, live_server, limit, batch, style):
    challenge, _claims = resolved
    with node_refusing_batches_over(limit, chain.url, style=style) as (url, sizes, _ranges):
        result = run(
            live_server.url, "--challenge", str(challenge.pk), "--batch", str(batch), rpc=url, registry=chain.registry
        )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("5 of 5 outcomes reproduced")
    # Refused, it asked again with half the batch each time (8 -> 4 -> 2 -> 1; a batch is never
    # more than the calls left) until the node took one, then used batches as large as the node
    # takes, never larger.
    first_refused = next(i for i, size in enumerate(sizes) if size > limit)
    settled = next(i for i in range(first_refused, len(sizes)) if sizes[i] <= limit)
    refused = sizes[first_refused:settled]
    assert refused == sorted(refused, reverse=True) and len(refused) <= 4, sizes
    assert max(sizes[settled:]) == limit, sizes


@pytest.mark.parametrize("style", ["object", "each"])
def test_a_node_that_refuses_every_batch_leaves_the_verifier_undecided(chain, resolved, live_server, style):
    challenge, _claims = resolved
    with node_refusing_batches_over(0, chain.url, style=style) as (url, _sizes, _ranges):
        result = run(
            live_server.url, "--challenge", str(challenge.pk), "--batch", "4", rpc=url, registry=chain.registry
        )
    assert result.returncode == 2, result.stdout + result.stderr
    assert "reproduced" not in result.stdout


def test_a_node_that_refuses_wide_log_ranges_is_scanned_in_narrower_ones(chain, resolved, live_server):
    """The completeness scan asks for 16 blocks of Transfer logs at a time; this node answers at
    most 2. The scan halves its range until the node answers, and the ranges it was answered cover
    every block from the anchor's to the head once: no block skipped, none read twice."""
    challenge, _claims = resolved
    with node_refusing_batches_over(100, chain.url, log_blocks=2) as (url, _sizes, ranges):
        result = run(
            live_server.url, "--challenge", str(challenge.pk), "--log-range", "16", rpc=url, registry=chain.registry
        )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("5 of 5 outcomes reproduced")
    assert ranges, "the scan never got an answer"
    assert all(last - first + 1 <= 2 for first, last in ranges), ranges
    assert [first for first, _ in ranges[1:]] == [last + 1 for _, last in ranges[:-1]], ranges
    assert ranges[-1][1] == chain.w3.eth.block_number, ranges
