package chain_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"arena/chain"
	"arena/chain/devnet"
)

// TestMetagraphRegistrationBlocks registers neurons at chosen, different blocks on the devnet
// and reads their registration blocks back over the websocket: in the metagraph snapshot, at
// older blocks, after a uid is given to a new hotkey, and through the Storage reader.
func TestMetagraphRegistrationBlocks(t *testing.T) {
	ctx := context.Background()
	dn := startManualDevnet(t, devnet.Options{Validators: 1, Miners: 1, Tempo: 100}, nil)
	c := dial(t, dn.URL())
	netuid := dn.Netuid()

	// Three neurons, one after another, with 3 and 6 empty blocks between them.
	type registered struct {
		uid   uint16
		addr  common.Address
		block uint64
	}
	var regs []registered
	for i := range 3 {
		dn.AdvanceBlocks(3 * i)
		before, err := c.HeadNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		addr := crypto.PubkeyToAddress(devnet.DevKey(99, i).PublicKey)
		uid, err := dn.RegisterNeuron(ctx, addr, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		after, err := c.HeadNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		block, err := dn.RegisteredAt(ctx, uid)
		if err != nil {
			t.Fatal(err)
		}
		if block <= before || block > after {
			t.Fatalf("uid %d registered at block %d, outside (%d, %d]", uid, block, before, after)
		}
		regs = append(regs, registered{uid: uid, addr: addr, block: block})
	}
	for i := 1; i < len(regs); i++ {
		if gap := regs[i].block - regs[i-1].block; gap <= uint64(3*i) {
			t.Fatalf("registrations %d and %d are %d blocks apart, want more than %d", i-1, i, gap, 3*i)
		}
	}

	mg, err := c.Metagraph(ctx, netuid)
	if err != nil {
		t.Fatal(err)
	}
	if !mg.RegistrationKnown || len(mg.Neurons) != 5 {
		t.Fatalf("metagraph: %d neurons, RegistrationKnown %v", len(mg.Neurons), mg.RegistrationKnown)
	}
	for _, n := range mg.Neurons[:2] { // setup's validator and miner
		if n.RegisteredAt == 0 || n.RegisteredAt >= regs[0].block {
			t.Errorf("setup uid %d registered at %d, want a block before %d", n.UID, n.RegisteredAt, regs[0].block)
		}
	}
	for _, r := range regs {
		n := mg.Neurons[r.uid]
		if n.RegisteredAt != r.block || n.Hotkey != chain.Mirror(r.addr) {
			t.Errorf("uid %d: registered at %d with %s, want %d with %s", r.uid, n.RegisteredAt, n.Hotkey, r.block, chain.Mirror(r.addr))
		}
		if got, err := c.Storage().BlockAtRegistration(ctx, netuid, r.uid); err != nil || got != r.block {
			t.Errorf("Storage.BlockAtRegistration(uid %d) = %d, %v; want %d", r.uid, got, err, r.block)
		}
	}

	// A snapshot before the last registration holds the neurons of that block only.
	old, err := c.MetagraphAt(ctx, netuid, regs[2].block-1)
	if err != nil {
		t.Fatal(err)
	}
	if !old.RegistrationKnown || len(old.Neurons) != 4 || old.Neurons[regs[1].uid].RegisteredAt != regs[1].block {
		t.Fatalf("snapshot at %d: %d neurons, %+v", regs[2].block-1, len(old.Neurons), old.Neurons)
	}

	// The first new uid goes to another hotkey: its registration block is the replacement's,
	// at every read after it and not before.
	newcomer := crypto.PubkeyToAddress(devnet.DevKey(99, 10).PublicKey)
	dn.AdvanceBlocks(2)
	replaced, err := dn.ReplaceNeuron(ctx, regs[0].uid, newcomer, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if replaced <= regs[2].block {
		t.Fatalf("replaced at %d, not after the last registration at %d", replaced, regs[2].block)
	}
	mg, err = c.Metagraph(ctx, netuid)
	if err != nil {
		t.Fatal(err)
	}
	if n := mg.Neurons[regs[0].uid]; n.RegisteredAt != replaced || n.Hotkey != chain.Mirror(newcomer) {
		t.Errorf("replaced uid %d: registered at %d with %s, want %d with %s", n.UID, n.RegisteredAt, n.Hotkey, replaced, chain.Mirror(newcomer))
	}
	for _, r := range regs[1:] {
		if got := mg.Neurons[r.uid].RegisteredAt; got != r.block {
			t.Errorf("uid %d: registered at %d after another uid's replacement, want %d", r.uid, got, r.block)
		}
	}
	before, err := c.MetagraphAt(ctx, netuid, replaced-1)
	if err != nil {
		t.Fatal(err)
	}
	if n := before.Neurons[regs[0].uid]; n.RegisteredAt != regs[0].block || n.Hotkey != chain.Mirror(regs[0].addr) {
		t.Errorf("uid %d the block before its replacement: registered at %d with %s, want %d with the first hotkey", n.UID, n.RegisteredAt, n.Hotkey, regs[0].block)
	}

	// JSON carries both.
	raw, err := json.Marshal(mg)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		RegistrationKnown *bool `json:"registration_known"`
		Neurons           []struct {
			RegisteredAt *uint64 `json:"registered_at"`
		} `json:"neurons"`
	}
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.RegistrationKnown == nil || !*back.RegistrationKnown || back.Neurons[regs[1].uid].RegisteredAt == nil ||
		*back.Neurons[regs[1].uid].RegisteredAt != regs[1].block {
		t.Errorf("JSON lacks registration_known or registered_at: %s", raw)
	}
}

// TestMetagraphWithoutStorageQuery: a node without the StorageQuery precompile still gives a
// full snapshot, with RegistrationKnown false and no registration blocks.
func TestMetagraphWithoutStorageQuery(t *testing.T) {
	ctx := context.Background()
	dn := startManualDevnet(t, devnet.Options{Validators: 1, Miners: 2, Tempo: 20, WithoutStorageQuery: true}, nil)
	c := dial(t, dn.URL())
	for range 2 { // the second read must not remember absence as presence
		mg, err := c.Metagraph(ctx, dn.Netuid())
		if err != nil {
			t.Fatal(err)
		}
		if mg.RegistrationKnown || len(mg.Neurons) != 3 {
			t.Fatalf("metagraph: %d neurons, RegistrationKnown %v", len(mg.Neurons), mg.RegistrationKnown)
		}
		for _, n := range mg.Neurons {
			if n.RegisteredAt != 0 {
				t.Errorf("uid %d: RegisteredAt %d without StorageQuery", n.UID, n.RegisteredAt)
			}
			if want := dn.Accounts()[n.UID].Hotkey; n.Hotkey != want {
				t.Errorf("uid %d: hotkey %s, want %s", n.UID, n.Hotkey, want)
			}
		}
	}
	if _, err := c.Storage().BlockAtRegistration(ctx, dn.Netuid(), 0); !errors.Is(err, chain.ErrNoStorageQuery) {
		t.Errorf("BlockAtRegistration: %v, want ErrNoStorageQuery", err)
	}
}
