// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// The forge cheatcodes these tests use, declared here: there is no usable forge-std offline (the npm
/// `forge-std` is an old partial copy). Signatures as forge 1.7 defines them.
interface Vm {
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }

    struct Gas {
        uint64 gasLimit;
        uint64 gasTotalUsed;
        uint64 gasMemoryUsed;
        int64 gasRefunded;
        uint64 gasRemaining;
    }

    function warp(uint256 newTimestamp) external;
    function prank(address msgSender) external;
    function startPrank(address msgSender) external;
    function stopPrank() external;
    function expectRevert(bytes calldata revertData) external;
    function expectRevert(bytes4 revertData) external;
    function expectRevert() external;
    function expectEmit(bool checkTopic1, bool checkTopic2, bool checkTopic3, bool checkData, address emitter) external;
    function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);
    function addr(uint256 privateKey) external pure returns (address keyAddr);
    function assume(bool condition) external pure;
    function label(address account, string calldata newLabel) external;
    function chainId(uint256 newChainId) external;
    function etch(address target, bytes calldata newRuntimeBytecode) external;
    function recordLogs() external;
    function getRecordedLogs() external returns (Log[] memory logs);
    function lastCallGas() external view returns (Gas memory gas);
    function readFile(string calldata path) external view returns (string memory data);
    function parseJsonKeys(string calldata json, string calldata key) external pure returns (string[] memory keys);
    function parseJsonUint(string calldata json, string calldata key) external pure returns (uint256);
    function parseJsonInt(string calldata json, string calldata key) external pure returns (int256);
    function parseJsonBytes32(string calldata json, string calldata key) external pure returns (bytes32);
    function parseJsonAddress(string calldata json, string calldata key) external pure returns (address);
    function parseJsonString(string calldata json, string calldata key) external pure returns (string memory);
    function parseJsonBool(string calldata json, string calldata key) external pure returns (bool);
    function parseJsonTypeArray(string calldata json, string calldata key, string calldata typeDescription)
        external
        pure
        returns (bytes memory);
    function keyExistsJson(string calldata json, string calldata key) external view returns (bool);
    function parseUint(string calldata value) external pure returns (uint256);
    function parseInt(string calldata value) external pure returns (int256);
    function parseBytes32(string calldata value) external pure returns (bytes32);
    function toString(uint256 value) external pure returns (string memory);
    function toString(int256 value) external pure returns (string memory);
    function toString(address value) external pure returns (string memory);
    function toString(bytes32 value) external pure returns (string memory);
}

/// Assertions that revert with both values, and the fuzzing helpers.
abstract contract Base {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));
    /// forge prints what is sent here under "Logs:" (forge test -vv), as forge-std's console does.
    address internal constant CONSOLE = 0x000000000000000000636F6e736F6c652e6c6f67;

    function log(string memory what, uint256 value) internal view {
        (bool ok,) = CONSOLE.staticcall(abi.encodeWithSignature("log(string,uint256)", what, value));
        ok; // a log that fails changes nothing
    }

    function fail(string memory what) internal pure {
        revert(what);
    }

    function assertTrue(bool condition, string memory what) internal pure {
        if (!condition) revert(what);
    }

    function assertEq(uint256 a, uint256 b, string memory what) internal pure {
        if (a != b) revert(string.concat(what, ": ", vm.toString(a), " != ", vm.toString(b)));
    }

    function assertEq(int256 a, int256 b, string memory what) internal pure {
        if (a != b) revert(string.concat(what, ": ", vm.toString(a), " != ", vm.toString(b)));
    }

    function assertEq(address a, address b, string memory what) internal pure {
        if (a != b) revert(string.concat(what, ": ", vm.toString(a), " != ", vm.toString(b)));
    }

    function assertEq(bytes32 a, bytes32 b, string memory what) internal pure {
        if (a != b) revert(string.concat(what, ": ", vm.toString(a), " != ", vm.toString(b)));
    }

    function assertEq(bool a, bool b, string memory what) internal pure {
        if (a != b) revert(string.concat(what, a ? ": true != false" : ": false != true"));
    }

    function assertLe(uint256 a, uint256 b, string memory what) internal pure {
        if (a > b) revert(string.concat(what, ": ", vm.toString(a), " > ", vm.toString(b)));
    }

    function assertGe(uint256 a, uint256 b, string memory what) internal pure {
        if (a < b) revert(string.concat(what, ": ", vm.toString(a), " < ", vm.toString(b)));
    }

    /// x mapped into [min, max], uniformly enough for fuzzing and keeping small inputs small.
    function bound(uint256 x, uint256 min, uint256 max) internal pure returns (uint256) {
        require(min <= max, "bound: min > max");
        if (x >= min && x <= max) return x;
        uint256 size = max - min + 1;
        if (size == 0) return x; // the whole uint256 range
        return min + (x % size);
    }

    function boundInt(int256 x, int256 min, int256 max) internal pure returns (int256) {
        require(min <= max, "bound: min > max");
        if (x >= min && x <= max) return x;
        uint256 size = uint256(max - min) + 1;
        return min + int256(uint256(x) % size);
    }
}
