package contracts

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
)

// epochModel is subtensor's epoch scheduler stepped one block at a time, written from
// should_run_epoch and drain_pending (pallets/subtensor/src/coinbase/run_coinbase.rs),
// independently of the contract's closed form.
type epochModel struct {
	tempo, last, pending, index, lastStep uint64
	pendingWritten, indexWritten          bool
}

// onInitialize runs block b's epoch check, before the block's transactions.
func (m *epochModel) onInitialize(b uint64) {
	if (m.pending > 0 && b >= m.pending) || b-m.lastStep > 50_400 || b-m.last >= m.tempo {
		m.last, m.lastStep, m.pending, m.pendingWritten = b, b, 0, true
		m.index++
		m.indexWritten = true
	}
}

// scheduleAt reads the contract's schedule of netuid as of block.
func (e *env) scheduleAt(t *testing.T, netuid uint16, block uint64) epochModel {
	t.Helper()
	opts := &bind.CallOpts{BlockNumber: new(big.Int).SetUint64(block)}
	var m epochModel
	for _, f := range []struct {
		item    uint8
		value   *uint64
		written *bool
	}{
		{ItemTempo, &m.tempo, nil},
		{ItemLastEpochBlock, &m.last, nil},
		{ItemPendingEpochAt, &m.pending, &m.pendingWritten},
		{ItemSubnetEpochIndex, &m.index, &m.indexWritten},
	} {
		res, err := e.state.StorageItem(opts, f.item, netuid)
		if err != nil {
			t.Fatalf("storageItem(%d) at %d: %v", f.item, block, err)
		}
		*f.value = res.Value.Uint64()
		if f.written != nil {
			*f.written = res.Present
		}
	}
	return m
}

// TestEpochSchedule replays automatic epochs, an owner's trigger and a tempo change through
// the model and compares the contract's schedule with it at every block.
func TestEpochSchedule(t *testing.T) {
	e := newEnv(t)
	const netuid = 7
	for range 9 {
		e.backend.Commit()
	}
	created := e.tx(t)(e.state.CreateSubnet(e.adminOpts(t), netuid, addrOf(e.owner), 10)).BlockNumber.Uint64()
	actions := map[uint64][]func(*epochModel){} // what the transactions of a block did
	const window = 3
	e.tx(t)(e.state.SetAdminFreezeWindow(e.adminOpts(t), window))

	waitFor := func(cond func(m epochModel) bool) uint64 {
		t.Helper()
		for range 100 {
			head := e.head(t)
			if cond(e.scheduleAt(t, netuid, head)) {
				return head
			}
			e.backend.Commit()
		}
		t.Fatal("condition not reached in 100 blocks")
		return 0
	}
	// Two automatic epochs.
	waitFor(func(m epochModel) bool { return m.index == 2 })

	// Right after an epoch the next automatic one is tempo blocks away: the owner's trigger
	// is allowed and fires `window` blocks after the block it lands in.
	waitFor(func(m epochModel) bool { return m.last == e.head(t) })
	r := e.tx(t)(e.state.TriggerEpoch(e.opts(t, e.owner), netuid))
	tb := r.BlockNumber.Uint64()
	actions[tb] = append(actions[tb], func(m *epochModel) { m.pending, m.pendingWritten = tb+window, true })
	_, err := e.state.TriggerEpoch(e.adminOpts(t), netuid)
	wantRevert(t, err, "EpochTriggerAlreadyPending")
	_, err = e.state.SetTempo(e.adminOpts(t), netuid, 4)
	wantRevert(t, err, "AdminActionProhibitedDuringWeightsWindow")
	waitFor(func(m epochModel) bool { return m.pending == 0 })

	// A tempo change restarts the cycle at the block it lands in.
	r = e.tx(t)(e.state.SetTempo(e.adminOpts(t), netuid, 4))
	sb := r.BlockNumber.Uint64()
	actions[sb] = append(actions[sb], func(m *epochModel) { m.tempo, m.last = 4, sb })
	waitFor(func(m epochModel) bool { return m.last >= sb+8 })

	// Close to the next automatic epoch, triggers are refused; so is a tempo change. (Gas is
	// estimated at the head, where the refusals show.)
	waitFor(func(m epochModel) bool { return m.last+m.tempo-e.head(t) < window })
	_, err = e.state.TriggerEpoch(e.opts(t, e.owner), netuid)
	wantRevert(t, err, "AutoEpochAlreadyImminent")
	_, err = e.state.SetTempo(e.adminOpts(t), netuid, 9)
	wantRevert(t, err, "AdminActionProhibitedDuringWeightsWindow")

	// Compare every block since the subnet's creation.
	m := epochModel{tempo: 10, last: created - netuid%10, lastStep: created}
	for b := created; b <= e.head(t); b++ {
		if b > created {
			m.onInitialize(b)
		}
		for _, act := range actions[b] {
			act(&m)
		}
		if got := e.scheduleAt(t, netuid, b); got.tempo != m.tempo || got.last != m.last || got.pending != m.pending ||
			got.index != m.index || got.pendingWritten != m.pendingWritten || got.indexWritten != m.indexWritten {
			t.Fatalf("block %d: contract %+v, model %+v", b, got, m)
		}
	}
	if m.index < 5 {
		t.Fatalf("only %d epochs in the replay", m.index)
	}

	// Refusals that do not depend on the schedule.
	_, err = e.state.TriggerEpoch(e.opts(t, e.stranger), netuid)
	wantRevert(t, err, "NotSubnetOwner")
	_, err = e.state.SetTempo(e.adminOpts(t), netuid, 0)
	wantRevert(t, err, "InvalidTempo")
	_, err = e.state.SetTempo(e.adminOpts(t), netuid, 1<<16)
	wantRevert(t, err, "InvalidTempo")
	_, err = e.state.CreateSubnet(e.adminOpts(t), netuid+1, addrOf(e.owner), 1<<16)
	wantRevert(t, err, "InvalidTempo")
	e.setHyper(t, "setCommitRevealWeightsEnabled", uint16(netuid), true)
	_, err = e.state.TriggerEpoch(e.opts(t, e.owner), netuid)
	wantRevert(t, err, "DynamicTempoBlockedByCommitReveal")
}

// TestCommitRevealByEpochIndex: with CommitRevealByEpochIndex set, a commit is revealed in the
// epoch `interval` SubnetEpochIndex steps after its own, as on subtensor.
func TestCommitRevealByEpochIndex(t *testing.T) {
	e := newEnv(t)
	const netuid, tempo = 4, 6
	e.createSubnet(t, netuid, tempo, 1)
	e.setHyper(t, "setWeightsSetRateLimit", uint16(netuid), uint64(0))
	e.setHyper(t, "setCommitRevealWeightsEnabled", uint16(netuid), true)
	e.setHyper(t, "setCommitRevealWeightsInterval", uint16(netuid), uint64(1))
	e.tx(t)(e.state.SetHyperparameter(e.adminOpts(t), netuid, HyperCommitRevealByEpochIndex, big.NewInt(1)))
	me := mirrorOf(addrOf(e.validator))
	pendingIndex := func() uint64 {
		t.Helper()
		res, err := e.state.StorageItem(&bind.CallOpts{Pending: true}, ItemSubnetEpochIndex, netuid)
		if err != nil {
			t.Fatal(err)
		}
		return res.Value.Uint64()
	}
	advanceTo := func(index uint64) {
		t.Helper()
		for range 3 * tempo {
			if pendingIndex() == index {
				return
			}
			e.backend.Commit()
		}
		t.Fatalf("SubnetEpochIndex %d not reached", index)
	}

	// Commit in the first block of an epoch, so the next few blocks share it.
	start := pendingIndex() + 1
	advanceTo(start)
	uids, values := []uint16{1, 2}, []uint16{100, 200}
	salt1, salt2 := []uint16{1}, []uint16{2}
	e.facadeTx(t, e.validator, NameNeuron, "commitWeights", uint16(netuid), goCommitHash(me, netuid, uids, values, salt1, 0))
	e.facadeTx(t, e.validator, NameNeuron, "commitWeights", uint16(netuid), goCommitHash(me, netuid, uids, values, salt2, 0))
	if pendingIndex() != start {
		t.Fatal("the commits did not land in one epoch")
	}
	reveal := func(salt []uint16) error {
		t.Helper()
		return e.facadeCall(t, e.validator, NameNeuron, "revealWeights", uint16(netuid), uids, values, salt, uint64(0))
	}
	// Block by block (each call runs in the next block): too early for the whole commit
	// epoch, revealable for the whole next one, expired after it.
	for ; pendingIndex() == start; e.backend.Commit() {
		wantRevert(t, reveal(salt1), "RevealTooEarly")
	}
	e.facadeTx(t, e.validator, NameNeuron, "revealWeights", uint16(netuid), uids, values, salt1, uint64(0))
	for ; pendingIndex() == start+1; e.backend.Commit() {
		if err := reveal(salt2); err != nil {
			t.Fatalf("reveal in epoch %d: %v", start+1, err)
		}
	}
	wantRevert(t, reveal(salt2), "ExpiredWeightCommit")
}
