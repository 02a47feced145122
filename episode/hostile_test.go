package episode_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"arena/chain"
	"arena/episode"
	"arena/episode/episodetest"
)

// TestHostileMiners runs every hostile miner at the same time as two
// honest ones, over real sockets, and checks that each hostile episode
// ends with its reason while the honest trajectories equal a run without
// the hostile miners.
func TestHostileMiners(t *testing.T) {
	tools, problems := episode.CatalogTools(t, 0)
	lim := episode.LimitsForTest()
	problems = problems[:3]

	honest := make([]episode.Miner, 2)
	for i := range honest {
		s := episode.NewSigner(t)
		honest[i] = episode.Miner{UID: uint16(i), Hotkey: chain.Mirror(s.Address), Endpoint: episode.StartServer(t, s, episode.ScriptedAgent(), episode.ServerOptions{})}
	}
	runHonest := func(r *episode.Runner) [][]episode.Trajectory {
		out := make([][]episode.Trajectory, len(honest))
		var wg sync.WaitGroup
		for i, m := range honest {
			wg.Go(func() { out[i] = r.Run(context.Background(), m, problems) })
		}
		wg.Wait()
		return out
	}
	baseline := runHonest(episode.NewTestRunner(t, tools, lim))

	other := episode.NewSigner(t)
	cases := episodetest.Cases(other)
	r := episode.NewTestRunner(t, tools, lim)
	hostileOut := make([][]episode.Trajectory, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		env := &episodetest.Env{Signer: episode.NewSigner(t)}
		hotkey := chain.Mirror(env.Signer.Address)
		if c.IdentityOf != nil {
			hotkey = chain.Mirror(c.IdentityOf.Address)
		}
		m := episode.Miner{UID: uint16(10 + i), Hotkey: hotkey, Endpoint: episodetest.Serve(t, env, c.Behave)}
		wg.Go(func() { hostileOut[i] = r.Run(context.Background(), m, problems[:1]) })
	}
	// A dead endpoint: nothing listens there.
	var deadOut []episode.Trajectory
	wg.Go(func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Error(err)
			return
		}
		addr := ln.Addr().String()
		ln.Close()
		deadOut = r.Run(context.Background(), episode.Miner{UID: 99, Endpoint: addr}, problems[:1])
	})
	start := time.Now()
	mixed := runHonest(r)
	wg.Wait()
	t.Logf("hostile run took %s", time.Since(start).Round(time.Millisecond))

	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got := hostileOut[i][0]
			if got.EndReason != c.Want {
				t.Errorf("end reason %s (%s), want %s", got.EndReason, got.EndDetail, c.Want)
			}
			if !got.EndReason.MinerFault() && got.EndReason != episode.ReasonMaxSteps {
				t.Errorf("reason %s is not charged to the miner", got.EndReason)
			}
		})
	}
	t.Run("dead endpoint", func(t *testing.T) {
		if deadOut[0].EndReason != episode.ReasonDialFailed {
			t.Errorf("end reason %s, want dial_failed", deadOut[0].EndReason)
		}
	})
	t.Run("honest miners unaffected", func(t *testing.T) {
		for i := range honest {
			for j := range problems {
				if mixed[i][j].EndReason != episode.ReasonTerminated {
					t.Errorf("miner %d problem %d: %s (%s)", i, j, mixed[i][j].EndReason, mixed[i][j].EndDetail)
				}
				if a, b := episode.Normalized(t, baseline[i][j]), episode.Normalized(t, mixed[i][j]); a != b {
					t.Errorf("miner %d problem %d differs from the run without hostile miners:\n%s\n%s", i, j, a, b)
				}
			}
		}
	})
}

// TestThinkLimitBelowFrameLimit shows the other side of the 1 MiB think
// case: when max_frame_bytes admits the frame, the think limit names it.
func TestThinkLimitBelowFrameLimit(t *testing.T) {
	tools, problems := episode.CatalogTools(t, 0)
	lim := episode.LimitsForTest()
	lim.MaxFrameBytes = 2 << 20
	r := episode.NewTestRunner(t, tools, lim)
	env := &episodetest.Env{Signer: episode.NewSigner(t)}
	addr := episodetest.Serve(t, env, episodetest.AfterStart(func(s *episode.EpisodeStart) []byte {
		return episodetest.StepJSON(s.EpisodeID, strings.Repeat("a", 1<<20), 1)
	}))
	tr := r.Run(context.Background(), episode.Miner{UID: 5, Hotkey: chain.Mirror(env.Signer.Address), Endpoint: addr}, problems[:1])[0]
	if tr.EndReason != episode.ReasonThinkTooLong {
		t.Fatalf("end reason %s (%s), want think_too_long", tr.EndReason, tr.EndDetail)
	}
	if len(tr.Steps) != 1 || len(tr.Steps[0].Think) != lim.MaxThinkBytes {
		t.Fatalf("offending step not recorded with its think clipped to %d bytes", lim.MaxThinkBytes)
	}
}
