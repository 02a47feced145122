package calibrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"arena/episode"
	"arena/miner"
	"arena/shop"
	"arena/suite"
)

// Agent is one baseline: a name for the report and a constructor, given
// the problems of the run (only the solver looks at them).
type Agent struct {
	Name string
	New  func(problems []suite.Problem) (episode.Agent, error)
}

// DefaultSkills are the heuristic skills DefaultAgents calibrates.
func DefaultSkills() []float64 { return []float64{1, 0.8, 0.6, 0.4} }

// DefaultAgents are the lazy agent, the reference heuristic at skills (or
// DefaultSkills when none are given) and the solver.
func DefaultAgents(skills ...float64) []Agent {
	if len(skills) == 0 {
		skills = DefaultSkills()
	}
	out := []Agent{Lazy()}
	for _, s := range skills {
		out = append(out, Heuristic(s))
	}
	return append(out, Solver())
}

// Lazy searches the raw query, recommends the first hit and stops: the
// agent a useful suite must not reward.
func Lazy() Agent {
	return Agent{Name: "lazy", New: func([]suite.Problem) (episode.Agent, error) { return lazy{}, nil }}
}

// Heuristic is the reference miner's heuristic agent at a skill.
func Heuristic(skill float64) Agent {
	return Agent{Name: "heuristic:" + strconv.FormatFloat(skill, 'f', 1, 64), New: func([]suite.Problem) (episode.Agent, error) {
		return miner.NewHeuristic(miner.HeuristicOptions{Skill: skill})
	}}
}

// Solver plays suite.Solve: it knows each problem's constraints (found by
// the episode's query), not its targets, and must use the tools like any
// agent.
func Solver() Agent {
	return Agent{Name: "solver", New: func(problems []suite.Problem) (episode.Agent, error) {
		byQuery := make(map[string]*suite.Problem, len(problems))
		for i := range problems {
			if _, dup := byQuery[problems[i].Query]; !dup {
				byQuery[problems[i].Query] = &problems[i]
			}
		}
		return newScript(func(ctx context.Context, query string, call suite.Caller) error {
			p, ok := byQuery[query]
			if !ok {
				return errors.New("solver: unknown query")
			}
			var err error
			if p.Type == suite.TypeKnowledge {
				_, err = suite.SolveKnowledge(ctx, p, call)
			} else {
				_, err = suite.Solve(ctx, p, call)
			}
			return err
		}), nil
	}}
}

type lazy struct{}

func (lazy) Step(_ context.Context, v episode.EpisodeView) (episode.Action, error) {
	if len(v.History) == 0 {
		return action("Searching the request as written.", shop.ToolFindProduct, map[string]any{"q": v.Query, "page": 1}), nil
	}
	last := v.History[len(v.History)-1]
	if last.Action.ToolCalls[0].Name == shop.ToolFindProduct && len(last.Results) > 0 && last.Results[0].Error == nil {
		var hits []struct {
			ID string `json:"product_id"`
		}
		if json.Unmarshal(last.Results[0].Result, &hits) == nil && len(hits) > 0 {
			return action("Taking the first hit.", shop.ToolRecommendProduct, map[string]any{"product_ids": hits[0].ID}), nil
		}
	}
	return action("Done.", shop.ToolTerminate, map[string]any{"status": "success"}), nil
}

func action(think, tool string, args map[string]any) episode.Action {
	raw, _ := json.Marshal(args)
	return episode.Action{Think: think, ToolCalls: []episode.ToolCall{{ID: "call_0", Name: tool, Parameters: raw}}}
}

// script turns a sequential program that calls tools into an
// episode.Agent: each episode runs its program on a goroutine, and every
// tool call it makes becomes one step whose observation is handed back.
type script struct {
	run func(ctx context.Context, query string, call suite.Caller) error

	mu       sync.Mutex
	episodes map[string]*scriptEpisode
}

type scriptEpisode struct {
	calls   chan episode.ToolCall
	results chan episode.ToolResult
	done    chan error
	cancel  context.CancelFunc
}

func newScript(run func(ctx context.Context, query string, call suite.Caller) error) *script {
	return &script{run: run, episodes: map[string]*scriptEpisode{}}
}

// Step implements episode.Agent.
func (s *script) Step(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
	s.mu.Lock()
	ep := s.episodes[v.EpisodeID]
	if ep == nil && len(v.History) == 0 {
		ep = s.start(v)
		s.episodes[v.EpisodeID] = ep
	}
	s.mu.Unlock()
	if ep == nil {
		return action("Lost track of this episode.", shop.ToolTerminate, map[string]any{"status": "failure"}), nil
	}
	if n := len(v.History); n > 0 {
		res := episode.ToolResult{Error: &episode.ToolError{Code: "missing", Message: "no result"}}
		if rs := v.History[n-1].Results; len(rs) > 0 {
			res = rs[0]
		}
		select {
		case ep.results <- res:
		case err := <-ep.done:
			return s.finish(v.EpisodeID, err), nil
		case <-ctx.Done():
			return episode.Action{}, ctx.Err()
		}
	}
	select {
	case c := <-ep.calls:
		return episode.Action{Think: "Next call.", ToolCalls: []episode.ToolCall{c}}, nil
	case err := <-ep.done:
		return s.finish(v.EpisodeID, err), nil
	case <-ctx.Done():
		return episode.Action{}, ctx.Err()
	}
}

func (s *script) start(v episode.EpisodeView) *scriptEpisode {
	ctx, cancel := context.WithCancel(context.Background())
	ep := &scriptEpisode{calls: make(chan episode.ToolCall), results: make(chan episode.ToolResult), done: make(chan error, 1), cancel: cancel}
	n := 0
	call := func(ctx context.Context, name string, args map[string]any) (json.RawMessage, error) {
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		n++
		select {
		case ep.calls <- episode.ToolCall{ID: fmt.Sprintf("call_%d", n), Name: name, Parameters: raw}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		select {
		case r := <-ep.results:
			if r.Error != nil {
				return nil, fmt.Errorf("%s: %s", name, r.Error.Message)
			}
			return r.Result, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	go func() { ep.done <- s.run(ctx, v.Query, call) }()
	return ep
}

// finish ends an episode whose program returned err.
func (s *script) finish(id string, err error) episode.Action {
	s.mu.Lock()
	if ep := s.episodes[id]; ep != nil {
		ep.cancel()
		delete(s.episodes, id)
	}
	s.mu.Unlock()
	if err != nil {
		return action("Giving up: "+err.Error(), shop.ToolTerminate, map[string]any{"status": "failure"})
	}
	return action("Answered.", shop.ToolTerminate, map[string]any{"status": "success"})
}

// Close stops the programs of episodes that never finished (the validator
// ended them early).
func (s *script) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, ep := range s.episodes {
		ep.cancel()
		delete(s.episodes, id)
	}
}
