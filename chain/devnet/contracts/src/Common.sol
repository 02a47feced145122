// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// Shared types and addresses of the devnet emulation of subtensor's EVM precompiles.
//
// All contracts are placed in the genesis alloc as runtime bytecode: constructors never run,
// so nothing here may rely on constructor logic or immutables.

// Address of SubtensorState, the contract holding the devnet state and rules (the metagraph
// table itself lives in Metagraph at 0x802, written only by SubtensorState).
address constant STATE_ADDRESS = address(uint160(0x0a00));
// Addresses of the facades (same indices as subtensor's precompiles).
address constant METAGRAPH_ADDRESS = address(uint160(0x0802));
address constant SUBNET_ADDRESS = address(uint160(0x0803));
address constant NEURON_ADDRESS = address(uint160(0x0804));
address constant UID_LOOKUP_ADDRESS = address(uint160(0x0806));
address constant ADDRESS_MAPPING_ADDRESS = address(uint160(0x080c));
address constant STORAGE_QUERY_ADDRESS = address(uint160(0x0807));

// Most uids a subnet can have (SubtensorState refuses more, Metagraph stores this many).
uint16 constant MAX_UIDS = 256;

/// Axon endpoint as returned by Metagraph.getAxon.
struct AxonInfo {
    uint64 block;
    uint32 version;
    uint128 ip;
    uint16 port;
    uint8 ip_type;
    uint8 protocol;
}

/// One EVM-key association as returned by UidLookup.uidLookup.
struct LookupItem {
    uint16 uid;
    uint64 block_associated;
}

/// Prometheus endpoint (stored, not exposed by the reference ABIs).
struct PrometheusInfo {
    uint64 block;
    uint32 version;
    uint128 ip;
    uint16 port;
    uint8 ip_type;
}

/// Results of an epoch for one uid (SubtensorState.setEpochResults => Metagraph.stateSetEpochResults).
struct EpochResult {
    uint16 rank;
    uint16 trust;
    uint16 consensus;
    uint16 incentive;
    uint16 dividends;
    uint16 vtrust;
    uint64 emission;
}

/// Flattened view of one neuron, returned by SubtensorState.neuronInfo.
struct NeuronInfo {
    bytes32 hotkey;
    bytes32 coldkey;
    uint64 stake;
    bool validatorPermit;
    bool active;
    uint64 lastUpdate;
    uint64 registrationBlock;
    uint16 rank;
    uint16 trust;
    uint16 consensus;
    uint16 incentive;
    uint16 dividends;
    uint16 vtrust;
    uint64 emission;
    AxonInfo axon;
    address evmAddress;
    uint64 evmAssociatedBlock;
}

/// Subnet hyperparameters backed by SubtensorState storage. The numeric value of each member
/// is part of SubtensorState's ABI (hyperparameter / setHyperparameter take it as uint8):
/// append new members at the end only.
enum Hyper {
    WeightsVersionKey, // 0  uint64, default 0
    WeightsSetRateLimit, // 1  uint64, default 100
    MinAllowedWeights, // 2  uint16, default 1
    MaxWeightLimit, // 3  uint16, default 65535
    CommitRevealEnabled, // 4  bool,   default false
    CommitRevealInterval, // 5  uint64, default 1 (reveal period in epochs)
    ImmunityPeriod, // 6  uint16, default 4096
    ActivityCutoff, // 7  uint16, default 5000
    Kappa, // 8  uint16, default 32767
    Rho, // 9  uint16, default 10
    ActivityCutoffFactor, // 10 uint32, default 13889 (milli)
    AdjustmentAlpha, // 11 uint64, default 0
    AlphaLow, // 12 uint16, default 45875
    AlphaHigh, // 13 uint16, default 58982
    BondsMovingAverage, // 14 uint64, default 900000
    BondsResetEnabled, // 15 bool,   default false
    Difficulty, // 16 uint64, default 10000000
    MinDifficulty, // 17 uint64, default 10000000
    MaxDifficulty, // 18 uint64, default 2^62-1
    MinBurn, // 19 uint64, default 500000
    MaxBurn, // 20 uint64, default 100000000000
    LiquidAlphaEnabled, // 21 bool,   default false
    Yuma3Enabled, // 22 bool,   default false
    NetworkRegistrationAllowed, // 23 bool,   default true
    NetworkPowRegistrationAllowed, // 24 bool,   default false
    AlphaSigmoidSteepness, // 25 uint16, default 1000
    ServingRateLimit, // 26 uint64, default 0 on the devnet (50 on subtensor)
    TransfersEnabled, // 27 bool,   default true
    // Devnet only, not a subtensor hyperparameter and not exposed by the Subnet facade: when
    // set, commit-reveal counts epochs with SubnetEpochIndex (as subtensor does since dynamic
    // tempo); unset keeps the legacy (block + netuid + 1) / (tempo + 1) numbering.
    CommitRevealByEpochIndex // 28 bool, default false
}

/// The SubtensorModule storage items StorageQuery (0x807) answers, by SubtensorState.storageItem.
/// The numeric value of each member is part of SubtensorState's ABI: append new members only.
enum StorageItem {
    Tempo, // 0 StorageMap<Identity, NetUid, u16>
    LastEpochBlock, // 1 StorageMap<Identity, NetUid, u64>
    PendingEpochAt, // 2 StorageMap<Identity, NetUid, u64>
    SubnetEpochIndex, // 3 StorageMap<Identity, NetUid, u64>
    RevealPeriodEpochs, // 4 StorageMap<Twox64Concat, NetUid, u64>
    MechanismCountCurrent, // 5 StorageMap<Twox64Concat, NetUid, MechId (u8)>
    MinerBurned, // 6 StorageMap<Identity, NetUid, U96F32 (128 bits)>
    CommitRevealWeightsVersion, // 7 StorageValue<u16>
    BlockAtRegistration // 8 StorageDoubleMap<Identity, NetUid, Identity, u16 uid, u64>
}
