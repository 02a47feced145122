// Package practice runs a miner's agent the way a validator runs it, but
// with no chain: the validator's episode runner on a real websocket, its
// shop tools, rule metrics, reasoning judge and judge policy, over a local
// catalog and suite. The handshake is signed with a throwaway validator
// key, and instead of holding the miner to a registered hotkey the report
// names the address it signed with and the hotkey (its mirror) it must
// register. `arena practice` is the command; docs/protocol.md and
// docs/scoring.md describe what is checked and how it is scored.
package practice

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/episode"
	"arena/scoring"
	"arena/scoring/judge"
	"arena/shop"
	"arena/suite"
)

// DefaultRunSize is the number of problems judged together for templates
// when Options.RunSize is not set: the default validator.qualifying_problems.
const DefaultRunSize = 20

// Options configure New.
type Options struct {
	// Tools are the shop tools episodes call (required).
	Tools *shop.Tools
	// Judge is the reasoning judge (default: the grounding judge with the
	// default template options). Its policy (judge.PolicyOf) caps
	// templated runs as a validator does.
	Judge judge.Judge
	// Titles matches titles in the rule metrics (default Lexical).
	Titles scoring.TitleMatcher
	// Limits bound each episode, as validator.limits does; zero fields
	// take the protocol defaults. MaxConcurrentEpisodes is the practice's
	// concurrency.
	Limits episode.Limits
	// RunSize is how many consecutive problems form one judged run, as
	// a qualifying run does (default DefaultRunSize).
	RunSize int
	// Relay, if set, is the inference relay the miner's agent may take
	// its completions through (protocol version 2), as a validator with
	// relay.base_url offers it.
	Relay episode.Relay
	// Verification is what scoring does with the steps' completions:
	// judge.VerifyRequire as under relay.required (--require-verified),
	// judge.VerifyRecord to report without effect. It needs no Relay: a
	// miner without one simply verifies nothing.
	Verification judge.Verification
	// StandIn reports that Relay serves the offline stand-in
	// (StandInRelay): the report says its steps are a script's.
	StandIn bool
	// Expect, if set, is the hotkey the miner must sign with: Run fails
	// before playing when it signs with another.
	Expect *Expect
	// DialWait is how long Run retries while nothing listens at the
	// endpoint yet (a miner started a moment before); 0 dials once.
	DialWait time.Duration
}

// Practice plays problems against one miner endpoint.
type Practice struct {
	opts   Options
	runner *episode.Runner
	policy judge.Policy
	log    zerolog.Logger
}

// New builds the validator side with a throwaway key.
func New(opts Options, log zerolog.Logger) (*Practice, error) {
	if opts.Tools == nil {
		return nil, errors.New("practice: Tools is required")
	}
	if opts.Judge == nil {
		opts.Judge = judge.NewGrounding(judge.GroundingOptions{}, log)
	}
	if opts.RunSize <= 0 {
		opts.RunSize = DefaultRunSize
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		return nil, fmt.Errorf("practice: %w", err)
	}
	runner, err := episode.NewRunner(episode.RunnerOptions{Signer: chain.NewSigner(key), Tools: opts.Tools, Limits: opts.Limits, Relay: opts.Relay}, log, nil)
	if err != nil {
		return nil, fmt.Errorf("practice: %w", err)
	}
	return &Practice{opts: opts, runner: runner, policy: judge.PolicyOf(opts.Judge),
		log: log.With().Str("component", "practice").Logger()}, nil
}

// Endpoint checks a miner URL (ws://HOST:PORT/arena/v1), given as
// --agent, and returns its HOST:PORT.
func Endpoint(raw string) (string, error) {
	hostport, err := episode.ParseMinerURL(raw)
	if err != nil {
		return "", fmt.Errorf("--agent %w, or llm or heuristic", err)
	}
	return hostport, nil
}

// Progress is reported after each episode ends.
type Progress struct {
	Done, Total int
	// Succeeded counts the episodes whose answer met the rule metrics.
	Succeeded int
}

// Run plays every problem against the miner at endpoint (HOST:PORT) and
// scores it. It fails with one clear error when the miner cannot be
// reached or does not complete the handshake, and when every episode
// ended with the same violation; otherwise
// every episode is in the report, whatever its end. onConnect, if set,
// is called with the miner's identity once the handshake succeeded.
func (p *Practice) Run(ctx context.Context, endpoint string, problems []suite.Problem, onConnect func(Identity), progress func(Progress)) (*Report, error) {
	if len(problems) == 0 {
		return nil, errors.New("practice: no problems to play")
	}
	conn, err := p.connect(ctx, endpoint)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if hint := DialHint(ctx, endpoint); hint != nil {
			return nil, hint
		}
		return nil, fmt.Errorf("miner at ws://%s%s: %w", endpoint, episode.Path, err)
	}
	defer conn.Close()
	if p.opts.Expect != nil {
		if err := p.opts.Expect.Check(conn.Address()); err != nil {
			return nil, fmt.Errorf("miner at ws://%s%s: %w", endpoint, episode.Path, err)
		}
	}
	id := Identity{Address: conn.Address().Hex(), Hotkey: chain.Mirror(conn.Address()).SS58()}
	if onConnect != nil {
		onConnect(id)
	}
	evals := make([]judge.Evaluation, len(problems))
	trajs := make([]episode.Trajectory, len(problems))
	var (
		mu        sync.Mutex
		done, ok  int
		firstErr  error
		wg        sync.WaitGroup
		episodeCh = make(chan int)
	)
	workers := p.runner.Limits().MaxConcurrentEpisodes
	for range workers {
		wg.Go(func() {
			for i := range episodeCh {
				pr := &problems[i]
				trajs[i] = conn.Episode(ctx, episode.Problem{ID: pr.ID, Query: pr.Query})
				ev, err := judge.Evaluate(ctx, p.opts.Judge, judge.Case{Problem: pr, Trajectory: &trajs[i],
					Answers:      scoring.LookupAnswers(p.opts.Tools.Catalog(), trajs[i].Recommended),
					Verification: p.opts.Verification}, scoring.Options{Titles: p.opts.Titles})
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				evals[i] = ev
				done++
				if ev.Metrics.Success {
					ok++
				}
				pg := Progress{Done: done, Total: len(problems), Succeeded: ok}
				mu.Unlock()
				if progress != nil {
					progress(pg)
				}
			}
		})
	}
	for i := range problems {
		select {
		case episodeCh <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(episodeCh)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if firstErr != nil {
		return nil, fmt.Errorf("practice: %w", firstErr)
	}
	if err := allFailedAtOnce(trajs); err != nil {
		return nil, fmt.Errorf("miner at ws://%s%s: %w", endpoint, episode.Path, err)
	}
	// The judge's policy over each run of RunSize problems, as over a
	// qualifying run: templates are capped, a run judged with no model
	// answering is void.
	results := make([]Result, len(problems))
	for start := 0; start < len(problems); start += p.opts.RunSize {
		end := min(start+p.opts.RunSize, len(problems))
		n := end - start
		tp, ms, vs, fs := make([]*episode.Trajectory, n), make([]*scoring.Metrics, n), make([]*judge.Verdict, n), make([]*float64, n)
		for k := range n {
			e := &evals[start+k]
			tp[k], ms[k], vs[k], fs[k] = &trajs[start+k], &e.Metrics, &e.Verdict, &e.Final
		}
		p.policy.ApplyRun(tp, ms, vs, fs)
		void := p.policy.Voids(vs)
		for k := start; k < end; k++ {
			results[k] = newResult(&problems[k], &trajs[k], &evals[k], void)
		}
	}
	rep := newReport(id, results, trajs, p.opts.Verification != judge.VerifyOff)
	rep.StandIn = p.opts.StandIn
	rep.trajectories, rep.evaluations, rep.problems = trajs, evals, problems
	return rep, nil
}

// connect dials the miner, again every 200 ms for up to DialWait while
// the connection is refused: the miner may still be unlocking its key.
func (p *Practice) connect(ctx context.Context, endpoint string) (*episode.Conn, error) {
	m := episode.Miner{UID: 0, Endpoint: endpoint, AnyIdentity: true}
	deadline := time.Now().Add(p.opts.DialWait)
	for {
		conn, err := p.runner.Connect(ctx, m)
		// The runner's dial error is text (the handshake error's detail).
		if err == nil || !strings.Contains(err.Error(), "connection refused") || time.Now().After(deadline) {
			return conn, err
		}
		t := time.NewTimer(200 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// allFailedAtOnce reports a miner that accepted the handshake but whose
// every episode ended with the same violation (a stalled agent, a broken
// frame): one clear error rather than a report of zeros.
func allFailedAtOnce(trajs []episode.Trajectory) error {
	first := trajs[0]
	for i := range trajs {
		t := &trajs[i]
		if !t.EndReason.MinerFault() || t.EndReason != first.EndReason {
			return nil
		}
	}
	return fmt.Errorf("every episode ended %s, a violation (%s); see docs/protocol.md §6", first.EndReason, episode.ClipText(first.EndDetail, 200))
}

// Identity is the key the miner signed the handshake with and the hotkey
// it must be registered under.
type Identity struct {
	// Address is the EVM address that signed hello_ack.
	Address string `json:"address"`
	// Hotkey is the address's mirror (SS58): the hotkey to register.
	Hotkey string `json:"hotkey"`
}

// Serve runs agent behind a reference episode server on a loopback port,
// with a throwaway miner key, so practice plays it through the same
// socket path as a remote miner. It returns the HOST:PORT and a stop
// function.
func Serve(ctx context.Context, agent episode.Agent, maxEpisodes int, log zerolog.Logger) (string, func(), error) {
	key, err := crypto.GenerateKey()
	if err != nil {
		return "", nil, err
	}
	srv, err := episode.NewServer(episode.ServerOptions{Signer: chain.NewSigner(key), Agent: agent, MaxConcurrentEpisodes: maxEpisodes}, log, nil)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	return ln.Addr().String(), func() {
		cancel()
		<-done
	}, nil
}

// stepTime is one step's miner time.
func stepTime(s *episode.StepRecord) time.Duration {
	if s.TSent.IsZero() || s.TReceived.IsZero() {
		return 0
	}
	return s.TReceived.Sub(s.TSent)
}
