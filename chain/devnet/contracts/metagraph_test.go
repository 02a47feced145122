package contracts

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
)

// maxMetagraphCode bounds Metagraph's runtime code: go-ethereum analyses all of it in every
// eth_call of a getter, and a metagraph snapshot makes ~12 such calls per uid.
const maxMetagraphCode = 4096

// TestMetagraphSelfContained checks that Metagraph (0x802) serves its getters from one small
// frame: its code makes no call of any kind and stays small.
func TestMetagraphSelfContained(t *testing.T) {
	code, err := Code(NameMetagraph)
	if err != nil {
		t.Fatal(err)
	}
	if len(code) > maxMetagraphCode {
		t.Errorf("Metagraph runtime code is %d bytes, want <= %d", len(code), maxMetagraphCode)
	}
	for pc := 0; pc < len(code); pc++ {
		op := vm.OpCode(code[pc])
		switch op {
		case vm.CALL, vm.CALLCODE, vm.DELEGATECALL, vm.STATICCALL, vm.CREATE, vm.CREATE2:
			t.Errorf("Metagraph code has %s at pc %d", op, pc)
		}
		if op.IsPush() {
			pc += int(op - vm.PUSH0)
		}
	}
}

// perUidGetters are the Metagraph getters taking (netuid, uid).
var perUidGetters = []string{
	"getStake", "getRank", "getTrust", "getConsensus", "getIncentive", "getDividends", "getEmission",
	"getVtrust", "getValidatorStatus", "getLastUpdate", "getIsActive", "getAxon", "getHotkey", "getColdkey",
}

// TestMetagraphMatchesState writes every field through SubtensorState's admin functions and
// checks that the Metagraph getters and SubtensorState.neuronInfo agree, and that they all
// reject unknown subnets and uids the same way.
func TestMetagraphMatchesState(t *testing.T) {
	e := newEnv(t)
	const netuid = 4
	e.createSubnet(t, netuid, 100, 2) // uids 0..3
	a := e.adminOpts
	e.tx(t)(e.state.SetStake(a(t), netuid, 2, 777))
	e.tx(t)(e.state.SetValidatorPermit(a(t), netuid, 2, true))
	e.tx(t)(e.state.SetActive(a(t), netuid, 3, false))
	axonRc := e.tx(t)(e.state.SetAxon(a(t), netuid, 1, 9, big.NewInt(0x0a000001), 8091, 4, 4))
	e.tx(t)(e.state.SetEpochResults(a(t), netuid,
		[]uint16{1, 2, 3, 4}, []uint16{5, 6, 7, 8}, []uint16{9, 10, 11, 12}, []uint16{13, 14, 15, 16},
		[]uint16{17, 18, 19, 20}, []uint16{21, 22, 23, 24}, []uint64{25, 26, 27, 1<<64 - 1}))
	// The validator sets weights: lastUpdate comes from the Neuron facade path.
	wRc := e.facadeTx(t, e.validator, NameNeuron, "setWeights", uint16(netuid), []uint16{1}, []uint16{65535}, uint64(0))

	for uid := range uint16(4) {
		info, err := e.state.NeuronInfo(nil, netuid, uid)
		if err != nil {
			t.Fatalf("neuronInfo(%d): %v", uid, err)
		}
		gotAxon := *abi.ConvertType(e.view(t, NameMetagraph, "getAxon", uint16(netuid), uid), new(AxonInfo)).(*AxonInfo)
		if gotAxon.Block != info.Axon.Block || gotAxon.Ip.Cmp(info.Axon.Ip) != 0 || gotAxon.Port != info.Axon.Port ||
			gotAxon.Version != info.Axon.Version || gotAxon.IpType != info.Axon.IpType || gotAxon.Protocol != info.Axon.Protocol {
			t.Fatalf("uid %d: getAxon %+v, neuronInfo.axon %+v", uid, gotAxon, info.Axon)
		}
		for _, c := range []struct {
			method string
			want   any
		}{
			{"getHotkey", info.Hotkey}, {"getColdkey", info.Coldkey}, {"getStake", info.Stake},
			{"getValidatorStatus", info.ValidatorPermit}, {"getIsActive", info.Active}, {"getLastUpdate", info.LastUpdate},
			{"getRank", info.Rank}, {"getTrust", info.Trust}, {"getConsensus", info.Consensus},
			{"getIncentive", info.Incentive}, {"getDividends", info.Dividends}, {"getVtrust", info.Vtrust},
			{"getEmission", info.Emission},
		} {
			if got := e.view(t, NameMetagraph, c.method, uint16(netuid), uid); got != c.want {
				t.Fatalf("uid %d: %s = %v, neuronInfo says %v", uid, c.method, got, c.want)
			}
		}
		if info.Rank != 1+uid || info.Vtrust != 21+uid || info.RegistrationBlock == 0 {
			t.Fatalf("uid %d: neuronInfo %+v", uid, info)
		}
	}
	info2, _ := e.state.NeuronInfo(nil, netuid, 2)
	info3, _ := e.state.NeuronInfo(nil, netuid, 3)
	info1, _ := e.state.NeuronInfo(nil, netuid, 1)
	info0, _ := e.state.NeuronInfo(nil, netuid, 0)
	switch {
	case info2.Stake != 777 || !info2.ValidatorPermit:
		t.Fatalf("uid 2: %+v", info2)
	case info3.Active || !info2.Active || info3.Emission != 1<<64-1:
		t.Fatalf("uid 3: %+v", info3)
	case info1.Axon.Block != axonRc.BlockNumber.Uint64() || info1.Axon.Port != 8091 || info1.Axon.Ip.Uint64() != 0x0a000001:
		t.Fatalf("uid 1 axon: %+v", info1.Axon)
	case info0.LastUpdate != wRc.BlockNumber.Uint64() || info1.LastUpdate != 0:
		t.Fatalf("lastUpdate: uid 0 %d (want %d), uid 1 %d", info0.LastUpdate, wRc.BlockNumber.Uint64(), info1.LastUpdate)
	}
	if ax, err := e.state.GetAxon(nil, netuid, 1); err != nil || ax.Port != 8091 {
		t.Fatalf("SubtensorState.getAxon = %+v, %v", ax, err)
	}

	// The storage layout documented in Metagraph.sol: subnet entry at slot netuid (exists,
	// then uidCount), uid's 5-slot entry at 65536 + (netuid*256 + uid)*5, hotkey first.
	word := func(slot uint64) common.Hash {
		t.Helper()
		raw, err := e.client.StorageAt(t.Context(), MetagraphAddress, common.BigToHash(new(big.Int).SetUint64(slot)), nil)
		if err != nil {
			t.Fatal(err)
		}
		return common.BytesToHash(raw)
	}
	if w := word(netuid); w[31] != 1 || w[30] != 4 || w[29] != 0 {
		t.Fatalf("subnet slot %x", w)
	}
	if w := word(65536 + (netuid*256+1)*5); w != common.Hash(info1.Hotkey) {
		t.Fatalf("hotkey slot of uid 1 = %x, want %x", w, info1.Hotkey)
	}

	for _, m := range perUidGetters {
		_, err := e.facadeView(t, common.Address{}, NameMetagraph, m, uint16(99), uint16(0))
		wantRevert(t, err, "SubnetNotExists")
		_, err = e.facadeView(t, common.Address{}, NameMetagraph, m, uint16(netuid), uint16(4))
		wantRevert(t, err, "UidNotFound")
	}
	_, err := e.state.NeuronInfo(nil, 99, 0)
	wantRevert(t, err, "SubnetNotExists")
	_, err = e.state.NeuronInfo(nil, netuid, 4)
	wantRevert(t, err, "UidNotFound")
	_, err = e.state.GetAxon(nil, netuid, 4)
	wantRevert(t, err, "UidNotFound")
	_, err = e.state.SetActive(a(t), 99, 0, true)
	wantRevert(t, err, "SubnetNotExists")
	_, err = e.state.SetAxon(a(t), netuid, 4, 1, big.NewInt(1), 1, 4, 0)
	wantRevert(t, err, "UidNotFound")
	if n, err := e.state.GetUidCount(nil, 99); err != nil || n != 0 {
		t.Fatalf("getUidCount(99) = %d, %v", n, err)
	}
}

// TestMetagraphOnlyState checks that only SubtensorState can write Metagraph's table.
func TestMetagraphOnlyState(t *testing.T) {
	e := newEnv(t)
	const netuid = 1
	e.createSubnet(t, netuid, 100, 0)
	type epochResult struct {
		Rank, Trust, Consensus, Incentive, Dividends, Vtrust uint16
		Emission                                             uint64
	}
	axon := AxonInfo{Block: 1, Version: 1, Ip: big.NewInt(1), Port: 1, IpType: 4, Protocol: 0}
	calls := []struct {
		method string
		args   []any
	}{
		{"stateCreateSubnet", []any{uint16(7)}},
		{"stateRegister", []any{uint16(netuid), [32]byte{1}, [32]byte{2}, uint64(3), true}},
		{"stateSetStake", []any{uint16(netuid), uint16(0), uint64(5)}},
		{"stateSetValidatorPermit", []any{uint16(netuid), uint16(1), true}},
		{"stateSetActive", []any{uint16(netuid), uint16(0), false}},
		{"stateSetLastUpdate", []any{uint16(netuid), uint16(0), uint64(5)}},
		{"stateSetAxon", []any{uint16(netuid), uint16(0), axon}},
		{"stateSetEpochResults", []any{uint16(netuid), []epochResult{{Rank: 1}, {Rank: 2}}}},
		{"stateReplace", []any{uint16(netuid), uint16(0), [32]byte{7}, [32]byte{8}, uint64(9), true}},
	}
	if n, want := len(calls), countStateMethods(t, e); n != want {
		t.Fatalf("test covers %d state* methods, Metagraph has %d", n, want)
	}
	for _, c := range calls {
		wantRevert(t, e.facadeCall(t, e.admin, NameMetagraph, c.method, c.args...), "OnlyState")
		wantRevert(t, e.facadeCall(t, e.stranger, NameMetagraph, c.method, c.args...), "OnlyState")
	}
	// Nothing changed.
	if n := e.view(t, NameMetagraph, "getUidCount", uint16(netuid)).(uint16); n != 2 {
		t.Fatalf("uid count = %d", n)
	}
}

func countStateMethods(t *testing.T, e *env) int {
	t.Helper()
	n := 0
	for name := range e.abis[NameMetagraph].Methods {
		if strings.HasPrefix(name, "state") {
			n++
		}
	}
	return n
}
