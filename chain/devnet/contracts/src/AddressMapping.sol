// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Blake2b} from "./Blake2b.sol";

/// AddressMapping precompile facade (0x80c): the substrate account of an EVM address.
contract AddressMapping {
    function addressMapping(address target_address) external view returns (bytes32) {
        return Blake2b.mirror(target_address);
    }
}
