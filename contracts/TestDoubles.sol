// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

// Contracts that only the chain tests deploy, to provoke verification failures for real.

/// Emits an ERC-20 Transfer event from its own address without moving any token.
contract TransferEmitter {
    event Transfer(address indexed from, address indexed to, uint256 value);

    function emitTransfer(address from, address to, uint256 amount) external {
        emit Transfer(from, to, amount);
    }
}

/// A token look-alike: `transfer` succeeds and makes a separate contract emit the Transfer,
/// so the receipt holds a matching Transfer log that the token itself did not emit.
contract FakeTransferToken {
    TransferEmitter public immutable emitter;

    constructor() {
        emitter = new TransferEmitter();
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        emitter.emitTransfer(msg.sender, to, amount);
        return true;
    }
}

/// A router: forwards arbitrary calldata to a target, so the token is not called directly by the sender.
contract Forwarder {
    function forward(address target, bytes calldata data) external payable returns (bytes memory) {
        (bool ok, bytes memory result) = target.call(data);
        require(ok, "forward failed");
        return result;
    }
}

/// A contract wallet (EIP-1271): it accepts a signature of a digest made by its owner's key. Lets the
/// tests show that TestUSDC takes a contract as the authorizer of a transfer, as FiatToken v2.2 does.
contract ContractSigner {
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(digest, signature);
        bool valid = err == ECDSA.RecoverError.NoError && signer == owner;
        return valid ? this.isValidSignature.selector : bytes4(0xffffffff);
    }
}

/// The part of EIP-3009 the batcher calls (Circle's FiatToken v2, contracts/TestUSDC.sol).
interface IAuthorizedTransfer {
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;
}

/// Submits several signed transfer authorizations in one transaction, as a relayer's batch contract
/// could: the token logs AuthorizationUsed then Transfer for each, in order, in one receipt. Its
/// calldata is not the token's call, so the ledger cannot read a nonce or a challenge from it.
contract AuthorizationBatcher {
    struct SignedAuthorization {
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    function submitAll(IAuthorizedTransfer token, SignedAuthorization[] calldata authorizations) external {
        for (uint256 i = 0; i < authorizations.length; i++) {
            SignedAuthorization calldata a = authorizations[i];
            token.transferWithAuthorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.v, a.r, a.s);
        }
    }
}
