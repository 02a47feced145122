package chain

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/mr-tron/base58"
	"golang.org/x/crypto/blake2b"
)

// AccountID is a substrate account (a 32-byte public key or hash), as the
// chain stores hotkeys and coldkeys.
type AccountID [32]byte

// SS58Prefix42 is the generic substrate address format Bittensor uses.
const SS58Prefix42 = 42

// Mirror returns the substrate account an EVM address acts as on subtensor:
// blake2b_256("evm:" ‖ address). Frontier's HashedAddressMapping does this,
// so a validator registered with this hotkey can set weights over EVM.
func Mirror(addr common.Address) AccountID {
	var buf [24]byte
	copy(buf[:4], "evm:")
	copy(buf[4:], addr[:])
	return blake2b.Sum256(buf[:])
}

// Hex is the 0x-prefixed hex form.
func (a AccountID) Hex() string { return "0x" + hex.EncodeToString(a[:]) }

// IsZero reports an unset account.
func (a AccountID) IsZero() bool { return a == AccountID{} }

// SS58 encodes the account with network prefix 42: base58(prefix ‖ key ‖
// first two bytes of blake2b_512("SS58PRE" ‖ prefix ‖ key)).
func (a AccountID) SS58() string {
	payload := make([]byte, 0, 35)
	payload = append(payload, SS58Prefix42)
	payload = append(payload, a[:]...)
	sum := ss58Checksum(payload)
	return base58.Encode(append(payload, sum[0], sum[1]))
}

// String is the SS58 form, which is how Bittensor tools show accounts.
func (a AccountID) String() string { return a.SS58() }

// ParseSS58 decodes a prefix-42 SS58 address and verifies its checksum.
func ParseSS58(s string) (AccountID, error) {
	raw, err := base58.Decode(s)
	if err != nil {
		return AccountID{}, fmt.Errorf("ss58 %q: %w", s, err)
	}
	if len(raw) != 35 {
		return AccountID{}, fmt.Errorf("ss58 %q: %d bytes, want 35 (one-byte prefix, 32-byte key, checksum)", s, len(raw))
	}
	if raw[0] != SS58Prefix42 {
		return AccountID{}, fmt.Errorf("ss58 %q: network prefix %d, want %d", s, raw[0], SS58Prefix42)
	}
	sum := ss58Checksum(raw[:33])
	if !bytes.Equal(sum[:2], raw[33:]) {
		return AccountID{}, fmt.Errorf("ss58 %q: bad checksum", s)
	}
	var a AccountID
	copy(a[:], raw[1:33])
	return a, nil
}

func ss58Checksum(payload []byte) [64]byte {
	h, _ := blake2b.New512(nil) // cannot fail without a key
	h.Write([]byte("SS58PRE"))
	h.Write(payload)
	var out [64]byte
	copy(out[:], h.Sum(nil))
	return out
}
