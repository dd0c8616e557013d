// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

// A contract only the chain tests deploy: several calls to one target in one transaction, as a
// contract that submits a batch of EIP-3009 authorizations would (docs/protocol.md section 2a: each
// AuthorizationUsed pairs with the Transfer right after it, so each confirms its own claim).

/// Calls `target` once per item of `calls`, in order, in one transaction; reverts if any call does.
contract BatchCaller {
    function callAll(address target, bytes[] calldata calls) external {
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, ) = target.call(calls[i]);
            require(ok, "batch call failed");
        }
    }
}
