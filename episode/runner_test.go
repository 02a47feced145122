package episode

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/chain"
)

func TestHonestMinerEpisodes(t *testing.T) {
	tools, problems := catalogTools(t, 0)
	miner := newSigner(t)
	addr := startServer(t, miner, scriptedAgent(), ServerOptions{})
	r := newTestRunner(t, tools, testLimits())
	trs := r.Run(context.Background(), Miner{UID: 3, Hotkey: chain.Mirror(miner.Address), Endpoint: addr}, problems[:5])
	if len(trs) != 5 {
		t.Fatalf("%d trajectories, want 5", len(trs))
	}
	for i, tr := range trs {
		t.Run(tr.ProblemID, func(t *testing.T) {
			if tr.EndReason != ReasonTerminated {
				t.Fatalf("end reason %s (%s), want terminated", tr.EndReason, tr.EndDetail)
			}
			if len(tr.Steps) != 4 || len(tr.Recommended) != 1 || tr.TerminateStatus != "success" {
				t.Fatalf("steps %d recommended %v status %q", len(tr.Steps), tr.Recommended, tr.TerminateStatus)
			}
			if tr.ProblemID != problems[i].ID || tr.MinerUID != 3 || tr.MinerAddress != miner.Address.Hex() || tr.ValidatorAddress == "" {
				t.Fatalf("identity fields wrong: %+v", tr)
			}
			for j, s := range tr.Steps {
				if s.TSent.IsZero() || s.TReceived.Before(s.TSent) || s.TObserved.Before(s.TReceived) {
					t.Fatalf("step %d times out of order: %v %v %v", j, s.TSent, s.TReceived, s.TObserved)
				}
				if len(s.Results) != len(s.ToolCalls) {
					t.Fatalf("step %d: %d results for %d calls", j, len(s.Results), len(s.ToolCalls))
				}
			}
			if tr.Steps[3].Response == nil || *tr.Steps[3].Response != "Here is my pick." {
				t.Fatalf("response not recorded: %+v", tr.Steps[3])
			}
		})
	}
}

func TestRunnerAbortAndOptions(t *testing.T) {
	tools, problems := catalogTools(t, 0)
	t.Run("cancelled context aborts", func(t *testing.T) {
		miner := newSigner(t)
		stuck := AgentFunc(func(ctx context.Context, v EpisodeView) (Action, error) {
			<-ctx.Done()
			return Action{}, ctx.Err()
		})
		addr := startServer(t, miner, stuck, ServerOptions{})
		lim := testLimits()
		lim.StepTimeout, lim.EpisodeTimeout = time.Minute, time.Minute
		r := newTestRunner(t, tools, lim)
		ctx, cancel := context.WithCancel(context.Background())
		conn, err := r.Connect(ctx, Miner{UID: 1, Hotkey: chain.Mirror(miner.Address), Endpoint: addr})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		done := make(chan Trajectory)
		go func() { done <- conn.Episode(ctx, problems[0]) }()
		cancel()
		if tr := <-done; tr.EndReason != ReasonAborted || tr.EndReason.MinerFault() {
			t.Fatalf("end reason %s, want aborted (not the miner's fault)", tr.EndReason)
		}
	})
	t.Run("bad options", func(t *testing.T) {
		for name, opts := range map[string]RunnerOptions{
			"no signer":  {Tools: tools},
			"no tools":   {Signer: newSigner(t)},
			"bad limits": {Signer: newSigner(t), Tools: tools, Limits: Limits{MaxFrameBytes: 10}},
		} {
			if _, err := NewRunner(opts, zerolog.Nop(), nil); err == nil {
				t.Errorf("%s: NewRunner accepted it", name)
			}
		}
	})
	t.Run("metrics register", func(t *testing.T) {
		reg := prometheus.NewRegistry()
		if _, err := NewRunner(RunnerOptions{Signer: newSigner(t), Tools: tools}, zerolog.Nop(), reg); err != nil {
			t.Fatal(err)
		}
		if _, err := NewServer(ServerOptions{Signer: newSigner(t), Agent: scriptedAgent()}, zerolog.Nop(), reg); err != nil {
			t.Fatal(err)
		}
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if !strings.HasPrefix(mf.GetName(), "arena_episode_") {
				t.Errorf("metric %s outside arena_episode_", mf.GetName())
			}
		}
	})
}

// TestRunnerConcurrencyBound checks that the runner never has more than
// MaxConcurrentEpisodes episodes in flight on one miner, and does use them.
func TestRunnerConcurrencyBound(t *testing.T) {
	tools, problems := catalogTools(t, 0)
	var mu sync.Mutex
	live, peak := map[string]bool{}, 0
	inner := scriptedAgent()
	agent := AgentFunc(func(ctx context.Context, v EpisodeView) (Action, error) {
		act, err := inner.Step(ctx, v)
		mu.Lock()
		defer mu.Unlock()
		live[v.EpisodeID] = true
		if terminates(act) {
			defer delete(live, v.EpisodeID)
		}
		peak = max(peak, len(live))
		return act, err
	})
	miner := newSigner(t)
	addr := startServer(t, miner, agent, ServerOptions{})
	lim := testLimits()
	lim.MaxConcurrentEpisodes = 2
	r := newTestRunner(t, tools, lim)
	for _, tr := range r.Run(context.Background(), Miner{UID: 2, Hotkey: chain.Mirror(miner.Address), Endpoint: addr}, problems[:6]) {
		if tr.EndReason != ReasonTerminated {
			t.Errorf("%s: %s", tr.ProblemID, tr.EndReason)
		}
	}
	if peak > 2 {
		t.Errorf("%d episodes in flight, limit 2", peak)
	}
	if peak < 2 {
		t.Logf("only %d episode in flight at once (scheduling); the bound held", peak)
	}
}
