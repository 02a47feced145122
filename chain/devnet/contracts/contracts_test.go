package contracts

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"golang.org/x/crypto/blake2b"
)

func TestGenesis(t *testing.T) {
	admin := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	alloc := Genesis(admin)
	for _, p := range placement {
		acct, ok := alloc[*p.addr]
		if !ok || len(acct.Code) == 0 {
			t.Fatalf("%s: no code at %s", p.name, p.addr.Hex())
		}
	}
	if got := alloc[StateAddress].Storage[AdminSlot]; common.BytesToAddress(got[:]) != admin {
		t.Fatalf("admin slot = %x", got)
	}

	e := newEnv(t)
	got, err := e.state.Admin(nil)
	if err != nil || got != addrOf(e.admin) {
		t.Fatalf("Admin() = %s, %v", got.Hex(), err)
	}
	for _, name := range []string{NameState, NameMetagraph, NameSubnet, NameNeuron, NameUidLookup, NameAddressMapping} {
		if _, err := ABI(name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ABI("Nope"); err == nil {
		t.Fatal("ABI of an unknown contract should fail")
	}
}

func TestBlake2b(t *testing.T) {
	e := newEnv(t)
	for _, n := range []int{0, 1, 3, 24, 111, 127, 128, 129, 255, 256, 257, 1000} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + n)
		}
		got, err := e.state.Blake2b256(nil, data)
		if err != nil {
			t.Fatalf("len %d: %v", n, err)
		}
		if want := blake2b.Sum256(data); got != want {
			t.Fatalf("len %d: blake2b256 = %x, want %x", n, got, want)
		}
	}
}

func TestMirror(t *testing.T) {
	e := newEnv(t)
	for _, a := range []common.Address{{}, addrOf(e.validator), common.HexToAddress("0xffffffffffffffffffffffffffffffffffffffff")} {
		want := mirrorOf(a)
		got, err := e.state.Mirror(nil, a)
		if err != nil || got != want {
			t.Fatalf("mirror(%s) = %x, %v; want %x", a.Hex(), got, err, want)
		}
		if viaFacade := e.view(t, NameAddressMapping, "addressMapping", a).([32]byte); viaFacade != want {
			t.Fatalf("addressMapping(%s) = %x, want %x", a.Hex(), viaFacade, want)
		}
	}
}

func TestCommitHashOf(t *testing.T) {
	e := newEnv(t)
	account := mirrorOf(addrOf(e.validator))
	vec := func(n int, seed uint16) []uint16 {
		v := make([]uint16, n)
		for i := range v {
			v[i] = uint16(i)*257 + seed
		}
		return v
	}
	for _, tc := range []struct{ uids, values, salt int }{
		{0, 0, 0}, {1, 1, 1}, {63, 63, 8}, {64, 64, 64}, {100, 100, 100}, {63, 64, 0}, {1, 100, 63},
	} {
		uids, values, salt := vec(tc.uids, 1), vec(tc.values, 65000), vec(tc.salt, 42)
		for _, netuid := range []uint16{0, 1, 0x1234} {
			for _, vk := range []uint64{0, 7, 1<<64 - 1} {
				got, err := e.state.CommitHashOf(nil, account, netuid, uids, values, salt, vk)
				if err != nil {
					t.Fatal(err)
				}
				if want := goCommitHash(account, netuid, uids, values, salt, vk); got != want {
					t.Fatalf("%+v netuid %d vk %d: commitHashOf = %x, want %x", tc, netuid, vk, got, want)
				}
			}
		}
	}
}

// TestSelectorCompatibility checks every method of subtensor's reference ABIs against the
// compiled facades: same selector, argument types, return types and mutability.
func TestSelectorCompatibility(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "subtensor-abi")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("reference ABIs not found at %s (the copies of subtensor's ABIs in chain/testdata): %v", dir, err)
	}
	for _, tc := range []struct{ file, contract string }{
		{"metagraph.abi", NameMetagraph},
		{"subnet.abi", NameSubnet},
		{"neuron.abi", NameNeuron},
		{"uidLookup.abi", NameUidLookup},
		{"addressMapping.abi", NameAddressMapping},
	} {
		t.Run(tc.contract, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatalf("reference ABI %s: %v", tc.file, err)
			}
			ref, err := abi.JSON(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("parse %s: %v", tc.file, err)
			}
			got, err := ABI(tc.contract)
			if err != nil {
				t.Fatal(err)
			}
			if len(ref.Methods) == 0 {
				t.Fatalf("%s has no methods", tc.file)
			}
			for _, m := range ref.Methods {
				c, err := got.MethodById(m.ID)
				if err != nil {
					t.Errorf("%s: selector %x (%s) missing from compiled %s", tc.file, m.ID, m.Sig, tc.contract)
					continue
				}
				if c.RawName != m.RawName {
					t.Errorf("%x: name %s, want %s", m.ID, c.RawName, m.RawName)
				}
				if a, b := argTypes(c.Inputs), argTypes(m.Inputs); a != b {
					t.Errorf("%s inputs: %s, want %s", m.Sig, a, b)
				}
				if a, b := argTypes(c.Outputs), argTypes(m.Outputs); a != b {
					t.Errorf("%s outputs: %s, want %s", m.Sig, a, b)
				}
				if c.StateMutability != m.StateMutability {
					t.Errorf("%s: mutability %s, want %s", m.Sig, c.StateMutability, m.StateMutability)
				}
			}
			// Also compare the raw JSON tuple component names (AxonInfo / LookupItem fields).
			if tc.contract == NameMetagraph || tc.contract == NameUidLookup {
				if a, b := componentNames(t, raw), componentNames(t, mustRead(t, "build/"+tc.contract+".abi.json")); a != b {
					t.Errorf("tuple components %s, want %s", b, a)
				}
			}
		})
	}
}

func argTypes(args abi.Arguments) string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = a.Type.String()
	}
	return "(" + strings.Join(s, ",") + ")"
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := build.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// componentNames lists the names of tuple components in an ABI JSON, sorted.
func componentNames(t *testing.T, raw []byte) string {
	t.Helper()
	var entries []struct {
		Outputs []struct {
			Components []struct{ Name, Type string } `json:"components"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		for _, o := range e.Outputs {
			for _, c := range o.Components {
				names = append(names, c.Name+" "+c.Type)
			}
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return strings.Join(names, ",")
}

func TestSetWeightsHappyPath(t *testing.T) {
	e := newEnv(t)
	const netuid = 3
	e.createSubnet(t, netuid, 360, 2)
	e.setHyper(t, "setWeightsSetRateLimit", uint16(netuid), uint64(5))
	e.setHyper(t, "setWeightsVersionKey", uint16(netuid), uint64(9))

	r := e.facadeTx(t, e.validator, NameNeuron, "setWeights", uint16(netuid), []uint16{1, 2, 3}, []uint16{10, 20, 65535}, uint64(9))
	block := r.BlockNumber.Uint64()
	row, err := e.state.GetWeights(nil, netuid, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(row.Uids, []uint16{1, 2, 3}) || !slices.Equal(row.Values, []uint16{10, 20, 65535}) {
		t.Fatalf("weights row = %v %v", row.Uids, row.Values)
	}
	if got := e.view(t, NameMetagraph, "getLastUpdate", uint16(netuid), uint16(0)).(uint64); got != block {
		t.Fatalf("lastUpdate = %d, want %d", got, block)
	}

	// Rate limit: 5 blocks after the last update, not 4.
	for e.pendingBlock(t) < block+4 {
		e.backend.Commit()
	}
	err = e.facadeCall(t, e.validator, NameNeuron, "setWeights", uint16(netuid), []uint16{1}, []uint16{1}, uint64(9))
	wantRevert(t, err, "SettingWeightsTooFast")
	e.backend.Commit()

	// A higher version key is fine; the new row replaces the old one.
	r = e.facadeTx(t, e.validator, NameNeuron, "setWeights", uint16(netuid), []uint16{3}, []uint16{7}, uint64(10))
	row, _ = e.state.GetWeights(nil, netuid, 0)
	if !slices.Equal(row.Uids, []uint16{3}) || !slices.Equal(row.Values, []uint16{7}) {
		t.Fatalf("weights row = %v %v", row.Uids, row.Values)
	}
	if got := e.view(t, NameMetagraph, "getLastUpdate", uint16(netuid), uint16(0)).(uint64); got != r.BlockNumber.Uint64() {
		t.Fatalf("lastUpdate = %d, want %d", got, r.BlockNumber.Uint64())
	}
}

func TestSetWeightsReverts(t *testing.T) {
	e := newEnv(t)
	// netuid 1: uids 0 (validator, permit), 1 (miner), 2, 3.
	e.createSubnet(t, 1, 100, 2)
	e.setHyper(t, "setMinAllowedWeights", uint16(1), uint16(2))
	e.setHyper(t, "setWeightsVersionKey", uint16(1), uint64(5))
	e.setHyper(t, "setWeightsSetRateLimit", uint16(1), uint64(50))
	e.tx(t)(e.state.SetMaxWeightLimit(e.adminOpts(t), 1, 40000))
	// netuid 2: commit-reveal enabled.
	e.createSubnet(t, 2, 100, 0)
	e.setHyper(t, "setCommitRevealWeightsEnabled", uint16(2), true)
	// The validator has set weights on netuid 1, so the rate limit applies to it.
	e.facadeTx(t, e.validator, NameNeuron, "setWeights", uint16(1), []uint16{0, 1, 2}, []uint16{100, 100, 100}, uint64(5))

	for _, tc := range []struct {
		name    string
		who     string
		netuid  uint16
		dests   []uint16
		weights []uint16
		version uint64
		want    string // "" = success
	}{
		{"unknown subnet", "validator", 99, []uint16{1, 2}, []uint16{1, 1}, 5, "SubnetNotExists"},
		{"unregistered caller", "stranger", 1, []uint16{1, 2}, []uint16{1, 1}, 5, "HotKeyNotRegisteredInSubNet"},
		{"commit-reveal enabled", "validator", 2, []uint16{1}, []uint16{1}, 0, "CommitRevealEnabled"},
		{"old version key", "validator", 1, []uint16{1, 2}, []uint16{1, 1}, 4, "IncorrectWeightVersionKey"},
		{"old version key before length", "validator", 1, []uint16{1, 2}, []uint16{1}, 4, "IncorrectWeightVersionKey"},
		{"length mismatch", "validator", 1, []uint16{1, 2}, []uint16{1}, 5, "WeightVecNotEqualSize"},
		{"duplicate uid", "validator", 1, []uint16{1, 2, 1}, []uint16{1, 1, 1}, 5, "DuplicateUids"},
		{"duplicate unknown uid", "validator", 1, []uint16{700, 700}, []uint16{1, 1}, 5, "DuplicateUids"},
		{"unknown uid", "validator", 1, []uint16{1, 4}, []uint16{1, 1}, 5, "UidVecContainInvalidOne"},
		{"unknown uid before permit", "miner", 1, []uint16{9}, []uint16{1}, 5, "UidVecContainInvalidOne"},
		{"no validator permit", "miner", 1, []uint16{0, 2}, []uint16{1, 1}, 5, "NeuronNoValidatorPermit"},
		{"single non-self weight without permit", "miner", 1, []uint16{2}, []uint16{1}, 5, "NeuronNoValidatorPermit"},
		{"too few non-zero weights", "validator", 1, []uint16{1, 2}, []uint16{5, 0}, 5, "WeightVecLengthIsLow"},
		{"max weight exceeded", "validator", 1, []uint16{1, 2}, []uint16{65535, 1}, 5, "MaxWeightExceeded"},
		{"too fast", "validator", 1, []uint16{1, 2, 3}, []uint16{1, 1, 1}, 5, "SettingWeightsTooFast"},
		{"self weight without permit", "miner", 1, []uint16{1}, []uint16{65535}, 5, ""},
		{"self weight zero", "miner", 1, []uint16{1}, []uint16{0}, 7, ""},
		{"miner not rate limited yet", "miner", 1, []uint16{1}, []uint16{3}, 5, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := map[string]*ecdsa.PrivateKey{"validator": e.validator, "miner": e.miner, "stranger": e.stranger}[tc.who]
			err := e.facadeCall(t, key, NameNeuron, "setWeights", tc.netuid, tc.dests, tc.weights, tc.version)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
				return
			}
			wantRevert(t, err, tc.want)
		})
	}
}

func TestCommitReveal(t *testing.T) {
	e := newEnv(t)
	const netuid, tempo = 4, 4
	e.createSubnet(t, netuid, tempo, 2)
	e.setHyper(t, "setWeightsSetRateLimit", uint16(netuid), uint64(0))
	e.setHyper(t, "setCommitRevealWeightsEnabled", uint16(netuid), true)
	e.setHyper(t, "setCommitRevealWeightsInterval", uint16(netuid), uint64(1))
	me := mirrorOf(addrOf(e.validator))

	// Start at the first block of an epoch so "same epoch" and "next epoch" are unambiguous.
	for p := e.pendingBlock(t); epoch(netuid, tempo, p) == epoch(netuid, tempo, p-1); p = e.pendingBlock(t) {
		e.backend.Commit()
	}
	uids, values, salt := []uint16{1, 2}, []uint16{30000, 65535}, []uint16{1, 2, 3, 4, 5, 6, 7, 8}
	h := goCommitHash(me, netuid, uids, values, salt, 0)
	if onChain, err := e.state.CommitHashOf(nil, me, netuid, uids, values, salt, 0); err != nil || onChain != h {
		t.Fatalf("commitHashOf = %x, %v; want %x", onChain, err, h)
	}
	r := e.facadeTx(t, e.validator, NameNeuron, "commitWeights", uint16(netuid), h)
	cb := r.BlockNumber.Uint64()
	ce := epoch(netuid, tempo, cb)
	pending, err := e.state.GetPendingCommits(nil, netuid, 0)
	if err != nil || len(pending.Hashes) != 1 || pending.Hashes[0] != h || pending.Blocks[0] != cb {
		t.Fatalf("pending commits = %+v, %v", pending, err)
	}
	if got := e.view(t, NameMetagraph, "getLastUpdate", uint16(netuid), uint16(0)).(uint64); got != cb {
		t.Fatalf("lastUpdate after commit = %d, want %d", got, cb)
	}

	reveal := func(salt []uint16) error {
		return e.facadeCall(t, e.validator, NameNeuron, "revealWeights", uint16(netuid), uids, values, salt, uint64(0))
	}
	wantRevert(t, reveal(salt), "RevealTooEarly")
	wantRevert(t, reveal([]uint16{9, 9}), "InvalidRevealCommitHashNotMatch")
	wantRevert(t, e.facadeCall(t, e.validator, NameNeuron, "setWeights", uint16(netuid), uids, values, uint64(0)), "CommitRevealEnabled")

	for epoch(netuid, tempo, e.pendingBlock(t)) < ce+1 {
		e.backend.Commit()
	}
	wantRevert(t, reveal([]uint16{1, 2, 3}), "InvalidRevealCommitHashNotMatch")
	r = e.facadeTx(t, e.validator, NameNeuron, "revealWeights", uint16(netuid), uids, values, salt, uint64(0))
	row, _ := e.state.GetWeights(nil, netuid, 0)
	if !slices.Equal(row.Uids, uids) || !slices.Equal(row.Values, values) {
		t.Fatalf("revealed row = %v %v", row.Uids, row.Values)
	}
	if got := e.view(t, NameMetagraph, "getLastUpdate", uint16(netuid), uint16(0)).(uint64); got != r.BlockNumber.Uint64() {
		t.Fatalf("lastUpdate after reveal = %d, want %d", got, r.BlockNumber.Uint64())
	}
	if pending, _ = e.state.GetPendingCommits(nil, netuid, 0); len(pending.Hashes) != 0 {
		t.Fatalf("commit not removed: %+v", pending)
	}
	wantRevert(t, reveal(salt), "NoWeightsCommitFound")

	// A commit revealed two epochs later has expired.
	salt2 := []uint16{77}
	h2 := goCommitHash(me, netuid, uids, values, salt2, 0)
	r = e.facadeTx(t, e.validator, NameNeuron, "commitWeights", uint16(netuid), h2)
	ce2 := epoch(netuid, tempo, r.BlockNumber.Uint64())
	for epoch(netuid, tempo, e.pendingBlock(t)) < ce2+2 {
		e.backend.Commit()
	}
	wantRevert(t, reveal(salt2), "ExpiredWeightCommit")

	// A revealed commit still goes through set_weights' checks (here: an unknown uid).
	badUids := []uint16{1, 9}
	r = e.facadeTx(t, e.validator, NameNeuron, "commitWeights", uint16(netuid), goCommitHash(me, netuid, badUids, values, salt, 0))
	for epoch(netuid, tempo, e.pendingBlock(t)) < epoch(netuid, tempo, r.BlockNumber.Uint64())+1 {
		e.backend.Commit()
	}
	wantRevert(t, e.facadeCall(t, e.validator, NameNeuron, "revealWeights", uint16(netuid), badUids, values, salt, uint64(0)), "UidVecContainInvalidOne")

	// At most 10 unrevealed commits, on a subnet with a long tempo so none expires meanwhile.
	const longNetuid = 6
	e.createSubnet(t, longNetuid, 1000, 0)
	e.setHyper(t, "setWeightsSetRateLimit", uint16(longNetuid), uint64(0))
	e.setHyper(t, "setCommitRevealWeightsEnabled", uint16(longNetuid), true)
	nonce, err := e.client.PendingNonceAt(t.Context(), addrOf(e.validator))
	if err != nil {
		t.Fatal(err)
	}
	var txs []*types.Transaction
	for i := range 10 {
		h := goCommitHash(me, longNetuid, uids, values, []uint16{uint16(100 + i)}, 0)
		data := e.pack(t, NameNeuron, "commitWeights", uint16(longNetuid), h)
		txs = append(txs, e.sendRawNonce(t, e.validator, NeuronAddress, data, nonce+uint64(i)))
	}
	for _, r := range e.commitUntilMined(t, txs...) {
		if r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("commit %s reverted", r.TxHash)
		}
	}
	if pending, _ = e.state.GetPendingCommits(nil, longNetuid, 0); len(pending.Hashes) != 10 {
		t.Fatalf("%d pending commits, want 10", len(pending.Hashes))
	}
	wantRevert(t, e.facadeCall(t, e.validator, NameNeuron, "commitWeights", uint16(longNetuid), [32]byte{1}), "TooManyUnrevealedCommits")

	// Expired commits are dropped when committing: the queue on netuid 4 holds only live ones.
	e.facadeTx(t, e.validator, NameNeuron, "commitWeights", uint16(netuid), [32]byte{2})
	if pending, _ = e.state.GetPendingCommits(nil, netuid, 0); len(pending.Hashes) != 1 || pending.Hashes[0] != [32]byte{2} {
		t.Fatalf("expired commits kept: %x", pending.Hashes)
	}

	// The rate limit applies to commits too.
	e.setHyper(t, "setWeightsSetRateLimit", uint16(netuid), uint64(100))
	wantRevert(t, e.facadeCall(t, e.validator, NameNeuron, "commitWeights", uint16(netuid), [32]byte{1}), "CommittingWeightsTooFast")

	// Commit-reveal disabled.
	e.createSubnet(t, 5, 100, 0)
	wantRevert(t, e.facadeCall(t, e.validator, NameNeuron, "commitWeights", uint16(5), h), "CommitRevealDisabled")
	wantRevert(t, e.facadeCall(t, e.validator, NameNeuron, "revealWeights", uint16(5), uids, values, salt, uint64(0)), "CommitRevealDisabled")
	wantRevert(t, e.facadeCall(t, e.stranger, NameNeuron, "commitWeights", uint16(netuid), h), "HotKeyNotRegisteredInSubNet")
	wantRevert(t, e.facadeCall(t, e.validator, NameNeuron, "commitWeights", uint16(77), h), "SubnetNotExists")
}

func TestServeAxon(t *testing.T) {
	e := newEnv(t)
	const netuid = 1
	e.createSubnet(t, netuid, 100, 0)
	ip := big.NewInt(0x7f000001)
	r := e.facadeTx(t, e.miner, NameNeuron, "serveAxon", uint16(netuid), uint32(7), ip, uint16(8091), uint8(4), uint8(4), uint8(0), uint8(0))
	got := *abi.ConvertType(e.view(t, NameMetagraph, "getAxon", uint16(netuid), uint16(1)), new(AxonInfo)).(*AxonInfo)
	want := AxonInfo{Block: r.BlockNumber.Uint64(), Version: 7, Ip: ip, Port: 8091, IpType: 4, Protocol: 4}
	if got.Block != want.Block || got.Version != want.Version || got.Ip.Cmp(want.Ip) != 0 || got.Port != want.Port ||
		got.IpType != want.IpType || got.Protocol != want.Protocol {
		t.Fatalf("axon = %+v, want %+v", got, want)
	}

	ipv6 := new(big.Int).Lsh(big.NewInt(0x20010db8), 96)
	e.facadeTx(t, e.validator, NameNeuron, "serveAxonTls", uint16(netuid), uint32(1), ipv6, uint16(443), uint8(6), uint8(0), uint8(0), uint8(0), []byte("cert"))
	if a, _ := e.state.GetAxon(nil, netuid, 0); a.Ip.Cmp(ipv6) != 0 || a.IpType != 6 || a.Port != 443 {
		t.Fatalf("tls axon = %+v", a)
	}
	e.facadeTx(t, e.miner, NameNeuron, "servePrometheus", uint16(netuid), uint32(3), ip, uint16(9100), uint8(4))
	if p, _ := e.state.GetPrometheus(nil, netuid, 1); p.Port != 9100 || p.Version != 3 || p.Ip.Cmp(ip) != 0 {
		t.Fatalf("prometheus = %+v", p)
	}

	for _, tc := range []struct {
		name   string
		netuid uint16
		ip     *big.Int
		port   uint16
		ipType uint8
		want   string
	}{
		{"unknown subnet", 9, ip, 1, 4, "SubnetNotExists"},
		{"bad ip type", netuid, ip, 1, 5, "InvalidIpType"},
		{"zero port", netuid, ip, 0, 4, "InvalidPort"},
		{"ipv4 too large", netuid, new(big.Int).Lsh(big.NewInt(1), 32), 1, 4, "InvalidIpAddress"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := e.facadeCall(t, e.miner, NameNeuron, "serveAxon", tc.netuid, uint32(1), tc.ip, tc.port, tc.ipType, uint8(0), uint8(0), uint8(0))
			wantRevert(t, err, tc.want)
		})
	}
	wantRevert(t, e.facadeCall(t, e.stranger, NameNeuron, "serveAxon", uint16(netuid), uint32(1), ip, uint16(1), uint8(4), uint8(0), uint8(0), uint8(0)), "HotKeyNotRegisteredInSubNet")

	// Serving rate limit (off by default on the devnet).
	e.setHyper(t, "setServingRateLimit", uint16(netuid), uint64(50))
	wantRevert(t, e.facadeCall(t, e.miner, NameNeuron, "serveAxon", uint16(netuid), uint32(8), ip, uint16(8091), uint8(4), uint8(4), uint8(0), uint8(0)), "ServingRateLimitExceeded")
}

func TestAdminOnly(t *testing.T) {
	e := newEnv(t)
	e.createSubnet(t, 1, 100, 0)
	s := e.opts(t, e.stranger)
	hk := [32]byte{9}
	for _, tc := range []struct {
		name string
		send func() (*types.Transaction, error)
	}{
		{"createSubnet", func() (*types.Transaction, error) { return e.state.CreateSubnet(s, 2, addrOf(e.stranger), 10) }},
		{"registerNeuron", func() (*types.Transaction, error) { return e.state.RegisterNeuron(s, 1, hk, hk, 1, true) }},
		{"replaceNeuron", func() (*types.Transaction, error) { return e.state.ReplaceNeuron(s, 1, 1, hk, hk, 1, true) }},
		{"associateEvmKey", func() (*types.Transaction, error) { return e.state.AssociateEvmKey(s, 1, 0, addrOf(e.stranger)) }},
		{"setStake", func() (*types.Transaction, error) { return e.state.SetStake(s, 1, 0, 5) }},
		{"setValidatorPermit", func() (*types.Transaction, error) { return e.state.SetValidatorPermit(s, 1, 1, true) }},
		{"setActive", func() (*types.Transaction, error) { return e.state.SetActive(s, 1, 0, false) }},
		{"setTempo", func() (*types.Transaction, error) { return e.state.SetTempo(s, 1, 5) }},
		{"setMaxWeightLimit", func() (*types.Transaction, error) { return e.state.SetMaxWeightLimit(s, 1, 5) }},
		{"setHyperparameter", func() (*types.Transaction, error) { return e.state.SetHyperparameter(s, 1, HyperKappa, big.NewInt(5)) }},
		{"setSubnetOwner", func() (*types.Transaction, error) { return e.state.SetSubnetOwner(s, 1, addrOf(e.stranger)) }},
		{"setAdmin", func() (*types.Transaction, error) { return e.state.SetAdmin(s, addrOf(e.stranger)) }},
		{"setAxon", func() (*types.Transaction, error) {
			return e.state.SetAxon(s, 1, 0, 1, big.NewInt(1), 1, 4, 0)
		}},
		{"setEpochResults", func() (*types.Transaction, error) {
			z16, z64 := []uint16{0, 0}, []uint64{0, 0}
			return e.state.SetEpochResults(s, 1, z16, z16, z16, z16, z16, z16, z64)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.send()
			wantRevert(t, err, "NotAdmin")
		})
	}

	// The state-changing entry points of the facades only accept calls from the facades.
	for _, tc := range []struct {
		name string
		send func(o *bind.TransactOpts) (*types.Transaction, error)
	}{
		{"neuronSetWeights", func(o *bind.TransactOpts) (*types.Transaction, error) {
			return e.state.NeuronSetWeights(o, addrOf(e.validator), 1, []uint16{0}, []uint16{1}, 0)
		}},
		{"neuronCommitWeights", func(o *bind.TransactOpts) (*types.Transaction, error) {
			return e.state.NeuronCommitWeights(o, addrOf(e.validator), 1, [32]byte{})
		}},
		{"neuronBurnedRegister", func(o *bind.TransactOpts) (*types.Transaction, error) {
			return e.state.NeuronBurnedRegister(o, addrOf(e.stranger), 1, hk)
		}},
		{"subnetSetHyperparameter", func(o *bind.TransactOpts) (*types.Transaction, error) {
			return e.state.SubnetSetHyperparameter(o, addrOf(e.admin), 1, HyperKappa, big.NewInt(1))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.send(e.adminOpts(t))
			wantRevert(t, err, "OnlyPrecompile")
		})
	}

	// Admin-side validation.
	a := e.adminOpts(t)
	_, err := e.state.CreateSubnet(a, 1, addrOf(e.owner), 10)
	wantRevert(t, err, "SubnetAlreadyExists")
	_, err = e.state.CreateSubnet(a, 3, addrOf(e.owner), 0)
	wantRevert(t, err, "InvalidTempo")
	_, err = e.state.RegisterNeuron(a, 7, hk, hk, 0, false)
	wantRevert(t, err, "SubnetNotExists")
	_, err = e.state.RegisterNeuron(a, 1, mirrorOf(addrOf(e.validator)), hk, 0, false)
	wantRevert(t, err, "HotKeyAlreadyRegisteredInSubNet")
	_, err = e.state.SetStake(a, 1, 2, 5)
	wantRevert(t, err, "UidNotFound")
	_, err = e.state.SetHyperparameter(a, 1, HyperMinAllowedWeights, big.NewInt(70000))
	wantRevert(t, err, "HyperparameterOutOfRange")

	// Admin setters take effect.
	e.tx(t)(e.state.SetStake(a, 1, 1, 12345))
	e.tx(t)(e.state.SetValidatorPermit(e.adminOpts(t), 1, 1, true))
	e.tx(t)(e.state.SetActive(e.adminOpts(t), 1, 1, false))
	e.tx(t)(e.state.SetTempo(e.adminOpts(t), 1, 42))
	if got := e.view(t, NameMetagraph, "getStake", uint16(1), uint16(1)).(uint64); got != 12345 {
		t.Fatalf("stake = %d", got)
	}
	if !e.view(t, NameMetagraph, "getValidatorStatus", uint16(1), uint16(1)).(bool) {
		t.Fatal("permit not set")
	}
	if e.view(t, NameMetagraph, "getIsActive", uint16(1), uint16(1)).(bool) {
		t.Fatal("active not cleared")
	}
	if tempo, _ := e.state.GetTempo(nil, 1); tempo != 42 {
		t.Fatalf("tempo = %d", tempo)
	}

	// Registering beyond 256 uids fails.
	e.createSubnet(t, 8, 100, 0)
	nonce, err := e.client.PendingNonceAt(t.Context(), addrOf(e.admin))
	if err != nil {
		t.Fatal(err)
	}
	var sent []*types.Transaction
	for i := 2; i < 256; i++ {
		o := e.adminOpts(t)
		o.GasLimit = 1_000_000 // explicit: no estimation against the not-yet-mined registrations
		o.Nonce = new(big.Int).SetUint64(nonce)
		nonce++
		var k [32]byte
		k[0], k[1] = byte(i), 0xee
		tx, err := e.state.RegisterNeuron(o, 8, k, k, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, tx)
		if i%50 == 0 {
			e.backend.Commit()
		}
	}
	for _, rc := range e.commitUntilMined(t, sent...) {
		if rc.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("registration %s reverted", rc.TxHash)
		}
	}
	if n := e.view(t, NameMetagraph, "getUidCount", uint16(8)).(uint16); n != 256 {
		t.Fatalf("uid count = %d, want 256", n)
	}
	_, err = e.state.RegisterNeuron(e.adminOpts(t), 8, [32]byte{1, 2, 3}, hk, 0, false)
	wantRevert(t, err, "TooManyRegistrations")
}

func TestEpochResults(t *testing.T) {
	e := newEnv(t)
	const netuid = 6
	e.createSubnet(t, netuid, 100, 2)
	rank := []uint16{1, 2, 3, 4}
	trust := []uint16{5, 6, 7, 8}
	consensus := []uint16{100, 200, 300, 65535}
	incentive := []uint16{0, 65535, 30000, 5}
	dividends := []uint16{65535, 0, 0, 0}
	vtrust := []uint16{60000, 0, 0, 0}
	emission := []uint64{1e9, 2e9, 3, 0}
	e.tx(t)(e.state.SetEpochResults(e.adminOpts(t), netuid, rank, trust, consensus, incentive, dividends, vtrust, emission))
	for uid := range uint16(4) {
		for _, c := range []struct {
			method string
			want   any
		}{
			{"getRank", rank[uid]}, {"getTrust", trust[uid]}, {"getConsensus", consensus[uid]},
			{"getIncentive", incentive[uid]}, {"getDividends", dividends[uid]}, {"getVtrust", vtrust[uid]},
			{"getEmission", emission[uid]},
		} {
			if got := e.view(t, NameMetagraph, c.method, uint16(netuid), uid); got != c.want {
				t.Fatalf("%s(%d) = %v, want %v", c.method, uid, got, c.want)
			}
		}
	}
	_, err := e.state.SetEpochResults(e.adminOpts(t), netuid, rank[:3], trust, consensus, incentive, dividends, vtrust, emission)
	wantRevert(t, err, "EpochResultsLengthMismatch")
}

func TestViewsAndHyperparameters(t *testing.T) {
	e := newEnv(t)
	const netuid = 1
	e.createSubnet(t, netuid, 100, 0)

	if n := e.view(t, NameMetagraph, "getUidCount", uint16(99)).(uint16); n != 0 {
		t.Fatalf("uid count of unknown subnet = %d", n)
	}
	if n := e.view(t, NameMetagraph, "getUidCount", uint16(netuid)).(uint16); n != 2 {
		t.Fatalf("uid count = %d", n)
	}
	_, err := e.facadeView(t, common.Address{}, NameMetagraph, "getStake", uint16(99), uint16(0))
	wantRevert(t, err, "SubnetNotExists")
	_, err = e.facadeView(t, common.Address{}, NameMetagraph, "getHotkey", uint16(netuid), uint16(2))
	wantRevert(t, err, "UidNotFound")
	if hk := e.view(t, NameMetagraph, "getHotkey", uint16(netuid), uint16(0)).([32]byte); hk != mirrorOf(addrOf(e.validator)) {
		t.Fatalf("hotkey = %x", hk)
	}
	if !e.view(t, NameMetagraph, "getValidatorStatus", uint16(netuid), uint16(0)).(bool) ||
		e.view(t, NameMetagraph, "getValidatorStatus", uint16(netuid), uint16(1)).(bool) {
		t.Fatal("validator permits wrong")
	}
	if !e.view(t, NameMetagraph, "getIsActive", uint16(netuid), uint16(1)).(bool) {
		t.Fatal("new neuron not active")
	}
	if lu := e.view(t, NameMetagraph, "getLastUpdate", uint16(netuid), uint16(1)).(uint64); lu != 0 {
		t.Fatalf("lastUpdate at registration = %d", lu)
	}
	if st := e.view(t, NameMetagraph, "getStake", uint16(netuid), uint16(0)).(uint64); st != 1_000_000 {
		t.Fatalf("stake = %d", st)
	}

	defaults := []struct {
		method string
		want   any
	}{
		{"getWeightsVersionKey", uint64(0)}, {"getWeightsSetRateLimit", uint64(100)},
		{"getMinAllowedWeights", uint16(1)}, {"getMaxWeightLimit", uint16(65535)},
		{"getCommitRevealWeightsEnabled", false}, {"getCommitRevealWeightsInterval", uint64(1)},
		{"getImmunityPeriod", uint16(4096)}, {"getActivityCutoff", uint16(5000)},
		{"getKappa", uint16(32767)}, {"getRho", uint16(10)},
		{"getNetworkRegistrationAllowed", true}, {"getLiquidAlphaEnabled", false},
	}
	for _, d := range defaults {
		if got := e.view(t, NameSubnet, d.method, uint16(netuid)); got != d.want {
			t.Fatalf("%s = %v, want %v", d.method, got, d.want)
		}
	}
	vals, err := e.facadeView(t, common.Address{}, NameSubnet, "getAlphaValues", uint16(netuid))
	if err != nil || vals[0].(uint16) != 45875 || vals[1].(uint16) != 58982 {
		t.Fatalf("alpha values = %v, %v", vals, err)
	}
	_, err = e.facadeView(t, common.Address{}, NameSubnet, "getKappa", uint16(99))
	wantRevert(t, err, "SubnetNotExists")

	// Setters: subnet owner or admin only.
	e.facadeTx(t, e.owner, NameSubnet, "setKappa", uint16(netuid), uint16(1234))
	e.facadeTx(t, e.admin, NameSubnet, "setImmunityPeriod", uint16(netuid), uint16(77))
	e.facadeTx(t, e.owner, NameSubnet, "setAlphaValues", uint16(netuid), uint16(100), uint16(200))
	e.facadeTx(t, e.owner, NameSubnet, "setCommitRevealWeightsEnabled", uint16(netuid), true)
	e.facadeTx(t, e.owner, NameSubnet, "setCommitRevealWeightsInterval", uint16(netuid), uint64(3))
	for _, c := range []struct {
		method string
		want   any
	}{
		{"getKappa", uint16(1234)}, {"getImmunityPeriod", uint16(77)},
		{"getCommitRevealWeightsEnabled", true}, {"getCommitRevealWeightsInterval", uint64(3)},
	} {
		if got := e.view(t, NameSubnet, c.method, uint16(netuid)); got != c.want {
			t.Fatalf("%s = %v, want %v", c.method, got, c.want)
		}
	}
	if v, _ := e.state.Hyperparameter(nil, netuid, HyperAlphaHigh); v.Uint64() != 200 {
		t.Fatalf("alpha high = %v", v)
	}
	wantRevert(t, e.facadeCall(t, e.stranger, NameSubnet, "setKappa", uint16(netuid), uint16(1)), "NotSubnetOwner")
	wantRevert(t, e.facadeCall(t, e.validator, NameSubnet, "setWeightsVersionKey", uint16(netuid), uint64(1)), "NotSubnetOwner")
	wantRevert(t, e.facadeCall(t, e.owner, NameSubnet, "setKappa", uint16(99), uint16(1)), "SubnetNotExists")
	wantRevert(t, e.facadeCall(t, e.owner, NameSubnet, "setCommitRevealWeightsInterval", uint16(netuid), uint64(0)), "RevealPeriodTooSmall")
	wantRevert(t, e.facadeCall(t, e.owner, NameSubnet, "registerNetwork", [32]byte{1}), "NotSupportedOnDevnet")

	if owner, _ := e.state.SubnetOwner(nil, netuid); owner != addrOf(e.owner) {
		t.Fatalf("owner = %s", owner.Hex())
	}
}

func TestBurnedRegisterAndUidLookup(t *testing.T) {
	e := newEnv(t)
	const netuid = 2
	e.createSubnet(t, netuid, 100, 1) // uids 0..2
	me := addrOf(e.stranger)
	r := e.facadeTx(t, e.stranger, NameNeuron, "burnedRegister", uint16(netuid), mirrorOf(me))
	uid := uint16(3)
	if n := e.view(t, NameMetagraph, "getUidCount", uint16(netuid)).(uint16); n != 4 {
		t.Fatalf("uid count = %d", n)
	}
	if ck := e.view(t, NameMetagraph, "getColdkey", uint16(netuid), uid).([32]byte); ck != mirrorOf(me) {
		t.Fatalf("coldkey = %x", ck)
	}
	wantRevert(t, e.facadeCall(t, e.miner, NameNeuron, "burnedRegister", uint16(netuid), mirrorOf(me)), "HotKeyAlreadyRegisteredInSubNet")
	wantRevert(t, e.facadeCall(t, e.miner, NameNeuron, "burnedRegister", uint16(50), mirrorOf(me)), "SubnetNotExists")

	lookup := func(limit uint16) []LookupItem {
		t.Helper()
		return *abi.ConvertType(e.view(t, NameUidLookup, "uidLookup", uint16(netuid), me, limit), new([]LookupItem)).(*[]LookupItem)
	}
	if got := lookup(10); len(got) != 1 || got[0].Uid != uid || got[0].BlockAssociated != r.BlockNumber.Uint64() {
		t.Fatalf("uidLookup = %+v", got)
	}
	if got := lookup(0); len(got) != 0 {
		t.Fatalf("uidLookup limit 0 = %+v", got)
	}
	r2 := e.tx(t)(e.state.AssociateEvmKey(e.adminOpts(t), netuid, 1, me))
	got := lookup(10)
	if len(got) != 2 || got[0].Uid != 1 || got[0].BlockAssociated != r2.BlockNumber.Uint64() || got[1].Uid != uid {
		t.Fatalf("uidLookup = %+v", got)
	}
	if got := lookup(1); len(got) != 1 || got[0].Uid != 1 {
		t.Fatalf("uidLookup limit 1 = %+v", got)
	}

	// The newly registered neuron can set a self-weight (no permit).
	e.facadeTx(t, e.stranger, NameNeuron, "setWeights", uint16(netuid), []uint16{uid}, []uint16{65535}, uint64(0))

	// Registration can be closed.
	e.setHyper(t, "setNetworkRegistrationAllowed", uint16(netuid), false)
	wantRevert(t, e.facadeCall(t, e.miner, NameNeuron, "burnedRegister", uint16(netuid), [32]byte{5}), "SubNetRegistrationDisabled")
}
