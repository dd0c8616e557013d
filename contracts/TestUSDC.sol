// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";

/// @title Geopoem's test USDC: a minimal ERC-20 with 6 decimals, an open mint, EIP-3009 transfers by
/// signed authorization, a pause and a blacklist, as Circle's FiatToken v2.2 (USDC) has them.
/// @notice For local nodes and tests only. Anyone may mint, so it must never back real money.
/// @dev The authorizations follow Circle's stablecoin-evm (contracts/v2/EIP3009.sol, FiatTokenV2_2.sol,
/// util/ECRecover.sol, util/SignatureChecker.sol): the same EIP-712 domain (name(), version "2", the
/// current chain id, this address), type strings, checks in the same order, revert strings and events.
/// Signatures are recovered with OpenZeppelin 5's ECDSA. Its EIP712 and SignatureChecker are not used:
/// both need the `mcopy` opcode (Cancun), and contracts/compile.js targets Paris. The domain separator
/// is computed on each call, as v2.2 does, so the code holds no immutable and its constructor writes
/// no storage: copied to another address (the deploy rehearsal's anvil_setCode), it signs for that one.
///
/// Invariants (one test each in chain/tests/token/test_authorizations.py):
///  1. DOMAIN_SEPARATOR() is the EIP-712 hash of (name(), version(), block.chainid, address(this)) at
///     the time of the call: the same code at another address or on another chain signs for that one.
///  2. An authorization moves `value` from `from` to `to` only if the EIP-712 digest of exactly the
///     fields submitted was signed by `from`: an EOA's ECDSA signature with s in the lower half and v
///     27 or 28, or a contract's EIP-1271 answer. Any other signer or field: "invalid signature".
///  3. It is valid only while validAfter < block.timestamp < validBefore, both bounds strict.
///  4. A nonce of an authorizer is spent at most once: once used or cancelled, authorizationState is
///     true for good, and every later use or cancel of it reverts.
///  5. A transfer authorization may be submitted by anyone; a receive authorization only by its payee.
///  6. On success the token logs AuthorizationUsed(from, nonce) and, immediately after it,
///     Transfer(from, to, value): in the receipt the Transfer log's index is AuthorizationUsed's + 1.
///     Geopoem's verifiers rely on this adjacency to tie a payment to its authorization.
///  7. A failed authorization (bad signature, time, nonce, or a balance too small) reverts whole:
///     no balance moves and the nonce stays unused.
///  8. Calldata after a function's ABI words is ignored (Geopoem's relayer appends a challenge id).
///
/// The pause and the blacklist are Circle's (v1 Pausable, v2.2 Blacklistable, FiatTokenV1/V2/V2_2):
/// while paused, every transfer, approval, mint and authorization (cancellations included) reverts
/// "Pausable: paused"; a blacklisted address can neither send, receive, approve nor be approved, nor
/// sign or receive an authorization, nor call transfer, transferFrom or approve: "Blacklistable:
/// account is blacklisted". Both are checked before anything else of the call, the signature and the
/// payee of an authorization included, in Circle's order: paused, then each address (transfer: the
/// caller, then `to`; transferFrom: the caller, `from`, `to`; approve: the caller, the spender; an
/// authorization: `from`, `to`, not its submitter). As in v2.2 the blacklist is the top bit of the
/// balance's slot, so its check costs what Circle's does (the balance's slot, read first, is then warm).
/// Roles: FiatToken's owner appoints the pauser and the blacklister; this token has no owner and no
/// constructor storage (it runs behind contracts/TestUSDCProxy.sol, or copied by anvil_setCode), so
/// `configureRoles` appoints both once: the first call wins, for good, and it is meant to be made by
/// the deployer right after deploying (anyone could make it first on a public chain: another reason
/// this token never backs real money). Until then nobody can pause or blacklist.
contract TestUSDC {
    string public constant name = "Test USD Coin";
    string public constant symbol = "USDC";
    uint8 public constant decimals = 6;
    uint256 public totalSupply;

    /// Circle's balanceAndBlacklistStates: the balance in the low 255 bits, the blacklist in the top one.
    mapping(address => uint256) private _balanceAndBlacklistStates;
    mapping(address => mapping(address => uint256)) public allowance;

    /// Circle's Pausable keeps both in one slot: whoever may pause, and whether it is paused.
    address public pauser;
    bool public paused;
    address public blacklister;

    // keccak256 of Circle's type strings, as EIP-712's typeHash.
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    /// Circle's USDC signs under version "2"; wallets and Geopoem's server read both from the chain.
    string private constant VERSION = "2";

    uint256 private constant BLACKLISTED = 1 << 255;

    /// secp256k1's order halved: a larger s is the malleable twin of a valid signature.
    uint256 private constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    /// authorizer => nonce => used or cancelled. Nonces are random 32-byte values, not a counter.
    mapping(address => mapping(bytes32 => bool)) private _authorizationStates;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);
    event Pause();
    event Unpause();
    event PauserChanged(address indexed newAddress);
    event Blacklisted(address indexed _account);
    event UnBlacklisted(address indexed _account);
    event BlacklisterChanged(address indexed newBlacklister);

    modifier whenNotPaused() {
        require(!paused, "Pausable: paused");
        _;
    }

    modifier notBlacklisted(address account) {
        require(!_isBlacklisted(account), "Blacklistable: account is blacklisted");
        _;
    }

    modifier onlyPauser() {
        require(msg.sender == pauser, "Pausable: caller is not the pauser");
        _;
    }

    modifier onlyBlacklister() {
        require(msg.sender == blacklister, "Blacklistable: caller is not the blacklister");
        _;
    }

    /// Appoint the pauser and the blacklister, once: the first call wins and nothing changes them later.
    function configureRoles(address pauser_, address blacklister_) external {
        require(pauser == address(0) && blacklister == address(0), "TestUSDC: roles already configured");
        require(pauser_ != address(0), "Pausable: new pauser is the zero address");
        require(blacklister_ != address(0), "Blacklistable: new blacklister is the zero address");
        pauser = pauser_;
        blacklister = blacklister_;
        emit PauserChanged(pauser_);
        emit BlacklisterChanged(blacklister_);
    }

    function pause() external onlyPauser {
        paused = true;
        emit Pause();
    }

    function unpause() external onlyPauser {
        paused = false;
        emit Unpause();
    }

    function isBlacklisted(address account) external view returns (bool) {
        return _isBlacklisted(account);
    }

    function blacklist(address account) external onlyBlacklister {
        _balanceAndBlacklistStates[account] |= BLACKLISTED;
        emit Blacklisted(account);
    }

    function unBlacklist(address account) external onlyBlacklister {
        _balanceAndBlacklistStates[account] &= ~BLACKLISTED;
        emit UnBlacklisted(account);
    }

    function balanceOf(address account) external view returns (uint256) {
        return _balanceOf(account);
    }

    /// Open to anyone (a test token), but paused and blacklisted as Circle's minters' mint is.
    function mint(address to, uint256 amount) external whenNotPaused notBlacklisted(msg.sender) notBlacklisted(to) {
        require(to != address(0), "mint to zero");
        totalSupply += amount;
        _setBalance(to, _balanceOf(to) + amount);
        emit Transfer(address(0), to, amount);
    }

    /// Trailing calldata after the two ABI words (Geopoem's commitment, challenge id and time)
    /// is ignored by the ABI decoder, as with any standard ERC-20.
    function transfer(address to, uint256 amount)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(to)
        returns (bool)
    {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(spender)
        returns (bool)
    {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount)
        external
        whenNotPaused
        notBlacklisted(msg.sender)
        notBlacklisted(from)
        notBlacklisted(to)
        returns (bool)
    {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= amount, "insufficient allowance");
            allowance[from][msg.sender] = allowed - amount;
        }
        _transfer(from, to, amount);
        return true;
    }

    // --- EIP-3009 ---------------------------------------------------------------------------------

    /// @notice The EIP-712 version of the domain, as FiatToken v2.1 and later.
    function version() external pure returns (string memory) {
        return VERSION;
    }

    /// @notice The EIP-712 domain separator, for the chain this runs on now (as v2.2 computes it).
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparator();
    }

    /// @notice True once the authorizer's nonce was used or cancelled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

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
    ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
        _transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
    }

    /// @notice v2.2's overload: `signature` is r || s || v from an EOA, or whatever a contract signer's
    /// EIP-1271 isValidSignature accepts.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
        _transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, signature);
    }

    /// @notice As transferWithAuthorization, submitted by the payee only: nobody who saw the
    /// authorization in the mempool can front-run the payee's own transaction with it.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
        _receiveWithAuthorization(from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
    }

    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external whenNotPaused notBlacklisted(from) notBlacklisted(to) {
        _receiveWithAuthorization(from, to, value, validAfter, validBefore, nonce, signature);
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)
        external
        whenNotPaused
    {
        _cancelAuthorization(authorizer, nonce, abi.encodePacked(r, s, v));
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature)
        external
        whenNotPaused
    {
        _cancelAuthorization(authorizer, nonce, signature);
    }

    // --- Internals ------------------------------------------------------------------------------

    function _transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) private {
        _requireValidAuthorization(from, nonce, validAfter, validBefore);
        bytes32 structHash = keccak256(
            abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce)
        );
        _requireValidSignature(from, structHash, signature);
        _markAuthorizationAsUsed(from, nonce);
        _transfer(from, to, value);
    }

    function _receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) private {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _requireValidAuthorization(from, nonce, validAfter, validBefore);
        bytes32 structHash = keccak256(
            abi.encode(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce)
        );
        _requireValidSignature(from, structHash, signature);
        _markAuthorizationAsUsed(from, nonce);
        _transfer(from, to, value);
    }

    function _cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) private {
        _requireUnusedAuthorization(authorizer, nonce);
        bytes32 structHash = keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce));
        _requireValidSignature(authorizer, structHash, signature);
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    function _requireValidAuthorization(address authorizer, bytes32 nonce, uint256 validAfter, uint256 validBefore)
        private
        view
    {
        require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
        require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
        _requireUnusedAuthorization(authorizer, nonce);
    }

    function _requireUnusedAuthorization(address authorizer, bytes32 nonce) private view {
        require(!_authorizationStates[authorizer][nonce], "FiatTokenV2: authorization is used or canceled");
    }

    /// Invariant 6: the nonce is marked and AuthorizationUsed logged first; the caller's _transfer then
    /// logs Transfer as the very next log. Nothing may be emitted between the two.
    function _markAuthorizationAsUsed(address authorizer, bytes32 nonce) private {
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationUsed(authorizer, nonce);
    }

    function _domainSeparator() private view returns (bytes32) {
        bytes32 hashedName = keccak256(bytes(name));
        bytes32 hashedVersion = keccak256(bytes(VERSION));
        return keccak256(abi.encode(DOMAIN_TYPEHASH, hashedName, hashedVersion, block.chainid, address(this)));
    }

    /// Circle's SignatureChecker: an address without code must have signed with its key (checked as
    /// Circle's ECRecover does), an address with code must accept the signature by EIP-1271.
    function _requireValidSignature(address signer, bytes32 structHash, bytes memory signature) private view {
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", _domainSeparator(), structHash));
        bool valid = signer.code.length == 0
            ? _recover(digest, signature) == signer
            : _isValidERC1271Signature(signer, digest, signature);
        require(valid, "FiatTokenV2: invalid signature");
    }

    /// Circle's ECRecover.recover: a malformed signature reverts with its own reason (length, then a
    /// high s, then a v other than 27 or 28) rather than counting as someone else's signature.
    function _recover(bytes32 digest, bytes memory signature) private pure returns (address) {
        require(signature.length == 65, "ECRecover: invalid signature length");
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly ("memory-safe") {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        require(uint256(s) <= HALF_ORDER, "ECRecover: invalid signature 's' value");
        require(v == 27 || v == 28, "ECRecover: invalid signature 'v' value");
        (address signer, ECDSA.RecoverError err, ) = ECDSA.tryRecover(digest, v, r, s);
        require(err == ECDSA.RecoverError.NoError, "ECRecover: invalid signature");
        return signer;
    }

    /// Circle's SignatureChecker.isValidERC1271SignatureNow. (OpenZeppelin's needs `mcopy`, which the
    /// Paris target of contracts/compile.js does not have.)
    function _isValidERC1271Signature(address signer, bytes32 digest, bytes memory signature)
        private
        view
        returns (bool)
    {
        (bool success, bytes memory result) =
            signer.staticcall(abi.encodeCall(IERC1271.isValidSignature, (digest, signature)));
        return success && result.length >= 32
            && abi.decode(result, (bytes32)) == bytes32(IERC1271.isValidSignature.selector);
    }

    function _transfer(address from, address to, uint256 amount) internal {
        require(to != address(0), "transfer to zero");
        uint256 balance = _balanceOf(from);
        require(balance >= amount, "transfer amount exceeds balance");
        unchecked {
            _setBalance(from, balance - amount);
        }
        _setBalance(to, _balanceOf(to) + amount);
        emit Transfer(from, to, amount);
    }

    function _isBlacklisted(address account) private view returns (bool) {
        return _balanceAndBlacklistStates[account] & BLACKLISTED != 0;
    }

    function _balanceOf(address account) private view returns (uint256) {
        return _balanceAndBlacklistStates[account] & ~BLACKLISTED;
    }

    /// v2.2's _setBalance: the top bit stays the blacklist's, and a blacklisted account's balance is
    /// frozen (the modifiers refuse such an account before any call gets here).
    function _setBalance(address account, uint256 balance) private {
        require(balance < BLACKLISTED, "FiatTokenV2_2: Balance exceeds (2^255 - 1)");
        require(!_isBlacklisted(account), "FiatTokenV2_2: Account is blacklisted");
        _balanceAndBlacklistStates[account] = balance;
    }
}
