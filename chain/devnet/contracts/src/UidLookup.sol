// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {LookupItem, STATE_ADDRESS} from "./Common.sol";
import {SubtensorState} from "./SubtensorState.sol";

/// UidLookup precompile facade (0x806).
contract UidLookup {
    SubtensorState internal constant S = SubtensorState(STATE_ADDRESS);

    /// Up to limit {uid, block_associated} entries of uids associated with evm_address.
    function uidLookup(uint16 netuid, address evm_address, uint16 limit) external view returns (LookupItem[] memory) {
        return S.uidLookup(netuid, evm_address, limit);
    }
}
