"""EIP-3009 authorizations of the test USDC (contracts/TestUSDC.sol, as Circle's FiatToken v2.2) the
way the chain tests make them: EIP-712 typed data whose domain is read from the token, signed by
one of anvil's unlocked accounts through `eth_signTypedData_v4` (what a browser wallet does) or by
a raw key with eth_account (a forgery when the key is not the authorizer's), and submitted by any
account, optionally with bytes appended after the ABI words (as Geopoem's relayer appends a
challenge id).

`Authorizations` is mixed into conftest's `Chain`, so a test writes `chain.sign_authorization(...)`.
Nonces and signatures are 0x text; amounts are the token's integer units; times are unix seconds."""

from __future__ import annotations

import secrets
from typing import Any, cast

from eth_abi import decode, encode
from eth_account import Account
from eth_account.messages import _hash_eip191_message, encode_typed_data
from web3 import Web3
from web3.types import RPCEndpoint, TxParams

from chain.node.contracts import contract_at
from chain.token.authorization import TYPED_DATA_TYPES

TRANSFER = "TransferWithAuthorization"
RECEIVE = "ReceiveWithAuthorization"
CANCEL = "CancelAuthorization"

# A transfer authorization has the receive one's fields (chain/token/authorization.py writes them).
_AUTHORIZATION_FIELDS = TYPED_DATA_TYPES[RECEIVE]
TYPES: dict[str, list[dict[str, str]]] = {
    "EIP712Domain": TYPED_DATA_TYPES["EIP712Domain"],
    TRANSFER: _AUTHORIZATION_FIELDS,
    RECEIVE: _AUTHORIZATION_FIELDS,
    CANCEL: [{"name": "authorizer", "type": "address"}, {"name": "nonce", "type": "bytes32"}],
}
# The argument types of the token's functions, after the authorization's own fields.
_AUTHORIZATION_ARGS = "address,address,uint256,uint256,uint256,bytes32"
_VRS, _BYTES = "uint8,bytes32,bytes32", "bytes"
SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def to_bytes(value: bytes | str) -> bytes:
    """The bytes of a hash or data given as bytes or 0x text."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    return bytes.fromhex(value[2:] if value[:2] in ("0x", "0X") else value)


def new_nonce() -> str:
    """A random 32-byte nonce, as EIP-3009 asks (not a counter)."""
    return "0x" + secrets.token_hex(32)


def token_domain(w3: Web3, token: str) -> dict[str, Any]:
    """The token's EIP-712 domain as a wallet builds it: name() and version() read from the chain."""
    contract = contract_at(w3, "TestUSDC", token)
    return {
        "name": contract.functions.name().call(),
        "version": contract.functions.version().call(),
        "chainId": w3.eth.chain_id,
        "verifyingContract": Web3.to_checksum_address(token),
    }


def typed_data(domain: dict[str, Any], primary_type: str, message: dict[str, Any]) -> dict[str, Any]:
    """The full EIP-712 document (eth_signTypedData_v4's argument) of one authorization or cancel."""
    types = {"EIP712Domain": TYPES["EIP712Domain"], primary_type: TYPES[primary_type]}
    return {"types": types, "primaryType": primary_type, "domain": domain, "message": message}


def typed_data_digest(document: dict[str, Any]) -> bytes:
    """keccak256("\\x19\\x01" || domainSeparator || hashStruct(message)): what the signature signs."""
    return bytes(_hash_eip191_message(encode_typed_data(full_message=document)))


def recover_signer(document: dict[str, Any], signature: str) -> str:
    """The address eth_account recovers from a signature of `document` (the server's side)."""
    return Account.recover_message(encode_typed_data(full_message=document), signature=to_bytes(signature))


def split_signature(signature: str) -> tuple[int, bytes, bytes]:
    """(v, r, s) of a 65-byte r || s || v signature."""
    raw = to_bytes(signature)
    assert len(raw) == 65, f"a signature is 65 bytes, not {len(raw)}"
    return raw[64], raw[:32], raw[32:64]


def join_signature(v: int, r: bytes, s: bytes) -> str:
    return "0x" + (r + s + bytes([v])).hex()


def malleable_twin(signature: str) -> str:
    """The same signer's other valid secp256k1 signature of the same digest: s' = n - s (upper half),
    v flipped. ecrecover accepts it; FiatToken and TestUSDC must not."""
    v, r, s = split_signature(signature)
    return join_signature(55 - v, r, (SECP256K1_N - int.from_bytes(s, "big")).to_bytes(32, "big"))


def revert_reason(w3: Web3, tx_hash: str) -> str | None:
    """The Error(string) reason of a mined transaction that reverted (anvil's callTracer replays it);
    None when it did not revert or reverted without a reason string."""
    trace = w3.provider.make_request(RPCEndpoint("debug_traceTransaction"), [tx_hash, {"tracer": "callTracer"}])
    output = to_bytes(trace["result"].get("output") or "0x")
    if "error" not in trace["result"] or output[:4] != bytes.fromhex("08c379a0"):
        return None
    return decode(["string"], output[4:])[0]


def calldata(function: str, arg_types: str, args: list[Any], trailing: bytes = b"") -> str:
    """0x calldata of `function(arg_types)` with `trailing` bytes appended after its ABI words."""
    selector = Web3.keccak(text=f"{function}({arg_types})")[:4]
    return "0x" + (selector + encode(arg_types.split(","), args) + trailing).hex()


class Authorizations:
    """EIP-3009 helpers of the chain tests' `Chain` (conftest.py), on its node and its token (`usdc`,
    unless `token` names another TestUSDC). `signer` is always the authorizer: the `from` of a
    transfer, the `authorizer` of a cancel."""

    w3: Web3
    usdc: str
    deployer: str

    def token_domain(self, token: str | None = None) -> dict[str, Any]:
        return token_domain(self.w3, token or self.usdc)

    def authorization_document(
        self,
        *,
        signer: str,
        to: str,
        value: int,
        valid_after: int,
        valid_before: int,
        nonce: str,
        primary_type: str = TRANSFER,
        token: str | None = None,
    ) -> dict[str, Any]:
        """The EIP-712 document a wallet is asked to sign for a transfer (or receive) authorization."""
        message = {
            "from": Web3.to_checksum_address(signer),
            "to": Web3.to_checksum_address(to),
            "value": value,
            "validAfter": valid_after,
            "validBefore": valid_before,
            "nonce": "0x" + to_bytes(nonce).hex(),
        }
        return typed_data(self.token_domain(token), primary_type, message)

    def sign_document(self, document: dict[str, Any], *, signer: str, key: str | bytes | None = None) -> str:
        """A 65-byte r || s || v signature (v 27 or 28) of `document`: by anvil's unlocked account
        `signer` through eth_signTypedData_v4, or, given `key`, by that private key with eth_account."""
        if key is not None:
            return "0x" + bytes(Account.sign_typed_data(key, full_message=document).signature).hex()
        # Numbers as decimal strings, as wallets' libraries send them (viem's bigints): a JSON number
        # above 2**53 is not portable, and anvil refuses 2**255 given as one.
        wire = {**document, "message": {k: str(v) if isinstance(v, int) else v for k, v in document["message"].items()}}
        answer = self.w3.provider.make_request(RPCEndpoint("eth_signTypedData_v4"), [signer, wire])
        assert "result" in answer, answer
        return answer["result"]

    def sign_authorization(
        self,
        *,
        signer: str,
        to: str,
        value: int,
        valid_after: int,
        valid_before: int,
        nonce: str,
        key: str | bytes | None = None,
        primary_type: str = TRANSFER,
        token: str | None = None,
    ) -> str:
        """`signer`'s signature of a transfer authorization (primary_type=RECEIVE: of a receive one).
        With `key`, that key signs instead of the node: a forgery unless it is `signer`'s key (or, for
        a contract signer, a key its EIP-1271 check accepts)."""
        document = self.authorization_document(
            signer=signer,
            to=to,
            value=value,
            valid_after=valid_after,
            valid_before=valid_before,
            nonce=nonce,
            primary_type=primary_type,
            token=token,
        )
        return self.sign_document(document, signer=signer, key=key)

    def sign_cancel(self, *, signer: str, nonce: str, key: str | bytes | None = None, token: str | None = None) -> str:
        """`signer`'s signature of a CancelAuthorization of `nonce` (with `key`: that key's)."""
        message = {"authorizer": Web3.to_checksum_address(signer), "nonce": "0x" + to_bytes(nonce).hex()}
        return self.sign_document(typed_data(self.token_domain(token), CANCEL, message), signer=signer, key=key)

    def submit_authorization(
        self,
        *,
        signer: str,
        to: str,
        value: int,
        valid_after: int,
        valid_before: int,
        nonce: str,
        signature: str,
        sender: str | None = None,
        trailing: bytes = b"",
        as_bytes: bool = False,
        receive: bool = False,
        token: str | None = None,
        gas: int = 300_000,
    ) -> str:
        """Send transferWithAuthorization(from=signer, ..., v, r, s) from the unlocked `sender` (default:
        the deployer, a third party: anyone may submit) and return its 0x hash once mined. It has a
        fixed gas limit, so one that reverts is mined too: read its receipt's status and
        `revert_reason`. `as_bytes`: the v2.2 overload taking the signature as bytes; `receive`:
        receiveWithAuthorization (only the payee may send it); `trailing`: bytes appended after the ABI
        words (Geopoem's relayer appends a 32-byte challenge id)."""
        args: list[Any] = [signer, to, value, valid_after, valid_before, to_bytes(nonce)]
        function = "receiveWithAuthorization" if receive else "transferWithAuthorization"
        data = self._signed_call(function, _AUTHORIZATION_ARGS, args, signature, as_bytes, trailing)
        return self._send(sender or self.deployer, token or self.usdc, data, gas)

    def cancel_authorization(
        self,
        *,
        signer: str,
        nonce: str,
        signature: str | None = None,
        sender: str | None = None,
        as_bytes: bool = False,
        token: str | None = None,
        gas: int = 300_000,
    ) -> str:
        """Send cancelAuthorization(signer, nonce, ...) with `signature` (default: `signer`'s own, by the
        node) from `sender` (default: the deployer); returns the 0x hash once mined, reverted or not."""
        signature = signature or self.sign_cancel(signer=signer, nonce=nonce, token=token)
        args: list[Any] = [signer, to_bytes(nonce)]
        data = self._signed_call("cancelAuthorization", "address,bytes32", args, signature, as_bytes)
        return self._send(sender or self.deployer, token or self.usdc, data, gas)

    def authorization_used(self, signer: str, nonce: str, token: str | None = None) -> bool:
        """The token's authorizationState(signer, nonce): used or cancelled."""
        contract = contract_at(self.w3, "TestUSDC", token or self.usdc)
        return contract.functions.authorizationState(signer, to_bytes(nonce)).call()

    def revert_reason(self, tx_hash: str) -> str | None:
        return revert_reason(self.w3, tx_hash)

    def _signed_call(
        self, function: str, arg_types: str, args: list[Any], signature: str, as_bytes: bool, trailing: bytes = b""
    ) -> str:
        if as_bytes:
            return calldata(function, f"{arg_types},{_BYTES}", [*args, to_bytes(signature)], trailing)
        v, r, s = split_signature(signature)
        return calldata(function, f"{arg_types},{_VRS}", [*args, v, r, s], trailing)

    def _send(self, sender: str, token: str, data: str, gas: int) -> str:
        tx_hash = self.w3.eth.send_transaction(cast(TxParams, {"from": sender, "to": token, "data": data, "gas": gas}))
        self.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)
        return "0x" + bytes(tx_hash).hex()
