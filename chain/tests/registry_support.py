"""Calls of the terms registry the chain tests make themselves (contracts/TermsRegistry.sol), as the
owner or as anyone else, with the receipt to read whether they reverted."""

from eth_account import Account

from chain.contracts import contract_at

H1, H2 = "11" * 32, "22" * 32


def registry(chain):
    return contract_at(chain.w3, "TermsRegistry", chain.registry)


def send_signed(chain, call, *, key: str) -> dict:
    """Send a registry call signed by `key` (not an unlocked anvil account) with a fixed gas limit,
    so a call that reverts is mined and its receipt says so. Returns the receipt."""
    account = Account.from_key(key)
    tx = call.build_transaction(
        {
            "from": account.address,
            "nonce": chain.w3.eth.get_transaction_count(account.address),
            "gas": 200_000,
            "chainId": chain.w3.eth.chain_id,
        }
    )
    tx_hash = chain.w3.eth.send_raw_transaction(account.sign_transaction(tx).raw_transaction)
    return chain.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)


def send_unlocked(chain, call, *, sender: str) -> dict:
    tx_hash = call.transact({"from": sender, "gas": 200_000})
    return chain.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)


def anchor_call(chain, challenge_id, solution=H1, terms=H2, opens_at=1_700_000_000, threshold=150):
    return registry(chain).functions.anchor(
        challenge_id, bytes.fromhex(solution), bytes.fromhex(terms), opens_at, threshold
    )
