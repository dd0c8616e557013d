// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";

/// @title Geopoem's terms registry (docs/protocol.md section 6, "The registry").
/// @notice The site's operator key anchors each challenge's public terms here before anyone can
/// stake. The first anchor of a challenge id wins: nobody, the owner included, can change or remove
/// it. Verifiers read the TermsAnchored logs, so they need to trust neither this code nor the site,
/// only the registry's address.
/// @dev Ownership moves in two steps (OpenZeppelin 5's Ownable2Step): a mistyped address cannot take
/// it. renounceOwnership is kept as OpenZeppelin wrote it: it only stops future anchors, which a
/// holder of the key could do as well by moving ownership to an address of its own
/// (docs/decisions.md, "The registry keeps renounceOwnership").
contract TermsRegistry is Ownable2Step {
    event TermsAnchored(
        uint256 indexed challengeId,
        bytes32 solutionCommitment,
        bytes32 termsHash,
        uint64 opensAt,
        uint32 proximityThresholdM
    );

    /// @notice A second anchor of the same challenge id: the first one stands.
    error AlreadyAnchored(uint256 challengeId);

    mapping(uint256 challengeId => uint256 blockNumber) private _anchoredAt;

    constructor(address initialOwner) Ownable(initialOwner) {}

    /// @notice Commit a challenge's terms; once per challenge id, by the owner only.
    function anchor(
        uint256 challengeId,
        bytes32 solutionCommitment,
        bytes32 termsHash,
        uint64 opensAt,
        uint32 proximityThresholdM
    ) external onlyOwner {
        if (_anchoredAt[challengeId] != 0) revert AlreadyAnchored(challengeId);
        _anchoredAt[challengeId] = block.number;
        emit TermsAnchored(challengeId, solutionCommitment, termsHash, opensAt, proximityThresholdM);
    }

    /// @notice The block in which a challenge id was anchored; 0 when it was not.
    function anchoredAt(uint256 challengeId) external view returns (uint256 blockNumber) {
        return _anchoredAt[challengeId];
    }
}
