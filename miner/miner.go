package miner

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"arena/episode"
)

// Agent names accepted by NewAgent.
const (
	AgentHeuristic = "heuristic"
	AgentLLM       = "llm"
)

// AgentOptions select and configure an agent.
type AgentOptions struct {
	// Kind is AgentHeuristic or AgentLLM.
	Kind string
	// Skill is the heuristic agent's strength, 0..1.
	Skill float64
	// LLMBaseURL, LLMModel, LLMAPIKey and LLMTimeout configure the LLM
	// agent (see LLMOptions).
	LLMBaseURL string
	LLMModel   string
	LLMAPIKey  string
	LLMTimeout time.Duration
}

// NewAgent builds the agent named by opts.Kind.
func NewAgent(opts AgentOptions, log zerolog.Logger) (episode.Agent, error) {
	switch strings.ToLower(opts.Kind) {
	case AgentHeuristic, "":
		return NewHeuristic(HeuristicOptions{Skill: opts.Skill})
	case AgentLLM:
		if opts.LLMBaseURL == StandInURL {
			return newStandInLLM(opts.LLMTimeout, log)
		}
		return NewLLM(LLMOptions{BaseURL: opts.LLMBaseURL, Model: opts.LLMModel, APIKey: opts.LLMAPIKey, Timeout: opts.LLMTimeout}, log)
	}
	return nil, fmt.Errorf("unknown agent %q: want %s or %s", opts.Kind, AgentHeuristic, AgentLLM)
}

// EpisodeLogOptions configure NewEpisodeLog.
type EpisodeLogOptions struct {
	// Every is the interval between summary lines while serving; default
	// one minute. An interval in which no episode ended logs nothing.
	Every time.Duration
}

// EpisodeLog tells a miner's operator what the miner is doing: each
// episode at debug as it ends (id, validator, steps, end reason,
// duration), and at info a summary of the episodes served since start, by
// end reason, every Options.Every and when serving stops. Its Record is
// an episode.ServerOptions.OnEpisodeEnd.
type EpisodeLog struct {
	every time.Duration
	log   zerolog.Logger
	start time.Time

	mu       sync.Mutex
	total    int
	byReason map[episode.EndReason]int
	reported int // total at the last summary
}

// NewEpisodeLog starts counting now.
func NewEpisodeLog(opts EpisodeLogOptions, log zerolog.Logger) *EpisodeLog {
	if opts.Every <= 0 {
		opts.Every = time.Minute
	}
	return &EpisodeLog{every: opts.Every, log: log, start: time.Now(), byReason: map[episode.EndReason]int{}}
}

// Record counts one finished episode and logs it at debug.
func (l *EpisodeLog) Record(o episode.EpisodeOutcome) {
	l.mu.Lock()
	l.total++
	l.byReason[o.Reason]++
	l.mu.Unlock()
	l.log.Debug().Str("episode", o.EpisodeID).Str("validator", o.Validator.Hex()).Int("steps", o.Steps).
		Str("reason", string(o.Reason)).Dur("took_ms", o.Duration).Msg("episode ended")
}

// Run calls serve and logs a summary every Options.Every while it runs,
// and a last one, whatever the count, once it has returned (so episodes
// that ended during shutdown are in it).
func (l *EpisodeLog) Run(ctx context.Context, serve func(context.Context) error) error {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(l.every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				l.summary(false)
			}
		}
	})
	err := serve(ctx)
	close(stop)
	wg.Wait()
	l.summary(true)
	return err
}

// summary logs the counts since start; unless final, only when episodes
// ended since the last summary.
func (l *EpisodeLog) summary(final bool) {
	l.mu.Lock()
	total, fresh := l.total, l.total-l.reported
	l.reported = l.total
	by := zerolog.Dict()
	for _, r := range slices.Sorted(maps.Keys(l.byReason)) {
		by.Int(string(r), l.byReason[r])
	}
	l.mu.Unlock()
	if !final && fresh == 0 {
		return
	}
	msg := "episodes served"
	if final {
		msg = "episodes served until shutdown"
	}
	l.log.Info().Int("episodes", total).Int("new", fresh).Dict("by_reason", by).Time("since", l.start).Msg(msg)
}
