// Keys, EIP-191 signatures and the hotkey mirror (docs/protocol.md §3.2 and
// §3 step 4), on audited libraries: @noble/curves (secp256k1), @noble/hashes
// (keccak-256, blake2b) and @scure/base (base58).
import { randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { blake2b } from "@noble/hashes/blake2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { base58 } from "@scure/base";

/** A secp256k1 key and its EVM address. */
export interface Key {
  secret: Uint8Array;
  /** EIP-55 checksummed `0x` address. */
  address: string;
}

/** parseKey reads a 32-byte private key written as 64 hex digits (optional 0x). */
export function parseKey(hex: string): Key {
  const h = hex.trim().replace(/^0x/i, "");
  if (!/^[0-9a-fA-F]{64}$/.test(h)) {
    throw new Error("private key: want 64 hex digits (32 bytes), optionally prefixed with 0x");
  }
  const secret = hexToBytes(h.toLowerCase());
  if (!secp256k1.utils.isValidSecretKey(secret)) {
    throw new Error("private key: not a valid secp256k1 key");
  }
  return { secret, address: addressOf(secp256k1.getPublicKey(secret, false)) };
}

/** generateKey makes a fresh random key (from Node's CSPRNG, present on every Node version). */
export function generateKey(): Key {
  for (;;) {
    const secret = randomBytes(32);
    if (secp256k1.utils.isValidSecretKey(secret)) return parseKey(secret.toString("hex"));
  }
}

/** keyHex writes a key's secret as 64 lowercase hex digits. */
export function keyHex(k: Key): string {
  return bytesToHex(k.secret);
}

/** addressOf derives the EVM address of an uncompressed (65-byte) public key. */
function addressOf(uncompressed: Uint8Array): string {
  const digest = keccak_256(uncompressed.subarray(1)); // drop the 0x04 prefix
  return checksumAddress("0x" + bytesToHex(digest.subarray(12)));
}

/** checksumAddress writes an address in EIP-55 mixed case. */
export function checksumAddress(address: string): string {
  const lower = address.toLowerCase().replace(/^0x/, "");
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  let out = "0x";
  for (let i = 0; i < lower.length; i++) {
    out += parseInt(hash[i], 16) >= 8 ? lower[i].toUpperCase() : lower[i];
  }
  return out;
}

/** textHash is the EIP-191 personal-message hash (§3.2). */
function textHash(payload: string): Uint8Array {
  const body = utf8ToBytes(payload);
  const prefix = utf8ToBytes(`\x19Ethereum Signed Message:\n${body.length}`);
  return keccak_256(concatBytes(prefix, body));
}

/** sign signs payload as `personal_sign` does: `0x` + r ‖ s ‖ v, v = 27 + recovery id. */
export function sign(payload: string, key: Key): string {
  // format "recovered" is recovery id ‖ r ‖ s; the wire wants r ‖ s ‖ v.
  const sig = secp256k1.sign(textHash(payload), key.secret, { prehash: false, format: "recovered" });
  const v = new Uint8Array([27 + sig[0]]);
  return "0x" + bytesToHex(concatBytes(sig.subarray(1), v));
}

/**
 * recoverAddress returns the checksummed address whose key signed payload,
 * or throws when the signature is not one (§3.2: v ∈ {27, 28}, 0 and 1 also
 * accepted).
 */
export function recoverAddress(payload: string, signature: string): string {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw new Error("signature: want 0x + 130 hex digits");
  const bytes = hexToBytes(signature.slice(2).toLowerCase());
  let v = bytes[64];
  if (v === 27 || v === 28) v -= 27;
  if (v !== 0 && v !== 1) throw new Error(`signature: v is ${bytes[64]}, want 27 or 28`);
  const recovered = concatBytes(new Uint8Array([v]), bytes.subarray(0, 64));
  const pub = secp256k1.recoverPublicKey(recovered, textHash(payload), { prehash: false });
  return addressOf(secp256k1.Point.fromBytes(pub).toBytes(false));
}

/** Bittensor's SS58 address format (the generic substrate prefix). */
const SS58_PREFIX = 42;

/**
 * hotkeyOf is the mirror of an EVM address as an SS58 account:
 * blake2b_256("evm:" ‖ the 20 address bytes) (§3 step 4), the hotkey the
 * miner registers.
 */
export function hotkeyOf(address: string): string {
  const account = blake2b(concatBytes(utf8ToBytes("evm:"), hexToBytes(address.slice(2).toLowerCase())), { dkLen: 32 });
  const body = concatBytes(new Uint8Array([SS58_PREFIX]), account);
  const check = blake2b(concatBytes(utf8ToBytes("SS58PRE"), body), { dkLen: 64 }).subarray(0, 2);
  return base58.encode(concatBytes(body, check));
}
