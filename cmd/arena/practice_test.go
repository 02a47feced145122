package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// practiceEnv keeps the practice catalog small and lets --out use a
// nearly full disk.
var practiceEnv = []string{"ARENA_CATALOG_PRODUCTS=3000", "ARENA_STORE_MIN_FREE_SOFT=1MiB", "ARENA_STORE_MIN_FREE_SOFT_PERCENT=0",
	"ARENA_STORE_MIN_FREE_HARD=1MiB", "ARENA_STORE_MIN_FREE_HARD_PERCENT=0", "ARENA_STORE_RESERVE=1MiB"}

// TestPracticeCommand plays the reference heuristic in process: the
// report names the hotkey to register and each section; --json has the
// promised fields; a low-skill agent shows the templated finding; --out
// is read back by `arena export`.
func TestPracticeCommand(t *testing.T) {
	code, out, errOut := runCLI(t, practiceEnv, "practice", "--agent", "heuristic", "--problems", "12")
	if code != 0 {
		t.Fatalf("practice: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"register hotkey 5", "12 episodes: success", "type       level", "judge findings:", "end reasons:", "worst problems:"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "practice: 12/12 episodes") {
		t.Errorf("no plain progress lines on a non-terminal stderr:\n%s", errOut)
	}

	data := filepath.Join(t.TempDir(), "practice-data")
	code, out, errOut = runCLI(t, practiceEnv, "practice", "--agent", "heuristic", "--skill", "0.3", "--problems", "20", "--json", "--out", data)
	if code != 0 {
		t.Fatalf("practice --json: exit %d: %s", code, errOut)
	}
	var rep map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output is not one object: %v\n%s", err, out)
	}
	for _, k := range []string{"episodes", "success", "score", "q", "by_type", "findings"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("--json lacks %q", k)
		}
	}
	var r struct {
		Episodes int                `json:"episodes"`
		Success  float64            `json:"success"`
		Q        float64            `json:"q"`
		ByType   map[string]float64 `json:"by_type"`
		Findings map[string]int     `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Episodes != 20 || r.Success < 0 || r.Success > 1 || len(r.ByType) == 0 {
		t.Errorf("--json: %+v", r)
	}
	if r.Findings["templated"] == 0 {
		t.Errorf("skill 0.3 thinks follow one template, but findings are %v", r.Findings)
	}

	exp := filepath.Join(t.TempDir(), "sft")
	code, out, errOut = runCLI(t, practiceEnv, "export", "--data", data, "--format", "sft", "--out", exp)
	if code != 0 {
		t.Fatalf("export of the practice data: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "20 episodes") {
		t.Errorf("export did not read the 20 practice episodes:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(exp, "README.md")); err != nil {
		t.Error(err)
	}
}

// TestPracticeBadInput: each mistake is one line and a non-zero exit.
func TestPracticeBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		// Accepts connections and never answers: not even the upgrade.
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unreachable", []string{"--agent", "ws://" + closedPort(t) + "/arena/v1", "--wait", "0s"}, "dial_failed"},
		{"wrong path", []string{"--agent", "ws://127.0.0.1:8091/v1"}, `wrong path "/v1"`},
		{"not a websocket url", []string{"--agent", "https://127.0.0.1:8091/arena/v1"}, "want ws://HOST:PORT/arena/v1"},
		{"never answers", []string{"--agent", "ws://" + silent.Addr().String() + "/arena/v1"}, "dial_failed"},
		{"catalog does not load", []string{"--agent", "heuristic", "--catalog", bad}, "has no valid products"},
		{"missing catalog", []string{"--agent", "heuristic", "--catalog", bad + ".missing"}, "no such file"},
		{"unknown type", []string{"--agent", "heuristic", "--types", "product,boats"}, `unknown problem type "boats"`},
		{"no problems", []string{"--agent", "heuristic", "--problems", "0"}, "--problems must be at least 1"},
		{"bad skill", []string{"--agent", "heuristic", "--skill", "3"}, "out of range"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, practiceEnv, append([]string{"practice", "--problems", "2"}, tt.args...)...)
			if tt.name == "no problems" {
				code, _, errOut = runCLI(t, practiceEnv, append([]string{"practice"}, tt.args...)...)
			}
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			last := lines[len(lines)-1]
			if code == 0 || !strings.HasPrefix(last, "arena: ") || !strings.Contains(last, tt.want) {
				t.Errorf("exit %d, last line %q, want a one-line error containing %q\n%s", code, last, tt.want, errOut)
			}
		})
	}
}
