package contracts

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/core/types"

	"arena/chain"
)

// authorizedPrefixes are twox_128 of the pallets subtensor's StorageQuery answers for
// (precompiles/src/storage_query.rs, AUTHORIZED_PREFIXES).
var authorizedPrefixes = []string{
	"SubtensorModule", "Swap", "Balances", "Proxy", "Scheduler", "Drand", "Crowdloan", "Sudo", "Multisig", "Timestamp",
}

// query calls StorageQuery with a raw key at block (nil: latest).
func (e *env) query(t *testing.T, key []byte, block *big.Int) ([]byte, error) {
	t.Helper()
	to := StorageQueryAddress
	return e.client.CallContract(context.Background(), ethereum.CallMsg{To: &to, Data: key}, block)
}

// mustQuery is query that must succeed.
func (e *env) mustQuery(t *testing.T, key []byte, block *big.Int) []byte {
	t.Helper()
	out, err := e.query(t, key, block)
	if err != nil {
		t.Fatalf("query %x: %v", key, err)
	}
	return out
}

// storageTx sends an admin setter of StorageQuery as key and mines it.
func (e *env) storageTx(t *testing.T, key *bind.TransactOpts, method string, args ...any) (*types.Receipt, error) {
	t.Helper()
	c := bind.NewBoundContract(StorageQueryAddress, e.abis[NameStorageQuery], GasHeadroom(e.client), GasHeadroom(e.client), nil)
	tx, err := c.Transact(key, method, args...)
	if err != nil {
		return nil, err
	}
	return e.mined(t, tx, nil), nil
}

func le(n uint64, size int) []byte {
	out := binary.LittleEndian.AppendUint64(nil, n)
	return out[:size]
}

// TestStorageQuerySelectors: StorageQuery's admin setters must never catch a storage key,
// whose first four bytes are those of an authorized pallet prefix.
func TestStorageQuerySelectors(t *testing.T) {
	a, err := ABI(NameStorageQuery)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Methods["setMechanismCount"]; !ok || !a.HasFallback() {
		t.Fatalf("StorageQuery ABI: methods %v, fallback %v", a.Methods, a.HasFallback())
	}
	for _, m := range a.Methods {
		for _, p := range authorizedPrefixes {
			prefix := chain.Twox128([]byte(p))
			if bytes.Equal(m.ID, prefix[:4]) {
				t.Errorf("%s selector %x equals the start of %s's prefix", m.Sig, m.ID, p)
			}
		}
	}
}

// TestStorageQueryKeys checks the precompile's key handling: prefix check, unknown keys,
// missing entries, and each item's value and encoding.
func TestStorageQueryKeys(t *testing.T) {
	e := newEnv(t)
	const netuid, tempo = 3, 20
	for range 5 { // so that the stagger below is not cut off at block 0
		e.backend.Commit()
	}
	created := e.tx(t)(e.state.CreateSubnet(e.adminOpts(t), netuid, addrOf(e.owner), tempo)).BlockNumber.Uint64()
	module := chain.Twox128([]byte("SubtensorModule"))

	for _, tc := range []struct {
		name string
		key  []byte
	}{
		{"empty input", nil},
		{"shorter than a prefix", module[:15]},
		{"unauthorized pallet", chain.StoragePrefix("System", "Account")},
		{"zeros", make([]byte, 32)},
	} {
		t.Run("invalid/"+tc.name, func(t *testing.T) {
			_, err := e.query(t, tc.key, nil)
			if err == nil || !strings.Contains(err.Error(), "Invalid key") {
				t.Fatalf("query %x: %v, want Invalid key", tc.key, err)
			}
		})
	}

	tempoKey := chain.ItemTempo.Key(netuid)
	reveal := chain.ItemRevealPeriodEpochs.Key(netuid)
	badHash := bytes.Clone(reveal)
	badHash[32] ^= 1
	for _, tc := range []struct {
		name string
		key  []byte
	}{
		{"bare SubtensorModule prefix", module[:]},
		{"other authorized pallet", chain.StoragePrefix("Balances", "TotalIssuance")},
		{"item the devnet does not hold", chain.StorageMapKey(chain.SubtensorPallet, "SubnetworkN", chain.HasherIdentity, le(netuid, 2))},
		{"Tempo with a trailing byte", append(bytes.Clone(tempoKey), 0)},
		{"Tempo without the netuid", tempoKey[:32]},
		{"Tempo of a subnet that does not exist", chain.ItemTempo.Key(netuid + 1)},
		{"never written: PendingEpochAt", chain.ItemPendingEpochAt.Key(netuid)},
		{"never written: SubnetEpochIndex", chain.ItemSubnetEpochIndex.Key(netuid)},
		{"never written: RevealPeriodEpochs", reveal},
		{"never written: MechanismCountCurrent", chain.ItemMechanismCountCurrent.Key(netuid)},
		{"never written: MinerBurned", chain.ItemMinerBurned.Key(netuid)},
		{"never written: CommitRevealWeightsVersion", chain.ItemCommitRevealWeightsVersion.Key(0)},
	} {
		t.Run("empty/"+tc.name, func(t *testing.T) {
			if out := e.mustQuery(t, tc.key, nil); len(out) != 0 {
				t.Fatalf("query %x = %x, want no entry", tc.key, out)
			}
		})
	}

	// Written items, each in its SCALE width.
	e.setHyper(t, "setCommitRevealWeightsInterval", uint16(netuid), uint64(7))
	mustStorageTx(t, e, "setMechanismCount", uint16(netuid), uint8(2))
	half := new(big.Int).Lsh(big.NewInt(1), 31) // U96F32 0.5
	mustStorageTx(t, e, "setMinerBurned", uint16(netuid), half)
	mustStorageTx(t, e, "setCommitRevealWeightsVersion", uint16(3))
	for _, tc := range []struct {
		name string
		key  []byte
		want []byte
	}{
		{"Tempo u16", tempoKey, le(tempo, 2)},
		// init_new_network staggers subnets: LastEpochBlock = creation block - netuid % tempo.
		{"LastEpochBlock u64", chain.ItemLastEpochBlock.Key(netuid), le(created-netuid%tempo, 8)},
		{"RevealPeriodEpochs u64", reveal, le(7, 8)},
		{"MechanismCountCurrent u8", chain.ItemMechanismCountCurrent.Key(netuid), []byte{2}},
		{"MinerBurned U96F32", chain.ItemMinerBurned.Key(netuid), chain.U96F32{Lo: 1 << 31}.Encode()},
		{"CommitRevealWeightsVersion u16", chain.ItemCommitRevealWeightsVersion.Key(0), le(3, 2)},
	} {
		t.Run("value/"+tc.name, func(t *testing.T) {
			if out := e.mustQuery(t, tc.key, nil); !bytes.Equal(out, tc.want) {
				t.Fatalf("query %x = %x, want %x", tc.key, out, tc.want)
			}
		})
	}

	// Written entries under wrong keys stay missing.
	for _, tc := range []struct {
		name string
		key  []byte
	}{
		{"RevealPeriodEpochs hashed wrong", badHash},
		{"RevealPeriodEpochs with the Identity hasher", chain.StorageMapKey(chain.SubtensorPallet, "RevealPeriodEpochs", chain.HasherIdentity, le(netuid, 2))},
		{"MechanismCountCurrent with a trailing byte", append(chain.ItemMechanismCountCurrent.Key(netuid), 0)},
	} {
		t.Run("empty/"+tc.name, func(t *testing.T) {
			if out := e.mustQuery(t, tc.key, nil); len(out) != 0 {
				t.Fatalf("query %x = %x, want no entry", tc.key, out)
			}
		})
	}

	// The setters are the admin's.
	for _, tc := range []struct {
		method string
		args   []any
		reason string
	}{
		{"setMechanismCount", []any{uint16(netuid), uint8(3)}, "NotAdmin"},
		{"setMinerBurned", []any{uint16(netuid), big.NewInt(1)}, "NotAdmin"},
		{"setCommitRevealWeightsVersion", []any{uint16(5)}, "NotAdmin"},
	} {
		_, err := e.storageTx(t, e.opts(t, e.owner), tc.method, tc.args...)
		wantRevert(t, err, tc.reason)
	}
	_, err := e.storageTx(t, e.adminOpts(t), "setMechanismCount", uint16(netuid+1), uint8(3))
	wantRevert(t, err, "SubnetNotExists")
}

func mustStorageTx(t *testing.T, e *env, method string, args ...any) {
	t.Helper()
	if _, err := e.storageTx(t, e.adminOpts(t), method, args...); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// TestStorageQueryTwox64Concat checks the contract's twox_64 of every netuid shape against
// package chain's (xxHash library) through RevealPeriodEpochs keys.
func TestStorageQueryTwox64Concat(t *testing.T) {
	e := newEnv(t)
	netuids := []uint16{0, 1, 2, 255, 256, 4660, 65535}
	for _, n := range netuids {
		e.tx(t)(e.state.CreateSubnet(e.adminOpts(t), n, addrOf(e.owner), 100))
		e.setHyper(t, "setCommitRevealWeightsInterval", n, uint64(n%50+1))
	}
	for _, n := range netuids {
		key := chain.ItemRevealPeriodEpochs.Key(n)
		if out := e.mustQuery(t, key, nil); !bytes.Equal(out, le(uint64(n%50+1), 8)) {
			t.Errorf("netuid %d: key %s = %x, want %x", n, hex.EncodeToString(key), out, le(uint64(n%50+1), 8))
		}
	}
}
