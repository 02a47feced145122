package minercheck

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"arena/episode"
	"arena/shop"
)

// verdict collects a clause's failures from wherever they are seen.
type verdict struct {
	dur   time.Duration
	fails []string
	pass  string
	skip  string
}

func (r *run) verdict(cl Clause) *verdict {
	if r.verdicts == nil {
		r.verdicts = map[Clause]*verdict{}
	}
	v := r.verdicts[cl]
	if v == nil {
		v = &verdict{}
		r.verdicts[cl] = v
	}
	return v
}

func (r *run) failf(cl Clause, format string, args ...any) {
	v := r.verdict(cl)
	v.fails = append(v.fails, fmt.Sprintf(format, args...))
}

// single plays one episode of a clause on a connection of its own.
func (r *run) single(ctx context.Context, sp spec) *played {
	start := time.Now()
	defer func() { r.verdict(sp.clause).dur = time.Since(start) }()
	w, err := r.open(ctx, sp.limits)
	if err != nil {
		r.failf(sp.clause, "%s: could not connect: %v", sp.label, err)
		return nil
	}
	if sp.relay == nil {
		sp.relay = r.c.relay
	}
	p := w.play(ctx, r.c.tools, sp)
	w.close()
	r.stray = append(r.stray, w.stray...)
	r.played = append(r.played, p)
	if !p.reason.Normal() {
		r.failf(sp.clause, "%s", p.violation())
	}
	return p
}

// checkEpisodes plays the episode clauses one after another, so that a
// miner with a small concurrency bound is only pressed by the clause
// that is about concurrency.
func (r *run) checkEpisodes(ctx context.Context) {
	q := r.c.queries
	r.checkConcurrency(ctx)
	if ctx.Err() != nil {
		return
	}

	lim := r.opts.limits()
	if p := r.single(ctx, spec{clause: OneStep, label: "one_step episode", query: q[r.opts.Concurrent%len(q)], limits: lim, extraStepWait: r.opts.ExtraStepWait}); p != nil && p.reason.Normal() {
		r.verdict(OneStep).pass = fmt.Sprintf("%s, each answering its prompt: no second step within %s of any, none after the observation that ended the episode, and no early step in any other episode",
			count(p.steps, "step"), r.opts.ExtraStepWait)
	}
	if ctx.Err() != nil {
		return
	}

	small := r.opts.smallLimits()
	if p := r.single(ctx, spec{clause: Limits, label: "limits episode", query: q[(r.opts.Concurrent+1)%len(q)], limits: small}); p != nil && p.reason.Normal() {
		r.verdict(Limits).pass = fmt.Sprintf("announced max_think_bytes %d, max_tool_calls %d, max_frame_bytes %d: longest think %d bytes, most calls in a step %d; every episode within its limits",
			small.MaxThinkBytes, small.MaxToolCalls, small.MaxFrameBytes, p.maxThink, p.maxCalls)
	}
	if ctx.Err() != nil {
		return
	}

	p := r.single(ctx, spec{clause: ToolErrors, label: "tool_errors episode", query: q[(r.opts.Concurrent+2)%len(q)], limits: lim, injectErrors: true})
	switch v := r.verdict(ToolErrors); {
	case p == nil:
	case !p.reason.Normal():
		if p.injectedAt >= 0 && !p.answeredError {
			v.fails[len(v.fails)-1] = fmt.Sprintf("%s: after the observation of error results for step %d: %s: %s", p.label, p.injectedAt, p.reason, p.detail)
		}
	case p.injectedAt < 0:
		v.skip = fmt.Sprintf("no step of %s called a tool other than terminate, so no results could be replaced by errors", count(p.steps, "step"))
	case !p.answeredError:
		v.skip = fmt.Sprintf("the error observation was for step %d, the last of max_steps %d: nothing could answer it", p.injectedAt, lim.MaxSteps)
	case p.reason != episode.ReasonTerminated:
		r.failf(ToolErrors, "after the error observation for step %d the agent took all %d steps without terminate; it must end the episode with terminate within max_steps", p.injectedAt, lim.MaxSteps)
	default:
		v.pass = fmt.Sprintf("step %d's results were replaced by internal errors; the agent answered with a valid step and called terminate (%s) at step %d of max_steps %d",
			p.injectedAt, p.status, p.steps-1, lim.MaxSteps)
	}
	if ctx.Err() != nil || !r.v2 {
		return
	}

	r.fault = r.single(ctx, spec{clause: RelayErrors, label: "relay_errors episode (provider down)", query: q[(r.opts.Concurrent+3)%len(q)], limits: lim,
		relayFault: true})
	if ctx.Err() != nil {
		return
	}
	r.spent = r.single(ctx, spec{clause: RelayErrors, label: fmt.Sprintf("relay_errors episode (max_completions %d)", r.opts.SpentCompletions),
		query: q[(r.opts.Concurrent+4)%len(q)], limits: lim, relay: r.c.spent})
}

// checkConcurrency starts several episodes at once on one connection and
// holds each after its first step until all have one.
func (r *run) checkConcurrency(ctx context.Context) {
	n := r.opts.Concurrent
	start := time.Now()
	defer func() { r.verdict(Concurrency).dur = time.Since(start) }()
	lim := r.opts.limits()
	lim.MaxConcurrentEpisodes = max(lim.MaxConcurrentEpisodes, n)
	w, err := r.open(ctx, lim)
	if err != nil {
		r.failf(Concurrency, "could not connect: %v", err)
		return
	}
	b := newBarrier(n)
	ps := make([]*played, n)
	var wg sync.WaitGroup
	for i := range n {
		sp := spec{clause: Concurrency, label: fmt.Sprintf("concurrency episode %d of %d", i+1, n), query: r.c.queries[i%len(r.c.queries)], limits: lim, barrier: b,
			relay: r.c.relay}
		wg.Go(func() { ps[i] = w.play(ctx, r.c.tools, sp) })
	}
	wg.Wait()
	w.close()
	r.stray = append(r.stray, w.stray...)
	r.played = append(r.played, ps...)
	var steps []string
	same := true
	for _, p := range ps {
		switch {
		case !p.reason.Normal():
			r.failf(Concurrency, "%s", p.violation())
		case p.firstTerminates:
			r.failf(Concurrency, "%s was refused: its first step calls terminate (%s), as a miner at its concurrency bound does; it must take %d episodes at once",
				p.label, p.status, n)
		}
		same = same && p.reason == ps[0].reason
		steps = append(steps, fmt.Sprintf("%s after %d", p.reason, p.steps))
	}
	if same {
		for i, p := range ps {
			steps[i] = fmt.Sprint(p.steps)
		}
		steps[0] = string(ps[0].reason) + " after " + steps[0]
	}
	r.verdict(Concurrency).pass = fmt.Sprintf("%d episodes at once on one connection each answered step 0 before any observation was sent, and ended normally (%s steps)",
		n, strings.Join(steps, ", "))
}

// count is "1 step", "2 steps".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// owner is the clause a violation breaks, wherever it happened.
func owner(reason episode.EndReason) Clause {
	switch reason {
	case episode.ReasonMalformed, episode.ReasonUnknownType:
		return Messages
	case episode.ReasonOversized, episode.ReasonThinkTooLong, episode.ReasonTooManyCalls:
		return Limits
	case episode.ReasonStepTimeout, episode.ReasonEpisodeTimeout:
		return Timeouts
	case episode.ReasonUnexpected:
		return OneStep
	case episode.ReasonDisconnected:
		return CloseCodes
	}
	return ""
}

// judgeEvidence charges each violation to the clause it breaks, judges
// the clauses that look across all episodes, and turns the verdicts into
// results.
func (r *run) judgeEvidence() {
	for _, p := range r.played {
		cl := p.charge
		if cl == "" {
			cl = owner(p.reason)
		}
		if cl != "" && cl != p.clause {
			if cl == CloseCodes {
				r.failf(cl, "%s: the miner dropped an accepted connection mid-episode (%s: %s)", p.label, p.reason, p.detail)
				continue
			}
			r.failf(cl, "%s", p.violation())
		}
	}
	r.judgeCloseCodes()
	r.judgeAcross()
	r.judgeRelay()
	if r.v2 {
		r.judgeRelayErrors(r.fault, r.spent)
	}
	for _, cl := range []Clause{CloseCodes, Messages, Concurrency, OneStep, Limits, Timeouts, ToolCalls, ToolErrors, Infer, InferRequests, Verified, Dictated, RelayErrors} {
		v := r.verdict(cl)
		res := Result{Clause: cl, Duration: v.dur}
		switch {
		case len(v.fails) > 0:
			res.Status, res.Detail = Fail, v.fails[0]
			if len(v.fails) > 1 {
				res.Detail += fmt.Sprintf(" (and %d more)", len(v.fails)-1)
			}
		case v.skip != "":
			res.Status, res.Detail = Skip, v.skip
		case v.pass != "":
			res.Status, res.Detail = Pass, v.pass
		default:
			res.Status, res.Detail = Skip, "no episode of this clause ran"
		}
		r.results[cl] = res
		r.log.Debug().Str("clause", string(cl)).Str("status", string(res.Status)).Str("detail", res.Detail).Msg("clause checked")
	}
}

func (r *run) judgeCloseCodes() {
	var reasons []string
	for _, f := range r.refusals {
		if ok, why := f.refused(); !ok {
			// Another clause's refusal that did not happen is that
			// clause's failure; this clause's own are its.
			if f.clause == CloseCodes {
				r.failf(CloseCodes, "%s", why)
			}
			continue
		}
		if ok, why := f.closeFrame(); !ok {
			r.failf(CloseCodes, "%s", why)
			continue
		}
		reasons = append(reasons, string(f.want))
	}
	v := r.verdict(CloseCodes)
	if len(reasons) == 0 {
		v.skip = "no refused hello to inspect; no accepted connection was dropped mid-episode"
		return
	}
	v.pass = fmt.Sprintf("refusals closed with 1008 and their end reason (%s); no accepted connection was dropped mid-episode", strings.Join(reasons, ", "))
}

// judgeAcross judges the clauses whose evidence is every episode played.
func (r *run) judgeAcross() {
	if len(r.played) == 0 {
		for _, cl := range []Clause{Messages, Timeouts, ToolCalls} {
			r.verdict(cl).skip = "no episode ran"
		}
		return
	}
	steps, calls := 0, map[string]int{}
	var slowest *played
	for _, p := range r.played {
		steps += p.steps
		for name, k := range p.calls {
			calls[name] += k
		}
		for _, u := range p.unknown {
			r.failf(ToolCalls, "%s: %s", p.label, u)
		}
		if p.steps > 0 && (slowest == nil || p.slowest > slowest.slowest) {
			slowest = p
		}
	}
	if steps > 0 {
		r.verdict(Messages).pass = fmt.Sprintf("%d steps in %d episodes, each a text frame holding a valid step message", steps, len(r.played))
	} else {
		r.verdict(Messages).skip = "no step arrived to inspect"
	}
	if slowest != nil {
		r.verdict(Timeouts).pass = fmt.Sprintf("slowest step %s (%s, step %d), within the announced step timeout %s",
			short(slowest.slowest), slowest.label, slowest.slowestStep, r.opts.StepTimeout)
	} else {
		r.verdict(Timeouts).skip = "no step arrived to time"
	}
	total := 0
	var byTool []string
	for _, name := range shop.ToolNames() {
		if k := calls[name]; k > 0 {
			total += k
			byTool = append(byTool, fmt.Sprintf("%s %d", name, k))
		}
	}
	if total == 0 {
		// A miner that never calls a tool breaks no rule of this clause;
		// tool_errors fails it for never calling terminate.
		r.verdict(ToolCalls).skip = fmt.Sprintf("no tool call to inspect in %d steps of %d episodes", steps, len(r.played))
		return
	}
	r.verdict(ToolCalls).pass = fmt.Sprintf("%d calls, all to offered tools, with object parameters and ids unique in their step (%s)", total, strings.Join(byTool, ", "))
}
