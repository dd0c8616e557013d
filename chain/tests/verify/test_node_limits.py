"""A node with limits, as public nodes have them: it refuses JSON-RPC batches of more than a few
calls, eth_getLogs over more than a few blocks, and leaves the block time out of its logs. Both
verifiers still read every event once and reproduce the honest game: smaller batches, halved ranges,
the block times read from the blocks. A loopback proxy in front of the session's anvil plays that node.
And a chain the script has no pot pinned for: it does not run without --pot."""

from __future__ import annotations

import json
import urllib.request
from collections import Counter

import pytest

from devtools.loopback import PostServer

from .verifier_support import assert_reproduced, play, run_page_verifier, run_verifier

pytestmark = pytest.mark.integration

MAX_BATCH = 8
MAX_BLOCKS = 16


class LimitedNode:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.seen: Counter[str] = Counter()
        self.http = PostServer(self._post)
        self.url = self.http.url

    def _post(self, _request, body: bytes) -> tuple[int, bytes]:
        status, answer = self.answer(json.loads(body))
        return status, json.dumps(answer).encode()

    def answer(self, body) -> tuple[int, object]:
        calls = body if isinstance(body, list) else [body]
        if len(calls) > MAX_BATCH:
            self.seen["batch refused"] += 1
            return 413, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "batch too large"}}
        answers = [self.call(c) for c in calls]
        return 200, answers if isinstance(body, list) else answers[0]

    def call(self, call: dict) -> dict:
        if call["method"] == "eth_getLogs":
            query = call["params"][0]
            if int(query["toBlock"], 16) - int(query["fromBlock"], 16) + 1 > MAX_BLOCKS:
                self.seen["range refused"] += 1
                return {"jsonrpc": "2.0", "id": call["id"], "error": {"code": -32005, "message": "range too wide"}}
        request = urllib.request.Request(self.upstream, json.dumps(call).encode(), {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            result = json.loads(answer.read())
        if call["method"] == "eth_getLogs":
            self.seen["logs read"] += 1
            for log in result.get("result") or []:
                log.pop("blockTimestamp", None)
        self.seen[call["method"]] += 1
        return result

    def close(self) -> None:
        self.http.stop()


@pytest.fixture
def limited(chain):
    node = LimitedNode(chain.url)
    yield node
    node.close()


def test_both_verifiers_read_a_node_that_refuses_wide_ranges_and_large_batches(
    chain, make_challenge, api, site, limited
):
    game = play(chain, make_challenge, api)
    head = chain.w3.eth.block_number
    result = run_verifier(site.url, "--challenge", str(game.challenge.pk), rpc=limited.url, pot=chain.pot)
    assert_reproduced(result)
    assert limited.seen["batch refused"] > 0 and limited.seen["range refused"] > 0
    # Every block from the pot's deploy block read once, in ranges the node takes, and the time of
    # each block with an event read from the block.
    assert limited.seen["logs read"] >= head // MAX_BLOCKS
    assert limited.seen["eth_getBlockByNumber"] > 1

    limited.seen.clear()
    page = run_page_verifier(site, chain, game.challenge, rpc=limited.url)
    assert page["ok"] is True, page["differences"]
    assert limited.seen["batch refused"] > 0 and limited.seen["range refused"] > 0


def test_a_chain_with_no_pinned_pot_needs_one_named(site, settings):
    """The script never takes the pot from the site: on a chain it has no pin for, without --pot, it
    cannot run, and says what to do."""
    from devtools.processes import anvil

    settings.CHAIN_ID = 11155111
    settings.POT_ADDRESS = "0x" + "22" * 20
    with anvil(chain_id=11155111) as (url, _process):
        result = run_verifier(site.url, "--challenge", "1", rpc=url)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "could not verify: no pot is pinned for chain 11155111 in this script: name it with --pot ADDRESS" in (
        result.stderr
    )
    assert result.stdout == ""
