"""usdc_transfers on real receipts: only logs the USDC contract emitted count."""

from typing import cast

from chain.contracts import contract_at
from chain.rpc import Log
from chain.transfers import TRANSFER_TOPIC, token_transfers, transfer_from_log, usdc_transfers


def test_real_usdc_transfer_is_read_with_its_log_index(chain):
    tx = chain.send(
        {"from": chain.player, "to": chain.usdc, "data": chain.stake_calldata_plain(chain.treasury, 1_234_567)}
    )
    receipt = chain.w3.eth.get_transaction_receipt(tx)
    [transfer] = usdc_transfers(receipt)
    assert (transfer.from_, transfer.to, transfer.amount_units) == (chain.player, chain.treasury, 1_234_567)
    assert transfer.token == chain.usdc
    assert transfer.log_index == receipt["logs"][0]["logIndex"]
    assert transfer.transaction_hash == tx
    assert chain.balance(chain.treasury) == 1_234_567


def test_a_transfer_emitted_by_another_contract_is_ignored(chain):
    # FakeTransferToken makes its helper contract emit Transfer(player, treasury, amount): the
    # topics match exactly, only the emitter differs.
    fake = contract_at(chain.w3, "FakeTransferToken", chain.fake_token)
    tx_hash = fake.functions.transfer(chain.treasury, 5_000_000).transact({"from": chain.player})
    receipt = chain.w3.eth.wait_for_transaction_receipt(tx_hash)
    assert any(bytes(log["topics"][0]) == TRANSFER_TOPIC for log in receipt["logs"])
    assert usdc_transfers(receipt) == []
    # The same log does decode as a Transfer when the emitter is asked for: the filter is the emitter.
    emitter = receipt["logs"][0]["address"]
    assert token_transfers(receipt["logs"], emitter)[0].amount_units == 5_000_000


def test_usdc_address_defaults_to_settings_and_compares_case_insensitively(chain, settings):
    tx = chain.send({"from": chain.player, "to": chain.usdc, "data": chain.stake_calldata_plain(chain.other, 7)})
    receipt = chain.w3.eth.get_transaction_receipt(tx)
    settings.USDC_ADDRESS = chain.usdc.lower()
    assert [t.amount_units for t in usdc_transfers(receipt)] == [7]
    assert usdc_transfers(receipt, chain.other_token) == []


def test_non_transfer_logs_are_not_transfers():
    approval = {
        "address": "0x" + "11" * 20,
        "topics": ["0x" + "22" * 32, "0x" + "00" * 32, "0x" + "00" * 32],
        "data": "0x" + "00" * 32,
        "logIndex": "0x0",
    }
    assert transfer_from_log(cast(Log, approval)) is None  # a log as JSON-RPC sends it: numbers in hex
    erc721_like = {
        **approval,
        "topics": ["0x" + TRANSFER_TOPIC.hex(), "0x" + "00" * 32, "0x" + "00" * 32, "0x" + "00" * 32],
        "data": "0x",
    }
    assert transfer_from_log(cast(Log, erc721_like)) is None
