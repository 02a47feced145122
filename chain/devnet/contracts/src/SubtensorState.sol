// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {
    AxonInfo,
    LookupItem,
    PrometheusInfo,
    NeuronInfo,
    EpochResult,
    Hyper,
    StorageItem,
    MAX_UIDS,
    METAGRAPH_ADDRESS,
    SUBNET_ADDRESS,
    NEURON_ADDRESS
} from "./Common.sol";
import {Blake2b, Scale} from "./Blake2b.sol";
import {Metagraph} from "./Metagraph.sol";

/// SubtensorState holds the state of the devnet's subtensor emulation and implements the
/// rules of subtensor's pallet for the calls forwarded by the precompile facades (Subnet
/// 0x803, Neuron 0x804, UidLookup 0x806, AddressMapping 0x80c).
///
/// The metagraph table (each subnet's uid count and, per uid, hotkey, coldkey, stake,
/// validator permit, active, lastUpdate, registration block, epoch results and axon) is stored by Metagraph
/// (0x802) so that its getters run in one small frame. SubtensorState alone writes it, through
/// Metagraph's state* functions after applying the rules, and reads it through Metagraph's
/// public getters; everything else (subnets, hyperparameters, the hotkey => uid map, weights,
/// commits, EVM associations, prometheus) stays here.
///
/// It lives in genesis as runtime code: no constructor runs. Storage slot 0 (admin) is set
/// in the genesis alloc; every other slot starts empty.
///
/// Epochs follow subtensor's dynamic-tempo scheduler (pallets/subtensor/src/coinbase/
/// run_coinbase.rs, should_run_epoch): a subnet's epoch fires at the first block where
/// block - LastEpochBlock >= tempo, where an owner-triggered PendingEpochAt is reached, or where
/// the safety net (more than MAX_TEMPO blocks since the last epoch) trips; each firing sets
/// LastEpochBlock to the block, clears PendingEpochAt and adds one to SubnetEpochIndex. The EVM
/// has no per-block hook, so the schedule is stored as of the block it was last written at
/// (settledAt) and every read advances it through the slots fired since (_scheduleNow); writers
/// settle it first (_settle). Reads at block N therefore see the epoch that fires at N, as
/// extrinsics in block N do on subtensor, where the epoch runs in on_initialize.
///
/// Reverts carry plain Error(string) reasons named after subtensor's own errors.
contract SubtensorState {
    // ---------------------------------------------------------------------------------
    // Storage. The order of the declarations is the storage layout: keep `admin` first.
    // ---------------------------------------------------------------------------------

    /// Slot 0: the devnet admin EOA (set in genesis).
    address public admin;

    struct Subnet {
        bool exists;
        address owner;
        uint64 tempo;
    }

    struct Commit {
        bytes32 hash;
        uint64 block;
        uint64 epoch; // SubnetEpochIndex at the commit (used when CommitRevealByEpochIndex is set)
    }

    /// A subnet's epoch schedule as of block settledAt. Two storage slots, each with a flag set
    /// by createSubnet so that neither starts empty whatever the block number: writing a first
    /// non-zero value to a slot costs far more gas, and gas is estimated at the block before the
    /// one a transaction lands in (block 0 for the first createSubnet).
    struct Schedule {
        uint64 lastEpochBlock; // LastEpochBlock
        uint64 pendingEpochAt; // PendingEpochAt, 0 when no trigger is pending
        uint64 epochIndex; // SubnetEpochIndex
        bool pendingWritten; // PendingEpochAt has a storage entry (trigger or any epoch)
        bool indexWritten; // SubnetEpochIndex has a storage entry (any epoch)
        bool created; // first slot's flag
        uint64 lastStep; // block of the last epoch (BlocksSinceLastStep counts from it)
        uint64 settledAt; // block the fields above were computed for
        bool created2; // second slot's flag
    }

    /// The part of a neuron's state that is not in Metagraph's table.
    struct Neuron {
        address evmAddress;
        uint64 evmAssociatedBlock;
        PrometheusInfo prometheus;
        uint16[] weightUids;
        uint16[] weightValues;
        Commit[] commits;
    }

    mapping(uint16 => Subnet) internal subnets_; // slot 1
    mapping(uint16 => mapping(uint256 => uint256)) internal hyper_; // slot 2
    mapping(uint16 => uint256) internal hyperSet_; // slot 3: bit p set => hyper_[netuid][p] is set
    mapping(uint16 => mapping(uint16 => Neuron)) internal neurons_; // slot 4
    mapping(uint16 => mapping(bytes32 => uint16)) internal uidPlusOne_; // slot 5: hotkey => uid+1
    mapping(uint16 => Schedule) internal schedule_; // slot 6
    uint16 internal freezeWindow_; // AdminFreezeWindow when freezeWindowSet_
    bool internal freezeWindowSet_;

    /// Metagraph (0x802), which stores the metagraph table (see above).
    Metagraph internal constant M = Metagraph(METAGRAPH_ADDRESS);

    uint256 internal constant MAX_PENDING_COMMITS = 10;
    uint256 internal constant MAX_REVEAL_PERIOD = 100;
    /// subtensor's MAX_TEMPO (pallets/subtensor/src/lib.rs): the safety net fires an epoch once
    /// more than this many blocks passed since the last one.
    uint64 internal constant MAX_TEMPO = 50_400;
    /// DefaultAdminFreezeWindow (pallets/subtensor/src/lib.rs).
    uint16 internal constant DEFAULT_FREEZE_WINDOW = 10;

    // ---------------------------------------------------------------------------------
    // Events (emitted by this contract, not by the facades).
    // ---------------------------------------------------------------------------------

    event AdminChanged(address indexed previous, address indexed admin);
    event SubnetCreated(uint16 indexed netuid, address owner, uint64 tempo);
    event NeuronRegistered(uint16 indexed netuid, uint16 uid, bytes32 hotkey, bytes32 coldkey);
    event EvmKeyAssociated(uint16 indexed netuid, uint16 uid, address evmAddress);
    event HyperparameterSet(uint16 indexed netuid, uint8 param, uint256 value);
    event WeightsSet(uint16 indexed netuid, uint16 uid);
    event WeightsCommitted(uint16 indexed netuid, uint16 uid, bytes32 commitHash);
    event WeightsRevealed(uint16 indexed netuid, uint16 uid, bytes32 commitHash);
    event AxonServed(uint16 indexed netuid, uint16 uid);
    event PrometheusServed(uint16 indexed netuid, uint16 uid);
    event EpochResultsSet(uint16 indexed netuid, uint64 blockNumber);
    event EpochTriggered(uint16 indexed netuid, address by, uint64 firesAt);

    // ---------------------------------------------------------------------------------
    // Access control
    // ---------------------------------------------------------------------------------

    modifier onlyAdmin() {
        require(msg.sender == admin, "NotAdmin");
        _;
    }

    modifier onlyFrom(address facade) {
        require(msg.sender == facade, "OnlyPrecompile");
        _;
    }

    // ---------------------------------------------------------------------------------
    // Admin functions
    // ---------------------------------------------------------------------------------

    /// Hands the admin role to another address.
    function setAdmin(address newAdmin) external onlyAdmin {
        emit AdminChanged(admin, newAdmin);
        admin = newAdmin;
    }

    function createSubnet(uint16 netuid, address owner, uint64 tempo) external onlyAdmin {
        Subnet storage s = subnets_[netuid];
        require(!s.exists, "SubnetAlreadyExists");
        _checkTempo(tempo);
        s.exists = true;
        s.owner = owner;
        s.tempo = tempo;
        // init_new_network (subnets/subnet.rs): LastEpochBlock = now - netuid % tempo.
        uint64 blk = uint64(block.number);
        uint64 stagger = uint64(netuid) % tempo;
        _store(netuid, Schedule({
            lastEpochBlock: blk > stagger ? blk - stagger : 0,
            pendingEpochAt: 0,
            epochIndex: 0,
            pendingWritten: false,
            indexWritten: false,
            created: true,
            lastStep: blk,
            settledAt: blk,
            created2: true
        }));
        M.stateCreateSubnet(netuid);
        emit SubnetCreated(netuid, owner, tempo);
    }

    function registerNeuron(uint16 netuid, bytes32 hotkey, bytes32 coldkey, uint64 stake, bool validatorPermit)
        external
        onlyAdmin
        returns (uint16 uid)
    {
        _subnet(netuid);
        uid = _register(netuid, hotkey, coldkey, stake, validatorPermit);
    }

    /// replace_neuron (pallets/subtensor/src/subnets/uids.rs): gives uid to a new hotkey, as a
    /// registration on a full subnet does with the neuron it prunes (the devnet has no pruning:
    /// the admin names the uid). The uid's BlockAtRegistration becomes the current block; the
    /// old hotkey leaves the subnet with its EVM association, axon, prometheus, weights and
    /// commits; other neurons' weights on uid drop to 0; epoch results are cleared.
    function replaceNeuron(
        uint16 netuid,
        uint16 uid,
        bytes32 hotkey,
        bytes32 coldkey,
        uint64 stake,
        bool validatorPermit
    ) external onlyAdmin {
        _neuron(netuid, uid);
        require(uidPlusOne_[netuid][hotkey] == 0, "HotKeyAlreadyRegisteredInSubNet");
        delete uidPlusOne_[netuid][M.getHotkey(netuid, uid)];
        uidPlusOne_[netuid][hotkey] = uid + 1;
        delete neurons_[netuid][uid];
        uint16 count = M.getUidCount(netuid);
        for (uint16 other = 0; other < count; other++) {
            Neuron storage o = neurons_[netuid][other];
            uint256 len = o.weightUids.length;
            for (uint256 i = 0; i < len; i++) {
                if (o.weightUids[i] == uid) o.weightValues[i] = 0;
            }
        }
        M.stateReplace(netuid, uid, hotkey, coldkey, stake, validatorPermit);
        emit NeuronRegistered(netuid, uid, hotkey, coldkey);
    }

    /// Records evmAddress as associated with uid (what UidLookup reports).
    function associateEvmKey(uint16 netuid, uint16 uid, address evmAddress) external onlyAdmin {
        Neuron storage n = _neuron(netuid, uid);
        n.evmAddress = evmAddress;
        n.evmAssociatedBlock = uint64(block.number);
        emit EvmKeyAssociated(netuid, uid, evmAddress);
    }

    // The Metagraph setters revert "UidNotFound" themselves for uid >= count.

    function setStake(uint16 netuid, uint16 uid, uint64 stake) external onlyAdmin {
        _subnet(netuid);
        M.stateSetStake(netuid, uid, stake);
    }

    function setValidatorPermit(uint16 netuid, uint16 uid, bool permit) external onlyAdmin {
        _subnet(netuid);
        M.stateSetValidatorPermit(netuid, uid, permit);
    }

    function setActive(uint16 netuid, uint16 uid, bool active) external onlyAdmin {
        _subnet(netuid);
        M.stateSetActive(netuid, uid, active);
    }

    /// sudo_set_tempo (pallets/admin-utils): refused inside the admin freeze window; sets the
    /// tempo and restarts the cycle (LastEpochBlock = now), apply_tempo_with_cycle_reset.
    /// Root has no bounds but the u16 type; 0 (a subnet that never runs) is refused here.
    function setTempo(uint16 netuid, uint64 tempo) external onlyAdmin {
        Subnet storage s = _subnet(netuid);
        _checkTempo(tempo);
        Schedule storage sc = _settle(netuid);
        require(!_frozen(netuid, sc), "AdminActionProhibitedDuringWeightsWindow");
        s.tempo = tempo;
        sc.lastEpochBlock = uint64(block.number);
    }

    /// trigger_epoch (coinbase/tempo_control.rs, do_trigger_epoch), for the subnet owner or the
    /// admin: schedules an epoch AdminFreezeWindow blocks from now. The owner's rate limit is
    /// not emulated.
    function triggerEpoch(uint16 netuid) external {
        Subnet storage s = _subnet(netuid);
        require(msg.sender == s.owner || msg.sender == admin, "NotSubnetOwner");
        require(!_flag(netuid, Hyper.CommitRevealEnabled), "DynamicTempoBlockedByCommitReveal");
        Schedule storage sc = _settle(netuid);
        require(sc.pendingEpochAt == 0, "EpochTriggerAlreadyPending");
        uint64 blk = uint64(block.number);
        uint64 window = _adminFreezeWindow();
        require(_blocksUntilAutoEpoch(s.tempo, sc, blk) >= window, "AutoEpochAlreadyImminent");
        uint64 firesAt = blk + window;
        sc.pendingEpochAt = firesAt;
        sc.pendingWritten = true;
        emit EpochTriggered(netuid, msg.sender, firesAt);
    }

    /// sudo_set_admin_freeze_window: the global AdminFreezeWindow (default 10 blocks).
    function setAdminFreezeWindow(uint16 window) external onlyAdmin {
        freezeWindow_ = window;
        freezeWindowSet_ = true;
    }

    function setSubnetOwner(uint16 netuid, address owner) external onlyAdmin {
        _subnet(netuid).owner = owner;
    }

    function setMaxWeightLimit(uint16 netuid, uint16 limit) external onlyAdmin {
        _subnet(netuid);
        _setHyper(netuid, Hyper.MaxWeightLimit, limit);
    }

    /// Sets any storage-backed hyperparameter (see the Hyper enum for numbers and widths).
    function setHyperparameter(uint16 netuid, Hyper param, uint256 value) external onlyAdmin {
        _subnet(netuid);
        _setHyper(netuid, param, value);
    }

    /// Stores an axon for uid without the serving checks (block = current block).
    function setAxon(
        uint16 netuid,
        uint16 uid,
        uint32 version,
        uint128 ip,
        uint16 port,
        uint8 ipType,
        uint8 protocol
    ) external onlyAdmin {
        _subnet(netuid);
        M.stateSetAxon(netuid, uid, AxonInfo(uint64(block.number), version, ip, port, ipType, protocol));
        emit AxonServed(netuid, uid);
    }

    /// Writes the results of an (off-chain) epoch. Every array must have one entry per uid.
    function setEpochResults(
        uint16 netuid,
        uint16[] memory rank,
        uint16[] memory trust,
        uint16[] memory consensus,
        uint16[] memory incentive,
        uint16[] memory dividends,
        uint16[] memory vtrust,
        uint64[] memory emission
    ) external onlyAdmin {
        _subnet(netuid);
        uint256 count = M.getUidCount(netuid);
        require(
            rank.length == count && trust.length == count && consensus.length == count
                && incentive.length == count && dividends.length == count && vtrust.length == count
                && emission.length == count,
            "EpochResultsLengthMismatch"
        );
        EpochResult[] memory results = new EpochResult[](count);
        for (uint256 i = 0; i < count; i++) {
            results[i] = EpochResult(rank[i], trust[i], consensus[i], incentive[i], dividends[i], vtrust[i], emission[i]);
        }
        M.stateSetEpochResults(netuid, results);
        emit EpochResultsSet(netuid, uint64(block.number));
    }

    // ---------------------------------------------------------------------------------
    // Views
    // ---------------------------------------------------------------------------------

    function subnetExists(uint16 netuid) external view returns (bool) {
        return subnets_[netuid].exists;
    }

    function subnetOwner(uint16 netuid) external view returns (address) {
        return _subnet(netuid).owner;
    }

    function getTempo(uint16 netuid) external view returns (uint64) {
        return _subnet(netuid).tempo;
    }

    /// The value StorageQuery (0x807) returns for item of netuid at the current block, and
    /// whether the pallet would hold a storage entry for it (present = false: empty output).
    /// The items the devnet keeps no logic for (MechanismCountCurrent, MinerBurned,
    /// CommitRevealWeightsVersion) live in StorageQuery itself and are never present here.
    function storageItem(StorageItem item, uint16 netuid) external view returns (bool present, uint256 value) {
        Subnet storage s = subnets_[netuid];
        if (!s.exists) return (false, 0);
        if (item == StorageItem.Tempo) return (true, s.tempo);
        if (item == StorageItem.RevealPeriodEpochs) {
            bool set = (hyperSet_[netuid] >> uint8(Hyper.CommitRevealInterval)) & 1 == 1;
            return (set, hyper_[netuid][uint8(Hyper.CommitRevealInterval)]);
        }
        if (item > StorageItem.RevealPeriodEpochs) return (false, 0);
        Schedule memory sc = _scheduleNow(netuid);
        if (item == StorageItem.LastEpochBlock) return (true, sc.lastEpochBlock);
        if (item == StorageItem.PendingEpochAt) return (sc.pendingWritten, sc.pendingEpochAt);
        return (sc.indexWritten, sc.epochIndex); // SubnetEpochIndex
    }

    /// Number of registered uids; 0 for a subnet that does not exist.
    function getUidCount(uint16 netuid) external view returns (uint16) {
        return M.getUidCount(netuid);
    }

    function hyperparameter(uint16 netuid, Hyper param) external view returns (uint256) {
        _subnet(netuid);
        return _hyper(netuid, param);
    }

    function neuronInfo(uint16 netuid, uint16 uid) external view returns (NeuronInfo memory info) {
        Neuron storage n = _neuron(netuid, uid);
        info.hotkey = M.getHotkey(netuid, uid);
        info.coldkey = M.getColdkey(netuid, uid);
        info.stake = M.getStake(netuid, uid);
        info.validatorPermit = M.getValidatorStatus(netuid, uid);
        info.active = M.getIsActive(netuid, uid);
        info.lastUpdate = M.getLastUpdate(netuid, uid);
        (, info.registrationBlock) = M.blockAtRegistration(netuid, uid);
        info.rank = M.getRank(netuid, uid);
        info.trust = M.getTrust(netuid, uid);
        info.consensus = M.getConsensus(netuid, uid);
        info.incentive = M.getIncentive(netuid, uid);
        info.dividends = M.getDividends(netuid, uid);
        info.vtrust = M.getVtrust(netuid, uid);
        info.emission = M.getEmission(netuid, uid);
        info.axon = M.getAxon(netuid, uid);
        info.evmAddress = n.evmAddress;
        info.evmAssociatedBlock = n.evmAssociatedBlock;
    }

    function getAxon(uint16 netuid, uint16 uid) external view returns (AxonInfo memory) {
        _subnet(netuid);
        return M.getAxon(netuid, uid);
    }

    function getPrometheus(uint16 netuid, uint16 uid) external view returns (PrometheusInfo memory) {
        return _neuron(netuid, uid).prometheus;
    }

    /// uid of hotkey in netuid; found is false when the hotkey is not registered there.
    function uidOfHotkey(uint16 netuid, bytes32 hotkey) external view returns (bool found, uint16 uid) {
        uint16 p = uidPlusOne_[netuid][hotkey];
        if (p == 0) return (false, 0);
        return (true, p - 1);
    }

    function getWeights(uint16 netuid, uint16 uid) external view returns (uint16[] memory uids, uint16[] memory values) {
        Neuron storage n = _neuron(netuid, uid);
        return (n.weightUids, n.weightValues);
    }

    function getPendingCommits(uint16 netuid, uint16 uid)
        external
        view
        returns (bytes32[] memory hashes, uint64[] memory blocks)
    {
        Commit[] storage cs = _neuron(netuid, uid).commits;
        hashes = new bytes32[](cs.length);
        blocks = new uint64[](cs.length);
        for (uint256 i = 0; i < cs.length; i++) {
            hashes[i] = cs[i].hash;
            blocks[i] = cs[i].block;
        }
    }

    /// Associations of evmAddress in netuid (uid order), at most limit entries.
    function uidLookup(uint16 netuid, address evmAddress, uint16 limit) external view returns (LookupItem[] memory items) {
        uint16 count = M.getUidCount(netuid);
        items = new LookupItem[](limit < count ? limit : count);
        uint256 k = 0;
        for (uint16 uid = 0; uid < count && k < items.length; uid++) {
            Neuron storage n = neurons_[netuid][uid];
            if (n.evmAddress == evmAddress && evmAddress != address(0)) {
                items[k++] = LookupItem(uid, n.evmAssociatedBlock);
            }
        }
        assembly ("memory-safe") {
            mstore(items, k)
        }
    }

    /// blake2b_256("evm:" ++ a): the substrate account an EVM address acts as.
    function mirror(address a) external view returns (bytes32) {
        return Blake2b.mirror(a);
    }

    function blake2b256(bytes memory data) external view returns (bytes32) {
        return Blake2b.hash256(data);
    }

    /// blake2_256(SCALE(account, netuid, uids, values, salt, versionKey)), the commit hash of
    /// the hash-based commit-reveal scheme.
    function commitHashOf(
        bytes32 account,
        uint16 netuid,
        uint16[] memory uids,
        uint16[] memory values,
        uint16[] memory salt,
        uint64 versionKey
    ) public view returns (bytes32) {
        return Blake2b.hash256(Scale.encodeCommit(account, netuid, uids, values, salt, versionKey));
    }

    // ---------------------------------------------------------------------------------
    // Subnet facade (0x803)
    // ---------------------------------------------------------------------------------

    /// Hyperparameter setter on behalf of caller (subnet owner or admin).
    function subnetSetHyperparameter(address caller, uint16 netuid, Hyper param, uint256 value)
        external
        onlyFrom(SUBNET_ADDRESS)
    {
        Subnet storage s = _subnet(netuid);
        require(caller == s.owner || caller == admin, "NotSubnetOwner");
        _setHyper(netuid, param, value);
    }

    // ---------------------------------------------------------------------------------
    // Neuron facade (0x804)
    // ---------------------------------------------------------------------------------

    function neuronSetWeights(
        address caller,
        uint16 netuid,
        uint16[] memory dests,
        uint16[] memory weights,
        uint64 versionKey
    ) external onlyFrom(NEURON_ADDRESS) {
        _subnet(netuid);
        uint16 uid = _callerUid(netuid, caller);
        require(!_flag(netuid, Hyper.CommitRevealEnabled), "CommitRevealEnabled");
        _checkWeights(netuid, uid, M.getValidatorStatus(netuid, uid), dests, weights, versionKey);
        require(!_tooFast(netuid, M.getLastUpdate(netuid, uid)), "SettingWeightsTooFast");
        _storeWeights(netuid, uid, dests, weights);
        emit WeightsSet(netuid, uid);
    }

    function neuronCommitWeights(address caller, uint16 netuid, bytes32 commitHash)
        external
        onlyFrom(NEURON_ADDRESS)
    {
        _subnet(netuid);
        uint16 uid = _callerUid(netuid, caller);
        require(_flag(netuid, Hyper.CommitRevealEnabled), "CommitRevealDisabled");
        Neuron storage n = neurons_[netuid][uid];
        require(!_tooFast(netuid, M.getLastUpdate(netuid, uid)), "CommittingWeightsTooFast");
        _dropExpiredCommits(netuid, n, type(uint256).max);
        require(n.commits.length < MAX_PENDING_COMMITS, "TooManyUnrevealedCommits");
        n.commits.push(Commit(commitHash, uint64(block.number), _currentEpoch(netuid)));
        M.stateSetLastUpdate(netuid, uid, uint64(block.number));
        emit WeightsCommitted(netuid, uid, commitHash);
    }

    function neuronRevealWeights(
        address caller,
        uint16 netuid,
        uint16[] memory uids,
        uint16[] memory values,
        uint16[] memory salt,
        uint64 versionKey
    ) external onlyFrom(NEURON_ADDRESS) {
        _subnet(netuid);
        uint16 uid = _callerUid(netuid, caller);
        require(_flag(netuid, Hyper.CommitRevealEnabled), "CommitRevealDisabled");
        Neuron storage n = neurons_[netuid][uid];
        require(n.commits.length > 0, "NoWeightsCommitFound");
        bytes32 h = commitHashOf(Blake2b.mirror(caller), netuid, uids, values, salt, versionKey);

        uint256 found = type(uint256).max;
        bool expired = false;
        uint64 interval = uint64(_hyper(netuid, Hyper.CommitRevealInterval));
        uint64 current = _currentEpoch(netuid);
        for (uint256 i = 0; i < n.commits.length; i++) {
            if (n.commits[i].hash != h) continue;
            if (current > _commitEpoch(netuid, n.commits[i]) + interval) {
                expired = true;
                continue;
            }
            found = i;
            break;
        }
        if (found == type(uint256).max) {
            revert(expired ? "ExpiredWeightCommit" : "InvalidRevealCommitHashNotMatch");
        }
        require(current >= _commitEpoch(netuid, n.commits[found]) + interval, "RevealTooEarly");

        _checkWeights(netuid, uid, M.getValidatorStatus(netuid, uid), uids, values, versionKey);
        _dropExpiredCommits(netuid, n, found);
        _storeWeights(netuid, uid, uids, values);
        emit WeightsRevealed(netuid, uid, h);
    }

    function neuronServeAxon(
        address caller,
        uint16 netuid,
        uint32 version,
        uint128 ip,
        uint16 port,
        uint8 ipType,
        uint8 protocol
    ) external onlyFrom(NEURON_ADDRESS) {
        _subnet(netuid);
        uint16 uid = _callerUid(netuid, caller);
        require(ipType == 4 || ipType == 6, "InvalidIpType");
        require(port != 0, "InvalidPort");
        require(ipType != 4 || ip <= type(uint32).max, "InvalidIpAddress");
        uint256 limit = _hyper(netuid, Hyper.ServingRateLimit);
        uint64 last = M.getAxon(netuid, uid).block;
        require(limit == 0 || last == 0 || block.number - last >= limit, "ServingRateLimitExceeded");
        M.stateSetAxon(netuid, uid, AxonInfo(uint64(block.number), version, ip, port, ipType, protocol));
        emit AxonServed(netuid, uid);
    }

    function neuronServePrometheus(
        address caller,
        uint16 netuid,
        uint32 version,
        uint128 ip,
        uint16 port,
        uint8 ipType
    ) external onlyFrom(NEURON_ADDRESS) {
        _subnet(netuid);
        uint16 uid = _callerUid(netuid, caller);
        require(ipType == 4 || ipType == 6, "InvalidIpType");
        require(ipType != 4 || ip <= type(uint32).max, "InvalidIpAddress");
        neurons_[netuid][uid].prometheus = PrometheusInfo(uint64(block.number), version, ip, port, ipType);
        emit PrometheusServed(netuid, uid);
    }

    /// Registers hotkey with coldkey = mirror(caller) and associates caller with the new uid.
    function neuronBurnedRegister(address caller, uint16 netuid, bytes32 hotkey)
        external
        onlyFrom(NEURON_ADDRESS)
    {
        _subnet(netuid);
        require(_flag(netuid, Hyper.NetworkRegistrationAllowed), "SubNetRegistrationDisabled");
        uint16 uid = _register(netuid, hotkey, Blake2b.mirror(caller), 0, false);
        Neuron storage n = neurons_[netuid][uid];
        n.evmAddress = caller;
        n.evmAssociatedBlock = uint64(block.number);
        emit EvmKeyAssociated(netuid, uid, caller);
    }

    // ---------------------------------------------------------------------------------
    // Internals
    // ---------------------------------------------------------------------------------

    function _subnet(uint16 netuid) internal view returns (Subnet storage s) {
        s = subnets_[netuid];
        require(s.exists, "SubnetNotExists");
    }

    function _neuron(uint16 netuid, uint16 uid) internal view returns (Neuron storage) {
        _subnet(netuid);
        require(uid < M.getUidCount(netuid), "UidNotFound");
        return neurons_[netuid][uid];
    }

    function _callerUid(uint16 netuid, address caller) internal view returns (uint16) {
        uint16 p = uidPlusOne_[netuid][Blake2b.mirror(caller)];
        require(p != 0, "HotKeyNotRegisteredInSubNet");
        return p - 1;
    }

    /// Appends a neuron (active) to an existing subnet.
    function _register(uint16 netuid, bytes32 hotkey, bytes32 coldkey, uint64 stake, bool validatorPermit)
        internal
        returns (uint16 uid)
    {
        require(uidPlusOne_[netuid][hotkey] == 0, "HotKeyAlreadyRegisteredInSubNet");
        require(M.getUidCount(netuid) < MAX_UIDS, "TooManyRegistrations");
        uid = M.stateRegister(netuid, hotkey, coldkey, stake, validatorPermit);
        uidPlusOne_[netuid][hotkey] = uid + 1;
        emit NeuronRegistered(netuid, uid, hotkey, coldkey);
    }

    /// Tempo is a u16 on subtensor; 0 (a subnet that never runs) is refused on the devnet.
    function _checkTempo(uint64 tempo) internal pure {
        require(tempo > 0 && tempo <= type(uint16).max, "InvalidTempo");
    }

    function _epoch(uint16 netuid, uint64 blockNumber) internal view returns (uint64) {
        return (blockNumber + uint64(netuid) + 1) / (subnets_[netuid].tempo + 1);
    }

    /// The epoch a commit or reveal in this block belongs to: SubnetEpochIndex (subtensor's
    /// current_epoch_with_lookahead, subnets/weights.rs) or, by default, the legacy index.
    function _currentEpoch(uint16 netuid) internal view returns (uint64) {
        if (_flag(netuid, Hyper.CommitRevealByEpochIndex)) {
            return _scheduleNow(netuid).epochIndex;
        }
        return _epoch(netuid, uint64(block.number));
    }

    function _commitEpoch(uint16 netuid, Commit storage c) internal view returns (uint64) {
        if (_flag(netuid, Hyper.CommitRevealByEpochIndex)) return c.epoch;
        return _epoch(netuid, c.block);
    }

    /// The schedule of netuid as of the current block `at`: the stored one advanced through every
    /// epoch slot that fires in (settledAt, at], following should_run_epoch (coinbase/run_coinbase.rs).
    /// A slot fires at the first block b with pendingEpochAt > 0 && b >= pendingEpochAt, or
    /// b - lastEpochBlock >= tempo, or b - lastStep > MAX_TEMPO; after a firing at f the next
    /// ones follow every min(tempo, MAX_TEMPO + 1) blocks. Every epoch succeeds on the devnet
    /// (no skipped or deferred slots).
    function _scheduleNow(uint16 netuid) internal view returns (Schedule memory sc) {
        uint64 at = uint64(block.number);
        sc = schedule_[netuid];
        if (at <= sc.settledAt) return sc;
        uint64 tempo = subnets_[netuid].tempo;
        uint64 next = sc.lastEpochBlock + tempo;
        uint64 safety = sc.lastStep + MAX_TEMPO + 1;
        if (safety < next) next = safety;
        if (sc.pendingEpochAt != 0) {
            // A trigger written at settledAt fires no earlier than the following block.
            uint64 p = sc.pendingEpochAt > sc.settledAt ? sc.pendingEpochAt : sc.settledAt + 1;
            if (p < next) next = p;
        }
        sc.settledAt = at;
        if (at < next) return sc;
        uint64 period = tempo < MAX_TEMPO + 1 ? tempo : MAX_TEMPO + 1;
        uint64 more = (at - next) / period;
        uint64 fired = next + more * period;
        sc.lastEpochBlock = fired;
        sc.lastStep = fired;
        sc.pendingEpochAt = 0;
        sc.pendingWritten = true;
        sc.epochIndex += more + 1;
        sc.indexWritten = true;
    }

    /// Writes the schedule as of the current block and returns it.
    function _settle(uint16 netuid) internal returns (Schedule storage) {
        return _store(netuid, _scheduleNow(netuid));
    }

    function _store(uint16 netuid, Schedule memory sc) internal returns (Schedule storage) {
        schedule_[netuid] = sc;
        return schedule_[netuid];
    }

    /// blocks_until_next_auto_epoch (coinbase/run_coinbase.rs).
    function _blocksUntilAutoEpoch(uint64 tempo, Schedule storage sc, uint64 blk) internal view returns (uint64) {
        uint64 next = sc.lastEpochBlock + tempo;
        return next > blk ? next - blk : 0;
    }

    function _adminFreezeWindow() internal view returns (uint16) {
        return freezeWindowSet_ ? freezeWindow_ : DEFAULT_FREEZE_WINDOW;
    }

    /// is_in_admin_freeze_window (utils/misc.rs): a trigger is pending, or the next automatic
    /// epoch is fewer than AdminFreezeWindow blocks away.
    function _frozen(uint16 netuid, Schedule storage sc) internal view returns (bool) {
        uint64 blk = uint64(block.number);
        if (sc.pendingEpochAt > 0 && sc.pendingEpochAt > blk) return true;
        return _blocksUntilAutoEpoch(subnets_[netuid].tempo, sc, blk) < _adminFreezeWindow();
    }

    function _tooFast(uint16 netuid, uint64 last) internal view returns (bool) {
        return last != 0 && block.number - last < _hyper(netuid, Hyper.WeightsSetRateLimit);
    }

    /// Checks 4-9 of set_weights (version key, lengths, duplicates, unknown uids, validator
    /// permit, minimum non-zero weights), then the max-weight limit.
    function _checkWeights(
        uint16 netuid,
        uint16 uid,
        bool validatorPermit,
        uint16[] memory dests,
        uint16[] memory weights,
        uint64 versionKey
    ) internal view {
        require(versionKey >= _hyper(netuid, Hyper.WeightsVersionKey), "IncorrectWeightVersionKey");
        require(dests.length == weights.length, "WeightVecNotEqualSize");

        uint256[] memory seen = new uint256[](256);
        for (uint256 i = 0; i < dests.length; i++) {
            uint256 d = dests[i];
            uint256 bit = 1 << (d & 255);
            require(seen[d >> 8] & bit == 0, "DuplicateUids");
            seen[d >> 8] |= bit;
        }
        uint16 count = M.getUidCount(netuid);
        for (uint256 i = 0; i < dests.length; i++) {
            require(dests[i] < count, "UidVecContainInvalidOne");
        }

        bool selfWeight = dests.length == 1 && dests[0] == uid;
        require(selfWeight || validatorPermit, "NeuronNoValidatorPermit");
        if (selfWeight) return;

        uint256 nonZero = 0;
        uint256 sum = 0;
        uint256 max = 0;
        for (uint256 i = 0; i < weights.length; i++) {
            uint256 w = weights[i];
            if (w != 0) nonZero++;
            sum += w;
            if (w > max) max = w;
        }
        uint256 minAllowed = _hyper(netuid, Hyper.MinAllowedWeights);
        if (minAllowed > count) minAllowed = count;
        require(nonZero >= minAllowed, "WeightVecLengthIsLow");

        uint256 limit = _hyper(netuid, Hyper.MaxWeightLimit);
        if (limit < type(uint16).max) {
            // max(w) / sum(w) must not exceed limit / 65535.
            require(max * type(uint16).max <= limit * sum, "MaxWeightExceeded");
        }
    }

    function _storeWeights(uint16 netuid, uint16 uid, uint16[] memory dests, uint16[] memory weights) internal {
        Neuron storage n = neurons_[netuid][uid];
        n.weightUids = dests;
        n.weightValues = weights;
        M.stateSetLastUpdate(netuid, uid, uint64(block.number));
    }

    /// Removes expired commits and the commit at index `skip` (if any), keeping the order.
    function _dropExpiredCommits(uint16 netuid, Neuron storage n, uint256 skip) internal {
        Commit[] storage cs = n.commits;
        uint64 interval = uint64(_hyper(netuid, Hyper.CommitRevealInterval));
        uint64 current = _currentEpoch(netuid);
        uint256 kept = 0;
        uint256 len = cs.length;
        for (uint256 i = 0; i < len; i++) {
            if (i == skip || current > _commitEpoch(netuid, cs[i]) + interval) continue;
            if (kept != i) cs[kept] = cs[i];
            kept++;
        }
        while (cs.length > kept) cs.pop();
    }

    function _flag(uint16 netuid, Hyper p) internal view returns (bool) {
        return _hyper(netuid, p) != 0;
    }

    function _hyper(uint16 netuid, Hyper p) internal view returns (uint256) {
        if ((hyperSet_[netuid] >> uint8(p)) & 1 == 1) return hyper_[netuid][uint8(p)];
        return _default(p);
    }

    function _setHyper(uint16 netuid, Hyper p, uint256 value) internal {
        require(value >> _width(p) == 0, "HyperparameterOutOfRange");
        if (p == Hyper.CommitRevealInterval) {
            require(value != 0, "RevealPeriodTooSmall");
            require(value <= MAX_REVEAL_PERIOD, "RevealPeriodTooLarge");
        }
        hyper_[netuid][uint8(p)] = value;
        hyperSet_[netuid] |= 1 << uint8(p);
        emit HyperparameterSet(netuid, uint8(p), value);
    }

    /// Bit width of each hyperparameter's type in the Subnet precompile ABI.
    function _width(Hyper p) internal pure returns (uint256) {
        if (
            p == Hyper.CommitRevealEnabled || p == Hyper.BondsResetEnabled || p == Hyper.LiquidAlphaEnabled
                || p == Hyper.Yuma3Enabled || p == Hyper.NetworkRegistrationAllowed
                || p == Hyper.NetworkPowRegistrationAllowed || p == Hyper.TransfersEnabled
                || p == Hyper.CommitRevealByEpochIndex
        ) return 1;
        if (
            p == Hyper.MinAllowedWeights || p == Hyper.MaxWeightLimit || p == Hyper.ImmunityPeriod
                || p == Hyper.ActivityCutoff || p == Hyper.Kappa || p == Hyper.Rho || p == Hyper.AlphaLow
                || p == Hyper.AlphaHigh || p == Hyper.AlphaSigmoidSteepness
        ) return 16;
        if (p == Hyper.ActivityCutoffFactor) return 32;
        return 64;
    }

    function _default(Hyper p) internal pure returns (uint256) {
        if (p == Hyper.WeightsSetRateLimit) return 100;
        if (p == Hyper.MinAllowedWeights) return 1;
        if (p == Hyper.MaxWeightLimit) return type(uint16).max;
        if (p == Hyper.CommitRevealInterval) return 1;
        if (p == Hyper.ImmunityPeriod) return 4096;
        if (p == Hyper.ActivityCutoff) return 5000;
        if (p == Hyper.Kappa) return 32767;
        if (p == Hyper.Rho) return 10;
        if (p == Hyper.ActivityCutoffFactor) return 13889;
        if (p == Hyper.AlphaLow) return 45875;
        if (p == Hyper.AlphaHigh) return 58982;
        if (p == Hyper.BondsMovingAverage) return 900000;
        if (p == Hyper.Difficulty || p == Hyper.MinDifficulty) return 10000000;
        if (p == Hyper.MaxDifficulty) return type(uint64).max / 4;
        if (p == Hyper.MinBurn) return 500000;
        if (p == Hyper.MaxBurn) return 100000000000;
        if (p == Hyper.NetworkRegistrationAllowed || p == Hyper.TransfersEnabled) return 1;
        if (p == Hyper.AlphaSigmoidSteepness) return 1000;
        return 0; // WeightsVersionKey, CommitRevealEnabled, AdjustmentAlpha, the other flags, ServingRateLimit
    }
}
