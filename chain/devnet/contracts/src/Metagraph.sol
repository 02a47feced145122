// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AxonInfo, NeuronInfo, STATE_ADDRESS} from "./Common.sol";
import {SubtensorState} from "./SubtensorState.sol";

/// Metagraph precompile facade (0x802): read-only views of SubtensorState.
/// Unknown netuid reverts "SubnetNotExists" (getUidCount returns 0); uid >= count reverts "UidNotFound".
contract Metagraph {
    SubtensorState internal constant S = SubtensorState(STATE_ADDRESS);

    function getUidCount(uint16 netuid) external view returns (uint16) {
        return S.getUidCount(netuid);
    }

    function getStake(uint16 netuid, uint16 uid) external view returns (uint64) {
        return S.neuronInfo(netuid, uid).stake;
    }

    function getRank(uint16 netuid, uint16 uid) external view returns (uint16) {
        return S.neuronInfo(netuid, uid).rank;
    }

    function getTrust(uint16 netuid, uint16 uid) external view returns (uint16) {
        return S.neuronInfo(netuid, uid).trust;
    }

    function getConsensus(uint16 netuid, uint16 uid) external view returns (uint16) {
        return S.neuronInfo(netuid, uid).consensus;
    }

    function getIncentive(uint16 netuid, uint16 uid) external view returns (uint16) {
        return S.neuronInfo(netuid, uid).incentive;
    }

    function getDividends(uint16 netuid, uint16 uid) external view returns (uint16) {
        return S.neuronInfo(netuid, uid).dividends;
    }

    function getEmission(uint16 netuid, uint16 uid) external view returns (uint64) {
        return S.neuronInfo(netuid, uid).emission;
    }

    function getVtrust(uint16 netuid, uint16 uid) external view returns (uint16) {
        return S.neuronInfo(netuid, uid).vtrust;
    }

    function getValidatorStatus(uint16 netuid, uint16 uid) external view returns (bool) {
        return S.neuronInfo(netuid, uid).validatorPermit;
    }

    function getLastUpdate(uint16 netuid, uint16 uid) external view returns (uint64) {
        return S.neuronInfo(netuid, uid).lastUpdate;
    }

    function getIsActive(uint16 netuid, uint16 uid) external view returns (bool) {
        return S.neuronInfo(netuid, uid).active;
    }

    function getAxon(uint16 netuid, uint16 uid) external view returns (AxonInfo memory) {
        return S.getAxon(netuid, uid);
    }

    function getHotkey(uint16 netuid, uint16 uid) external view returns (bytes32) {
        return S.neuronInfo(netuid, uid).hotkey;
    }

    function getColdkey(uint16 netuid, uint16 uid) external view returns (bytes32) {
        return S.neuronInfo(netuid, uid).coldkey;
    }
}
