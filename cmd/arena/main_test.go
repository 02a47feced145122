package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/chain/devnet"
	"arena/store"
)

// runCLI runs the CLI in-process and returns exit code, stdout and stderr.
func runCLI(t *testing.T, environ []string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"arena"}, args...), &stdout, &stderr, environ)
	return code, stdout.String(), stderr.String()
}

func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// serveDevnet serves a manual-block devnet (one validator) for the test.
func serveDevnet(t *testing.T, miners int) *devnet.Devnet {
	t.Helper()
	dn, err := devnet.New(devnet.Options{Validators: 1, Miners: miners, Tempo: 10, Netuid: 15}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := dn.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dn.Close() })
	return dn
}

// TestBadInputGivesOneLine: every operator mistake ends in one clear line on
// stderr and a non-zero exit, never a panic or a stack trace.
func TestBadInputGivesOneLine(t *testing.T) {
	dn := serveDevnet(t, 1)

	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badYAML := write("bad.yaml", "chain:\n  url: [unclosed\n")
	busyLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busyLn.Close() })
	busy := busyLn.Addr().String()
	unknownKey := write("unknown.yaml", "chain:\n  ulr: ws://x\n")
	goodPw := write("pw", "right\n")
	wrongPw := write("wrongpw", "wrong\n")
	keys := filepath.Join(dir, "keys")
	if code, _, stderr := runCLI(t, nil, "keys", "new", "--light-kdf", "--keystore", keys, "--password-file", goodPw); code != 0 {
		t.Fatalf("keys new: %s", stderr)
	}

	openToken := filepath.Join(dir, "api.token")
	if err := os.WriteFile(openToken, []byte("t0ken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		environ []string
		args    []string
		want    string
	}{
		{"unreachable url", nil, []string{"chain", "metagraph", "--url", "ws://" + closedPort(t)}, "cannot connect"},
		{"bad url scheme", nil, []string{"chain", "metagraph", "--url", "ftp://example.com"}, "scheme must be"},
		{"wrong chain id", nil, []string{"chain", "hyperparams", "--url", dn.URL(), "--chain-id", "964"}, "wrong chain id: node reports 1337, config expects 964"},
		{"wrong password", nil, []string{"keys", "unlock", "--keystore", keys, "--password-file", wrongPw}, "wrong password"},
		{"no password", nil, []string{"keys", "unlock", "--keystore", keys}, "no keystore password"},
		{"malformed config", nil, []string{"--config", badYAML, "config", "check"}, "bad.yaml"},
		{"unknown config key", nil, []string{"--config", unknownKey, "config", "check"}, `unknown key "chain.ulr"`},
		{"missing config file", nil, []string{"--config", filepath.Join(dir, "nope.yaml"), "config", "check"}, "nope.yaml"},
		{"bad env value", []string{"ARENA_CHAIN_NETUID=abc"}, []string{"config", "check"}, "ARENA_CHAIN_NETUID"},
		{"bad log level", nil, []string{"--log-level", "loud", "config", "check"}, "log"},
		{"unknown command", nil, []string{"frobnicate"}, "frobnicate"},
		{"unknown flag", nil, []string{"chain", "metagraph", "--nope"}, "nope"},
		{"unknown subnet", nil, []string{"chain", "hyperparams", "--url", dn.URL(), "--netuid", "99"}, "subnet does not exist"},
		{"run: no password", nil, []string{"run", "--data", filepath.Join(dir, "d1"), "--chain", dn.URL()}, "no keystore password"},
		{"run: bad race ratio", []string{"ARENA_RACE_RATIO_FLOOR=1.5"}, []string{"run", "--data", filepath.Join(dir, "d2")}, "race.ratio_floor"},
		{"run: bad policy", []string{"ARENA_WEIGHTS_POLICY=everyone"}, []string{"run", "--data", filepath.Join(dir, "d3")}, `weights.policy "everyone"`},
		{"run: remote api without allow_remote", []string{"ARENA_API_LISTEN=0.0.0.0:0"}, []string{"run", "--data", filepath.Join(dir, "d9")}, `api.listen "0.0.0.0:0": is not a loopback address`},
		{"run: api token file too open", []string{"ARENA_KEYSTORE_DIR=" + keys, "ARENA_KEYSTORE_PASSWORD_FILE=" + goodPw,
			"ARENA_API_LISTEN=0.0.0.0:0", "ARENA_API_ALLOW_REMOTE=true", "ARENA_API_TOKEN_FILE=" + openToken},
			[]string{"run", "--data", filepath.Join(dir, "d10"), "--chain", dn.URL()}, "api token file " + openToken + ": permissions 0644 are too open"},
		{"run: bad problem mix", []string{"ARENA_KEYSTORE_DIR=" + keys, "ARENA_KEYSTORE_PASSWORD_FILE=" + goodPw, "ARENA_VALIDATOR_PROBLEM_MIX=product:0.5,books:0.5"},
			[]string{"run", "--data", filepath.Join(dir, "d8"), "--chain", dn.URL()}, "validator.problem_mix"},
		{"run: llm judge without endpoint", []string{"ARENA_JUDGE_KIND=llm"}, []string{"run", "--data", filepath.Join(dir, "d4")}, "llm.base_url: must be set"},
		{"run: unreachable chain", []string{"ARENA_KEYSTORE_DIR=" + keys, "ARENA_KEYSTORE_PASSWORD_FILE=" + goodPw},
			[]string{"run", "--data", filepath.Join(dir, "d5"), "--chain", "ws://" + closedPort(t)}, "cannot connect"},
		{"run: wrong chain", []string{"ARENA_KEYSTORE_DIR=" + keys, "ARENA_KEYSTORE_PASSWORD_FILE=" + goodPw, "ARENA_CHAIN_CHAIN_ID=964"},
			[]string{"run", "--data", filepath.Join(dir, "d6"), "--chain", dn.URL()}, "wrong chain id"},
		{"run: operator port in use", []string{"ARENA_KEYSTORE_DIR=" + keys, "ARENA_KEYSTORE_PASSWORD_FILE=" + goodPw},
			[]string{"run", "--data", filepath.Join(dir, "d7"), "--chain", "ws://" + closedPort(t), "--listen", busy}, "operator listener"},
		{"status: nothing listening", nil, []string{"status", "--api", "http://" + closedPort(t)}, "is `arena run` or `arena dev` running there?"},
		{"dev: negative races", nil, []string{"dev", "--races", "-1"}, "--races must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The default keystore (./arena-keys) would land in the
			// package directory; a case that names one overrides this.
			environ := tt.environ
			if !slices.ContainsFunc(environ, func(kv string) bool { return strings.HasPrefix(kv, "ARENA_KEYSTORE_DIR=") }) {
				environ = append([]string{"ARENA_KEYSTORE_DIR=" + filepath.Join(dir, "default-keys")}, environ...)
			}
			code, _, stderr := runCLI(t, environ, tt.args...)
			if code == 0 {
				t.Fatalf("exit 0, want failure; stderr %q", stderr)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			last := lines[len(lines)-1]
			if !strings.Contains(last, tt.want) {
				t.Fatalf("last stderr line %q does not contain %q (all: %q)", last, tt.want, stderr)
			}
			if !strings.HasPrefix(last, "arena: ") && !strings.Contains(stderr, "Incorrect Usage") {
				t.Fatalf("error line %q lacks the arena: prefix", last)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic:") {
				t.Fatalf("stack trace on stderr: %s", stderr)
			}
			if strings.Contains(stderr, "wrong\n") || strings.Contains(stderr, "right") {
				t.Fatalf("password leaked: %s", stderr)
			}
		})
	}
}

func TestCommandsWork(t *testing.T) {
	dn := serveDevnet(t, 3)
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte("pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hexKey := filepath.Join(dir, "key.hex")
	if err := os.WriteFile(hexKey, []byte("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(dir, "keys")
	validator := dn.ByRole("validator")[0]
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"version", []string{"version"}, []string{"arena ", "revision"}},
		{"metagraph table", []string{"chain", "metagraph", "--url", dn.URL()}, []string{"netuid 15", "4 uids", validator.Hotkey.SS58()}},
		{"metagraph json", []string{"chain", "metagraph", "--url", dn.HTTPURL(), "--json"}, []string{`"hotkey": "` + validator.Hotkey.SS58()}},
		{"hyperparams", []string{"chain", "hyperparams", "--url", dn.URL()}, []string{"weights_set_rate_limit", "100 blocks"}},
		{"keys import", []string{"keys", "import", "--light-kdf", "--keystore", keys, "--password-file", pw, hexKey}, []string{"0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"}},
		{"keys list", []string{"keys", "list", "--keystore", keys}, []string{"0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"}},
		{"keys unlock", []string{"keys", "unlock", "--keystore", keys, "--password-file", pw}, []string{"unlocked 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"}},
		{"keys show", []string{"keys", "show", validator.Address.Hex()}, []string{validator.Hotkey.SS58(), validator.Hotkey.Hex()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Fatalf("stdout lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// TestHelpReads walks every command and checks its --help renders with a
// usage line and no placeholder text.
func TestHelpReads(t *testing.T) {
	var walk func(prefix []string, names []string)
	seen := 0
	walk = func(prefix []string, names []string) {
		for _, name := range names {
			args := append(append([]string(nil), prefix...), name, "--help")
			code, stdout, stderr := runCLI(t, nil, args...)
			if code != 0 || !strings.Contains(stdout, "USAGE") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
				continue
			}
			seen++
			var subs []string
			in := false
			for _, line := range strings.Split(stdout, "\n") {
				switch {
				case strings.HasPrefix(line, "COMMANDS:"):
					in = true
				case in && strings.HasPrefix(line, "   ") && !strings.HasPrefix(strings.TrimSpace(line), "help,"):
					subs = append(subs, strings.Fields(line)[0])
				case in && !strings.HasPrefix(line, "   "):
					in = false
				}
			}
			walk(append(append([]string(nil), prefix...), name), subs)
		}
	}
	code, stdout, _ := runCLI(t, nil, "--help")
	if code != 0 {
		t.Fatal("arena --help failed")
	}
	var top []string
	in := false
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "COMMANDS:") {
			in = true
			continue
		}
		if in && strings.HasPrefix(line, "   ") {
			if f := strings.Fields(line)[0]; f != "help," {
				top = append(top, f)
			}
			continue
		}
		in = false
	}
	walk(nil, top)
	if seen < 12 {
		t.Fatalf("only %d help pages rendered", seen)
	}
}

// TestBackupRestoreCLI round-trips a data dir through `arena backup` and
// `arena restore` and compares every key.
func TestBackupRestoreCLI(t *testing.T) {
	dir := t.TempDir()
	src, dst, file := filepath.Join(dir, "src"), filepath.Join(dir, "dst"), filepath.Join(dir, "b.bak")
	type rec struct{ N int }
	ks := store.NewKeyspace[rec](0x10, "cli-test", store.JSON[rec]{})
	st, err := store.Open(store.Options{Dir: src}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Update(func(txn *badger.Txn) error {
		for i := range 100 {
			if err := ks.Put(txn, ks.Key(store.U64(uint64(i))), rec{N: i * i}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		args     []string
		wantCode int
		want     string
	}{
		{[]string{"backup", "--data", src, "--out", file}, 0, ""},
		{[]string{"backup", "--data", src, "--out", file}, 1, "exists"},
		{[]string{"restore", "--data", dst, "--in", file}, 0, ""},
		{[]string{"restore", "--data", dst, "--in", file}, 1, "not empty"},
	}
	for _, s := range steps {
		code, _, stderr := runCLI(t, nil, s.args...)
		if code != s.wantCode || !strings.Contains(stderr, s.want) {
			t.Fatalf("%v: exit %d stderr %q; want exit %d containing %q", s.args, code, stderr, s.wantCode, s.want)
		}
	}
	restored, err := store.Open(store.Options{Dir: dst}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if err := restored.View(func(txn *badger.Txn) error {
		n := 0
		err := ks.Iterate(txn, nil, func(key []byte, v rec) error {
			if v.N != n*n {
				t.Errorf("key %d holds %d", n, v.N)
			}
			n++
			return nil
		})
		if n != 100 {
			t.Errorf("%d records restored, want 100", n)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

func TestScoreCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	problem := write("p.json", `{"query":"a red shoe under 100","reward":{"product_id":"p1","title":["Red Running Shoe"],"price":[{"less than":[0,100]}]}}`)
	// A matching id counts as a full rule hit (ShoppingBench semantics), so
	// the failing case answers with a look-alike of another id.
	doc := func(id, price string) string {
		return write(id+price+".json", `[{"product_id":"`+id+`","shop_id":"s1","title":"Red Running Shoe","price":`+price+`,"service":["COD"]}]`)
	}
	tests := []struct {
		name    string
		args    []string
		code    int
		want    string
		stderrs string
	}{
		{"within budget", []string{"score", "--problem", problem, "--products", doc("p1", "50")}, 0, `"rule": 1`, ""},
		{"look-alike misses the price bound", []string{"score", "--problem", problem, "--products", doc("p2", "150")}, 0, `"rule": 0.5`, ""},
		{"missing problem file", []string{"score", "--problem", filepath.Join(dir, "nope.json"), "--products", doc("p1", "50")}, 1, "", "nope.json"},
		{"products not an array", []string{"score", "--problem", problem, "--products", write("bad.json", `{"x":1}`)}, 1, "", "bad.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tt.args...)
			if code != tt.code || !strings.Contains(stdout, tt.want) || !strings.Contains(stderr, tt.stderrs) {
				t.Fatalf("exit %d stdout %q stderr %q; want exit %d, stdout with %q, stderr with %q", code, stdout, stderr, tt.code, tt.want, tt.stderrs)
			}
		})
	}
}
