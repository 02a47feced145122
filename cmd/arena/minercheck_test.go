package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/episode"
	"arena/episode/episodetest"
	"arena/miner"
	"arena/minercheck"
	"arena/practice"
)

// TestMinerCheckCommand: the reference miner passes every clause, in the
// report and in --json, with exit status 0.
func TestMinerCheckCommand(t *testing.T) {
	agent, err := miner.NewAgent(miner.AgentOptions{Kind: miner.AgentHeuristic, Skill: 1}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	addr, stop, err := practice.Serve(context.Background(), agent, 16, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	url := "ws://" + addr + episode.Path

	code, out, errOut := runCLI(t, nil, "miner", "check", url)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, c := range minercheck.Clauses() {
		if !strings.Contains(out, "PASS  "+string(c)) {
			t.Errorf("report lacks a pass for %s:\n%s", c, out)
		}
	}
	if !strings.Contains(out, "(hotkey 5") || !strings.Contains(out, "13 clauses: 13 passed") {
		t.Errorf("report lacks the hotkey or the summary:\n%s", out)
	}

	code, out, errOut = runCLI(t, nil, "miner", "check", url, "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Endpoint string `json:"endpoint"`
		Miner    string `json:"miner"`
		OK       bool   `json:"ok"`
		Clauses  []struct {
			Clause string `json:"clause"`
			Status string `json:"status"`
			Detail string `json:"detail"`
		} `json:"clauses"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output is not one object: %v\n%s", err, out)
	}
	if !rep.OK || rep.Endpoint != url || rep.Miner == "" || len(rep.Clauses) != len(minercheck.Clauses()) {
		t.Fatalf("--json: %+v", rep)
	}
	for _, c := range rep.Clauses {
		if c.Status != "pass" || c.Detail == "" {
			t.Errorf("--json clause %+v", c)
		}
	}
}

// TestMinerCheckFailure: a miner that breaks a clause gets its report,
// the failing clause named, and exit status 1 with one arena: line.
func TestMinerCheckFailure(t *testing.T) {
	unoffered := func(s *episode.EpisodeStart, n int, o *episode.Observation) []byte {
		if n == 0 {
			data, _ := episode.Encode(&episode.Step{EpisodeID: s.EpisodeID, Think: "Buy it.",
				ToolCalls: []episode.ToolCall{{ID: "c0", Name: "buy_now", Parameters: json.RawMessage(`{}`)}}})
			return data
		}
		return episodetest.Honest(s, n, o)
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	url := "ws://" + episodetest.Serve(t, &episodetest.Env{Signer: chain.NewSigner(key)}, episodetest.Play(unoffered)) + episode.Path
	for _, args := range [][]string{{}, {"--json"}} {
		code, out, errOut := runCLI(t, nil, append([]string{"miner", "check", url}, args...)...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != 1 || lines[len(lines)-1] != "arena: 1 of 13 clauses failed: tool_calls" {
			t.Errorf("%v: exit %d, stderr %q; want 1 and the failed clause", args, code, errOut)
		}
		if !strings.Contains(out, `calls \"buy_now\"`) && !strings.Contains(out, `calls "buy_now"`) {
			t.Errorf("%v: the report does not say what was wrong:\n%s", args, out)
		}
	}
}

// TestMinerCheckBadInput: each mistake is one line and a non-zero exit.
func TestMinerCheckBadInput(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no endpoint", nil, 2, "want one argument: the miner's ws://HOST:PORT/arena/v1"},
		{"two endpoints", []string{"ws://127.0.0.1:1/arena/v1", "ws://127.0.0.1:2/arena/v1"}, 2, "want one argument"},
		{"not a websocket url", []string{"https://127.0.0.1:8091/arena/v1"}, 1, "want ws://HOST:PORT/arena/v1"},
		{"wrong path", []string{"ws://127.0.0.1:8091/v1"}, 1, `wrong path "/v1"`},
		{"unreachable", []string{"ws://" + closedPort(t) + "/arena/v1"}, 1, "connection refused"},
		{"zero step timeout", []string{"ws://127.0.0.1:8091/arena/v1", "--step-timeout", "0s"}, 2, "must be positive"},
		{"no concurrency", []string{"ws://127.0.0.1:8091/arena/v1", "--concurrent", "0"}, 2, "--concurrent at least 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, nil, append([]string{"miner", "check"}, tt.args...)...)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			last := lines[len(lines)-1]
			if code != tt.code || len(lines) != 1 || !strings.HasPrefix(last, "arena: ") || !strings.Contains(last, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and one arena: line containing %q", code, errOut, tt.code, tt.want)
			}
		})
	}
}
