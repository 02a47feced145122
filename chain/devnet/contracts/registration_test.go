package contracts

import (
	"bytes"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"arena/chain"
)

// registerAt registers hotkey after committing gap empty blocks and returns the block it
// landed in.
func (e *env) registerAt(t *testing.T, netuid uint16, gap int, hotkey [32]byte, stake uint64, permit bool) uint64 {
	t.Helper()
	for range gap {
		e.backend.Commit()
	}
	return e.tx(t)(e.state.RegisterNeuron(e.adminOpts(t), netuid, hotkey, hotkey, stake, permit)).BlockNumber.Uint64()
}

// registeredAt reads uid's BlockAtRegistration through StorageQuery at block (nil: latest):
// the block, or ok false for no entry.
func (e *env) registeredAt(t *testing.T, netuid, uid uint16, block *big.Int) (uint64, bool) {
	t.Helper()
	out := e.mustQuery(t, chain.ItemBlockAtRegistration.UIDKey(netuid, uid), block)
	switch len(out) {
	case 0:
		return 0, false
	case 8:
		var v uint64
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(out[i])
		}
		return v, true
	default:
		t.Fatalf("BlockAtRegistration(%d, %d) = %x: want 8 bytes", netuid, uid, out)
		return 0, false
	}
}

// TestBlockAtRegistration: StorageQuery answers BlockAtRegistration per (netuid, uid) with the
// block each uid registered at, agreeing with neuronInfo and Metagraph, and has no entry where
// subtensor has none.
func TestBlockAtRegistration(t *testing.T) {
	e := newEnv(t)
	const netuid = 3
	e.tx(t)(e.state.CreateSubnet(e.adminOpts(t), netuid, addrOf(e.owner), 100))
	var blocks []uint64
	for i, hk := range [][32]byte{{1}, {2}, {3}} {
		blocks = append(blocks, e.registerAt(t, netuid, 2*i, hk, 0, false))
	}
	if blocks[0]+2 >= blocks[1] || blocks[1]+4 >= blocks[2] {
		t.Fatalf("registrations at blocks %v: want 2 and 4 empty blocks between them", blocks)
	}
	for uid, want := range blocks {
		u := uint16(uid)
		if got, ok := e.registeredAt(t, netuid, u, nil); !ok || got != want {
			t.Errorf("uid %d: BlockAtRegistration = %d (entry %v), want %d", uid, got, ok, want)
		}
		info, err := e.state.NeuronInfo(nil, netuid, u)
		if err != nil || info.RegistrationBlock != want {
			t.Errorf("uid %d: neuronInfo.registrationBlock = %d, %v; want %d", uid, info.RegistrationBlock, err, want)
		}
	}
	// At the block before uid 2 registered, uid 2 has no entry yet; uid 1 has.
	before := new(big.Int).SetUint64(blocks[2] - 1)
	if _, ok := e.registeredAt(t, netuid, 2, before); ok {
		t.Error("uid 2 has an entry before it registered")
	}
	if got, ok := e.registeredAt(t, netuid, 1, before); !ok || got != blocks[1] {
		t.Errorf("uid 1 at block %d = %d, %v", blocks[2]-1, got, ok)
	}

	key := chain.ItemBlockAtRegistration.UIDKey(netuid, 1)
	for _, tc := range []struct {
		name string
		key  []byte
	}{
		{"uid not registered", chain.ItemBlockAtRegistration.UIDKey(netuid, 3)},
		{"subnet that does not exist", chain.ItemBlockAtRegistration.UIDKey(netuid+1, 0)},
		{"without the uid", key[:34]},
		{"with a trailing byte", append(bytes.Clone(key), 0)},
		{"uid hashed Twox64Concat", chain.StorageDoubleMapKey(chain.SubtensorPallet, "BlockAtRegistration",
			chain.HasherIdentity, le(netuid, 2), chain.HasherTwox64Concat, le(1, 2))},
	} {
		t.Run("empty/"+tc.name, func(t *testing.T) {
			if out := e.mustQuery(t, tc.key, nil); len(out) != 0 {
				t.Fatalf("query %x = %x, want no entry", tc.key, out)
			}
		})
	}
	// Metagraph's own view answers without reverting for a uid that does not exist.
	vals, err := e.facadeView(t, common.Address{}, NameMetagraph, "blockAtRegistration", uint16(netuid), uint16(3))
	if err != nil || len(vals) != 2 || vals[0].(bool) {
		t.Fatalf("Metagraph.blockAtRegistration of a missing uid = %v, %v", vals, err)
	}
}

// TestReplaceNeuron: replaceNeuron gives a uid to a new hotkey as subtensor's replace_neuron
// does: a new BlockAtRegistration, the old hotkey gone with everything that was its, other
// neurons' weights on the uid zeroed.
func TestReplaceNeuron(t *testing.T) {
	e := newEnv(t)
	const netuid = 2
	e.tx(t)(e.state.CreateSubnet(e.adminOpts(t), netuid, addrOf(e.owner), 100))
	valKey, oldKey, thirdKey := mirrorOf(addrOf(e.validator)), mirrorOf(addrOf(e.miner)), [32]byte{3}
	e.registerAt(t, netuid, 0, valKey, 1_000_000, true) // uid 0
	oldBlock := e.registerAt(t, netuid, 0, oldKey, 0, false)
	thirdBlock := e.registerAt(t, netuid, 0, thirdKey, 0, false)
	e.setHyper(t, "setWeightsSetRateLimit", uint16(netuid), uint64(0))

	// What uid 1 holds before it is given away: weights it set, weights on it, an EVM
	// association, an axon, epoch results and a pending commit.
	e.facadeTx(t, e.miner, NameNeuron, "setWeights", uint16(netuid), []uint16{1}, []uint16{65535}, uint64(0))
	e.facadeTx(t, e.validator, NameNeuron, "setWeights", uint16(netuid), []uint16{1, 2}, []uint16{100, 200}, uint64(0))
	e.tx(t)(e.state.AssociateEvmKey(e.adminOpts(t), netuid, 1, addrOf(e.miner)))
	e.tx(t)(e.state.SetAxon(e.adminOpts(t), netuid, 1, 1, big.NewInt(0x0a000001), 8091, 4, 4))
	ones := []uint16{1, 1, 1}
	e.tx(t)(e.state.SetEpochResults(e.adminOpts(t), netuid, ones, ones, ones, ones, ones, ones, []uint64{1, 1, 1}))
	e.setHyper(t, "setCommitRevealWeightsEnabled", uint16(netuid), true)
	e.facadeTx(t, e.miner, NameNeuron, "commitWeights", uint16(netuid), [32]byte{0xc0})

	a := e.adminOpts
	newKey, newCold := [32]byte{0xaa}, [32]byte{0xbb}
	_, err := e.state.ReplaceNeuron(a(t), netuid, 1, thirdKey, newCold, 0, false)
	wantRevert(t, err, "HotKeyAlreadyRegisteredInSubNet")
	_, err = e.state.ReplaceNeuron(a(t), netuid, 3, newKey, newCold, 0, false)
	wantRevert(t, err, "UidNotFound")
	_, err = e.state.ReplaceNeuron(a(t), netuid+1, 0, newKey, newCold, 0, false)
	wantRevert(t, err, "SubnetNotExists")

	e.backend.Commit()
	replaced := e.tx(t)(e.state.ReplaceNeuron(a(t), netuid, 1, newKey, newCold, 42, true)).BlockNumber.Uint64()
	if replaced <= thirdBlock {
		t.Fatalf("replaced at block %d, not after uid 2's registration at %d", replaced, thirdBlock)
	}
	if got, ok := e.registeredAt(t, netuid, 1, nil); !ok || got != replaced {
		t.Errorf("uid 1: BlockAtRegistration = %d, %v; want the replacement's block %d", got, ok, replaced)
	}
	if got, _ := e.registeredAt(t, netuid, 1, new(big.Int).SetUint64(replaced-1)); got != oldBlock {
		t.Errorf("uid 1 before the replacement = %d, want %d", got, oldBlock)
	}
	if got, _ := e.registeredAt(t, netuid, 2, nil); got != thirdBlock {
		t.Errorf("uid 2 = %d, want %d (untouched)", got, thirdBlock)
	}
	if n := e.view(t, NameMetagraph, "getUidCount", uint16(netuid)).(uint16); n != 3 {
		t.Fatalf("uid count = %d, want 3", n)
	}

	if res, _ := e.state.UidOfHotkey(nil, netuid, oldKey); res.Found {
		t.Error("the old hotkey still has a uid")
	}
	if res, _ := e.state.UidOfHotkey(nil, netuid, newKey); !res.Found || res.Uid != 1 {
		t.Errorf("the new hotkey: %+v, want uid 1", res)
	}
	info, err := e.state.NeuronInfo(nil, netuid, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := NeuronInfo{Hotkey: newKey, Coldkey: newCold, Stake: 42, ValidatorPermit: true, Active: true,
		RegistrationBlock: replaced, Axon: AxonInfo{Ip: new(big.Int)}}
	if info.Axon.Ip == nil || info.Axon.Ip.Sign() != 0 {
		t.Errorf("axon ip %v, want 0", info.Axon.Ip)
	}
	info.Axon.Ip = want.Axon.Ip
	if info != want {
		t.Errorf("neuronInfo(1) = %+v\n want %+v", info, want)
	}
	lookup := *abi.ConvertType(e.view(t, NameUidLookup, "uidLookup", uint16(netuid), addrOf(e.miner), uint16(10)),
		new([]LookupItem)).(*[]LookupItem)
	if len(lookup) != 0 {
		t.Errorf("the old EVM association survives: %+v", lookup)
	}
	if row, _ := e.state.GetWeights(nil, netuid, 1); len(row.Uids) != 0 {
		t.Errorf("weights the old neuron set survive: %+v", row)
	}
	if pending, _ := e.state.GetPendingCommits(nil, netuid, 1); len(pending.Hashes) != 0 {
		t.Errorf("the old neuron's commits survive: %x", pending.Hashes)
	}
	if row, _ := e.state.GetWeights(nil, netuid, 0); !slices.Equal(row.Uids, []uint16{1, 2}) || !slices.Equal(row.Values, []uint16{0, 200}) {
		t.Errorf("validator's row = %v %v, want [1 2] [0 200]", row.Uids, row.Values)
	}
	// The old hotkey has left the subnet: it can register again, on a new uid.
	if uid := e.register(t, netuid, oldKey, 0, false); uid != 3 {
		t.Errorf("the old hotkey registered again at uid %d, want 3", uid)
	}
}
