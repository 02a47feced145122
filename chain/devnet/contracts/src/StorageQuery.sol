// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {StorageItem, STATE_ADDRESS, METAGRAPH_ADDRESS} from "./Common.sol";
import {SubtensorState} from "./SubtensorState.sol";
import {Metagraph} from "./Metagraph.sol";

/// StorageQuery precompile emulation (0x807, subtensor precompiles/src/storage_query.rs).
///
/// The call data is a raw substrate storage key, with no ABI selector; the output is the raw
/// SCALE-encoded value, or nothing when the key has no entry. A key that does not start with
/// one of the ten authorized pallet prefixes fails ("Invalid key"), as on subtensor.
///
/// Of SubtensorModule the devnet holds only the items in StorageItem: the epoch schedule, the
/// tempo and RevealPeriodEpochs come from SubtensorState, BlockAtRegistration from Metagraph's
/// table (a small frame: a metagraph snapshot reads it once per uid); MechanismCountCurrent, MinerBurned and
/// CommitRevealWeightsVersion, which the devnet has no logic for, are this contract's own storage,
/// written by the devnet admin. Every other key (other items, the other authorized pallets,
/// wrong lengths or hashes) has no entry here.
///
/// The admin setters are the only ABI functions. A storage key reaches the fallback unless its
/// first four bytes equal one of their selectors, which no authorized prefix does
/// (TestStorageQuerySelectors). Each key is twox_128("SubtensorModule") ++ twox_128(item name) ++ the hashed map
/// key: Identity(netuid) is the SCALE u16, Twox64Concat(netuid) is twox_64(u16) ++ u16; the double
/// map BlockAtRegistration appends Identity(uid), the uid's SCALE u16.
contract StorageQuery {
    SubtensorState internal constant S = SubtensorState(STATE_ADDRESS);
    Metagraph internal constant M = Metagraph(METAGRAPH_ADDRESS);

    struct Extra {
        bool mechanismCountSet;
        uint8 mechanismCount; // MechanismCountCurrent (MechId), default 1
        bool minerBurnedSet;
        uint128 minerBurned; // MinerBurned, raw U96F32 bits, default 0
    }

    mapping(uint16 => Extra) internal extra_; // slot 0
    bool internal crVersionSet_; // slot 1
    uint16 internal crVersion_; // CommitRevealWeightsVersion when crVersionSet_

    // twox_128 of the pallet prefixes storage_query.rs authorizes (AUTHORIZED_PREFIXES).
    bytes16 internal constant SUBTENSOR_MODULE = 0x658faa385070e074c85bf6b568cf0555;
    bytes16 internal constant SWAP = 0x746cc6d1e9dbcf1d03868e492c1d836e;
    bytes16 internal constant BALANCES = 0xc2261276cc9d1f8598ea4b6a74b15c2f;
    bytes16 internal constant PROXY = 0x1809d78346727a0ef58c0fa03bafa323;
    bytes16 internal constant SCHEDULER = 0x3db7a24cfdc9de785974746c14a99df9;
    bytes16 internal constant DRAND = 0xa285cdb66e8b8524ea70b1693c7b1e05;
    bytes16 internal constant CROWDLOAN = 0x3d9cad2baf702e20b136f4c8900cd802;
    bytes16 internal constant SUDO = 0x5c0d1176a568c1f92944340dbfed9e9c;
    bytes16 internal constant MULTISIG = 0x7474449cca95dc5d0c00e71735a6d17d;
    bytes16 internal constant TIMESTAMP = 0xf0c365c3cf59d671eb72da0e7a4113c4;

    // twox_128 of the item names (checked against package chain's key derivation by the tests).
    bytes16 internal constant TEMPO = 0x7641384bb339f3758acddfd7053d3317;
    bytes16 internal constant LAST_EPOCH_BLOCK = 0x90010c37124c14146041452f9ffba0df;
    bytes16 internal constant PENDING_EPOCH_AT = 0x3328b142e30b57e47a52648ba110e3a7;
    bytes16 internal constant SUBNET_EPOCH_INDEX = 0x4f101d7a30ae31c7ab3099206c5ae12b;
    bytes16 internal constant REVEAL_PERIOD_EPOCHS = 0x8f232bcbac768c1d6201850c60f161ed;
    bytes16 internal constant MECHANISM_COUNT_CURRENT = 0x604fb97037feb8522bf37d42d54fa6e9;
    bytes16 internal constant MINER_BURNED = 0x1eac6222ebba7feba4ca36a94736815e;
    bytes16 internal constant COMMIT_REVEAL_WEIGHTS_VERSION = 0x70d1da21926e4e8efdfb497ee508d611;
    bytes16 internal constant BLOCK_AT_REGISTRATION = 0x5306000b65aa58c97bf98ad9f8619049;

    enum Hasher {
        None, // StorageValue: the key is the 32-byte prefix alone
        Identity,
        Twox64Concat,
        IdentityIdentity // a double map keyed (netuid, uid), both Identity
    }

    fallback(bytes calldata key) external returns (bytes memory) {
        if (key.length < 16 || !_authorized(bytes16(key[0:16]))) revert("Invalid key");
        if (key.length < 32 || bytes16(key[0:16]) != SUBTENSOR_MODULE) return "";
        (bool known, StorageItem item, Hasher hasher, uint256 width) = _item(bytes16(key[16:32]));
        if (!known) return "";
        uint16 netuid;
        uint16 uid;
        if (hasher == Hasher.None) {
            if (key.length != 32) return "";
        } else if (hasher == Hasher.Identity) {
            if (key.length != 34) return "";
            netuid = _u16le(key[32:34]);
        } else if (hasher == Hasher.IdentityIdentity) {
            if (key.length != 36) return "";
            netuid = _u16le(key[32:34]);
            uid = _u16le(key[34:36]);
        } else {
            if (key.length != 42) return "";
            netuid = _u16le(key[40:42]);
            if (bytes8(key[32:40]) != _twox64U16(netuid)) return "";
        }
        (bool present, uint256 value) = _value(item, netuid, uid);
        if (!present) return "";
        bytes memory out = new bytes(width);
        for (uint256 i = 0; i < width; i++) {
            out[i] = bytes1(uint8(value >> (8 * i)));
        }
        return out;
    }

    /// Writes MechanismCountCurrent (subtensor: sudo_set_mechanism_count); no mechanism logic.
    function setMechanismCount(uint16 netuid, uint8 count) external {
        _onlyAdminOf(netuid);
        extra_[netuid].mechanismCount = count;
        extra_[netuid].mechanismCountSet = true;
    }

    /// Writes MinerBurned as raw U96F32 bits (subtensor writes it when it distributes emission).
    function setMinerBurned(uint16 netuid, uint128 bits) external {
        _onlyAdminOf(netuid);
        extra_[netuid].minerBurned = bits;
        extra_[netuid].minerBurnedSet = true;
    }

    /// Writes CommitRevealWeightsVersion (subtensor: sudo_set_commit_reveal_version).
    function setCommitRevealWeightsVersion(uint16 version) external {
        require(msg.sender == S.admin(), "NotAdmin");
        crVersion_ = version;
        crVersionSet_ = true;
    }

    function _onlyAdminOf(uint16 netuid) internal view {
        require(msg.sender == S.admin(), "NotAdmin");
        require(S.subnetExists(netuid), "SubnetNotExists");
    }

    function _value(StorageItem item, uint16 netuid, uint16 uid) internal view returns (bool, uint256) {
        if (item == StorageItem.CommitRevealWeightsVersion) return (crVersionSet_, crVersion_);
        if (item == StorageItem.BlockAtRegistration) return M.blockAtRegistration(netuid, uid);
        if (item == StorageItem.MechanismCountCurrent || item == StorageItem.MinerBurned) {
            // Entries of a subnet that no longer exists would be removed (remove_network).
            if (!S.subnetExists(netuid)) return (false, 0);
            Extra storage x = extra_[netuid];
            if (item == StorageItem.MechanismCountCurrent) return (x.mechanismCountSet, x.mechanismCount);
            return (x.minerBurnedSet, x.minerBurned);
        }
        return S.storageItem(item, netuid);
    }

    /// twox_64 (XXH64, seed 0, output little-endian) of a netuid's SCALE encoding (u16 LE).
    function _twox64U16(uint16 netuid) internal pure returns (bytes8) {
        uint64 p1 = 0x9E3779B185EBCA87;
        uint64 p2 = 0xC2B2AE3D27D4EB4F;
        uint64 p3 = 0x165667B19E3779F9;
        uint64 p5 = 0x27D4EB2F165667C5;
        unchecked {
            uint64 h = p5 + 2; // seed + PRIME64_5 + input length
            // Inputs under four bytes are consumed one byte at a time.
            h ^= uint64(uint8(netuid)) * p5;
            h = ((h << 11) | (h >> 53)) * p1;
            h ^= uint64(uint8(netuid >> 8)) * p5;
            h = ((h << 11) | (h >> 53)) * p1;
            h ^= h >> 33;
            h *= p2;
            h ^= h >> 29;
            h *= p3;
            h ^= h >> 32;
            uint64 le;
            for (uint256 i = 0; i < 8; i++) {
                le = (le << 8) | (h & 0xff);
                h >>= 8;
            }
            return bytes8(le);
        }
    }

    function _authorized(bytes16 p) internal pure returns (bool) {
        return p == SUBTENSOR_MODULE || p == SWAP || p == BALANCES || p == PROXY || p == SCHEDULER || p == DRAND
            || p == CROWDLOAN || p == SUDO || p == MULTISIG || p == TIMESTAMP;
    }

    /// The item, its hasher and its SCALE width in bytes, by the twox_128 of its name.
    function _item(bytes16 h) internal pure returns (bool, StorageItem, Hasher, uint256) {
        if (h == TEMPO) return (true, StorageItem.Tempo, Hasher.Identity, 2);
        if (h == LAST_EPOCH_BLOCK) return (true, StorageItem.LastEpochBlock, Hasher.Identity, 8);
        if (h == PENDING_EPOCH_AT) return (true, StorageItem.PendingEpochAt, Hasher.Identity, 8);
        if (h == SUBNET_EPOCH_INDEX) return (true, StorageItem.SubnetEpochIndex, Hasher.Identity, 8);
        if (h == REVEAL_PERIOD_EPOCHS) return (true, StorageItem.RevealPeriodEpochs, Hasher.Twox64Concat, 8);
        if (h == MECHANISM_COUNT_CURRENT) return (true, StorageItem.MechanismCountCurrent, Hasher.Twox64Concat, 1);
        if (h == MINER_BURNED) return (true, StorageItem.MinerBurned, Hasher.Identity, 16);
        if (h == COMMIT_REVEAL_WEIGHTS_VERSION) {
            return (true, StorageItem.CommitRevealWeightsVersion, Hasher.None, 2);
        }
        if (h == BLOCK_AT_REGISTRATION) {
            return (true, StorageItem.BlockAtRegistration, Hasher.IdentityIdentity, 8);
        }
        return (false, StorageItem.Tempo, Hasher.None, 0);
    }

    function _u16le(bytes calldata b) internal pure returns (uint16) {
        return uint16(uint8(b[0])) | (uint16(uint8(b[1])) << 8);
    }
}
