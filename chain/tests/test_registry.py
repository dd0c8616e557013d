"""The terms registry (contracts/TermsRegistry.sol; docs/protocol.md section 6) on a real EVM: its
rules (only the owner anchors, the first anchor of an id wins, ownership moves in two steps) and
its deployment by `manage.py deploy_registry`."""

import pytest
from eth_account import Account
from web3.exceptions import ContractCustomError

from chain.client import get_client
from chain.contracts import contract_at
from chain.registry import anchor_find, registry_anchored_at, revert_name
from chain.transfers import to_bytes

from .registry_support import H1, H2, anchor_call, registry, send_signed, send_unlocked

pytestmark = pytest.mark.django_db


# --- The contract ---------------------------------------------------------------------------------


def test_only_the_owner_may_anchor_a_strangers_anchor_reverts(chain):
    assert registry(chain).functions.owner().call() == chain.operator
    receipt = send_unlocked(chain, anchor_call(chain, 900), sender=chain.player)
    assert receipt["status"] == 0
    assert registry(chain).functions.anchoredAt(900).call() == 0
    assert anchor_find(get_client(), registry=chain.registry, challenge_id=900) is None
    receipt = send_signed(chain, anchor_call(chain, 900), key=chain.operator_key)
    assert receipt["status"] == 1
    assert registry(chain).functions.anchoredAt(900).call() == receipt["blockNumber"]


def test_the_first_anchor_wins_a_second_of_the_same_id_reverts_and_nothing_changes(chain):
    first = send_signed(chain, anchor_call(chain, 901), key=chain.operator_key)
    assert first["status"] == 1
    second = send_signed(chain, anchor_call(chain, 901, terms=H1, threshold=5), key=chain.operator_key)
    assert second["status"] == 0
    # The revert is the registry's AlreadyAnchored(901), and the anchor is the first one's values.
    with pytest.raises(ContractCustomError) as caught:
        anchor_call(chain, 901, terms=H1).call({"from": chain.operator})
    assert revert_name(caught.value) == "AlreadyAnchored"
    with pytest.raises(ContractCustomError) as caught:
        anchor_call(chain, 903).call({"from": chain.player})
    assert revert_name(caught.value) == "OwnableUnauthorizedAccount"
    client = get_client()
    assert registry_anchored_at(client, registry=chain.registry, challenge_id=901) == first["blockNumber"]
    found = anchor_find(client, registry=chain.registry, challenge_id=901)
    assert found is not None
    assert (found.terms_sha256, found.proximity_threshold_m, found.block_number) == (H2, 150, first["blockNumber"])
    logs = client.get_logs({"address": chain.registry, "fromBlock": 0, "toBlock": "latest"})
    assert len([log for log in logs if int.from_bytes(to_bytes(log["topics"][1]), "big") == 901]) == 1


def test_ownership_moves_in_two_steps_and_the_pending_owner_cannot_anchor_before_accepting(chain):
    new_owner = chain.other
    assert send_signed(chain, registry(chain).functions.transferOwnership(new_owner), key=chain.operator_key)["status"]
    assert registry(chain).functions.owner().call() == chain.operator  # not moved yet
    assert registry(chain).functions.pendingOwner().call() == new_owner
    assert send_unlocked(chain, anchor_call(chain, 902), sender=new_owner)["status"] == 0
    # Only the pending owner can accept.
    assert send_unlocked(chain, registry(chain).functions.acceptOwnership(), sender=chain.player)["status"] == 0
    assert send_unlocked(chain, registry(chain).functions.acceptOwnership(), sender=new_owner)["status"] == 1
    assert registry(chain).functions.owner().call() == new_owner
    assert send_signed(chain, anchor_call(chain, 902), key=chain.operator_key)["status"] == 0  # the old key
    assert send_unlocked(chain, anchor_call(chain, 902), sender=new_owner)["status"] == 1


# --- manage.py deploy_registry --------------------------------------------------------------------


def test_deploy_registry_deploys_one_owned_by_the_operator_key_and_prints_its_address(chain, settings):
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("deploy_registry", stdout=out, stderr=io.StringIO())
    (line,) = out.getvalue().splitlines()
    name, _, address = line.partition("=")
    assert name == "ANCHOR_REGISTRY_ADDRESS" and address != chain.registry
    assert contract_at(chain.w3, "TermsRegistry", address).functions.owner().call() == chain.operator
    assert chain.w3.eth.get_code(address)


def test_deploy_registry_refuses_when_the_key_has_no_gas(chain, settings):
    from django.core.management import CommandError, call_command

    settings.ANCHOR_OPERATOR_KEY = "0x" + "42" * 32  # a fresh key: no ETH on this chain
    address = Account.from_key(settings.ANCHOR_OPERATOR_KEY).address
    nonce = chain.w3.eth.get_transaction_count(address)
    with pytest.raises(CommandError, match=f"The operator key's address {address} has no gas"):
        call_command("deploy_registry")
    assert chain.w3.eth.get_transaction_count(address) == nonce  # nothing was sent
