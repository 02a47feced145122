package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"arena/store"
)

// TestStoreResetChainState: the command starts a new chain era in a data
// dir and says what it forgot; a missing dir and a dir in use are one line
// each and exit 1.
func TestStoreResetChainState(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	st, err := store.Open(store.Options{Dir: dir}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, nil, "store", "reset-chain-state", "--data", dir)
	if code == 0 || !strings.Contains(errOut, "stop the validator first") {
		t.Errorf("in use: exit %d, %q", code, errOut)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for era := 1; era <= 2; era++ {
		code, out, errOut := runCLI(t, nil, "store", "reset-chain-state", "--data", dir)
		if code != 0 || !strings.Contains(out, "chain era "+string(rune('0'+era))+":") || !strings.Contains(out, "are kept") {
			t.Errorf("reset %d: exit %d, out %q, err %q", era, code, out, errOut)
		}
	}
	code, _, errOut = runCLI(t, nil, "store", "reset-chain-state", "--data", dir+".missing")
	if lines := strings.Split(strings.TrimSpace(errOut), "\n"); code == 0 || len(lines) != 1 || !strings.Contains(lines[0], "no such file") {
		t.Errorf("missing dir: exit %d, %q", code, errOut)
	}
	code, out, _ := runCLI(t, nil, "store", "check", "--data", dir)
	if code != 0 {
		t.Errorf("store check after the resets: exit %d\n%s", code, out)
	}
}
