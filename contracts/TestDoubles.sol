// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

// Contracts that only the chain tests deploy, to meet for real what the site must handle.

/// Emits an ERC-20 Transfer event from its own address without moving any token.
contract TransferEmitter {
    event Transfer(address indexed from, address indexed to, uint256 value);

    function emitTransfer(address from, address to, uint256 amount) external {
        emit Transfer(from, to, amount);
    }
}

/// A token look-alike with no EIP-3009: the site must find that it takes no payment authorizations
/// (chain/token/domain.py) and offer the stake by approval alone.
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
