package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"arena/chain/devnet"
)

// TestChainMetagraphRegistration: `arena chain metagraph` shows each uid's registration block,
// as the table's last column and in --json, and says so when the node cannot tell.
func TestChainMetagraphRegistration(t *testing.T) {
	ctx := context.Background()
	dn := serveDevnet(t, 1)
	dn.AdvanceBlocks(4)
	late := crypto.PubkeyToAddress(devnet.DevKey(42, 0).PublicKey)
	lateUID, err := dn.RegisterNeuron(ctx, late, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[uint16]uint64{}
	for uid := range lateUID + 1 {
		if blocks[uid], err = dn.RegisteredAt(ctx, uid); err != nil {
			t.Fatal(err)
		}
	}
	if blocks[lateUID] <= blocks[0] {
		t.Fatalf("registration blocks %v: the late uid is not later", blocks)
	}

	code, stdout, stderr := runCLI(t, nil, "chain", "metagraph", "--url", dn.URL())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2+len(blocks) {
		t.Fatalf("want a title, a header and %d rows:\n%s", len(blocks), stdout)
	}
	header := strings.Fields(lines[1])
	wantHeader := []string{"UID", "HOTKEY", "STAKE(τ)", "VPERMIT", "ACTIVE", "UPDATED", "INCENTIVE", "CONSENSUS",
		"DIVIDENDS", "EMISSION(τ)", "AXON", "REGISTERED"}
	if strings.Join(header, " ") != strings.Join(wantHeader, " ") {
		t.Fatalf("header %v, want %v", header, wantHeader)
	}
	for _, row := range lines[2:] {
		f := strings.Fields(row)
		var uid uint16
		if _, err := fmt.Sscan(f[0], &uid); err != nil {
			t.Fatalf("row %q: %v", row, err)
		}
		if got, want := f[len(f)-1], fmt.Sprint(blocks[uid]); got != want {
			t.Errorf("uid %d: REGISTERED %s, want %s", uid, got, want)
		}
	}

	code, stdout, stderr = runCLI(t, nil, "chain", "metagraph", "--url", dn.HTTPURL(), "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var mg struct {
		RegistrationKnown bool `json:"registration_known"`
		Neurons           []struct {
			UID          uint16 `json:"uid"`
			RegisteredAt uint64 `json:"registered_at"`
		} `json:"neurons"`
	}
	if err := json.Unmarshal([]byte(stdout), &mg); err != nil {
		t.Fatal(err)
	}
	if !mg.RegistrationKnown || len(mg.Neurons) != len(blocks) {
		t.Fatalf("json: registration_known %v, %d neurons:\n%s", mg.RegistrationKnown, len(mg.Neurons), stdout)
	}
	for _, n := range mg.Neurons {
		if n.RegisteredAt != blocks[n.UID] {
			t.Errorf("json uid %d: registered_at %d, want %d", n.UID, n.RegisteredAt, blocks[n.UID])
		}
	}

	// A node without StorageQuery: the table says registration blocks are unknown.
	old, err := devnet.New(devnet.Options{Validators: 1, Tempo: 10, Netuid: 15, WithoutStorageQuery: true}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { old.Close() })
	if err := old.Start(); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, nil, "chain", "metagraph", "--url", old.URL())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "registration blocks unknown") || !strings.HasSuffix(strings.TrimSpace(stdout), " -") {
		t.Errorf("without StorageQuery:\n%s", stdout)
	}
	code, stdout, _ = runCLI(t, nil, "chain", "metagraph", "--url", old.URL(), "--json")
	if code != 0 || !strings.Contains(stdout, `"registration_known": false`) {
		t.Errorf("json without StorageQuery (exit %d):\n%s", code, stdout)
	}
}
