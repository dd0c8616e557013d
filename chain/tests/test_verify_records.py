"""verify_challenge.py with a player's record (`--record`: the guess, salt and anchor they kept):
it says whether the payment had to count and whether the site counts it, which the challenge-wide
check cannot tell when a site drops a claim and lists its payment as unclaimed."""

from __future__ import annotations

import json

import pytest

from challenges.services import challenge_stake_moved
from responses.models import Response

from .conftest import ANVIL_CHAIN_ID
from .verifier_support import assert_differs, resolve, run_verifier, verify

pytestmark = pytest.mark.django_db(transaction=True)


def record_of(chain, played, name: str, tmp_path, **changes) -> str:
    d, claim, anchor = played.drafts[name], getattr(played, name), played.challenge.anchor
    record = {
        "challengeId": played.challenge.pk,
        "coordinates": d.text,
        "salt": d.salt,
        "stakeUsdc": str(d.stake),
        "chainId": ANVIL_CHAIN_ID,
        "submitterAddress": d.address,
        "transactionHash": claim.transaction_hash,
        "anchor": {
            "registry": anchor.registry_address,
            "transactionHash": anchor.transaction_hash,
            "blockNumber": anchor.block_number,
            "solutionSha256": played.challenge.solution_sha256,
            "termsSha256": anchor.terms_sha256,
        },
    }
    for key, value in changes.items():
        if key.startswith("anchor_"):
            record["anchor"][key.removeprefix("anchor_")] = value
        else:
            record[key] = value
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return str(path)


def test_a_record_of_a_counted_claim(chain, played, live_server, tmp_path):
    resolve(chain, played.challenge)
    path = record_of(chain, played, "right", tmp_path)
    # The record names the challenge and the registry: neither needs to be given.
    result = run_verifier(live_server.url, "--record", path, rpc=chain.url)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Your record: the anchor you saw is the anchor on chain" in result.stdout
    assert f"the payment had to count, and it is counted as response {played.right.pk}: correct" in result.stdout
    assert result.last_line == "3 of 3 outcomes reproduced"


def test_a_record_of_a_claim_the_site_dropped(chain, played, live_server, tmp_path):
    """The claim deleted, its stake out of the pot, its payment honestly listed as unclaimed: the
    challenge's own accounts add up, only the player's record shows the payment had to count."""
    dropped = played.right
    Response.objects.filter(pk=dropped.pk).delete()
    challenge_stake_moved(challenge_id=played.challenge.pk, stake=-dropped.submission_stake, count=-1)
    resolve(chain, played.challenge)
    assert verify(live_server, chain, played.challenge).returncode == 0
    path = record_of(chain, played, "right", tmp_path)
    result = run_verifier(live_server.url, "--record", path, rpc=chain.url)
    assert_differs(
        result,
        f"your payment {dropped.transaction_hash} had to count, and the site does not count it (listed unclaimed)",
    )


def test_a_record_whose_anchor_is_not_the_one_on_chain(chain, played, live_server, tmp_path):
    resolve(chain, played.challenge)
    path = record_of(chain, played, "wrong", tmp_path, anchor_termsSha256="11" * 32)
    result = run_verifier(live_server.url, "--record", path, rpc=chain.url, registry=chain.registry)
    assert_differs(result, "the anchor you saw when paying is not the challenge's anchor on chain")
    assert "the payment had to count, and it is counted as response" in result.stdout


def test_a_record_with_another_guess_did_not_have_to_count(chain, played, live_server, tmp_path):
    resolve(chain, played.challenge)
    path = record_of(chain, played, "also_right", tmp_path, salt="cd" * 32)
    result = run_verifier(live_server.url, "--record", path, rpc=chain.url)
    assert result.returncode == 0, result.stdout
    assert "Your record: the payment did not have to count: the first rule it fails is commitment_mismatch" in (
        result.stdout
    )
    assert "Your record: the site shows no claim of yours on this transaction" in result.stdout
    path = record_of(chain, played, "also_right", tmp_path, chainId=1)
    assert_differs(run_verifier(live_server.url, "--record", path, rpc=chain.url), "your record is for chain 1")
