"""Keys and signatures for the arena handshake (docs/protocol.md §3.1, §3.2).

secp256k1 is written out here because no Debian package gives the recovery
id: python3-ecdsa and python3-cryptography sign and verify, but the
protocol's signatures are Ethereum's r ‖ s ‖ v, which a verifier checks by
recovering the public key (ecrecover). keccak-256 comes from Debian's
pycryptodome (imported as Cryptodome; hashlib.sha3_256 is SHA-3, whose
padding differs from keccak's), blake2b from hashlib.

Signatures are made with low s (s ≤ n/2), as Ethereum wallets make them;
verification accepts high s too, as the validator does.
"""

import hashlib
import hmac
import re

from Cryptodome.Hash import keccak

# The curve: y² = x³ + 7 over F_p, generator G of prime order N.
P = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
G = (0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798,
     0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8)


def _add(a, b):
    """Point addition; None is the point at infinity."""
    if a is None:
        return b
    if b is None:
        return a
    if a[0] == b[0] and (a[1] + b[1]) % P == 0:
        return None
    if a == b:
        lam = 3 * a[0] * a[0] * pow(2 * a[1], -1, P) % P
    else:
        lam = (b[1] - a[1]) * pow(b[0] - a[0], -1, P) % P
    x = (lam * lam - a[0] - b[0]) % P
    return x, (lam * (a[0] - x) - a[1]) % P


def _mul(k, pt):
    out = None
    while k:
        if k & 1:
            out = _add(out, pt)
        pt = _add(pt, pt)
        k >>= 1
    return out


def keccak256(data: bytes) -> bytes:
    return keccak.new(digest_bits=256, data=data).digest()


def address_of(pub) -> bytes:
    """The 20-byte EVM address of a public key point."""
    return keccak256(pub[0].to_bytes(32, "big") + pub[1].to_bytes(32, "big"))[12:]


def public_key(priv: int):
    return _mul(priv, G)


def checksum_address(addr: bytes) -> str:
    """EIP-55: hex digits upper-cased where the hash of the lowercase text has a high nibble."""
    low = addr.hex()
    h = keccak256(low.encode()).hex()
    return "0x" + "".join(c.upper() if c.isalpha() and int(h[i], 16) >= 8 else c for i, c in enumerate(low))


def text_hash(payload: str) -> bytes:
    """EIP-191 personal message hash (what personal_sign signs)."""
    data = payload.encode()
    return keccak256(b"\x19Ethereum Signed Message:\n" + str(len(data)).encode() + data)


def _nonce_k(priv: int, digest: bytes) -> int:
    """RFC 6979 deterministic k with HMAC-SHA256: no randomness to get wrong."""
    x = priv.to_bytes(32, "big")
    h = (int.from_bytes(digest, "big") % N).to_bytes(32, "big")
    v, k = b"\x01" * 32, b"\x00" * 32
    k = hmac.new(k, v + b"\x00" + x + h, hashlib.sha256).digest()
    v = hmac.new(k, v, hashlib.sha256).digest()
    k = hmac.new(k, v + b"\x01" + x + h, hashlib.sha256).digest()
    v = hmac.new(k, v, hashlib.sha256).digest()
    while True:
        v = hmac.new(k, v, hashlib.sha256).digest()
        cand = int.from_bytes(v, "big")
        if 1 <= cand < N:
            return cand
        k = hmac.new(k, v + b"\x00", hashlib.sha256).digest()
        v = hmac.new(k, v, hashlib.sha256).digest()


def sign(priv: int, payload: str) -> str:
    """The protocol's signature of payload: 0x ‖ r ‖ s ‖ v, v = 27 + recovery id, low s."""
    digest = text_hash(payload)
    z = int.from_bytes(digest, "big")
    while True:
        k = _nonce_k(priv, digest)
        R = _mul(k, G)
        r = R[0] % N
        s = pow(k, -1, N) * (z + r * priv) % N
        if r and s:
            break
    rec = (R[1] & 1) | (2 if R[0] >= N else 0)
    if s > N // 2:
        s, rec = N - s, rec ^ 1
    return "0x" + r.to_bytes(32, "big").hex() + s.to_bytes(32, "big").hex() + bytes([27 + rec]).hex()


SIG_RE = re.compile(r"^0x[0-9a-fA-F]{130}$")


def recover(payload: str, signature: str) -> bytes:
    """ecrecover: the address that signed payload. Raises ValueError when the signature is not one."""
    if not SIG_RE.match(signature):
        raise ValueError("signature is not 0x and 130 hex digits")
    raw = bytes.fromhex(signature[2:])
    r, s, v = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:64], "big"), raw[64]
    if v >= 27:
        v -= 27
    if v not in (0, 1, 2, 3) or not (0 < r < N) or not (0 < s < N):
        raise ValueError("signature out of range")
    x = r + (N if v & 2 else 0)
    if x >= P:
        raise ValueError("signature out of range")
    y = pow((x * x * x + 7) % P, (P + 1) // 4, P)
    if (y * y - (x * x * x + 7)) % P:
        raise ValueError("r is not on the curve")
    if y & 1 != v & 1:
        y = P - y
    z = int.from_bytes(text_hash(payload), "big")
    r_inv = pow(r, -1, N)
    # Q = r⁻¹ (s·R − z·G)
    q = _add(_mul(s * r_inv % N, (x, y)), _mul((-z * r_inv) % N, G))
    if q is None:
        raise ValueError("signature recovers to no key")
    return address_of(q)


_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _base58(data: bytes) -> str:
    n = int.from_bytes(data, "big")
    out = ""
    while n:
        n, rem = divmod(n, 58)
        out = _B58[rem] + out
    return "1" * (len(data) - len(data.lstrip(b"\x00"))) + out


def mirror_hotkey(addr: bytes) -> str:
    """The substrate account subtensor maps an EVM address to, blake2b_256("evm:" ‖ address), as SS58 (prefix 42)."""
    account = hashlib.blake2b(b"evm:" + addr, digest_size=32).digest()
    payload = bytes([42]) + account
    check = hashlib.blake2b(b"SS58PRE" + payload, digest_size=64).digest()[:2]
    return _base58(payload + check)
