// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {STATE_ADDRESS} from "./Common.sol";
import {SubtensorState} from "./SubtensorState.sol";

/// Neuron precompile facade (0x804). The caller acts as hotkey mirror(msg.sender); all rules
/// are applied by SubtensorState. Value sent with the payable calls stays in this contract.
contract Neuron {
    SubtensorState internal constant S = SubtensorState(STATE_ADDRESS);

    function setWeights(uint16 netuid, uint16[] calldata dests, uint16[] calldata weights, uint64 versionKey)
        external
        payable
    {
        S.neuronSetWeights(msg.sender, netuid, dests, weights, versionKey);
    }

    function commitWeights(uint16 netuid, bytes32 commitHash) external payable {
        S.neuronCommitWeights(msg.sender, netuid, commitHash);
    }

    function revealWeights(
        uint16 netuid,
        uint16[] calldata uids,
        uint16[] calldata values,
        uint16[] calldata salt,
        uint64 versionKey
    ) external payable {
        S.neuronRevealWeights(msg.sender, netuid, uids, values, salt, versionKey);
    }

    function burnedRegister(uint16 netuid, bytes32 hotkey) external payable {
        S.neuronBurnedRegister(msg.sender, netuid, hotkey);
    }

    function serveAxon(
        uint16 netuid,
        uint32 version,
        uint128 ip,
        uint16 port,
        uint8 ipType,
        uint8 protocol,
        uint8, /* placeholder1 */
        uint8 /* placeholder2 */
    ) external payable {
        S.neuronServeAxon(msg.sender, netuid, version, ip, port, ipType, protocol);
    }

    /// Same as serveAxon; the certificate is ignored on the devnet.
    function serveAxonTls(
        uint16 netuid,
        uint32 version,
        uint128 ip,
        uint16 port,
        uint8 ipType,
        uint8 protocol,
        uint8, /* placeholder1 */
        uint8, /* placeholder2 */
        bytes calldata /* certificate */
    ) external payable {
        S.neuronServeAxon(msg.sender, netuid, version, ip, port, ipType, protocol);
    }

    function servePrometheus(uint16 netuid, uint32 version, uint128 ip, uint16 port, uint8 ipType) external payable {
        S.neuronServePrometheus(msg.sender, netuid, version, ip, port, ipType);
    }
}
