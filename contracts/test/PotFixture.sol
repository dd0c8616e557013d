// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

import {GeopoemPot} from "../GeopoemPot.sol";
import {TestUSDC} from "../TestUSDC.sol";
import {TestUSDCProxy} from "../TestUSDCProxy.sol";
import {Base} from "./Base.sol";

/// The world of the pot's tests: TestUSDC behind TestUSDCProxy (as USDC is behind Circle's proxy), its
/// pauser and blacklister, a pot with its operator and receivers, and players with keys to sign their
/// stakes (EIP-3009 ReceiveWithAuthorization to the pot, the nonce bound to the stake).
abstract contract PotFixture is Base {
    uint256 internal constant USDC = 1e6;
    uint256 internal constant START = 1_750_000_000;
    uint256 internal constant ID = 7;
    int256 internal constant SOL_LAT = 48_858_400; // "48.8584, 2.2945"
    int256 internal constant SOL_LON = 2_294_500;
    bytes32 internal constant SOL_SALT = keccak256("the solution's salt");
    uint32 internal constant THRESHOLD_M = 1000;
    bytes32 internal constant RECEIVE_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );

    TestUSDC internal usdc; // the proxy, seen as the token
    TestUSDC internal implementation;
    GeopoemPot internal pot;

    address internal proxyAdmin = address(0xAD);
    address internal pauser = address(0xFA05E);
    address internal blacklister = address(0xB1AC);
    address internal operator = address(0x0BE5);
    address internal shareReceiver = address(0x5EA5);
    address internal sweepReceiver = address(0x5EE9);
    address internal relayer = address(0x5E1A);

    uint256 internal constant ALICE_KEY = 0xA11CE;
    uint256 internal constant BOB_KEY = 0xB0B;
    uint256 internal constant CAROL_KEY = 0xCA401;
    uint256 internal constant DAVE_KEY = 0xDA7E;
    address internal alice = vm.addr(ALICE_KEY);
    address internal bob = vm.addr(BOB_KEY);
    address internal carol = vm.addr(CAROL_KEY);
    address internal dave = vm.addr(DAVE_KEY);

    /// What a stake's reveal needs, as the page keeps it.
    struct Ticket {
        uint256 challengeId;
        uint256 seq;
        address payer;
        uint256 amount;
        int256 lat;
        int256 lon;
        bytes32 salt;
        bytes32 commitment;
    }

    function setUp() public virtual {
        vm.warp(START);
        (usdc, implementation) = deployToken(proxyAdmin, pauser, blacklister);
        pot = new GeopoemPot(IERC20(address(usdc)), operator, shareReceiver, sweepReceiver);
        vm.label(address(pot), "pot");
        vm.label(address(usdc), "usdc");
        vm.label(operator, "operator");
        vm.label(relayer, "relayer");
        for (uint256 i; i < 4; ++i) {
            address player = [alice, bob, carol, dave][i];
            vm.label(player, ["alice", "bob", "carol", "dave"][i]);
            usdc.mint(player, 1_000_000 * USDC);
        }
        usdc.mint(operator, 1_000_000 * USDC);
        vm.prank(operator);
        usdc.approve(address(pot), type(uint256).max);
    }

    function deployToken(address admin, address pauser_, address blacklister_)
        internal
        returns (TestUSDC token, TestUSDC impl)
    {
        impl = new TestUSDC();
        token = TestUSDC(address(new TestUSDCProxy(address(impl), admin)));
        token.configureRoles(pauser_, blacklister_);
    }

    function keyOf(address player) internal view returns (uint256) {
        if (player == alice) return ALICE_KEY;
        if (player == bob) return BOB_KEY;
        if (player == carol) return CAROL_KEY;
        if (player == dave) return DAVE_KEY;
        revert("no key for this player");
    }

    // ---------------------------------------------------------------------------------------------
    // Terms

    function defaultTerms() internal pure returns (GeopoemPot.Terms memory t) {
        t.termsHash = keccak256("title, poem and instructions");
        t.thresholdM = THRESHOLD_M;
        t.opensAt = uint32(START);
        t.closesAt = uint32(START + 1 days);
        t.solutionDeadline = uint32(START + 2 days);
        t.guessWindow = 1 hours;
        t.minStake = uint64(1 * USDC);
        t.bond = uint96(10 * USDC);
    }

    /// The default terms, committed to the default solution on this pot.
    function termsFor(uint256 challengeId) internal view returns (GeopoemPot.Terms memory t) {
        t = defaultTerms();
        t.solutionCommitment = solutionCommitmentOf(address(pot), challengeId, SOL_LAT, SOL_LON, SOL_SALT);
    }

    function openChallenge(uint256 challengeId, GeopoemPot.Terms memory t) internal {
        vm.prank(operator);
        pot.open(challengeId, t);
    }

    function openDefault(uint256 challengeId) internal returns (GeopoemPot.Terms memory t) {
        t = termsFor(challengeId);
        openChallenge(challengeId, t);
    }

    // ---------------------------------------------------------------------------------------------
    // The encodings, written out here independently of the pot (docs/protocol.md section 1)

    function guessCommitmentOf(
        address potAddress,
        uint256 challengeId,
        address payer,
        int256 lat,
        int256 lon,
        bytes32 salt
    ) internal view returns (bytes32) {
        return sha256(
            abi.encode(bytes32("geopoem:guess:v2"), block.chainid, potAddress, challengeId, payer, lat, lon, salt)
        );
    }

    function solutionCommitmentOf(address potAddress, uint256 challengeId, int256 lat, int256 lon, bytes32 salt)
        internal
        view
        returns (bytes32)
    {
        return
            sha256(abi.encode(bytes32("geopoem:solution:v2"), block.chainid, potAddress, challengeId, lat, lon, salt));
    }

    function termsDigestOf(uint256 challengeId, GeopoemPot.Terms memory t) internal pure returns (bytes32) {
        return keccak256(abi.encode(challengeId, t));
    }

    function stakeNonceOf(
        address potAddress,
        uint256 challengeId,
        bytes32 termsDigest,
        bytes32 commitment,
        uint256 amount
    ) internal view returns (bytes32) {
        return keccak256(
            abi.encode(
                bytes32("geopoem:stake:v1"), block.chainid, potAddress, challengeId, termsDigest, commitment, amount
            )
        );
    }

    function stakeHashOf(address payer, uint256 amount, bytes32 commitment) internal pure returns (bytes32) {
        return keccak256(abi.encode(payer, amount, commitment));
    }

    // ---------------------------------------------------------------------------------------------
    // Signing and staking

    /// The payer's signature of a ReceiveWithAuthorization of `amount` to `to` with `nonce`, on `token`.
    function signReceive(
        TestUSDC token,
        uint256 key,
        address to,
        uint256 amount,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce
    ) internal view returns (uint8 v, bytes32 r, bytes32 s) {
        bytes32 structHash = keccak256(
            abi.encode(RECEIVE_TYPEHASH, vm.addr(key), to, amount, validAfter, validBefore, nonce)
        );
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", token.DOMAIN_SEPARATOR(), structHash));
        return vm.sign(key, digest);
    }

    /// The stake's authorization as the page has the player sign it: to this pot, for this challenge's
    /// terms, this commitment and this amount, valid from now for 30 minutes.
    function signStake(uint256 key, uint256 challengeId, bytes32 commitment, uint256 amount)
        internal
        view
        returns (uint8 v, bytes32 r, bytes32 s)
    {
        (, bytes32 digest) = pot.termsOf(challengeId);
        bytes32 nonce = stakeNonceOf(address(pot), challengeId, digest, commitment, amount);
        return signReceive(usdc, key, address(pot), amount, 0, block.timestamp + 30 minutes, nonce);
    }

    function ticket(uint256 challengeId, address payer, uint256 amount, int256 lat, int256 lon, bytes32 salt)
        internal
        view
        returns (Ticket memory t)
    {
        t = Ticket(challengeId, 0, payer, amount, lat, lon, salt, bytes32(0));
        t.commitment = guessCommitmentOf(address(pot), challengeId, payer, lat, lon, salt);
    }

    /// Stake `t` by the payer's signature, relayed; fills in its sequence number.
    function stakeSigned(Ticket memory t) internal returns (Ticket memory) {
        (uint8 v, bytes32 r, bytes32 s) = signStake(keyOf(t.payer), t.challengeId, t.commitment, t.amount);
        vm.prank(relayer);
        t.seq = pot.stakeWithAuthorization(
            t.challengeId, t.commitment, t.payer, t.amount, 0, block.timestamp + 30 minutes, v, r, s
        );
        return t;
    }

    /// Stake `t` by approval, sent by its payer.
    function stakeApproved(Ticket memory t) internal returns (Ticket memory) {
        vm.startPrank(t.payer);
        usdc.approve(address(pot), t.amount);
        t.seq = pot.stake(t.challengeId, t.commitment, t.amount);
        vm.stopPrank();
        return t;
    }

    function stakeGuess(uint256 challengeId, address payer, uint256 amount, int256 lat, int256 lon)
        internal
        returns (Ticket memory)
    {
        bytes32 salt = keccak256(abi.encode("salt", challengeId, payer, amount, lat, lon));
        return stakeSigned(ticket(challengeId, payer, amount, lat, lon, salt));
    }

    function reveal(Ticket memory t) internal returns (bool) {
        return pot.revealGuess(t.challengeId, t.seq, t.payer, t.amount, t.lat, t.lon, t.salt);
    }

    function revealSolutionOf(uint256 challengeId) internal {
        pot.revealSolution(challengeId, SOL_LAT, SOL_LON, SOL_SALT);
    }

    function payPrizeOf(uint8 kind, Ticket memory t) internal {
        pot.payPrize(t.challengeId, kind, t.payer, t.amount, t.commitment);
    }

    function refundOf(Ticket memory t) internal {
        pot.refund(t.challengeId, t.seq, t.payer, t.amount, t.commitment);
    }

    function closesAt(uint256 challengeId) internal view returns (uint256) {
        (GeopoemPot.Terms memory t,) = pot.termsOf(challengeId);
        return t.closesAt;
    }

    function solutionDeadline(uint256 challengeId) internal view returns (uint256) {
        (GeopoemPot.Terms memory t,) = pot.termsOf(challengeId);
        return t.solutionDeadline;
    }

    function guessDeadline(uint256 challengeId) internal view returns (uint256) {
        return pot.stateOf(challengeId).guessDeadline;
    }

    function balance(address who) internal view returns (uint256) {
        return usdc.balanceOf(who);
    }
}
