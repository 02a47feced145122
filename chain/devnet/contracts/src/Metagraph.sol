// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AxonInfo, EpochResult, MAX_UIDS, STATE_ADDRESS} from "./Common.sol";

/// Metagraph precompile facade (0x802). Unlike the other facades it owns its data: the
/// per-uid metagraph table (hotkey, coldkey, stake, permit, active, lastUpdate, registration
/// block, epoch results, axon) and each subnet's uid count live in this contract's storage, so
/// every reference-ABI getter runs in this one small frame without calling SubtensorState.
/// StorageQuery (0x807) reads BlockAtRegistration here for the same reason.
///
/// SubtensorState (0x0a00) stays the owner of the rules: it reads the table through the public
/// getters and writes it through the state* functions below, which revert "OnlyState" for any
/// other caller.
///
/// Unknown netuid reverts "SubnetNotExists" (getUidCount returns 0); uid >= count reverts "UidNotFound".
///
/// Keep this contract small: go-ethereum analyses the whole runtime code of every contract an
/// eth_call runs (jump destinations), and the metagraph is read with ~12 calls per uid. With
/// these sources viaIR gives smaller code than the legacy pipeline (about 3.0 KB vs 4.0 KB).
contract Metagraph {
    // Storage. Nothing is set in genesis: every slot starts empty (no subnet). Fixed-size
    // arrays rather than mappings: a getter finds its slots with arithmetic, no keccak.
    struct SubnetEntry {
        bool exists;
        uint16 uidCount;
    }

    /// One uid's entry: 5 slots (hotkey, coldkey, stake..lastUpdate, epoch, axon).
    struct Entry {
        bytes32 hotkey;
        bytes32 coldkey;
        uint64 stake;
        bool validatorPermit;
        bool active;
        uint64 lastUpdate;
        uint64 registeredAt; // BlockAtRegistration
        EpochResult epoch;
        AxonInfo axon;
    }

    SubnetEntry[65536] internal subnets_; // slot netuid
    Entry[MAX_UIDS][65536] internal neurons_; // slots 65536 + (netuid * MAX_UIDS + uid) * 5 ...

    // ---------------------------------------------------------------------------------
    // Reference ABI (subtensor's Metagraph precompile)
    // ---------------------------------------------------------------------------------

    function getUidCount(uint16 netuid) external view returns (uint16) {
        return subnets_[netuid].uidCount;
    }

    function getStake(uint16 netuid, uint16 uid) external view returns (uint64) {
        return _neuron(netuid, uid).stake;
    }

    function getRank(uint16 netuid, uint16 uid) external view returns (uint16) {
        return _neuron(netuid, uid).epoch.rank;
    }

    function getTrust(uint16 netuid, uint16 uid) external view returns (uint16) {
        return _neuron(netuid, uid).epoch.trust;
    }

    function getConsensus(uint16 netuid, uint16 uid) external view returns (uint16) {
        return _neuron(netuid, uid).epoch.consensus;
    }

    function getIncentive(uint16 netuid, uint16 uid) external view returns (uint16) {
        return _neuron(netuid, uid).epoch.incentive;
    }

    function getDividends(uint16 netuid, uint16 uid) external view returns (uint16) {
        return _neuron(netuid, uid).epoch.dividends;
    }

    function getEmission(uint16 netuid, uint16 uid) external view returns (uint64) {
        return _neuron(netuid, uid).epoch.emission;
    }

    function getVtrust(uint16 netuid, uint16 uid) external view returns (uint16) {
        return _neuron(netuid, uid).epoch.vtrust;
    }

    function getValidatorStatus(uint16 netuid, uint16 uid) external view returns (bool) {
        return _neuron(netuid, uid).validatorPermit;
    }

    function getLastUpdate(uint16 netuid, uint16 uid) external view returns (uint64) {
        return _neuron(netuid, uid).lastUpdate;
    }

    function getIsActive(uint16 netuid, uint16 uid) external view returns (bool) {
        return _neuron(netuid, uid).active;
    }

    function getAxon(uint16 netuid, uint16 uid) external view returns (AxonInfo memory) {
        return _neuron(netuid, uid).axon;
    }

    function getHotkey(uint16 netuid, uint16 uid) external view returns (bytes32) {
        return _neuron(netuid, uid).hotkey;
    }

    function getColdkey(uint16 netuid, uint16 uid) external view returns (bytes32) {
        return _neuron(netuid, uid).coldkey;
    }

    // ---------------------------------------------------------------------------------
    // Not in the reference ABI: for StorageQuery and SubtensorState.
    // ---------------------------------------------------------------------------------

    /// BlockAtRegistration of (netuid, uid): the block its current hotkey registered at.
    /// present is false, without a revert, where subtensor holds no entry (no such subnet or uid).
    function blockAtRegistration(uint16 netuid, uint16 uid) external view returns (bool present, uint64 blockNumber) {
        SubnetEntry storage s = subnets_[netuid];
        if (!s.exists || uid >= s.uidCount) return (false, 0);
        return (true, neurons_[netuid][uid].registeredAt);
    }

    // ---------------------------------------------------------------------------------
    // SubtensorState only. No rules here: SubtensorState checks them (subnet exists, uid
    // limit, ...) before calling. The uid-indexed setters revert like the getters
    // ("SubnetNotExists", "UidNotFound"), which SubtensorState relies on.
    // ---------------------------------------------------------------------------------

    modifier onlyState() {
        require(msg.sender == STATE_ADDRESS, "OnlyState");
        _;
    }

    /// Marks netuid as existing (with no uids).
    function stateCreateSubnet(uint16 netuid) external onlyState {
        subnets_[netuid].exists = true;
    }

    /// Appends a neuron to an existing netuid (active, registered now, no epoch results, no axon);
    /// returns its uid.
    function stateRegister(uint16 netuid, bytes32 hotkey, bytes32 coldkey, uint64 stake, bool validatorPermit)
        external
        onlyState
        returns (uint16 uid)
    {
        SubnetEntry storage s = subnets_[netuid];
        uid = s.uidCount;
        s.uidCount = uid + 1;
        _admit(neurons_[netuid][uid], hotkey, coldkey, stake, validatorPermit);
    }

    /// Gives an existing uid to a new neuron: keys, stake and permit as given, active, registered
    /// now, everything else (last update, epoch results, axon) cleared.
    function stateReplace(uint16 netuid, uint16 uid, bytes32 hotkey, bytes32 coldkey, uint64 stake, bool validatorPermit)
        external
        onlyState
    {
        _neuron(netuid, uid);
        delete neurons_[netuid][uid];
        _admit(neurons_[netuid][uid], hotkey, coldkey, stake, validatorPermit);
    }

    function stateSetStake(uint16 netuid, uint16 uid, uint64 stake) external onlyState {
        _neuron(netuid, uid).stake = stake;
    }

    function stateSetValidatorPermit(uint16 netuid, uint16 uid, bool permit) external onlyState {
        _neuron(netuid, uid).validatorPermit = permit;
    }

    function stateSetActive(uint16 netuid, uint16 uid, bool active) external onlyState {
        _neuron(netuid, uid).active = active;
    }

    function stateSetLastUpdate(uint16 netuid, uint16 uid, uint64 lastUpdate) external onlyState {
        _neuron(netuid, uid).lastUpdate = lastUpdate;
    }

    function stateSetAxon(uint16 netuid, uint16 uid, AxonInfo calldata axon) external onlyState {
        _neuron(netuid, uid).axon = axon;
    }

    /// Epoch results of uids 0..results.length-1 (the caller checks the length).
    function stateSetEpochResults(uint16 netuid, EpochResult[] calldata results) external onlyState {
        Entry[MAX_UIDS] storage ns = neurons_[netuid];
        for (uint256 i = 0; i < results.length; i++) {
            ns[uint16(i)].epoch = results[i];
        }
    }

    // ---------------------------------------------------------------------------------
    // Internals
    // ---------------------------------------------------------------------------------

    /// Fills an empty entry with a neuron registered now (active).
    function _admit(Entry storage n, bytes32 hotkey, bytes32 coldkey, uint64 stake, bool validatorPermit) private {
        n.hotkey = hotkey;
        n.coldkey = coldkey;
        n.stake = stake;
        n.validatorPermit = validatorPermit;
        n.active = true;
        n.registeredAt = uint64(block.number);
    }

    function _neuron(uint16 netuid, uint16 uid) private view returns (Entry storage) {
        SubnetEntry storage s = subnets_[netuid];
        require(s.exists, "SubnetNotExists");
        require(uid < s.uidCount, "UidNotFound");
        return neurons_[netuid][uid];
    }
}
