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
	if len(lines) != 3+len(blocks) {
		t.Fatalf("want a title, an epochs line, a header and %d rows:\n%s", len(blocks), stdout)
	}
	header := strings.Fields(lines[2])
	wantHeader := []string{"UID", "HOTKEY", "STAKE(τ)", "VPERMIT", "ACTIVE", "UPDATED", "INCENTIVE", "CONSENSUS",
		"DIVIDENDS", "EMISSION(τ)", "AXON", "REGISTERED"}
	if strings.Join(header, " ") != strings.Join(wantHeader, " ") {
		t.Fatalf("header %v, want %v", header, wantHeader)
	}
	for _, row := range lines[3:] {
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
	if !strings.Contains(stdout, "registration blocks unknown") || !strings.HasSuffix(strings.TrimSpace(stdout), " -") ||
		!strings.Contains(stdout, "epochs unknown: the node has no StorageQuery precompile (0x807); tempo 360 blocks from config") {
		t.Errorf("without StorageQuery:\n%s", stdout)
	}
	code, stdout, _ = runCLI(t, nil, "chain", "metagraph", "--url", old.URL(), "--json")
	if code != 0 || !strings.Contains(stdout, `"registration_known": false`) {
		t.Errorf("json without StorageQuery (exit %d):\n%s", code, stdout)
	}
}

// TestChainHyperparamsFromChain: `arena chain hyperparams` and the metagraph's header show the
// tempo and epochs the chain holds (a devnet started with tempo 20, not the configured 360),
// read through StorageQuery; a node without it gets the configured tempo, labelled as such.
func TestChainHyperparamsFromChain(t *testing.T) {
	ctx := context.Background()
	start := func(t *testing.T, withoutStorageQuery bool) *devnet.Devnet {
		t.Helper()
		dn, err := devnet.New(devnet.Options{Validators: 1, Tempo: 20, Netuid: 15, WithoutStorageQuery: withoutStorageQuery}, zerolog.Nop(), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dn.Close() })
		if err := dn.Start(); err != nil {
			t.Fatal(err)
		}
		return dn
	}
	dn := start(t, false)
	head := dn.AdvanceBlocks(47)
	want, err := dn.EpochScheduleAt(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	if want.Tempo != 20 || want.EpochIndex < 2 {
		t.Fatalf("devnet schedule %+v: want tempo 20 and at least two epochs", want)
	}

	code, stdout, stderr := runCLI(t, nil, "chain", "hyperparams", "--url", dn.URL())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		k, v, _ := strings.Cut(line, "  ")
		rows[k] = strings.TrimSpace(v)
	}
	for k, v := range map[string]string{
		"block":            fmt.Sprint(head),
		"tempo":            "20 blocks",
		"epoch_index":      fmt.Sprint(want.EpochIndex),
		"last_epoch_block": fmt.Sprint(want.LastEpochBlock),
		"pending_epoch_at": "none",
		"next_epoch":       fmt.Sprint(want.LastEpochBlock + 20),
		"mechanisms":       "1",
	} {
		if rows[k] != v {
			t.Errorf("%s: %q, want %q", k, rows[k], v)
		}
	}
	if strings.Contains(stdout, "from config") {
		t.Errorf("a chain with StorageQuery shows a configured value:\n%s", stdout)
	}

	code, stdout, stderr = runCLI(t, nil, "chain", "hyperparams", "--url", dn.HTTPURL(), "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var js struct {
		Block             uint64  `json:"block"`
		WeightsVersionKey *uint64 `json:"weights_version_key"`
		Chain             *struct {
			Tempo      uint16 `json:"tempo"`
			EpochIndex uint64 `json:"epoch_index"`
		} `json:"chain"`
		TempoFromConfig uint64 `json:"tempo_from_config"`
	}
	if err := json.Unmarshal([]byte(stdout), &js); err != nil {
		t.Fatal(err)
	}
	if js.Block != head || js.WeightsVersionKey == nil || js.Chain == nil || js.Chain.Tempo != 20 ||
		js.Chain.EpochIndex != want.EpochIndex || js.TempoFromConfig != 0 {
		t.Errorf("json:\n%s", stdout)
	}

	code, stdout, stderr = runCLI(t, nil, "chain", "metagraph", "--url", dn.URL())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantLine := fmt.Sprintf("tempo 20 blocks, epoch index %d, last epoch at block %d, next at block %d",
		want.EpochIndex, want.LastEpochBlock, want.LastEpochBlock+20)
	if lines := strings.Split(stdout, "\n"); len(lines) < 2 || lines[1] != wantLine {
		t.Errorf("metagraph header, want second line %q:\n%s", wantLine, stdout)
	}

	old := start(t, true)
	old.AdvanceBlocks(5)
	code, stdout, stderr = runCLI(t, nil, "chain", "hyperparams", "--url", old.URL())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "tempo (from config: the node has no StorageQuery precompile (0x807))  360 blocks") ||
		strings.Contains(stdout, "epoch_index") {
		t.Errorf("without StorageQuery:\n%s", stdout)
	}
	code, stdout, _ = runCLI(t, nil, "chain", "hyperparams", "--url", old.URL(), "--json")
	if code != 0 || !strings.Contains(stdout, `"chain": null`) || !strings.Contains(stdout, `"tempo_from_config": 360`) {
		t.Errorf("json without StorageQuery (exit %d):\n%s", code, stdout)
	}
}
