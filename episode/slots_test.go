package episode

import (
	"context"
	"strings"
	"testing"

	"arena/chain"
)

// TestServerFreesSlotAtEpisodeEnd: a validator whose concurrency equals
// the miner's starts the next episode right after sending episode_end.
// The miner must count that slot free when it reads episode_end, not when
// its agent's goroutine has wound down (here: never before the run ends,
// because OnEpisodeEnd blocks), or the next episode is refused and scores
// zero through no fault of the agent.
func TestServerFreesSlotAtEpisodeEnd(t *testing.T) {
	tools, problems := catalogTools(t, 0)
	lim := testLimits()
	lim.MaxConcurrentEpisodes = 2
	hold := make(chan struct{})
	s := newSigner(t)
	m := Miner{UID: 1, Hotkey: chain.Mirror(s.Address), Endpoint: startServer(t, s, scriptedAgent(), ServerOptions{
		MaxConcurrentEpisodes: lim.MaxConcurrentEpisodes,
		OnEpisodeEnd:          func(EpisodeOutcome) { <-hold },
	})}
	trs := newTestRunner(t, tools, lim).Run(context.Background(), m, problems[:8])
	close(hold)
	for _, tr := range trs {
		if len(tr.Steps) == 0 || strings.Contains(tr.Steps[0].Think, "busy") || len(tr.Steps) < 2 {
			t.Errorf("episode %s: %d steps, ended %s; first think %q: refused while the validator had a free slot",
				tr.ProblemID, len(tr.Steps), tr.EndReason, firstThink(tr))
		}
	}
}

func firstThink(tr Trajectory) string {
	if len(tr.Steps) == 0 {
		return ""
	}
	return tr.Steps[0].Think
}
