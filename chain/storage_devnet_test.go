package chain_test

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/chain/devnet"
)

// startManualDevnet runs a devnet whose blocks the test commits itself (BlockTime 0), serving
// RPC, with its metrics in reg.
func startManualDevnet(t *testing.T, opts devnet.Options, reg prometheus.Registerer) *devnet.Devnet {
	t.Helper()
	if opts.Netuid == 0 {
		opts.Netuid = 15
	}
	dn, err := devnet.New(opts, zerolog.Nop(), reg)
	if err != nil {
		t.Fatalf("devnet: %v", err)
	}
	t.Cleanup(func() { dn.Close() })
	if err := dn.Start(); err != nil {
		t.Fatal(err)
	}
	return dn
}

// TestStorageReads reads every item the reader knows over the devnet's websocket: values the
// devnet derives (tempo, schedule, reveal period), the pallet's defaults for entries that do
// not exist, and values written afterwards, also through a reader pinned to an older block.
func TestStorageReads(t *testing.T) {
	ctx := context.Background()
	dn := startManualDevnet(t, devnet.Options{Validators: 1, Miners: 1, Tempo: 50,
		Hyper: &devnet.Hyper{CommitRevealInterval: 3}}, nil)
	c := dial(t, dn.URL())
	st := c.Storage()
	netuid := dn.Netuid()

	head, err := c.HeadNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := dn.EpochScheduleAt(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	hp, err := c.Hyperparams(ctx, netuid)
	if err != nil {
		t.Fatal(err)
	}
	get := func(name string, read func() (uint64, error), want uint64) {
		t.Helper()
		got, err := read()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	u16 := func(f func(context.Context, uint16) (uint16, error)) func() (uint64, error) {
		return func() (uint64, error) { v, err := f(ctx, netuid); return uint64(v), err }
	}
	u64 := func(f func(context.Context, uint16) (uint64, error)) func() (uint64, error) {
		return func() (uint64, error) { return f(ctx, netuid) }
	}
	mech := func(s chain.Storage) func() (uint64, error) {
		return func() (uint64, error) { v, err := s.MechanismCount(ctx, netuid); return uint64(v), err }
	}
	crv := func(s chain.Storage) func() (uint64, error) {
		return func() (uint64, error) { v, err := s.CommitRevealWeightsVersion(ctx); return uint64(v), err }
	}
	get("Tempo", u16(st.Tempo), 50)
	get("LastEpochBlock", u64(st.LastEpochBlock), want.LastEpochBlock)
	get("PendingEpochAt (no entry)", u64(st.PendingEpochAt), 0)
	get("SubnetEpochIndex (no entry)", u64(st.SubnetEpochIndex), 0)
	get("RevealPeriodEpochs", u64(st.RevealPeriodEpochs), 3)
	get("RevealPeriodEpochs = Subnet precompile's commit-reveal interval", u64(st.RevealPeriodEpochs), hp.CommitRevealInterval)
	get("MechanismCount (default)", mech(st), 1)
	get("CommitRevealWeightsVersion (default)", crv(st), 4)
	if burned, err := st.MinerBurned(ctx, netuid); err != nil || burned != (chain.U96F32{}) {
		t.Errorf("MinerBurned (default) = %v, %v", burned, err)
	}
	if raw, err := st.Raw(ctx, chain.ItemPendingEpochAt.Key(netuid)); err != nil || raw != nil {
		t.Errorf("Raw of a missing entry = %x, %v; want nil", raw, err)
	}
	if raw, err := st.Raw(ctx, chain.ItemTempo.Key(netuid)); err != nil || string(raw) != "\x32\x00" {
		t.Errorf("Raw Tempo = %x, %v; want 3200", raw, err)
	}
	// Another subnet's entries do not exist: every read is the pallet's default.
	other := st.At(head)
	if v, err := other.Tempo(ctx, netuid+1); err != nil || v != 360 {
		t.Errorf("Tempo of a missing subnet = %d, %v; want DefaultTempo 360", v, err)
	}
	if v, err := other.RevealPeriodEpochs(ctx, netuid+1); err != nil || v != 1 {
		t.Errorf("RevealPeriodEpochs of a missing subnet = %d, %v; want 1", v, err)
	}

	before, err := c.HeadNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := dn.SetMechanismCount(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := dn.SetMinerBurned(ctx, chain.U96F32{Lo: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	if err := dn.SetCommitRevealWeightsVersion(ctx, 3); err != nil {
		t.Fatal(err)
	}
	get("MechanismCount", mech(st), 2)
	get("CommitRevealWeightsVersion", crv(st), 3)
	if burned, err := st.MinerBurned(ctx, netuid); err != nil || burned.Float64() != 0.25 {
		t.Errorf("MinerBurned = %v (%v), %v; want 0.25", burned, burned.Float64(), err)
	}
	old := st.At(before)
	get("MechanismCount at the block before", mech(old), 1)
	get("CommitRevealWeightsVersion at the block before", crv(old), 4)
}

// epochState reads the schedule through the reader at block.
func epochState(t *testing.T, st chain.Storage, netuid uint16, block uint64) chain.EpochSchedule {
	t.Helper()
	s, err := st.At(block).EpochSchedule(context.Background(), netuid)
	if err != nil {
		t.Fatalf("epoch schedule at %d: %v", block, err)
	}
	if s.Block != block {
		t.Fatalf("schedule of block %d says block %d", block, s.Block)
	}
	return s
}

// advanceToEpoch commits blocks until SubnetEpochIndex reaches index and returns the block it
// moved at, checking that the block before still had the previous index.
func advanceToEpoch(t *testing.T, dn *devnet.Devnet, st chain.Storage, index uint64) uint64 {
	t.Helper()
	for range 1000 {
		b := dn.Commit()
		s := epochState(t, st, dn.Netuid(), b)
		if s.EpochIndex < index {
			continue
		}
		if s.EpochIndex != index {
			t.Fatalf("block %d: SubnetEpochIndex jumped to %d, want %d", b, s.EpochIndex, index)
		}
		if s.LastEpochBlock != b || s.PendingEpochAt != 0 {
			t.Fatalf("block %d: epoch %d fired with LastEpochBlock %d, PendingEpochAt %d", b, index, s.LastEpochBlock, s.PendingEpochAt)
		}
		if prev := epochState(t, st, dn.Netuid(), b-1); prev.EpochIndex != index-1 {
			t.Fatalf("block %d: SubnetEpochIndex %d, want %d", b-1, prev.EpochIndex, index-1)
		}
		return b
	}
	t.Fatalf("SubnetEpochIndex %d not reached", index)
	return 0
}

func gatherCounter(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// TestStorageEpochRule follows the dynamic-tempo rule over the websocket: automatic epochs
// tempo blocks apart, an owner-triggered early epoch at PendingEpochAt, and a tempo change
// that restarts the cycle; the devnet runs one Yuma pass per epoch.
func TestStorageEpochRule(t *testing.T) {
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	const tempo = 10
	dn := startManualDevnet(t, devnet.Options{Validators: 1, Miners: 2, Tempo: tempo}, reg)
	c := dial(t, dn.URL())
	st := c.Storage()
	netuid := dn.Netuid()
	const window = 3
	if err := dn.SetAdminFreezeWindow(ctx, window); err != nil {
		t.Fatal(err)
	}

	// Automatic epochs: block − LastEpochBlock ≥ Tempo.
	first := advanceToEpoch(t, dn, st, 1)
	second := advanceToEpoch(t, dn, st, 2)
	if second-first != tempo {
		t.Fatalf("epochs at %d and %d: %d blocks apart, want tempo %d", first, second, second-first, tempo)
	}

	// An early epoch: the trigger lands right after an epoch, so the automatic one is tempo
	// blocks away and the triggered one fires window blocks after the trigger's block.
	firesAt, err := dn.TriggerEpoch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	head, err := c.HeadNumber(ctx) // the block the trigger landed in (blocks are ours)
	if err != nil {
		t.Fatal(err)
	}
	if firesAt != head+window {
		t.Fatalf("trigger in block %d fires at %d, want %d (+ AdminFreezeWindow)", head, firesAt, head+window)
	}
	if auto := second + tempo; firesAt >= auto {
		t.Fatalf("trigger fires at %d, not before the automatic epoch at %d", firesAt, auto)
	}
	for ; head < firesAt; head = dn.Commit() {
		s := epochState(t, st, netuid, head)
		if s.PendingEpochAt != firesAt || s.EpochIndex != 2 {
			t.Fatalf("block %d, before the triggered epoch: %+v, want PendingEpochAt %d, index 2", head, s, firesAt)
		}
		if next, _ := s.NextEpoch(); next != firesAt {
			t.Fatalf("block %d: NextEpoch = %d, want %d", head, next, firesAt)
		}
	}
	if s := epochState(t, st, netuid, firesAt); s.EpochIndex != 3 || s.LastEpochBlock != firesAt || s.PendingEpochAt != 0 {
		t.Fatalf("block %d, the triggered epoch: %+v", firesAt, s)
	}
	if got := advanceToEpoch(t, dn, st, 4); got != firesAt+tempo {
		t.Fatalf("epoch after the trigger at %d, want %d (LastEpochBlock + tempo)", got, firesAt+tempo)
	}

	// A tempo change: LastEpochBlock = the block it lands in, the next epoch newTempo later.
	const newTempo = 4
	changed, err := dn.SetTempo(ctx, newTempo)
	if err != nil {
		t.Fatal(err)
	}
	if s := epochState(t, st, netuid, changed); s.Tempo != newTempo || s.LastEpochBlock != changed || s.EpochIndex != 4 {
		t.Fatalf("after the tempo change in block %d: %+v", changed, s)
	}
	if s := epochState(t, st, netuid, changed-1); s.Tempo != tempo {
		t.Fatalf("tempo before the change = %d, want %d", s.Tempo, tempo)
	}
	if got := advanceToEpoch(t, dn, st, 5); got != changed+newTempo {
		t.Fatalf("first epoch after the tempo change at %d, want %d", got, changed+newTempo)
	}
	if got := advanceToEpoch(t, dn, st, 6); got != changed+2*newTempo {
		t.Fatalf("second epoch after the tempo change at %d, want %d", got, changed+2*newTempo)
	}
	if dn.Tempo() != newTempo {
		t.Fatalf("devnet Tempo() = %d", dn.Tempo())
	}
	if n := gatherCounter(t, reg, "arena_devnet_epochs_total"); n != 6 {
		t.Fatalf("devnet ran %v Yuma passes for 6 epochs", n)
	}

	// The devnet refuses what subtensor refuses: a second pending trigger.
	if _, err := dn.TriggerEpoch(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := dn.TriggerEpoch(ctx); err == nil {
		t.Fatal("a second pending trigger was accepted")
	}
}

// TestStorageWithoutPrecompile: a chain without StorageQuery gives ErrNoStorageQuery for every
// read, so callers can fall back; the precompile's missing entries never do.
func TestStorageWithoutPrecompile(t *testing.T) {
	ctx := context.Background()
	dn := startManualDevnet(t, devnet.Options{Validators: 1, Tempo: 20, WithoutStorageQuery: true}, nil)
	c := dial(t, dn.URL())
	st := c.Storage()
	n := dn.Netuid()
	for name, read := range map[string]func() error{
		"Raw":                        func() error { _, err := st.Raw(ctx, chain.ItemTempo.Key(n)); return err },
		"Tempo":                      func() error { _, err := st.Tempo(ctx, n); return err },
		"LastEpochBlock":             func() error { _, err := st.LastEpochBlock(ctx, n); return err },
		"PendingEpochAt":             func() error { _, err := st.PendingEpochAt(ctx, n); return err },
		"SubnetEpochIndex":           func() error { _, err := st.SubnetEpochIndex(ctx, n); return err },
		"RevealPeriodEpochs":         func() error { _, err := st.RevealPeriodEpochs(ctx, n); return err },
		"MechanismCount":             func() error { _, err := st.MechanismCount(ctx, n); return err },
		"MinerBurned":                func() error { _, err := st.MinerBurned(ctx, n); return err },
		"CommitRevealWeightsVersion": func() error { _, err := st.CommitRevealWeightsVersion(ctx); return err },
		"EpochSchedule":              func() error { _, err := st.EpochSchedule(ctx, n); return err },
	} {
		if err := read(); !errors.Is(err, chain.ErrNoStorageQuery) {
			t.Errorf("%s: %v, want ErrNoStorageQuery", name, err)
		}
	}
	// The devnet's epochs run all the same.
	if got := advanceToEpochIn(t, dn, 1); got == 0 {
		t.Fatal("no epoch")
	}
}

// advanceToEpochIn is advanceToEpoch read in-process, for a devnet without StorageQuery.
func advanceToEpochIn(t *testing.T, dn *devnet.Devnet, index uint64) uint64 {
	t.Helper()
	for range 1000 {
		b := dn.Commit()
		s, err := dn.EpochScheduleAt(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		if s.EpochIndex >= index {
			return b
		}
	}
	t.Fatalf("SubnetEpochIndex %d not reached", index)
	return 0
}
