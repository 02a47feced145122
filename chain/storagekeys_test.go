package chain

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math/bits"
	"strings"
	"testing"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// TestTwox128PalletPrefixes checks twox_128 against the prefixes subtensor's StorageQuery
// precompile hard-codes (opentensor/subtensor precompiles/src/storage_query.rs:10-61,
// AUTHORIZED_PREFIXES).
func TestTwox128PalletPrefixes(t *testing.T) {
	for _, tc := range []struct{ pallet, want string }{
		{"SubtensorModule", "658faa385070e074c85bf6b568cf0555"},
		{"Swap", "746cc6d1e9dbcf1d03868e492c1d836e"},
		{"Balances", "c2261276cc9d1f8598ea4b6a74b15c2f"},
		{"Proxy", "1809d78346727a0ef58c0fa03bafa323"},
		{"Scheduler", "3db7a24cfdc9de785974746c14a99df9"},
		{"Drand", "a285cdb66e8b8524ea70b1693c7b1e05"},
		{"Crowdloan", "3d9cad2baf702e20b136f4c8900cd802"},
		{"Sudo", "5c0d1176a568c1f92944340dbfed9e9c"},
		{"Multisig", "7474449cca95dc5d0c00e71735a6d17d"},
		{"Timestamp", "f0c365c3cf59d671eb72da0e7a4113c4"},
	} {
		t.Run(tc.pallet, func(t *testing.T) {
			got := Twox128([]byte(tc.pallet))
			if hex.EncodeToString(got[:]) != tc.want {
				t.Errorf("twox_128(%q) = %x, want %s", tc.pallet, got, tc.want)
			}
			// twox_64 is the first half of twox_128 (seed 0).
			if t64 := Twox64([]byte(tc.pallet)); !bytes.Equal(t64[:], got[:8]) {
				t.Errorf("twox_64(%q) = %x, want %x", tc.pallet, t64, got[:8])
			}
		})
	}
}

// xxh64Short is XXH64 for inputs under four bytes, written from the xxHash specification
// (seed + PRIME64_5 + len, each byte folded in with PRIME64_5 and PRIME64_1, then the
// avalanche), independently of the library the package uses.
func xxh64Short(data []byte, seed uint64) uint64 {
	const (
		p1 = 0x9E3779B185EBCA87
		p2 = 0xC2B2AE3D27D4EB4F
		p3 = 0x165667B19E3779F9
		p5 = 0x27D4EB2F165667C5
	)
	if len(data) >= 4 {
		panic("xxh64Short: input too long")
	}
	h := seed + p5 + uint64(len(data))
	for _, b := range data {
		h ^= uint64(b) * p5
		h = bits.RotateLeft64(h, 11) * p1
	}
	h ^= h >> 33
	h *= p2
	h ^= h >> 29
	h *= p3
	h ^= h >> 32
	return h
}

// handKey derives a SubtensorModule key by hand: the pallet prefix of storage_query.rs, the
// item's twox_128 given as hex, and the netuid's hash from xxh64Short.
func handKey(t *testing.T, itemTwox128 string, hasher Hasher, netuid uint16) []byte {
	t.Helper()
	key := unhex(t, "658faa385070e074c85bf6b568cf0555"+itemTwox128)
	le := binary.LittleEndian.AppendUint16(nil, netuid)
	switch hasher {
	case HasherIdentity:
		return append(key, le...)
	case HasherTwox64Concat:
		key = binary.LittleEndian.AppendUint64(key, xxh64Short(le, 0))
		return append(key, le...)
	default:
		t.Fatalf("no hand derivation for %s", hasher)
		return nil
	}
}

// TestStorageKeys checks every item's key. The Tempo keys are those of subtensor's raonet
// chain spec (scripts/specs/raonet.json:279-280); the others are derived by hand.
func TestStorageKeys(t *testing.T) {
	for _, tc := range []struct {
		name   string
		item   StorageItem
		netuid uint16
		want   string
	}{
		{"Tempo 0 (raonet.json:279)", ItemTempo, 0, "658faa385070e074c85bf6b568cf05557641384bb339f3758acddfd7053d33170000"},
		{"Tempo 1 (raonet.json:280)", ItemTempo, 1, "658faa385070e074c85bf6b568cf05557641384bb339f3758acddfd7053d33170100"},
		{"Tempo 300", ItemTempo, 300, "658faa385070e074c85bf6b568cf05557641384bb339f3758acddfd7053d33172c01"},
		{"LastEpochBlock 1", ItemLastEpochBlock, 1, "658faa385070e074c85bf6b568cf055590010c37124c14146041452f9ffba0df0100"},
		{"PendingEpochAt 1", ItemPendingEpochAt, 1, "658faa385070e074c85bf6b568cf05553328b142e30b57e47a52648ba110e3a70100"},
		{"SubnetEpochIndex 1", ItemSubnetEpochIndex, 1, "658faa385070e074c85bf6b568cf05554f101d7a30ae31c7ab3099206c5ae12b0100"},
		{"MinerBurned 1", ItemMinerBurned, 1, "658faa385070e074c85bf6b568cf05551eac6222ebba7feba4ca36a94736815e0100"},
		{"RevealPeriodEpochs 1", ItemRevealPeriodEpochs, 1, "658faa385070e074c85bf6b568cf05558f232bcbac768c1d6201850c60f161edf1577fbf1d628fdd0100"},
		{"MechanismCountCurrent 1", ItemMechanismCountCurrent, 1, "658faa385070e074c85bf6b568cf0555604fb97037feb8522bf37d42d54fa6e9f1577fbf1d628fdd0100"},
		{"CommitRevealWeightsVersion", ItemCommitRevealWeightsVersion, 7, "658faa385070e074c85bf6b568cf055570d1da21926e4e8efdfb497ee508d611"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := hex.EncodeToString(tc.item.Key(tc.netuid)); got != tc.want {
				t.Errorf("key = %s\n want %s", got, tc.want)
			}
		})
	}
}

// TestBlockAtRegistrationKeys checks the double map's keys: (netuid 1, uid 0) is an entry of
// subtensor's raonet chain spec (scripts/specs/raonet.json:268, value 0x0000000000000000, the
// genesis neuron registered at block 0); the others are derived by hand as prefix ‖
// twox_128("BlockAtRegistration") ‖ netuid ‖ uid, both Identity-hashed little-endian u16s.
func TestBlockAtRegistrationKeys(t *testing.T) {
	const prefix = "658faa385070e074c85bf6b568cf0555" + "5306000b65aa58c97bf98ad9f8619049"
	for _, tc := range []struct {
		name        string
		netuid, uid uint16
		want        string
	}{
		{"raonet.json:268", 1, 0, prefix + "0100" + "0000"},
		{"netuid 15 uid 7", 15, 7, prefix + "0f00" + "0700"},
		{"netuid 1 uid 255", 1, 255, prefix + "0100" + "ff00"},
		{"netuid 1 uid 256", 1, 256, prefix + "0100" + "0001"},
		{"netuid 300 uid 4095", 300, 4095, prefix + "2c01" + "ff0f"},
		{"netuid 65535 uid 65535", 65535, 65535, prefix + "ffff" + "ffff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := hex.EncodeToString(ItemBlockAtRegistration.UIDKey(tc.netuid, tc.uid)); got != tc.want {
				t.Errorf("key = %s\n want %s", got, tc.want)
			}
		})
	}
	// The item prefix of every uid of a netuid is what Key gives.
	if got := hex.EncodeToString(ItemBlockAtRegistration.Key(1)); got != prefix+"0100" {
		t.Errorf("Key(1) = %s, want %s", got, prefix+"0100")
	}
	// Hashers apply to their own key: a Twox64Concat second key hashes the uid alone.
	uid := binary.LittleEndian.AppendUint16(nil, 7)
	got := StorageDoubleMapKey(SubtensorPallet, "BlockAtRegistration", HasherIdentity, []byte{1, 0}, HasherTwox64Concat, uid)
	want := unhex(t, prefix+"0100")
	want = binary.LittleEndian.AppendUint64(want, xxh64Short(uid, 0))
	if want = append(want, uid...); !bytes.Equal(got, want) {
		t.Errorf("Twox64Concat uid: key %x, want %x", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("UIDKey of an item not keyed by uid did not panic")
		}
	}()
	ItemTempo.UIDKey(1, 0)
}

// TestStorageKeysByHand compares Key with keys derived by hand for netuids around the u16
// byte boundaries, for both netuid hashers.
func TestStorageKeysByHand(t *testing.T) {
	items := []struct {
		item StorageItem
		twox string // twox_128 of the item name
	}{
		{ItemTempo, "7641384bb339f3758acddfd7053d3317"},
		{ItemRevealPeriodEpochs, "8f232bcbac768c1d6201850c60f161ed"},
		{ItemMechanismCountCurrent, "604fb97037feb8522bf37d42d54fa6e9"},
	}
	for _, it := range items {
		if got := Twox128([]byte(it.item.Name)); hex.EncodeToString(got[:]) != it.twox {
			t.Fatalf("twox_128(%q) = %x, want %s", it.item.Name, got, it.twox)
		}
		for _, netuid := range []uint16{0, 1, 2, 3, 15, 255, 256, 4096, 65535} {
			want := handKey(t, it.twox, it.item.Hasher, netuid)
			if got := it.item.Key(netuid); !bytes.Equal(got, want) {
				t.Errorf("%s netuid %d: key %x, want %x", it.item.Name, netuid, got, want)
			}
		}
	}
	// The hand-written XXH64 agrees with the library on its own, for every short input shape.
	for _, in := range [][]byte{{}, {0}, {1, 0}, {0xff, 0xff}, {1, 2, 3}} {
		for _, seed := range []uint64{0, 1} {
			var want [8]byte
			binary.LittleEndian.PutUint64(want[:], xxh64Short(in, seed))
			got := twox(nil, in, 2)[8*seed : 8*seed+8]
			if !bytes.Equal(got, want[:]) {
				t.Errorf("xxh64(%x, seed %d) = %x, want %x", in, seed, got, want)
			}
		}
	}
	// twox_64 of the empty input: XXH64's published empty-string digest 0xEF46DB3751D8E999.
	if got := Twox64(nil); hex.EncodeToString(got[:]) != "99e9d85137db46ef" {
		t.Errorf("twox_64(\"\") = %x", got)
	}
}

// TestHashers checks each hasher's layout; Blake2_128Concat against System.Account entries of
// subtensor's raonet chain spec (scripts/specs/raonet.json:38-39), whose keys are
// twox_128("System") ‖ twox_128("Account") ‖ blake2_128(account) ‖ account.
func TestHashers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pallet string
		item   string
		hasher Hasher
		key    string
		want   string
	}{
		{"System.Account raonet.json:38", "System", "Account", HasherBlake2_128Concat,
			"c60bb5ab1f84fbd832c80c193eb5125ae8108fee66c59b63f655ef448581ed36",
			"26aa394eea5630e07c48ae0c9558cef7b99d880ec681799c0cf30e8886371da90074e65d4e41029f9beb41cb1900943bc60bb5ab1f84fbd832c80c193eb5125ae8108fee66c59b63f655ef448581ed36"},
		{"System.Account raonet.json:39", "System", "Account", HasherBlake2_128Concat,
			"5a21c16d0cace02174a95a9e6e9ff5f315ab481b2644e6b1d0b31d5091ea181d",
			"26aa394eea5630e07c48ae0c9558cef7b99d880ec681799c0cf30e8886371da901b2f1e31fc91d38258c9e2c2e133a1f5a21c16d0cace02174a95a9e6e9ff5f315ab481b2644e6b1d0b31d5091ea181d"},
		{"Identity", "SubtensorModule", "Tempo", HasherIdentity, "0100",
			"658faa385070e074c85bf6b568cf05557641384bb339f3758acddfd7053d33170100"},
		{"Twox64Concat", "SubtensorModule", "RevealPeriodEpochs", HasherTwox64Concat, "0000",
			"658faa385070e074c85bf6b568cf05558f232bcbac768c1d6201850c60f161ed01a12dfa1fa4ab9a0000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := StorageMapKey(tc.pallet, tc.item, tc.hasher, unhex(t, tc.key))
			if hex.EncodeToString(got) != tc.want {
				t.Errorf("key = %x\n want %s", got, tc.want)
			}
		})
	}
	if s := Hasher(9).String(); s != "Hasher(9)" {
		t.Errorf("String = %q", s)
	}
}

func TestStorageDecode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		item    StorageItem
		raw     string
		want    uint64
		wantErr bool
	}{
		{"Tempo raonet value 0x6400", ItemTempo, "6400", 100, false},
		{"Tempo missing: DefaultTempo 360", ItemTempo, "", 360, false},
		{"Tempo too long", ItemTempo, "640000", 0, true},
		{"Tempo too short", ItemTempo, "64", 0, true},
		{"LastEpochBlock", ItemLastEpochBlock, "0807060504030201", 0x0102030405060708, false},
		{"LastEpochBlock missing", ItemLastEpochBlock, "", 0, false},
		{"PendingEpochAt missing", ItemPendingEpochAt, "", 0, false},
		{"SubnetEpochIndex", ItemSubnetEpochIndex, "2a00000000000000", 42, false},
		{"SubnetEpochIndex u32 is not u64", ItemSubnetEpochIndex, "2a000000", 0, true},
		{"RevealPeriodEpochs missing: 1", ItemRevealPeriodEpochs, "", 1, false},
		{"RevealPeriodEpochs", ItemRevealPeriodEpochs, "0300000000000000", 3, false},
		{"MechanismCountCurrent missing: 1", ItemMechanismCountCurrent, "", 1, false},
		{"MechanismCountCurrent", ItemMechanismCountCurrent, "02", 2, false},
		{"MechanismCountCurrent u16 is not MechId", ItemMechanismCountCurrent, "0200", 0, true},
		{"CommitRevealWeightsVersion missing: 4", ItemCommitRevealWeightsVersion, "", 4, false},
		{"CommitRevealWeightsVersion", ItemCommitRevealWeightsVersion, "0300", 3, false},
		{"MinerBurned is not an integer", ItemMinerBurned, "00000000000000000000000000000000", 0, true},
		{"BlockAtRegistration raonet value", ItemBlockAtRegistration, "0000000000000000", 0, false},
		{"BlockAtRegistration", ItemBlockAtRegistration, "39a1000000000000", 41273, false},
		{"BlockAtRegistration missing: 0", ItemBlockAtRegistration, "", 0, false},
		{"BlockAtRegistration u32 is not u64", ItemBlockAtRegistration, "39a10000", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.item.decode(unhex(t, tc.raw))
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("decode(%s) = %d, %v; want %d, error %v", tc.raw, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestU96F32(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  string
		want float64
	}{
		{"zero", "00000000000000000000000000000000", 0},
		{"one half", "00000080000000000000000000000000", 0.5},
		{"one", "00000000010000000000000000000000", 1},
		{"one quarter", "00000040000000000000000000000000", 0.25},
		{"2^32 + 0.75", "000000c0000000000100000000000000", 4294967296.75},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := DecodeU96F32(unhex(t, tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if v.Float64() != tc.want {
				t.Errorf("%s = %v, want %v", tc.raw, v.Float64(), tc.want)
			}
			if enc := hex.EncodeToString(v.Encode()); enc != tc.raw {
				t.Errorf("encode = %s, want %s", enc, tc.raw)
			}
		})
	}
	if _, err := DecodeU96F32(make([]byte, 8)); err == nil {
		t.Error("an 8-byte U96F32 decoded")
	}
}

func TestNextEpoch(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    EpochSchedule
		want uint64
		ok   bool
	}{
		{"automatic", EpochSchedule{Tempo: 360, LastEpochBlock: 1000}, 1360, true},
		{"trigger earlier", EpochSchedule{Tempo: 360, LastEpochBlock: 1000, PendingEpochAt: 1010}, 1010, true},
		{"trigger later than automatic", EpochSchedule{Tempo: 10, LastEpochBlock: 1000, PendingEpochAt: 1020}, 1010, true},
		{"tempo 0 never runs", EpochSchedule{Tempo: 0, LastEpochBlock: 1000, PendingEpochAt: 1010}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.s.NextEpoch()
			if got != tc.want || ok != tc.ok {
				t.Errorf("NextEpoch = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
