"""The test USDC's EIP-3009 authorizations (contracts/TestUSDC.sol, as Circle's FiatToken v2.2) on a
real EVM: one test per invariant the contract states, each through the helpers of
chain/tests/token/authorizations.py (signed by anvil's eth_signTypedData_v4, as a wallet signs)."""

from typing import Any

import pytest
from eth_abi import encode
from eth_account import Account
from eth_account.messages import hash_domain
from web3 import Web3
from web3.types import RPCEndpoint

from chain.node.contracts import contract_at, deploy, mint
from devtools.processes import ANVIL_CHAIN_ID

from .authorizations import (
    RECEIVE,
    SECP256K1_N,
    TRANSFER,
    join_signature,
    malleable_twin,
    new_nonce,
    recover_signer,
    split_signature,
    to_bytes,
    typed_data_digest,
)
from .token_support import token_chain, token_node  # noqa: F401  (the token's world, not the pot's)

pytestmark = pytest.mark.integration

STAKE = 2_500_000  # 2.5 USDC
HOUR = 3600
USED = Web3.keccak(text="AuthorizationUsed(address,bytes32)")
CANCELED = Web3.keccak(text="AuthorizationCanceled(address,bytes32)")
TRANSFER_TOPIC = Web3.keccak(text="Transfer(address,address,uint256)")
CIRCLE_SEPOLIA_USDC = "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238"
USED_OR_CANCELED = "FiatTokenV2: authorization is used or canceled"
INVALID = "FiatTokenV2: invalid signature"
HIGH_S, BAD_V = "ECRecover: invalid signature 's' value", "ECRecover: invalid signature 'v' value"
_FIELDS = "(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
CIRCLE_TYPE_HASHES = {  # FiatToken v2's constants (circlefin/stablecoin-evm, contracts/v2/EIP3009.sol)
    "TRANSFER_WITH_AUTHORIZATION_TYPEHASH": (
        TRANSFER + _FIELDS,
        "7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267",
    ),
    "RECEIVE_WITH_AUTHORIZATION_TYPEHASH": (
        RECEIVE + _FIELDS,
        "d099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8",
    ),
    "CANCEL_AUTHORIZATION_TYPEHASH": (
        "CancelAuthorization(address authorizer,bytes32 nonce)",
        "158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a1597429",
    ),
}


def latest_time(chain) -> int:
    return chain.w3.eth.get_block("latest")["timestamp"]


def next_block_at(chain, timestamp: int) -> None:
    chain.w3.provider.make_request(RPCEndpoint("evm_setNextBlockTimestamp"), [timestamp])


def authorization(chain, *, key=None, primary_type=TRANSFER, token=None, **fields) -> dict[str, Any]:
    """The fields of a transfer authorization (the player pays the treasury STAKE, valid for an hour),
    its token and its signature: what submit_authorization takes."""
    fields = {
        "signer": chain.player,
        "to": chain.treasury,
        "value": STAKE,
        "valid_after": 0,
        "valid_before": latest_time(chain) + HOUR,
        "nonce": new_nonce(),
        **fields,
    }
    signature = chain.sign_authorization(**fields, key=key, primary_type=primary_type, token=token)
    return {**fields, "token": token, "signature": signature}


def document_of(chain, auth: dict[str, Any]) -> dict[str, Any]:
    """The EIP-712 document the authorization's signature signed."""
    return chain.authorization_document(**{name: value for name, value in auth.items() if name != "signature"})


def status(chain, tx_hash: str) -> int:
    return chain.w3.eth.get_transaction_receipt(tx_hash)["status"]


def assert_refused(chain, tx_hash: str, reason: str) -> None:
    assert (status(chain, tx_hash), chain.revert_reason(tx_hash)) == (0, reason)


def topic(address: str) -> bytes:
    return bytes.fromhex(address[2:]).rjust(32, b"\0")


def assert_used_then_transfer(chain, tx_hash: str, auth: dict[str, Any]) -> None:
    """AuthorizationUsed(from, nonce), and at the very next log index Transfer(from, to, value), both
    the token's: the adjacency Geopoem's verifiers rely on (the contract's invariant 6)."""
    receipt = chain.w3.eth.get_transaction_receipt(tx_hash)
    assert receipt["status"] == 1
    (used,) = [log for log in receipt["logs"] if log["topics"][0] == USED]
    (transfer,) = [log for log in receipt["logs"] if log["logIndex"] == used["logIndex"] + 1]
    assert used["address"] == transfer["address"] == (auth["token"] or chain.usdc)
    assert used["topics"][1:] == [topic(auth["signer"]), to_bytes(auth["nonce"])]
    assert transfer["topics"] == [TRANSFER_TOPIC, topic(auth["signer"]), topic(auth["to"])]
    assert int.from_bytes(transfer["data"], "big") == auth["value"]


def test_the_domain_separator_is_the_eip712_hash_of_name_version_chain_id_and_address(chain):
    domain = chain.token_domain()
    assert (domain["name"], domain["version"], domain["chainId"]) == ("Test USD Coin", "2", ANVIL_CHAIN_ID)
    type_hash = Web3.keccak(text="EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")
    expected = Web3.keccak(
        encode(
            ["bytes32", "bytes32", "bytes32", "uint256", "address"],
            [type_hash, Web3.keccak(text="Test USD Coin"), Web3.keccak(text="2"), ANVIL_CHAIN_ID, chain.usdc],
        )
    )
    assert contract_at(chain.w3, "TestUSDC", chain.usdc).functions.DOMAIN_SEPARATOR().call() == expected
    assert hash_domain(domain) == expected  # eth_account, as the server would hash it


def test_the_type_hash_constants_are_circles_values(chain):
    token = contract_at(chain.w3, "TestUSDC", chain.usdc)
    for constant, (type_string, circle) in CIRCLE_TYPE_HASHES.items():
        assert token.functions[constant]().call() == Web3.keccak(text=type_string) == bytes.fromhex(circle)


def test_the_domain_is_the_address_the_code_runs_at(chain):
    """No immutable, no constructor storage: the runtime code copied to Circle's Sepolia address (as
    the deploy rehearsal does with anvil_setCode) signs for that address, not the one it came from."""
    code = "0x" + bytes(chain.w3.eth.get_code(chain.usdc)).hex()
    chain.w3.provider.make_request(RPCEndpoint("anvil_setCode"), [CIRCLE_SEPOLIA_USDC, code])
    mint(chain.w3, CIRCLE_SEPOLIA_USDC, chain.player, 10 * STAKE, sender=chain.deployer)
    copy = contract_at(chain.w3, "TestUSDC", CIRCLE_SEPOLIA_USDC).functions
    assert copy.DOMAIN_SEPARATOR().call() == hash_domain(chain.token_domain(CIRCLE_SEPOLIA_USDC))
    assert copy.DOMAIN_SEPARATOR().call() != hash_domain(chain.token_domain())
    for_the_original = authorization(chain)
    assert_refused(chain, chain.submit_authorization(**{**for_the_original, "token": CIRCLE_SEPOLIA_USDC}), INVALID)
    auth = authorization(chain, token=CIRCLE_SEPOLIA_USDC)
    assert_used_then_transfer(chain, chain.submit_authorization(**auth), auth)


def test_a_signed_transfer_moves_the_money_once_and_logs_authorization_used_then_transfer_next(chain):
    auth = authorization(chain)
    before = chain.balance(chain.player), chain.balance(chain.treasury)
    assert chain.authorization_used(chain.player, auth["nonce"]) is False
    tx_hash = chain.submit_authorization(**auth)
    assert_used_then_transfer(chain, tx_hash, auth)
    assert len(chain.w3.eth.get_transaction_receipt(tx_hash)["logs"]) == 2  # nothing else is logged
    assert (chain.balance(chain.player), chain.balance(chain.treasury)) == (before[0] - STAKE, before[1] + STAKE)
    assert chain.authorization_used(chain.player, auth["nonce"]) is True


def test_a_used_authorization_is_refused_again_and_its_nonce_is_only_the_authorizers(chain):
    auth = authorization(chain)
    assert status(chain, chain.submit_authorization(**auth)) == 1
    after_first = chain.balance(chain.player), chain.balance(chain.treasury)
    assert_refused(chain, chain.submit_authorization(**auth, sender=chain.other), USED_OR_CANCELED)
    assert (chain.balance(chain.player), chain.balance(chain.treasury)) == after_first
    # The same nonce is another authorizer's own: `other` may still use it.
    theirs = authorization(chain, signer=chain.other, nonce=auth["nonce"])
    assert_used_then_transfer(chain, chain.submit_authorization(**theirs), theirs)


def test_not_yet_valid_while_the_block_time_is_valid_after_itself(chain):
    start = latest_time(chain) + 100
    auth = authorization(chain, valid_after=start, valid_before=start + HOUR)
    next_block_at(chain, start)
    assert_refused(chain, chain.submit_authorization(**auth), "FiatTokenV2: authorization is not yet valid")
    assert chain.authorization_used(chain.player, auth["nonce"]) is False
    next_block_at(chain, start + 1)
    assert_used_then_transfer(chain, chain.submit_authorization(**auth), auth)


def test_expired_once_the_block_time_reaches_valid_before(chain):
    end = latest_time(chain) + 100
    in_time, too_late = authorization(chain, valid_before=end), authorization(chain, valid_before=end)
    next_block_at(chain, end - 1)
    assert_used_then_transfer(chain, chain.submit_authorization(**in_time), in_time)
    next_block_at(chain, end)
    assert_refused(chain, chain.submit_authorization(**too_late), "FiatTokenV2: authorization is expired")
    assert chain.authorization_used(chain.player, too_late["nonce"]) is False


def test_a_signature_by_anyone_but_the_authorizer_is_refused(chain):
    forged = authorization(chain, key=Account.create().key)  # a key that is not the player's
    assert_refused(chain, chain.submit_authorization(**forged), INVALID)
    auth = authorization(chain)
    by_other = chain.sign_document(document_of(chain, auth), signer=chain.other)  # another unlocked account signs it
    assert_refused(chain, chain.submit_authorization(**{**auth, "signature": by_other}), INVALID)
    assert chain.authorization_used(chain.player, forged["nonce"]) is False
    assert chain.authorization_used(chain.player, auth["nonce"]) is False


TAMPERINGS = {
    "value": lambda chain, auth: auth["value"] + 1,
    "to": lambda chain, auth: chain.other,
    "nonce": lambda chain, auth: new_nonce(),
    "valid_after": lambda chain, auth: 1,
    "valid_before": lambda chain, auth: auth["valid_before"] + 1,
    "signer": lambda chain, auth: chain.other,  # the `from`: someone else's money
}


@pytest.mark.parametrize("field", TAMPERINGS)
def test_a_field_changed_after_signing_is_refused(chain, field):
    auth = authorization(chain)
    tampered = {**auth, field: TAMPERINGS[field](chain, auth)}
    before = chain.balance(chain.player), chain.balance(chain.other)
    assert_refused(chain, chain.submit_authorization(**tampered), INVALID)
    assert (chain.balance(chain.player), chain.balance(chain.other)) == before
    assert chain.authorization_used(tampered["signer"], tampered["nonce"]) is False
    assert_used_then_transfer(chain, chain.submit_authorization(**auth), auth)  # the signed one still works


def test_the_malleable_twin_with_s_in_the_upper_half_is_refused(chain):
    auth = authorization(chain)
    twin = malleable_twin(auth["signature"])
    # ecrecover itself (the precompile at 0x01) takes the twin for the player's signature...
    v, r, s = split_signature(twin)
    digest = typed_data_digest(document_of(chain, auth))
    recovered = chain.w3.eth.call({"to": "0x" + "00" * 19 + "01", "data": digest + encode(["uint8"], [v]) + r + s})
    assert Web3.to_checksum_address(recovered[-20:]) == chain.player
    # ...the token does not, in either overload, and the nonce stays usable with the low-s original.
    assert_refused(chain, chain.submit_authorization(**{**auth, "signature": twin}), HIGH_S)
    assert_refused(chain, chain.submit_authorization(**{**auth, "signature": twin}, as_bytes=True), HIGH_S)
    assert_used_then_transfer(chain, chain.submit_authorization(**auth), auth)


def with_v(signature: str, v: int) -> str:
    _, r, s = split_signature(signature)
    return join_signature(v, r, s)


MALFORMED = {  # a change of the signature, its reason, whether sent to the bytes overload
    "v 0": (lambda sig: with_v(sig, 0), BAD_V, False),
    "v 1": (lambda sig: with_v(sig, 1), BAD_V, False),
    "v 29": (lambda sig: with_v(sig, 29), BAD_V, True),
    "r 0": (lambda sig: "0x" + "00" * 32 + sig[66:], "ECRecover: invalid signature", False),
    "64 bytes": (lambda sig: sig[:-2], "ECRecover: invalid signature length", True),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_signature_is_refused_with_circles_reason(chain, case):
    change, reason, as_bytes = MALFORMED[case]
    auth = authorization(chain)
    tx_hash = chain.submit_authorization(**{**auth, "signature": change(auth["signature"])}, as_bytes=as_bytes)
    assert_refused(chain, tx_hash, reason)
    assert chain.authorization_used(chain.player, auth["nonce"]) is False


def test_receive_with_authorization_only_by_the_payee(chain):
    auth = authorization(chain, primary_type=RECEIVE)
    assert_refused(chain, chain.submit_authorization(**auth, receive=True), "FiatTokenV2: caller must be the payee")
    # A receive authorization is not a transfer authorization: the type is part of what is signed.
    assert_refused(chain, chain.submit_authorization(**auth), INVALID)
    assert_used_then_transfer(chain, chain.submit_authorization(**auth, receive=True, sender=chain.treasury), auth)
    # The bytes overload likewise.
    auth = authorization(chain, primary_type=RECEIVE)
    assert_refused(
        chain, chain.submit_authorization(**auth, receive=True, as_bytes=True), "FiatTokenV2: caller must be the payee"
    )
    tx_hash = chain.submit_authorization(**auth, receive=True, as_bytes=True, sender=chain.treasury)
    assert_used_then_transfer(chain, tx_hash, auth)


def test_a_cancelled_nonce_cannot_be_used_nor_cancelled_again(chain):
    auth = authorization(chain)
    tx_hash = chain.cancel_authorization(signer=chain.player, nonce=auth["nonce"], sender=chain.other)
    (log,) = chain.w3.eth.get_transaction_receipt(tx_hash)["logs"]
    assert log["topics"] == [CANCELED, topic(chain.player), to_bytes(auth["nonce"])]
    assert chain.authorization_used(chain.player, auth["nonce"]) is True
    assert_refused(chain, chain.submit_authorization(**auth), USED_OR_CANCELED)
    assert_refused(chain, chain.cancel_authorization(signer=chain.player, nonce=auth["nonce"]), USED_OR_CANCELED)
    # A used nonce cannot be cancelled either, and nobody but the authorizer may cancel one.
    used = authorization(chain)
    assert status(chain, chain.submit_authorization(**used)) == 1
    assert_refused(chain, chain.cancel_authorization(signer=chain.player, nonce=used["nonce"]), USED_OR_CANCELED)
    nonce = new_nonce()
    forged = chain.sign_cancel(signer=chain.player, nonce=nonce, key=Account.create().key)
    assert_refused(chain, chain.cancel_authorization(signer=chain.player, nonce=nonce, signature=forged), INVALID)
    assert chain.authorization_used(chain.player, nonce) is False


def test_the_bytes_overloads_take_an_eoa_signature(chain):
    auth = authorization(chain)
    assert_used_then_transfer(chain, chain.submit_authorization(**auth, as_bytes=True), auth)
    nonce = new_nonce()
    tx_hash = chain.cancel_authorization(signer=chain.player, nonce=nonce, as_bytes=True)
    assert status(chain, tx_hash) == 1
    assert chain.authorization_used(chain.player, nonce) is True


def test_a_contract_authorizer_signs_through_eip1271(chain):
    owner_key = Account.create().key
    wallet = deploy(chain.w3, "ContractSigner", Account.from_key(owner_key).address, sender=chain.deployer)
    mint(chain.w3, chain.usdc, wallet, 10 * STAKE, sender=chain.deployer)
    for as_bytes in (True, False):  # the v, r, s overloads hand r || s || v to EIP-1271 too, as v2.2
        auth = authorization(chain, signer=wallet, key=owner_key)
        assert_used_then_transfer(chain, chain.submit_authorization(**auth, as_bytes=as_bytes), auth)
    refused = authorization(chain, signer=wallet, key=Account.create().key)
    assert_refused(chain, chain.submit_authorization(**refused, as_bytes=True), INVALID)
    assert chain.balance(wallet) == 8 * STAKE


def test_anyone_may_submit_a_transfer_authorization(chain):
    relayer = chain.w3.eth.accounts[5]  # ETH for gas, no USDC, no part in the payment
    auth = authorization(chain)
    eth_before = chain.w3.eth.get_balance(relayer)
    tx_hash = chain.submit_authorization(**auth, sender=relayer)
    assert_used_then_transfer(chain, tx_hash, auth)
    assert chain.w3.eth.get_transaction(tx_hash)["from"] == relayer
    assert chain.w3.eth.get_balance(relayer) < eth_before  # the relayer paid the gas
    assert chain.balance(relayer) == 0


def test_calldata_after_the_nine_abi_words_is_ignored(chain):
    auth = authorization(chain)
    challenge_id_word = (4242).to_bytes(32, "big")
    tx_hash = chain.submit_authorization(**auth, trailing=challenge_id_word)
    sent = bytes(chain.w3.eth.get_transaction(tx_hash)["input"])
    assert len(sent) == 4 + 9 * 32 + 32 == 324 and sent.endswith(challenge_id_word)
    assert_used_then_transfer(chain, tx_hash, auth)


def test_an_authorizer_without_the_balance_reverts_and_the_nonce_stays_unused(chain):
    empty = chain.w3.eth.accounts[6]  # an unlocked account the session never minted to
    auth = authorization(chain, signer=empty)
    treasury_before = chain.balance(chain.treasury)
    assert_refused(chain, chain.submit_authorization(**auth), "transfer amount exceeds balance")
    assert chain.authorization_used(empty, auth["nonce"]) is False
    assert (chain.balance(empty), chain.balance(chain.treasury)) == (0, treasury_before)
    mint(chain.w3, chain.usdc, empty, STAKE, sender=chain.deployer)  # the same signature, once funded
    assert_used_then_transfer(chain, chain.submit_authorization(**auth), auth)


def test_a_wallets_eth_sign_typed_data_v4_signature_recovers_with_eth_account_to_the_signer(chain):
    # Signed by anvil's eth_signTypedData_v4, as a browser wallet signs; uint256's largest value too.
    auth = authorization(chain, valid_before=2**256 - 1)
    assert recover_signer(document_of(chain, auth), auth["signature"]) == chain.player
    v, _r, s = split_signature(auth["signature"])
    assert v in (27, 28) and int.from_bytes(s, "big") <= SECP256K1_N // 2
    assert_used_then_transfer(chain, chain.submit_authorization(**auth), auth)  # and the token agrees
