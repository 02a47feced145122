package miner

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/episode"
)

// logLines is a zerolog writer that hands each JSON line to a channel,
// so a test can wait for a line instead of sleeping.
type logLines chan map[string]any

func (l logLines) Write(p []byte) (int, error) {
	var m map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(p), &m); err != nil {
		return 0, err
	}
	l <- m
	return len(p), nil
}

// next returns the next line with message msg, skipping others.
func (l logLines) next(t *testing.T, msg string) map[string]any {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m := <-l:
			if m["message"] == msg {
				return m
			}
		case <-deadline:
			t.Fatalf("no %q log line", msg)
		}
	}
}

// TestEpisodeLog plays real episodes (Runner ↔ Server over loopback) that
// end in five ways and checks what the miner logs: one debug line per
// episode with its id, validator, steps, end reason and duration, a
// periodic summary at info, and a last summary with the counts by reason
// once serving stops.
func TestEpisodeLog(t *testing.T) {
	tools, _ := llmTools(t)
	vkey, _ := crypto.GenerateKey()
	validator := chain.NewSigner(vkey)
	r, err := episode.NewRunner(episode.RunnerOptions{Signer: validator, Tools: tools,
		Limits: episode.Limits{MaxSteps: 3, StepTimeout: time.Second, EpisodeTimeout: 20 * time.Second}}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}

	// The query tells the agent how to end its episode.
	called := make(chan struct{}, 1)
	release := make(chan struct{})
	search := episode.ToolCall{ID: "s", Name: "find_product", Parameters: json.RawMessage(`{"q":"phone"}`)}
	agent := episode.AgentFunc(func(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
		switch v.Query {
		case "stop":
			if len(v.History) == 1 {
				return episode.Action{ToolCalls: []episode.ToolCall{{ID: "t", Name: "terminate", Parameters: json.RawMessage(`{"status":"success"}`)}}}, nil
			}
		case "hang": // ignores its deadline, so the validator's step timer fires first
			<-release
			return episode.Action{}, nil
		case "wait":
			called <- struct{}{}
			<-ctx.Done()
			return episode.Action{}, ctx.Err()
		}
		return episode.Action{ToolCalls: []episode.ToolCall{search}}, nil
	})

	lines := make(logLines, 1024)
	elog := NewEpisodeLog(EpisodeLogOptions{Every: 5 * time.Millisecond}, zerolog.New(lines).Level(zerolog.DebugLevel))
	outcomes := make(chan episode.EpisodeOutcome, 8)
	mkey, _ := crypto.GenerateKey()
	signer := chain.NewSigner(mkey)
	// The server's own log says when it has taken in a violation's
	// episode_end (and cancelled the episode), which the hanging agent
	// must not outrun.
	srvLines := make(logLines, 1024)
	srv, err := episode.NewServer(episode.ServerOptions{Signer: signer, Agent: agent,
		OnEpisodeEnd: func(o episode.EpisodeOutcome) { elog.Record(o); outcomes <- o }}, zerolog.New(srvLines), nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	var serveErr error
	served := make(chan struct{}) // closed once Run has returned
	go func() {
		defer close(served)
		serveErr = elog.Run(ctx, func(ctx context.Context) error { return srv.Serve(ctx, ln) })
	}()
	t.Cleanup(func() {
		stop()
		<-served
	})
	m := episode.Miner{UID: 1, Hotkey: chain.Mirror(signer.Address), Endpoint: ln.Addr().String()}

	tests := []struct {
		name   string
		query  string
		end    func(ctx context.CancelFunc, conn *episode.Conn) // ends the episode from the validator's side
		after  func(t *testing.T)                               // once the validator is done with it
		reason episode.EndReason
		steps  int
	}{
		{name: "terminated", query: "stop", reason: episode.ReasonTerminated, steps: 2},
		{name: "out of steps", query: "loop", reason: episode.ReasonMaxSteps, steps: 3},
		{name: "step timeout", query: "hang", after: func(t *testing.T) {
			srvLines.next(t, "validator ended the episode for a violation")
			close(release)
		}, reason: episode.ReasonStepTimeout},
		{name: "validator shut down", query: "wait", end: func(cancel context.CancelFunc, _ *episode.Conn) { cancel() }, reason: episode.ReasonAborted},
		{name: "connection dropped", query: "wait", end: func(_ context.CancelFunc, c *episode.Conn) { _ = c.Close() }, reason: episode.ReasonDisconnected},
	}
	want := map[string]float64{}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := r.Connect(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			epCtx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.end != nil {
				go func() {
					<-called
					tt.end(cancel, conn)
				}()
			}
			tr := conn.Episode(epCtx, episode.Problem{ID: tt.name, Query: tt.query})
			if tt.after != nil {
				tt.after(t)
			}
			var o episode.EpisodeOutcome
			select {
			case o = <-outcomes:
			case <-time.After(10 * time.Second):
				t.Fatal("the server reported no outcome")
			}
			if o.Reason != tt.reason || o.Steps != tt.steps || o.EpisodeID != tr.EpisodeID || o.Validator != validator.Address || o.Duration <= 0 {
				t.Fatalf("outcome %+v; want reason %s, %d steps, episode %s, validator %s (validator saw %s)",
					o, tt.reason, tt.steps, tr.EpisodeID, validator.Address, tr.EndReason)
			}
			line := lines.next(t, "episode ended")
			if line["level"] != "debug" || line["episode"] != tr.EpisodeID || line["validator"] != validator.Address.Hex() ||
				line["reason"] != string(tt.reason) || line["steps"] != float64(tt.steps) || !(line["took_ms"].(float64) > 0) {
				t.Fatalf("debug line %v does not describe %s", line, tt.name)
			}
			want[string(tt.reason)]++
			if i == 0 {
				if s := lines.next(t, "episodes served"); s["level"] != "info" || s["episodes"] != float64(1) {
					t.Fatalf("periodic summary %v; want 1 episode at info", s)
				}
			}
		})
	}

	stop()
	<-served
	if serveErr != nil {
		t.Fatal(serveErr)
	}
	last := lines.next(t, "episodes served until shutdown")
	got, _ := last["by_reason"].(map[string]any)
	if last["episodes"] != float64(len(tests)) || len(got) != len(want) {
		t.Fatalf("final summary %v; want %d episodes by reason %v", last, len(tests), want)
	}
	for reason, n := range want {
		if got[reason] != n {
			t.Errorf("final summary: %s = %v, want %v", reason, got[reason], n)
		}
	}
}
