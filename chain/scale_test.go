package chain

import (
	"bytes"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"golang.org/x/crypto/blake2b"
)

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func TestCompactEncoding(t *testing.T) {
	// Vectors worked by hand from the SCALE spec: mode bits in the low two
	// bits of the first byte, value shifted left by two, little-endian.
	tests := []struct {
		n    uint64
		want string
	}{
		{0, "00"},
		{1, "04"},
		{42, "a8"},
		{63, "fc"},
		{64, "0101"},
		{69, "1501"},
		{16383, "fdff"},
		{16384, "02000100"},
		{1<<30 - 1, "feffffff"},
		{1 << 30, "0300000040"},
		{1 << 32, "070000000001"},
	}
	for _, tt := range tests {
		t.Run(strconv.FormatUint(tt.n, 10), func(t *testing.T) {
			var w scaleWriter
			w.compact(tt.n)
			if got := hex.EncodeToString(w.buf); got != tt.want {
				t.Fatalf("compact(%d) = %s, want %s", tt.n, got, tt.want)
			}
		})
	}
}

func TestCommitPreimage(t *testing.T) {
	var account AccountID
	for i := range account {
		account[i] = 0x11
	}
	long := make([]uint16, 64)
	for i := range long {
		long[i] = uint16(i)
	}
	var longHex strings.Builder
	for i := range long {
		longHex.WriteString(hex.EncodeToString([]byte{byte(i), 0}))
	}
	tests := []struct {
		name                string
		netuid              uint16
		uids, values, salt  []uint16
		version             uint64
		wantAfterAccountHex string
	}{
		{
			name: "two weights no salt", netuid: 15, uids: []uint16{1, 2}, values: []uint16{65535, 0}, version: 7,
			wantAfterAccountHex: "0f00" + "08 0100 0200" + "08 ffff 0000" + "00" + "0700000000000000",
		},
		{
			name: "empty vectors", netuid: 0x0102, version: 1 << 40,
			wantAfterAccountHex: "0201" + "00" + "00" + "00" + "0000000000010000",
		},
		{
			name: "64 salts take a two-byte length", netuid: 1, uids: []uint16{3}, values: []uint16{9}, salt: long,
			wantAfterAccountHex: "0100" + "04 0300" + "04 0900" + "0101" + longHex.String() + "0000000000000000",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CommitPreimage(account, tt.netuid, tt.uids, tt.values, tt.salt, tt.version)
			want := append(bytes.Repeat([]byte{0x11}, 32), mustHex(t, tt.wantAfterAccountHex)...)
			if !bytes.Equal(got, want) {
				t.Fatalf("preimage\n got %x\nwant %x", got, want)
			}
			if h := CommitHash(account, tt.netuid, tt.uids, tt.values, tt.salt, tt.version); h != blake2b.Sum256(want) {
				t.Fatalf("hash is not blake2b-256 of the preimage")
			}
		})
	}
}

func TestSS58(t *testing.T) {
	tests := []struct {
		name, pubHex, ss58 string
	}{
		// Substrate's well-known dev account Alice.
		{"alice", "d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d", "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"},
		// Bob.
		{"bob", "8eaf04151687736326c9fea17e25fc5287613693c912909cb226aa4794f26a48", "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a AccountID
			copy(a[:], mustHex(t, tt.pubHex))
			if got := a.SS58(); got != tt.ss58 {
				t.Fatalf("SS58 = %s, want %s", got, tt.ss58)
			}
			back, err := ParseSS58(tt.ss58)
			if err != nil || back != a {
				t.Fatalf("ParseSS58 = %x, %v", back, err)
			}
		})
	}
	bad := []string{"", "notbase58!!", "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQZ", "1111"}
	for _, s := range bad {
		if _, err := ParseSS58(s); err == nil {
			t.Errorf("ParseSS58(%q) accepted", s)
		}
	}
}

func TestMirror(t *testing.T) {
	addr := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	pre := append([]byte("evm:"), addr.Bytes()...)
	if len(pre) != 24 {
		t.Fatalf("preimage length %d", len(pre))
	}
	if got, want := Mirror(addr), AccountID(blake2b.Sum256(pre)); got != want {
		t.Fatalf("Mirror = %x, want %x", got, want)
	}
	if Mirror(addr) == Mirror(common.HexToAddress("0xab")) {
		t.Fatal("distinct addresses share a mirror")
	}
}
