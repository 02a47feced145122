package minercheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/relay"
	"arena/shop"
)

// wire is one connection to the miner after the handshake: the
// validator's own wire core (episode.Wire: the reader, routing by episode
// id, the connection's one death and its close frame, serialised writes),
// plus what the clauses judge of it.
type wire struct {
	*episode.Wire
	opts  Options
	stop  func() bool
	miner string

	mu sync.Mutex
	// lives are the clauses' view of the episodes in flight, by id.
	lives map[string]*live
	// stray are infers that named no live episode with a relay.
	stray []string
}

// live is an episode in flight: the core's handle and the infer conduct
// the infer clause judges.
type live struct {
	*episode.WireEpisode

	// owed is set while the episode waits for a step (from sending its
	// prompt to the step's arrival).
	owed atomic.Bool

	mu     sync.Mutex
	ids    map[string]bool // request_ids of the episode's infers
	misuse []string        // infer conduct the infer clause fails
}

func (e *live) note(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.misuse) < 8 {
		e.misuse = append(e.misuse, fmt.Sprintf(format, args...))
	}
}

// charge is the clause the frame that ended an episode or the connection
// breaks when that is not its reason's usual one (owner): a bad tool call
// (a parameters string, a call without a name) is the tool_calls clause's,
// a bad infer or an infer on a version-1 connection the infer clause's, a
// message a miner never sends the messages clause's.
func charge(c episode.WireCause) Clause {
	switch {
	case c.Frame != nil && strings.HasPrefix(c.Frame.Field, "tool_calls["):
		return ToolCalls
	case c.Frame != nil && c.Frame.Type == episode.TypeInfer, c.Type == episode.TypeInfer:
		return Infer
	case c.Type != "":
		return Messages
	}
	return ""
}

// readFailure words a failed read for the report.
func readFailure(err error) (episode.EndReason, string) {
	var ce *websocket.CloseError
	switch {
	case errors.Is(err, websocket.ErrReadLimit):
		return episode.ReasonOversized, "a frame exceeds the announced max_frame_bytes"
	case errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure:
		return episode.ReasonDisconnected, fmt.Sprintf("the miner closed the connection (close %d %q)", ce.Code, episode.ClipText(ce.Text, 80))
	}
	return episode.ReasonDisconnected, "the connection ended: " + episode.ClipText(err.Error(), 120)
}

// open dials and handshakes for an episode clause. The hello_ack is not
// judged again (the handshake and signature clauses did): any decodable
// ack lets the episodes be checked.
func (r *run) open(ctx context.Context, lim episode.Limits) (*wire, error) {
	ws, err := r.dial(ctx)
	if err != nil {
		return nil, err
	}
	// Episodes are offered version 2 only once the negotiation clause saw
	// the miner take it, as a validator with a relay offers it.
	offer := episode.Version
	if r.v2 {
		offer = episode.Version2
	}
	hello, _, err := episode.NewHelloUpTo(r.validator.PrivateKey(), time.Now(), offer)
	if err != nil {
		ws.Close()
		return nil, err
	}
	frame, err := episode.Encode(hello)
	if err != nil {
		ws.Close()
		return nil, err
	}
	ws.SetReadLimit(int64(lim.MaxFrameBytes))
	a := r.exchange(ctx, ws, frame, r.opts.HandshakeTimeout)
	if a.ack == nil {
		ws.Close()
		return nil, fmt.Errorf("handshake: %s: %s", a.reason, a.detail)
	}
	version := min(max(a.ack.Version, episode.Version), offer)
	if version >= episode.Version2 {
		// Infer frames carry whole prompts; the reader holds every other
		// frame to max_frame_bytes itself.
		ws.SetReadLimit(int64(max(lim.MaxFrameBytes, r.c.maxInferBytes)))
	}
	w := &wire{opts: r.opts, miner: r.minerAddr.Hex(), lives: map[string]*live{}}
	w.Wire = episode.NewWire(ws, episode.WireOptions{Version: version, MaxFrameBytes: lim.MaxFrameBytes, WriteTimeout: r.opts.WriteTimeout,
		ReadFailure: readFailure, OnInfer: w.onInfer}, zerolog.Nop())
	w.stop = context.AfterFunc(ctx, func() { w.Kill(episode.ReasonAborted, "check cancelled") })
	return w, nil
}

// close ends the connection once its episodes are over.
func (w *wire) close() {
	w.stop()
	w.Close("connection closed by the checker")
}

func (w *wire) live(id string) *live {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lives[id]
}

// onInfer notes what the infer clause fails of an infer before the core
// routes it (and answers it, as the runner does, when it cannot be
// served).
func (w *wire) onInfer(inf *episode.Infer, _ *episode.WireEpisode) {
	ep := w.live(inf.EpisodeID)
	if ep == nil || ep.Infers == nil {
		answer, why := episode.InferNoEpisode, "which is not live on this connection"
		if ep != nil {
			answer, why = episode.InferUnavailable, "which was offered no relay"
		}
		w.mu.Lock()
		if len(w.stray) < 8 {
			w.stray = append(w.stray, fmt.Sprintf("an infer (request_id %q) names episode %q, %s: a validator answers %s",
				episode.ClipText(inf.RequestID, 40), episode.ClipText(inf.EpisodeID, 40), why, answer))
		}
		w.mu.Unlock()
		return
	}
	if !ep.owed.Load() {
		ep.note("infer %q arrived after observation %d while the episode owed no step (between a step and its observation, or after the last): its completion can back no step",
			episode.ClipText(inf.RequestID, 40), ep.Observed.Load())
	}
	ep.mu.Lock()
	dup := ep.ids[inf.RequestID]
	ep.ids[inf.RequestID] = true
	ep.mu.Unlock()
	if dup {
		ep.note("request_id %q was used before in this episode: infer_results are matched to infers by it", episode.ClipText(inf.RequestID, 40))
	}
}

// barrier holds the concurrency clause's episodes after their first step
// until all have one: only then are they provably in flight together.
type barrier struct {
	mu     sync.Mutex
	left   int
	all    chan struct{}
	broken chan struct{}
	once   sync.Once
}

func newBarrier(n int) *barrier {
	return &barrier{left: n, all: make(chan struct{}), broken: make(chan struct{})}
}

func (b *barrier) arrive() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.left--; b.left == 0 {
		close(b.all)
	}
}

// fail releases the waiting episodes when one ended without a first step.
func (b *barrier) fail() { b.once.Do(func() { close(b.broken) }) }

// spec is one episode a clause plays.
type spec struct {
	clause Clause
	label  string
	query  string
	limits episode.Limits
	// extraStepWait, when set, is a quiet window after each step in
	// which a second step is caught before the observation goes out.
	extraStepWait time.Duration
	// injectErrors replaces the results of the first step that calls
	// tools (and not terminate) with internal errors.
	injectErrors bool
	barrier      *barrier
	// relay is offered in episode_start on a version-2 connection;
	// relayFault answers every infer provider_error instead, as a relay
	// whose provider is down does.
	relay      *relay.Relay
	relayFault bool
}

// played is what happened in one episode.
type played struct {
	spec
	reason episode.EndReason
	detail string
	// charge, when set, is the clause the violation breaks instead of
	// the reason's usual one (owner).
	charge Clause
	steps  int
	calls  map[string]int // calls of offered tools, by name
	// unknown describes calls of tools not offered and repeated call ids.
	unknown []string
	// maxThink and maxCalls are the largest think and call count seen.
	maxThink, maxCalls int
	slowest            time.Duration
	slowestStep        int
	// firstTerminates: step 0 called terminate, as a busy miner refuses.
	firstTerminates bool
	status          string // terminate's status, once it succeeded
	injectedAt      int    // the step whose results were errors; -1 if none
	answeredError   bool   // a step answered the error observation

	// Version 2 with the relay offered: the offer, the steps as a
	// trajectory records them and the relay's completions, for
	// scoring/verify; the infer conduct the infer clause fails, the
	// requests a validator's relay refuses (infer_requests), and the
	// infers answered with an error (relay_errors).
	offer       *episode.WireRelay
	records     []episode.StepRecord
	completions []episode.Completion
	misuse      []string
	refused     []string
	infers      int
	inferErrors int
}

func (p *played) violation() string {
	return fmt.Sprintf("%s: %s: %s", p.label, p.reason, p.detail)
}

var offered = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range shop.ToolNames() {
		m[n] = true
	}
	return m
}()

// play runs one episode as the validator's runner does: the same limits,
// deadlines and end reasons, and the real tools on the checker's catalog.
func (w *wire) play(ctx context.Context, tools *shop.Tools, sp spec) *played {
	p := &played{spec: sp, calls: map[string]int{}, injectedAt: -1}
	lim := sp.limits
	id := episode.NewEpisodeID()
	relayed := w.Version() >= episode.Version2 && sp.relay != nil
	core := episode.NewWireEpisode(0)
	if relayed {
		core = episode.NewWireEpisode(maxInfersQueued)
	}
	ep := &live{WireEpisode: core, ids: map[string]bool{}}
	core.OnStep = func() { ep.owed.Store(false) }
	w.mu.Lock()
	w.lives[id] = ep
	w.mu.Unlock()
	w.Add(id, core)
	defer func() {
		w.Remove(id)
		w.mu.Lock()
		delete(w.lives, id)
		w.mu.Unlock()
	}()
	arrived := false
	if sp.barrier != nil {
		defer func() {
			if !arrived {
				sp.barrier.fail()
			}
		}()
	}
	epCtx, cancel := context.WithTimeout(ctx, lim.EpisodeTimeout)
	defer cancel()
	session := tools.NewSession()
	if relayed {
		rw := w.startRelay(epCtx, ep, sp, id)
		offer := rw.session.Offer()
		p.offer = &offer
		// Runs before the episode is unregistered: its infers are over.
		defer rw.stop(ep, p)
	}

	finish := func(reason episode.EndReason, detail string) *played {
		p.reason, p.detail = reason, detail
		p.status, _ = session.Terminated()
		return p
	}
	end := func(reason episode.EndReason, detail string) *played {
		select {
		case <-w.Dead():
		default:
			_ = w.Send(&episode.EpisodeEnd{EpisodeID: id, Reason: reason, Detail: episode.ClipText(detail, 200)})
		}
		return finish(reason, detail)
	}
	deadEnd := func() *played {
		<-w.Dead()
		var cause episode.WireCause
		p.reason, p.detail, cause = w.Death()
		p.charge = charge(cause)
		p.status, _ = session.Terminated()
		return p
	}
	// failEnd is for after ep.Failed closed, which publishes its failure.
	failEnd := func() *played {
		reason, detail, cause := ep.Failure()
		p.charge = charge(cause)
		return end(reason, detail)
	}
	timedOut := func() *played {
		if ctx.Err() != nil {
			return end(episode.ReasonAborted, ctx.Err().Error())
		}
		return end(episode.ReasonEpisodeTimeout, fmt.Sprintf("the episode exceeded the announced episode timeout %s", lim.EpisodeTimeout))
	}

	tSent := time.Now()
	ep.owed.Store(true)
	if w.Send(&episode.EpisodeStart{EpisodeID: id, Query: sp.query, Tools: shop.ToolSchemasJSON(), Limits: lim.Wire(), Relay: p.offer}) != nil {
		return deadEnd()
	}
	timer := time.NewTimer(lim.StepTimeout)
	defer timer.Stop()
	for n := 0; ; n++ {
		timer.Reset(lim.StepTimeout - time.Since(tSent))
		var in episode.WireStep
		select {
		case in = <-ep.Inbox:
		case <-timer.C:
			return end(episode.ReasonStepTimeout, fmt.Sprintf("no step %d within the announced step timeout %s", n, lim.StepTimeout))
		case <-epCtx.Done():
			return timedOut()
		case <-w.Dead():
			return deadEnd()
		case <-ep.Failed():
			return failEnd()
		}
		st := in.Step
		p.steps++
		if d := in.At.Sub(tSent); d > p.slowest {
			p.slowest, p.slowestStep = d, n
		}
		p.maxThink, p.maxCalls = max(p.maxThink, len(st.Think)), max(p.maxCalls, len(st.ToolCalls))
		if len(st.Think) > lim.MaxThinkBytes {
			return end(episode.ReasonThinkTooLong, fmt.Sprintf("step %d's think is %d bytes, announced max_think_bytes %d", n, len(st.Think), lim.MaxThinkBytes))
		}
		if len(st.ToolCalls) > lim.MaxToolCalls {
			return end(episode.ReasonTooManyCalls, fmt.Sprintf("step %d has %d tool calls, announced max_tool_calls %d", n, len(st.ToolCalls), lim.MaxToolCalls))
		}
		terminating := false
		ids := map[string]bool{}
		for _, c := range st.ToolCalls {
			if offered[c.Name] {
				p.calls[c.Name]++
			} else if len(p.unknown) < 8 {
				p.unknown = append(p.unknown, fmt.Sprintf("step %d calls %q, which episode_start did not offer (offered: %s)", n, episode.ClipText(c.Name, 40), strings.Join(shop.ToolNames(), ", ")))
			}
			if ids[c.ID] && len(p.unknown) < 8 {
				p.unknown = append(p.unknown, fmt.Sprintf("step %d repeats tool call id %q: results are matched to calls by id", n, episode.ClipText(c.ID, 40)))
			}
			ids[c.ID] = true
			terminating = terminating || c.Name == shop.ToolTerminate
		}
		if n == 0 {
			p.firstTerminates = terminating
		}
		if p.injectedAt >= 0 && n == p.injectedAt+1 {
			p.answeredError = true
		}
		if n == 0 && sp.barrier != nil {
			arrived = true
			sp.barrier.arrive()
			select {
			case <-sp.barrier.all:
			case <-sp.barrier.broken:
			case <-epCtx.Done():
				return timedOut()
			case <-w.Dead():
				return deadEnd()
			case <-ep.Failed():
				return failEnd()
			}
		}
		if sp.extraStepWait > 0 {
			quiet := time.NewTimer(sp.extraStepWait)
			select {
			case <-quiet.C:
			case <-ep.Inbox:
				quiet.Stop()
				return end(episode.ReasonUnexpected, fmt.Sprintf("a second step arrived before the observation of step %d (unsolicited, within %s)", n, sp.extraStepWait))
			case <-ep.Failed():
				quiet.Stop()
				return failEnd()
			case <-w.Dead():
				quiet.Stop()
				return deadEnd()
			}
		}
		inject := sp.injectErrors && p.injectedAt < 0 && len(st.ToolCalls) > 0 && !terminating
		results := make([]episode.ToolResult, len(st.ToolCalls))
		for i, c := range st.ToolCalls {
			if inject {
				results[i] = episode.ToolResult{ToolCallID: c.ID, Error: &episode.ToolError{Code: string(shop.CodeInternal),
					Message: episode.ClipText(c.Name, 40) + ": internal error; the call was not executed (arena miner check withholds this step's results to see the agent go on after an error)"}}
				continue
			}
			res := session.Execute(epCtx, c.Name, c.Parameters)
			results[i] = episode.ToolResult{ToolCallID: c.ID, Result: res.Output}
			if res.Err != nil {
				results[i] = episode.ToolResult{ToolCallID: c.ID, Error: &episode.ToolError{Code: string(res.Err.Code), Message: res.Err.Message}}
			} else if len(res.Output) == 0 {
				results[i].Result = json.RawMessage("null")
			}
		}
		if inject {
			p.injectedAt = n
		}
		p.records = append(p.records, episode.StepRecord{Think: st.Think, ToolCalls: st.ToolCalls, Response: st.Response, Results: results,
			CompletionID: st.CompletionID})
		if len(ep.Inbox) > 0 {
			return end(episode.ReasonUnexpected, fmt.Sprintf("a second step arrived before the observation of step %d", n))
		}
		reason, detail := episode.EndReason(""), ""
		if _, done := session.Terminated(); done {
			reason = episode.ReasonTerminated
		} else if n+1 >= lim.MaxSteps {
			reason, detail = episode.ReasonMaxSteps, fmt.Sprintf("%d steps without terminate", lim.MaxSteps)
		}
		// Counted before the write, as the runner does: the miner may
		// answer with an infer before the write call returns. The
		// observation that ends the episode asks for no step.
		ep.Observed.Store(int64(n + 1))
		ep.owed.Store(reason == "")
		tSent = time.Now()
		if w.Send(&episode.Observation{EpisodeID: id, Step: n, Results: results}) != nil {
			return deadEnd()
		}
		if reason == "" {
			continue
		}
		// The ending observation is followed by episode_end, not by a
		// step; the quiet window gives a step that ignores that the time
		// to arrive while the episode is still live.
		if sp.extraStepWait > 0 {
			quiet := time.NewTimer(sp.extraStepWait)
			select {
			case <-quiet.C:
			case <-ep.Inbox:
				quiet.Stop()
				return end(episode.ReasonUnexpected, fmt.Sprintf("a step arrived after the observation of step %d, which ended the episode (%s): episode_end follows it, not another step", n, reason))
			case <-ep.Failed():
				quiet.Stop()
				return failEnd()
			case <-w.Dead():
				quiet.Stop()
				return deadEnd()
			}
		}
		return end(reason, detail)
	}
}

// short formats a duration for a report line.
func short(d time.Duration) string {
	if d < time.Millisecond {
		return "<1ms"
	}
	return d.Round(time.Millisecond).String()
}
