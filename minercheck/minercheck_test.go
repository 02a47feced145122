package minercheck

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/episode/episodetest"
	"arena/miner"
)

// TestReferenceMinerPasses: the reference miner passes every clause it
// can be held to: the heuristic agent every version-1 clause when the
// check offers version 1, the LLM agent taking its completions through
// the relay every clause of version 2 too.
func TestReferenceMinerPasses(t *testing.T) {
	tests := []struct {
		name    string
		checker *Checker
		agent   miner.AgentOptions
		pass    []Clause
	}{
		{name: "heuristic, version 1", checker: sharedChecker(t), agent: miner.AgentOptions{Kind: miner.AgentHeuristic, Skill: 1}, pass: v1Clauses()},
		{name: "llm through the relay, version 2", checker: sharedRelayChecker(t), agent: miner.AgentOptions{Kind: miner.AgentLLM}, pass: Clauses()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := check(t, tt.checker, startAgent(t, episode.ServerOptions{}, tt.agent))
			var out bytes.Buffer
			rep.Print(&out)
			t.Log("\n" + out.String())
			if len(rep.Clauses) != len(Clauses()) {
				t.Fatalf("%d results for %d clauses", len(rep.Clauses), len(Clauses()))
			}
			for i, res := range rep.Clauses {
				if res.Clause != Clauses()[i] {
					t.Errorf("result %d is %s, want %s", i, res.Clause, Clauses()[i])
				}
				want := Skip
				if slices.Contains(tt.pass, res.Clause) {
					want = Pass
				}
				if res.Status != want {
					t.Errorf("%s: %s: %s; want %s", res.Clause, res.Status, res.Detail, want)
				}
			}
			if !rep.OK || rep.Passed != len(tt.pass) || rep.Miner == "" || rep.Hotkey == "" {
				t.Errorf("report: ok %v, %d passed, miner %q, hotkey %q", rep.OK, rep.Passed, rep.Miner, rep.Hotkey)
			}
		})
	}
}

// TestRunErrors: what stops the check from running at all is an error,
// not a report: a URL that is not the protocol's, an endpoint nothing
// listens on, a server that does not upgrade the protocol's path.
func TestRunErrors(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	webAddr := strings.TrimPrefix(web.URL, "http://")

	// Accepts connections and never answers, not even the upgrade.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held sync.WaitGroup
	held.Go(func() {
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
	})
	defer held.Wait()
	defer silent.Close()
	opts := testOptions()
	opts.DialTimeout = 200 * time.Millisecond
	impatient, err := New(opts, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}

	c := sharedChecker(t)
	for _, tt := range []struct {
		name, url, want string
	}{
		{"not a websocket URL", "http://127.0.0.1:8091/arena/v1", "want ws://HOST:PORT/arena/v1"},
		{"wss", "wss://127.0.0.1:8091/arena/v1", "plain websockets"},
		{"no port", "ws://127.0.0.1/arena/v1", "host and port are required"},
		{"wrong path", "ws://127.0.0.1:8091/v1", `wrong path "/v1"`},
		{"query", "ws://127.0.0.1:8091/arena/v1?x=1", "nothing after the path"},
		{"not a URL", "ws://[::1/arena/v1", "endpoint"},
		{"unreachable", wsURL(closedAddr), "connection refused"},
		{"no websocket at the path", wsURL(webAddr), "HTTP 404"},
		{"never answers", wsURL(silent.Addr().String()), "timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checker := c
			if tt.name == "never answers" {
				checker = impatient
			}
			rep, err := checker.Run(context.Background(), tt.url)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run(%q) = %v, %v; want an error containing %q", tt.url, rep, err, tt.want)
			}
		})
	}
}

// TestRunCancelled: cancelling the context ends the check at once, with
// an error, and leaves no goroutine behind (TestMain's goleak).
func TestRunCancelled(t *testing.T) {
	started := make(chan struct{})
	var once sync.Once
	url := wsURL(episodetest.Serve(t, &episodetest.Env{Signer: newSigner(t)}, func(ws *websocket.Conn, env *episodetest.Env) {
		if episodetest.AckHello(ws, env) && episodetest.NextStart(ws) != nil {
			once.Do(func() { close(started) })
			episodetest.Drain(ws)
		}
	}))
	opts := testOptions()
	opts.StepTimeout = time.Minute // only the cancellation can end the first episode
	c, err := New(opts, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Run(ctx, url)
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("Run ended before its first episode: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "interrupted") {
			t.Fatalf("Run after cancel: %v; want an interrupted error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
}

// TestReportJSON: --json's object carries the verdict and every clause.
func TestReportJSON(t *testing.T) {
	rep := &Report{Endpoint: "ws://x:1/arena/v1"}
	for i, cl := range Clauses() {
		st := Pass
		if i == 3 {
			st = Fail
		}
		rep.add(Result{Clause: cl, Status: st, Detail: "d", Duration: 1500 * time.Microsecond})
	}
	raw, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		OK      bool `json:"ok"`
		Passed  int  `json:"passed"`
		Failed  int  `json:"failed"`
		Clauses []struct {
			Clause, Status, Detail string
			MS                     *int64 `json:"ms"`
		} `json:"clauses"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.OK || got.Failed != 1 || got.Passed != len(Clauses())-1 || len(got.Clauses) != len(Clauses()) {
		t.Fatalf("JSON verdict wrong: %s", raw)
	}
	if c := got.Clauses[3]; c.Clause != string(Clauses()[3]) || c.Status != "fail" || c.Detail != "d" || c.MS == nil || *c.MS != 1 {
		t.Fatalf("JSON clause wrong: %+v in %s", c, raw)
	}
}
