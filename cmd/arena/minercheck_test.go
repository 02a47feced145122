package main

import (
	"context"
	"encoding/json"
	"slices"
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

// TestMinerCheckCommand: the reference miner passes every clause it can
// be held to, in the report and in --json, with exit status 0: the LLM
// agent taking its completions through the relay every clause, the
// heuristic every version-1 clause under --max-version 1 (the version-2
// clauses skipped).
func TestMinerCheckCommand(t *testing.T) {
	tests := []struct {
		name    string
		agent   miner.AgentOptions
		args    []string
		passed  int
		summary string
	}{
		{name: "llm through the relay", agent: miner.AgentOptions{Kind: miner.AgentLLM}, passed: 19, summary: "19 clauses: 19 passed"},
		{name: "heuristic at version 1", agent: miner.AgentOptions{Kind: miner.AgentHeuristic, Skill: 1}, args: []string{"--max-version", "1"},
			passed: 13, summary: "19 clauses: 13 passed, 0 failed, 6 skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent, err := miner.NewAgent(tt.agent, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			addr, stop, err := practice.Serve(context.Background(), agent, 16, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			url := "ws://" + addr + episode.Path
			pass := minercheck.Clauses()[:tt.passed]

			code, out, errOut := runCLI(t, nil, append([]string{"miner", "check", url}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			for _, c := range minercheck.Clauses() {
				want := "SKIP  "
				if slices.Contains(pass, c) {
					want = "PASS  "
				}
				if !strings.Contains(out, want+string(c)) {
					t.Errorf("report lacks %s%s:\n%s", want, c, out)
				}
			}
			if !strings.Contains(out, "(hotkey 5") || !strings.Contains(out, tt.summary) {
				t.Errorf("report lacks the hotkey or the summary %q:\n%s", tt.summary, out)
			}

			code, out, errOut = runCLI(t, nil, append([]string{"miner", "check", url, "--json"}, tt.args...)...)
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
			for i, c := range rep.Clauses {
				want := "skip"
				if i < tt.passed {
					want = "pass"
				}
				if c.Status != want || c.Detail == "" {
					t.Errorf("--json clause %+v, want %s", c, want)
				}
			}
		})
	}
}

// TestMinerCheckFailure: a miner that breaks a clause gets its report,
// the failing clause named, and exit status 1 with one arena: line: one
// that calls a tool it was not offered, and the heuristic, whose steps
// name no relay completion, under the default check of version 2.
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
	heuristic, err := miner.NewAgent(miner.AgentOptions{Kind: miner.AgentHeuristic, Skill: 1}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	addr, stop, err := practice.Serve(context.Background(), heuristic, 16, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	tests := []struct {
		name, url string
		args      []string
		last      string // the last line of standard error
		report    string // in the report, as text or in --json
	}{
		{name: "tool not offered", url: "ws://" + episodetest.Serve(t, &episodetest.Env{Signer: chain.NewSigner(key)}, episodetest.Play(unoffered)) + episode.Path,
			args: []string{"--max-version", "1"}, last: "arena: 1 of 19 clauses failed: tool_calls", report: `calls "buy_now"`},
		{name: "steps without completions", url: "ws://" + addr + episode.Path,
			last: "arena: 1 of 19 clauses failed: verified", report: "the step names no completion"},
	}
	for _, tt := range tests {
		for _, asJSON := range []bool{false, true} {
			args := append([]string{"miner", "check", tt.url}, tt.args...)
			if asJSON {
				args = append(args, "--json")
			}
			code, out, errOut := runCLI(t, nil, args...)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if code != 1 || lines[len(lines)-1] != tt.last {
				t.Errorf("%s, json %v: exit %d, stderr %q; want 1 and %q", tt.name, asJSON, code, errOut, tt.last)
			}
			if !strings.Contains(out, tt.report) && !strings.Contains(out, strings.ReplaceAll(tt.report, `"`, `\"`)) {
				t.Errorf("%s, json %v: the report does not say what was wrong (%q):\n%s", tt.name, asJSON, tt.report, out)
			}
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
		{"unknown version", []string{"ws://127.0.0.1:8091/arena/v1", "--max-version", "3"}, 2, "--max-version 3: want 1 or 2"},
		{"no models", []string{"ws://127.0.0.1:8091/arena/v1", "--relay-models", " , "}, 2, "--relay-models is empty"},
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
