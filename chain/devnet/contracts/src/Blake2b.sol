// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// BLAKE2b-256 (unkeyed, 32-byte digest) on top of the EIP-152 compression precompile (0x09).
library Blake2b {
    // Initial state h[0..7] serialised as little-endian u64s: the BLAKE2b IV with
    // h0 ^= 0x01010000 ^ 32 (no key, 32-byte digest).
    bytes32 private constant H_LO = 0x28c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5;
    bytes32 private constant H_HI = 0xd182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b;

    /// blake2b_256(data).
    function hash256(bytes memory data) internal view returns (bytes32 digest) {
        bool ok = true;
        assembly ("memory-safe") {
            // Scratch buffer for the 213-byte EIP-152 input (256 bytes reserved):
            //   [0,4)     rounds (big-endian u32) = 12
            //   [4,68)    h, 8 little-endian u64
            //   [68,196)  m, the message block zero-padded
            //   [196,212) t, two little-endian u64 (low, high)
            //   [212]     f, final-block flag
            let buf := mload(0x40)
            mstore(0x40, add(buf, 256))
            mstore(buf, shl(224, 12))
            mstore(add(buf, 4), H_LO)
            mstore(add(buf, 36), H_HI)

            let n := mload(data)
            let src := add(data, 32)
            let off := 0
            for {} 1 {} {
                let chunk := sub(n, off)
                if gt(chunk, 128) { chunk := 128 }
                let m := add(buf, 68)
                mstore(m, 0)
                mstore(add(m, 32), 0)
                mstore(add(m, 64), 0)
                mstore(add(m, 96), 0)
                mcopy(m, add(src, off), chunk)
                off := add(off, chunk)

                let t := add(buf, 196)
                mstore(t, 0) // clears t (16 bytes), f and the unused tail of the buffer
                for { let i := 0 } lt(i, 8) { i := add(i, 1) } {
                    mstore8(add(t, i), shr(mul(8, i), off))
                }
                let last := eq(off, n)
                if last { mstore8(add(buf, 212), 1) }

                // The new state replaces h in place.
                if iszero(staticcall(gas(), 0x09, buf, 213, add(buf, 4), 64)) {
                    ok := 0
                    break
                }
                if last { break }
            }
            digest := mload(add(buf, 4))
        }
        require(ok, "Blake2bFailed");
    }

    /// The substrate account an EVM address acts as: blake2b_256("evm:" ++ address).
    function mirror(address a) internal view returns (bytes32) {
        return hash256(abi.encodePacked("evm:", a));
    }
}

/// Minimal SCALE encoding helpers.
library Scale {
    /// Length in bytes of the compact encoding of n.
    function compactLen(uint256 n) internal pure returns (uint256) {
        if (n < 64) return 1;
        if (n < 1 << 14) return 2;
        require(n < 1 << 30, "CompactTooLarge");
        return 4;
    }

    /// Writes the compact encoding of n at p; returns the position after it.
    function writeCompact(uint256 p, uint256 n) internal pure returns (uint256) {
        uint256 len = compactLen(n);
        uint256 v = (n << 2) | (len == 1 ? 0 : (len == 2 ? 1 : 2));
        return writeLE(p, v, len);
    }

    /// Writes the low `len` bytes of v little-endian at p; returns the position after them.
    function writeLE(uint256 p, uint256 v, uint256 len) internal pure returns (uint256) {
        assembly ("memory-safe") {
            for { let i := 0 } lt(i, len) { i := add(i, 1) } {
                mstore8(add(p, i), shr(mul(8, i), v))
            }
        }
        return p + len;
    }

    /// Writes SCALE(Vec<u16>) at p; returns the position after it.
    function writeVecU16(uint256 p, uint16[] memory v) internal pure returns (uint256) {
        p = writeCompact(p, v.length);
        for (uint256 i = 0; i < v.length; i++) {
            p = writeLE(p, v[i], 2);
        }
        return p;
    }

    /// SCALE((account32, u16 netuid, Vec<u16> uids, Vec<u16> values, Vec<u16> salt, u64 versionKey)).
    function encodeCommit(
        bytes32 account,
        uint16 netuid,
        uint16[] memory uids,
        uint16[] memory values,
        uint16[] memory salt,
        uint64 versionKey
    ) internal pure returns (bytes memory out) {
        uint256 size = 32 + 2 + compactLen(uids.length) + 2 * uids.length + compactLen(values.length)
            + 2 * values.length + compactLen(salt.length) + 2 * salt.length + 8;
        out = new bytes(size);
        uint256 p;
        assembly ("memory-safe") {
            p := add(out, 32)
            mstore(p, account)
        }
        p = writeLE(p + 32, netuid, 2);
        p = writeVecU16(p, uids);
        p = writeVecU16(p, values);
        p = writeVecU16(p, salt);
        writeLE(p, versionKey, 8);
    }
}
