package chain

import (
	"encoding/binary"
	"fmt"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/crypto/blake2b"
)

// Substrate storage keys, as subtensor's StorageQuery precompile (0x807) takes them.
//
// A FRAME storage item's key is twox_128(pallet) ‖ twox_128(item): that is the whole key of a
// StorageValue, and the prefix of every entry of a StorageMap, which appends its hasher applied
// to the SCALE encoding of the map key. twox_n is xxHash64 run with seeds 0, 1, … over the same
// input, each 64-bit result written little-endian.

// Hasher is a StorageMap key hasher.
type Hasher uint8

const (
	// HasherIdentity appends the encoded key itself.
	HasherIdentity Hasher = iota
	// HasherTwox64Concat appends twox_64(key) ‖ key.
	HasherTwox64Concat
	// HasherBlake2_128Concat appends blake2_128(key) ‖ key.
	HasherBlake2_128Concat
)

func (h Hasher) String() string {
	switch h {
	case HasherIdentity:
		return "Identity"
	case HasherTwox64Concat:
		return "Twox64Concat"
	case HasherBlake2_128Concat:
		return "Blake2_128Concat"
	default:
		return fmt.Sprintf("Hasher(%d)", uint8(h))
	}
}

// Hash returns the part of a map entry's key that follows the item prefix.
func (h Hasher) Hash(key []byte) []byte {
	switch h {
	case HasherIdentity:
		return append([]byte(nil), key...)
	case HasherTwox64Concat:
		sum := Twox64(key)
		return append(sum[:], key...)
	case HasherBlake2_128Concat:
		sum := Blake2_128(key)
		return append(sum[:], key...)
	default:
		panic(fmt.Sprintf("chain: unknown storage hasher %d", uint8(h)))
	}
}

// twox appends xxHash64 of data with seeds 0 … n-1, little-endian.
func twox(dst, data []byte, n int) []byte {
	for seed := range n {
		d := xxhash.NewWithSeed(uint64(seed))
		_, _ = d.Write(data)
		dst = binary.LittleEndian.AppendUint64(dst, d.Sum64())
	}
	return dst
}

// Twox128 is substrate's twox_128.
func Twox128(data []byte) [16]byte { return [16]byte(twox(nil, data, 2)) }

// Twox64 is substrate's twox_64.
func Twox64(data []byte) [8]byte { return [8]byte(twox(nil, data, 1)) }

// Blake2_128 is substrate's blake2_128: BLAKE2b with a 16-byte digest.
func Blake2_128(data []byte) [16]byte {
	h, err := blake2b.New(16, nil)
	if err != nil {
		panic(err) // a 16-byte digest without a key is always valid
	}
	_, _ = h.Write(data)
	return [16]byte(h.Sum(nil))
}

// StoragePrefix is twox_128(pallet) ‖ twox_128(item).
func StoragePrefix(pallet, item string) []byte {
	out := twox(nil, []byte(pallet), 2)
	return twox(out, []byte(item), 2)
}

// StorageMapKey is the key of one map entry: StoragePrefix ‖ hasher(encodedKey).
func StorageMapKey(pallet, item string, h Hasher, encodedKey []byte) []byte {
	return append(StoragePrefix(pallet, item), h.Hash(encodedKey)...)
}

// StorageDoubleMapKey is the key of one StorageDoubleMap entry:
// StoragePrefix ‖ h1(encodedKey1) ‖ h2(encodedKey2).
func StorageDoubleMapKey(pallet, item string, h1 Hasher, encodedKey1 []byte, h2 Hasher, encodedKey2 []byte) []byte {
	return append(StorageMapKey(pallet, item, h1, encodedKey1), h2.Hash(encodedKey2)...)
}

// SubtensorPallet is the storage prefix of subtensor's pallet (its name in construct_runtime).
const SubtensorPallet = "SubtensorModule"

// StorageItem is one SubtensorModule item the reader decodes: a StorageValue, a StorageMap
// keyed by NetUid (a u16, SCALE little-endian), or a StorageDoubleMap keyed by (NetUid, u16
// uid). Every item here is a ValueQuery: a missing entry reads as Default.
type StorageItem struct {
	Name   string // the item's name in pallets/subtensor/src/lib.rs
	Map    bool   // keyed by netuid; false: a StorageValue
	Hasher Hasher // the map's hasher (of the netuid)
	// ByUID: a StorageDoubleMap whose second key is a uid (u16), hashed with UIDHasher.
	ByUID     bool
	UIDHasher Hasher
	Size      int // bytes of the SCALE-encoded value (all values here are fixed-size)
	// Default is the pallet's default, as the little-endian integer the value encodes (the
	// raw bits for MinerBurned's U96F32, whose default 0 fits).
	Default uint64
}

// The SubtensorModule items the reader knows, as declared in opentensor/subtensor
// pallets/subtensor/src/lib.rs (docs/chain.md cites the lines).
var (
	ItemTempo                      = StorageItem{Name: "Tempo", Map: true, Hasher: HasherIdentity, Size: 2, Default: 360}
	ItemLastEpochBlock             = StorageItem{Name: "LastEpochBlock", Map: true, Hasher: HasherIdentity, Size: 8}
	ItemPendingEpochAt             = StorageItem{Name: "PendingEpochAt", Map: true, Hasher: HasherIdentity, Size: 8}
	ItemSubnetEpochIndex           = StorageItem{Name: "SubnetEpochIndex", Map: true, Hasher: HasherIdentity, Size: 8}
	ItemRevealPeriodEpochs         = StorageItem{Name: "RevealPeriodEpochs", Map: true, Hasher: HasherTwox64Concat, Size: 8, Default: 1}
	ItemMechanismCountCurrent      = StorageItem{Name: "MechanismCountCurrent", Map: true, Hasher: HasherTwox64Concat, Size: 1, Default: 1}
	ItemMinerBurned                = StorageItem{Name: "MinerBurned", Map: true, Hasher: HasherIdentity, Size: 16}
	ItemCommitRevealWeightsVersion = StorageItem{Name: "CommitRevealWeightsVersion", Size: 2, Default: 4}
	ItemBlockAtRegistration        = StorageItem{Name: "BlockAtRegistration", Map: true, Hasher: HasherIdentity,
		ByUID: true, UIDHasher: HasherIdentity, Size: 8}
)

// Key is the item's storage key for netuid (ignored for a StorageValue). For a ByUID item it
// is the prefix every uid's entry of netuid shares; UIDKey is an entry's key.
func (it StorageItem) Key(netuid uint16) []byte {
	if !it.Map {
		return StoragePrefix(SubtensorPallet, it.Name)
	}
	return StorageMapKey(SubtensorPallet, it.Name, it.Hasher, binary.LittleEndian.AppendUint16(nil, netuid))
}

// UIDKey is the storage key of a ByUID item's entry for (netuid, uid).
func (it StorageItem) UIDKey(netuid, uid uint16) []byte {
	if !it.ByUID {
		panic(fmt.Sprintf("chain: storage item %s is not keyed by uid", it.Name))
	}
	return StorageDoubleMapKey(SubtensorPallet, it.Name, it.Hasher, binary.LittleEndian.AppendUint16(nil, netuid),
		it.UIDHasher, binary.LittleEndian.AppendUint16(nil, uid))
}

// decode checks a raw value's size and returns it as a little-endian integer (sizes up to 8);
// an empty value (no entry) gives Default.
func (it StorageItem) decode(raw []byte) (uint64, error) {
	if len(raw) == 0 {
		return it.Default, nil
	}
	if len(raw) != it.Size || it.Size > 8 {
		return 0, fmt.Errorf("storage %s: %d-byte value, want %d", it.Name, len(raw), it.Size)
	}
	var le [8]byte
	copy(le[:], raw)
	return binary.LittleEndian.Uint64(le[:]), nil
}

// U96F32 is substrate_fixed's unsigned fixed point with 96 integer and 32 fractional bits,
// SCALE-encoded as its 128 raw bits, little-endian. Value = bits / 2^32.
type U96F32 struct{ Lo, Hi uint64 }

// DecodeU96F32 reads the 16-byte SCALE encoding.
func DecodeU96F32(raw []byte) (U96F32, error) {
	if len(raw) != 16 {
		return U96F32{}, fmt.Errorf("U96F32: %d bytes, want 16", len(raw))
	}
	return U96F32{Lo: binary.LittleEndian.Uint64(raw[:8]), Hi: binary.LittleEndian.Uint64(raw[8:])}, nil
}

// Encode is the 16-byte SCALE encoding.
func (f U96F32) Encode() []byte {
	out := binary.LittleEndian.AppendUint64(nil, f.Lo)
	return binary.LittleEndian.AppendUint64(out, f.Hi)
}

// Float64 is the value, rounded to float64.
func (f U96F32) Float64() float64 {
	return float64(f.Hi)*(1<<32) + float64(f.Lo)/(1<<32)
}
