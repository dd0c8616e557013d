"""The checks of a payment are one ordered list (chain/checks.py): the POST runs a part of the
worker's list, in the worker's order, and refuses only what can never be this payer's claim. What
each check decides is tested on anvil (chain/tests/test_verify.py, test_squatting.py)."""

from chain.checks import PAYMENT_CHECKS, POST_CHECKS, REFUSED_AT_POST
from responses.reasons import NOT_THE_PAYERS_CLAIM, Reason


def test_the_post_runs_a_part_of_the_workers_list_in_the_same_order():
    positions = [PAYMENT_CHECKS.index(check) for check in POST_CHECKS]
    assert positions == sorted(positions)


def test_the_post_refuses_a_strangers_claim_and_one_for_another_challenge_only():
    assert set(REFUSED_AT_POST) == {*NOT_THE_PAYERS_CLAIM, Reason.CHALLENGE_MISMATCH}
