"""verify_challenge.py at the edges of the rules a payment is judged by (docs/protocol.md sections 2
and 6): a payment mined in the anchored opening second, in the anchor's own block, and exactly as
deep as the verifier asks. On each edge an honest site is reproduced and the operator who moves a
payment across it is caught; the mutation run of the script (docs/reliability.md, the run of
verify_challenge.py) found each edge unpinned, one comparison off by one."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest

from chain.anchors import AnchorPending, anchor_advance
from chain.indexer import payments_index
from chain.models import Payment
from chain.verification import payment_verify
from challenges.models import Challenge, ChallengeAnchor
from config.public_cache import public_answers_mark_stale
from responses.models import ResponseStatus

from .conftest import ANVIL_CHAIN_ID, anchor_on_chain, post_claim
from .test_verify_terms import count_anyway
from .verifier_support import (
    GIZA,
    assert_differs,
    mine_pending,
    pay,
    resolve,
    run_verifier,
    send_unmined,
    verify,
)

pytestmark = pytest.mark.django_db(transaction=True)

FAR = "30.0444, 31.2357"  # about 12 km from GIZA: a wrong guess, so counting it moves no prize


def stake_unmined(chain, d) -> str:
    return send_unmined(chain, {"from": d.address, "to": chain.usdc, "data": chain.stake_calldata(d)})


def block_of(chain, tx_hash: str) -> tuple[int, int]:
    number = chain.w3.eth.get_transaction_receipt(tx_hash)["blockNumber"]
    return number, chain.w3.eth.get_block(number)["timestamp"]


def record_file(tmp_path, d, tx_hash: str, anchor: ChallengeAnchor) -> str:
    """The page's "Download record" file of a claim (chain/tests/test_verify_records.py)."""
    record = {
        "challengeId": d.challenge_id,
        "coordinates": d.text,
        "salt": d.salt,
        "stakeUsdc": str(d.stake),
        "chainId": ANVIL_CHAIN_ID,
        "submitterAddress": d.address,
        "transactionHash": tx_hash,
        "anchor": {
            "registry": anchor.registry_address,
            "transactionHash": anchor.transaction_hash,
            "blockNumber": anchor.block_number,
            "solutionSha256": anchor.solution_sha256,
            "termsSha256": anchor.terms_sha256,
        },
    }
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return str(path)


def test_a_payment_in_the_anchored_opening_second_counts_and_hiding_one_differs(
    chain, draft, make_challenge, live_server, tmp_path
):
    """The anchor mined in the opening second itself and two payments in the next block, the same
    second: a block of the opening second counts (chain/checks.py). The claimed one is counted, and
    the player's record says it had to count; the unclaimed one is listed, and hiding it differs."""
    challenge = make_challenge(solution=GIZA, threshold=100, anchored=False)  # published, its anchor queued
    opens = max(chain.w3.eth.get_block("latest")["timestamp"] + 1, int(time.time()) + 1)
    Challenge.objects.filter(pk=challenge.pk).update(start_timestamp=datetime.fromtimestamp(opens, tz=UTC))
    ChallengeAnchor.objects.filter(challenge=challenge).update(opens_at=opens)
    chain.w3.provider.make_request("evm_setAutomine", [False])
    with pytest.raises(AnchorPending):
        anchor_advance(challenge_id=challenge.pk)
    mine_pending(chain, at=opens)
    claimed = draft(challenge=challenge, stake="2")
    silent = draft(challenge=challenge, stake="1.5", address=chain.other)
    hashes = [stake_unmined(chain, d) for d in (claimed, silent)]
    mine_pending(chain, at=opens)
    chain.mine(1)
    assert anchor_advance(challenge_id=challenge.pk) == "confirmed"
    anchor = ChallengeAnchor.objects.get(challenge=challenge)
    assert anchor.block_number is not None
    block, mined = block_of(chain, hashes[0])
    assert (block, mined) == (anchor.block_number + 1, opens) == (block_of(chain, hashes[1])[0], anchor.opens_at)
    claim = post_claim(claimed, hashes[0])
    assert payment_verify(response_id=claim.pk).status == ResponseStatus.CONFIRMED
    while (indexed := payments_index()) and indexed.to_block < chain.w3.eth.block_number:
        pass
    resolve(chain, challenge)

    result = run_verifier(live_server.url, "--record", record_file(tmp_path, claimed, hashes[0], anchor), rpc=chain.url)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"the payment had to count, and it is counted as response {claim.pk}: correct" in result.stdout
    assert "1 counted, 0 rejected claims, 1 listed unclaimed, 0 outside the open window" in result.stdout
    assert result.last_line == "1 of 1 outcomes reproduced"

    Payment.objects.filter(transaction_hash=hashes[1]).delete()  # the operator hides the unclaimed payment
    public_answers_mark_stale()
    assert_differs(
        verify(live_server, chain, challenge),
        f"payment {hashes[1]} from {chain.other.lower()} of 1.500000 USDC in block {block} names challenge "
        f"{challenge.pk} and is neither counted, rejected nor listed unclaimed",
    )


@pytest.mark.parametrize("counted", [False, True], ids=["rejected-early", "counted-anyway"])
def test_a_payment_in_the_anchors_own_block_is_early(chain, draft, make_challenge, live_server, counted):
    """Mined in the block that holds the anchor (after it or before it in that block), in the open
    window by its time: `early`, as chain/checks.py says; an unclaimed one there is outside the
    window, not a hidden payment; counting the claimed one anyway differs."""
    challenge = make_challenge(solution=GIZA, threshold=100, anchored=False)
    claimed = draft(challenge=challenge, stake="2", text=FAR)
    silent = draft(challenge=challenge, stake="1.5", address=chain.other)
    hashes = [stake_unmined(chain, d) for d in (claimed, silent)]
    with pytest.raises(AnchorPending):
        anchor_advance(challenge_id=challenge.pk)
    opens = ChallengeAnchor.objects.get(challenge=challenge).opens_at
    mine_pending(chain, at=max(chain.w3.eth.get_block("latest")["timestamp"] + 1, opens))
    anchor = anchor_on_chain(chain, challenge)
    assert block_of(chain, hashes[0])[0] == block_of(chain, hashes[1])[0] == anchor.block_number
    assert block_of(chain, hashes[0])[1] >= anchor.opens_at
    claim = post_claim(claimed, hashes[0])
    chain.mine(1)
    outcome = payment_verify(response_id=claim.pk)
    assert (outcome.status, outcome.code) == ("rejected", "early")
    if counted:
        count_anyway(claim, hashes[0], chain)
    resolve(chain, challenge)

    result = verify(live_server, chain, challenge)
    if counted:
        assert_differs(
            result, f"paid in block {anchor.block_number}, not after the anchor's block {anchor.block_number}"
        )
        return
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 of 1 rejected claims: reason code re-checked" in result.stdout
    assert f"Not counted: payment {hashes[1]} from {chain.other.lower()} of 1.500000 USDC" in result.stdout
    assert "0 counted, 1 rejected claims, 0 listed unclaimed, 1 outside the open window" in result.stdout


def test_a_payment_exactly_as_deep_as_asked_counts_and_one_block_less_differs(
    chain, draft, make_challenge, live_server
):
    """Two blocks deep (its own and one more) is the default `--confirmations 2`, the server's
    CHAIN_CONFIRMATIONS here: reproduced; asked for 3, the same payment is one block short."""
    challenge = make_challenge(solution=GIZA, threshold=100)
    d = draft(challenge=challenge, stake="2")
    tx_hash = pay(chain, d)
    chain.mine(1)
    claim = post_claim(d, tx_hash)
    assert payment_verify(response_id=claim.pk).status == ResponseStatus.CONFIRMED
    resolve(chain, challenge)
    assert chain.w3.eth.block_number == block_of(chain, tx_hash)[0] + 1

    result = run_verifier(live_server.url, "--challenge", str(challenge.pk), rpc=chain.url, registry=chain.registry)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.last_line == "1 of 1 outcomes reproduced"
    result = verify(live_server, chain, challenge, "--confirmations", "3")
    assert_differs(result, f"DIFFERENCE response {claim.pk} ({tx_hash}): only 2 confirmations, fewer than 3")
