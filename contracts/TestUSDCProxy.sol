// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title A stand-in for Circle's FiatTokenProxy in front of contracts/TestUSDC.sol.
/// @notice USDC is a proxy that delegates every call to its implementation, so every call to it pays
/// for the proxy too: its admin check, its implementation slot and a DELEGATECALL. Geopoem sizes the
/// gas of a stake (the relayer's limit, the pot's measurements in contracts/test/) behind this proxy,
/// not against the bare token. Like Circle's AdminUpgradeabilityProxy, the fallback first reads the
/// admin's slot and refuses the admin; the slots are EIP-1967's. Nothing here upgrades: a test token
/// never needs to, and the implementation is fixed at deploy.
/// @dev The token's state lives in this proxy's storage. TestUSDC writes nothing in its constructor,
/// so nothing is lost by calling it through here; its roles are set by `configureRoles` through the
/// proxy, right after deploying.
contract TestUSDCProxy {
    /// bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1)
    bytes32 internal constant IMPLEMENTATION_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
    /// bytes32(uint256(keccak256("eip1967.proxy.admin")) - 1)
    bytes32 internal constant ADMIN_SLOT = 0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103;

    event Upgraded(address indexed implementation);
    event AdminChanged(address previousAdmin, address newAdmin);

    /// `admin_` may not call through the proxy, as Circle's proxy admin may not: give it an address that
    /// does nothing else.
    constructor(address implementation_, address admin_) {
        require(implementation_.code.length > 0, "Cannot set a proxy implementation to a non-contract address");
        assembly ("memory-safe") {
            sstore(IMPLEMENTATION_SLOT, implementation_)
            sstore(ADMIN_SLOT, admin_)
        }
        emit Upgraded(implementation_);
        emit AdminChanged(address(0), admin_);
    }

    fallback() external payable {
        address admin;
        address implementation;
        assembly ("memory-safe") {
            admin := sload(ADMIN_SLOT)
            implementation := sload(IMPLEMENTATION_SLOT)
        }
        require(msg.sender != admin, "Cannot call fallback function from the proxy admin");
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), implementation, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch ok
            case 0 { revert(0, returndatasize()) }
            default { return(0, returndatasize()) }
        }
    }
}
