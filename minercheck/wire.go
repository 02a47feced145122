package minercheck

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"arena/episode"
	"arena/relay"
	"arena/shop"
)

// wire is one connection to the miner after the handshake, as the
// validator's runner keeps it: a reader routes steps (and, on a version-2
// connection, infers) to their episodes, and a violation that names no
// live episode ends the connection.
type wire struct {
	ws   *websocket.Conn
	opts Options
	stop func() bool
	// version is the negotiated protocol version; maxFrame is
	// max_frame_bytes, which every frame but an infer keeps.
	version  int
	maxFrame int
	miner    string

	// replies are the goroutines answering infers that reach no relay
	// worker; close joins them.
	replies sync.WaitGroup
	// stray are infers that named no live episode of the connection.
	stray []string

	wmu sync.Mutex // gorilla allows one writer at a time

	mu       sync.Mutex
	episodes map[string]*live

	dead       chan struct{}
	deadOnce   sync.Once
	deadReason episode.EndReason
	deadDetail string
	deadCharge Clause
	readerDone chan struct{}
}

type inbound struct {
	step *episode.Step
	at   time.Time
}

// live is the reader's handle on an episode in flight.
type live struct {
	inbox    chan inbound
	failed   chan struct{}
	failOnce sync.Once
	reason   episode.EndReason
	detail   string
	charge   Clause

	// Version 2 with the relay offered: infers queue for the episode's
	// relay worker. owed is set while the episode waits for a step (from
	// sending its prompt to the step's arrival); observed counts the
	// observations sent, stamped on each infer as it arrives, as the
	// runner does.
	infers   chan inferIn
	owed     atomic.Bool
	observed atomic.Int64

	mu     sync.Mutex
	ids    map[string]bool // request_ids of the episode's infers
	misuse []string        // infer conduct the infer clause fails
}

type inferIn struct {
	req          *episode.Infer
	observations int
}

func (e *live) note(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.misuse) < 8 {
		e.misuse = append(e.misuse, fmt.Sprintf(format, args...))
	}
}

func (e *live) fail(r episode.EndReason, detail string, cl Clause) {
	e.failOnce.Do(func() {
		e.reason, e.detail, e.charge = r, detail, cl
		close(e.failed)
	})
}

// charge is the clause a malformed frame breaks when that is not
// messages: a bad tool call (a parameters string, a call without a name)
// is the tool_calls clause's, a bad infer the infer clause's.
func charge(de *episode.DecodeError) Clause {
	switch {
	case strings.HasPrefix(de.Field, "tool_calls["):
		return ToolCalls
	case de.Type == episode.TypeInfer:
		return Infer
	}
	return ""
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
	w := &wire{ws: ws, opts: r.opts, version: min(max(a.ack.Version, episode.Version), offer), maxFrame: lim.MaxFrameBytes,
		miner: r.minerAddr.Hex(), episodes: map[string]*live{}, dead: make(chan struct{}), readerDone: make(chan struct{})}
	if w.version >= episode.Version2 {
		// Infer frames carry whole prompts; readLoop holds every other
		// frame to max_frame_bytes itself.
		ws.SetReadLimit(int64(max(lim.MaxFrameBytes, r.c.maxInferBytes)))
	}
	w.stop = context.AfterFunc(ctx, func() { w.kill(episode.ReasonAborted, "check cancelled") })
	go w.readLoop()
	return w, nil
}

// close ends the connection once its episodes are over.
func (w *wire) close() {
	w.stop()
	w.kill(episode.ReasonAborted, "connection closed by the checker")
	<-w.readerDone
	w.replies.Wait()
}

// kill ends the connection once, with the reason every live episode on
// it ends with: a close frame as the validator sends one, then the
// socket.
func (w *wire) kill(r episode.EndReason, detail string) { w.killCharged(r, detail, "") }

// killCharged is kill for a violation that breaks another clause than
// its reason usually does (see owner).
func (w *wire) killCharged(r episode.EndReason, detail string, cl Clause) {
	w.deadOnce.Do(func() {
		w.deadReason, w.deadDetail, w.deadCharge = r, detail, cl
		close(w.dead)
		code, text := websocket.ClosePolicyViolation, string(r)
		if r == episode.ReasonAborted {
			code, text = websocket.CloseNormalClosure, ""
		}
		w.wmu.Lock()
		_ = w.ws.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		_ = w.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(code, text))
		w.wmu.Unlock()
		w.ws.Close()
	})
}

func (w *wire) readLoop() {
	defer close(w.readerDone)
	for {
		typ, frame, err := w.ws.ReadMessage()
		at := time.Now()
		if err != nil {
			var ce *websocket.CloseError
			switch {
			case errors.Is(err, websocket.ErrReadLimit):
				w.kill(episode.ReasonOversized, "a frame exceeds the announced max_frame_bytes")
			case errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure:
				w.kill(episode.ReasonDisconnected, fmt.Sprintf("the miner closed the connection (close %d %q)", ce.Code, episode.ClipText(ce.Text, 80)))
			default:
				w.kill(episode.ReasonDisconnected, "the connection ended: "+episode.ClipText(err.Error(), 120))
			}
			return
		}
		if typ != websocket.TextMessage {
			w.kill(episode.ReasonMalformed, "a binary frame")
			return
		}
		msg, err := episode.Decode(frame)
		if err != nil {
			var de *episode.DecodeError
			errors.As(err, &de)
			if ep := w.lookup(de.Episode); ep != nil {
				ep.fail(de.Reason(), err.Error(), charge(de))
				continue
			}
			w.killCharged(de.Reason(), err.Error(), charge(de))
			return
		}
		if len(frame) > w.maxFrame && msg.MessageType() != episode.TypeInfer {
			w.kill(episode.ReasonOversized, "a frame exceeds the announced max_frame_bytes")
			return
		}
		if inf, ok := msg.(*episode.Infer); ok {
			if w.version < episode.Version2 {
				w.killCharged(episode.ReasonUnexpected, "the miner sent infer on a version-1 connection", Infer)
				return
			}
			w.routeInfer(inf)
			continue
		}
		step, ok := msg.(*episode.Step)
		if !ok {
			// A message a miner never sends is the messages clause's; an
			// untimely step is one_step's.
			w.killCharged(episode.ReasonUnexpected, "the miner sent "+msg.MessageType(), Messages)
			return
		}
		ep := w.lookup(step.EpisodeID)
		if ep == nil {
			// A late answer to an episode that already ended: the
			// protocol ignores it, and so does the validator.
			continue
		}
		ep.owed.Store(false)
		select {
		case ep.inbox <- inbound{step: step, at: at}:
		default:
			ep.fail(episode.ReasonUnexpected, "a second step arrived before the previous step's observation", "")
		}
	}
}

// routeInfer queues an infer for its episode's relay worker, noting what
// the infer clause fails, or answers it at once as the runner does when
// it cannot be served.
func (w *wire) routeInfer(inf *episode.Infer) {
	refuse := func(code, msg string) {
		res := &episode.InferResult{EpisodeID: inf.EpisodeID, RequestID: inf.RequestID, Error: &episode.InferError{Code: code, Message: msg}}
		w.replies.Go(func() { _ = w.send(res) })
	}
	ep := w.lookup(inf.EpisodeID)
	if ep == nil || ep.infers == nil {
		w.mu.Lock()
		if len(w.stray) < 8 {
			w.stray = append(w.stray, fmt.Sprintf("an infer (request_id %q) names episode %q, which is not live on this connection: a validator answers %s",
				episode.ClipText(inf.RequestID, 40), episode.ClipText(inf.EpisodeID, 40), episode.InferNoEpisode))
		}
		w.mu.Unlock()
		refuse(episode.InferNoEpisode, "no live episode "+episode.ClipText(inf.EpisodeID, 40))
		return
	}
	if !ep.owed.Load() {
		ep.note("infer %q arrived after observation %d while the episode owed no step (between a step and its observation, or after the last): its completion can back no step",
			episode.ClipText(inf.RequestID, 40), ep.observed.Load())
	}
	ep.mu.Lock()
	dup := ep.ids[inf.RequestID]
	ep.ids[inf.RequestID] = true
	ep.mu.Unlock()
	if dup {
		ep.note("request_id %q was used before in this episode: infer_results are matched to infers by it", episode.ClipText(inf.RequestID, 40))
	}
	select {
	case ep.infers <- inferIn{req: inf, observations: int(ep.observed.Load())}:
	default:
		refuse(episode.InferBusy, fmt.Sprintf("more than %d infers of this episode waiting", cap(ep.infers)))
	}
}

func (w *wire) lookup(id string) *live {
	if id == "" {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.episodes[id]
}

// send writes one message; a failed write ends the connection.
func (w *wire) send(msg episode.Message) error {
	data, err := episode.Encode(msg)
	if err != nil {
		return err
	}
	w.wmu.Lock()
	defer w.wmu.Unlock()
	select {
	case <-w.dead:
		return errors.New("connection closed")
	default:
	}
	_ = w.ws.SetWriteDeadline(time.Now().Add(w.opts.WriteTimeout))
	if err := w.ws.WriteMessage(websocket.TextMessage, data); err != nil {
		go w.kill(episode.ReasonDisconnected, "write: "+err.Error()) // kill takes wmu
		return err
	}
	return nil
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

func newEpisodeID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read does not fail on supported platforms
	return hex.EncodeToString(b[:])
}

func wireLimits(l episode.Limits) episode.WireLimits {
	return episode.WireLimits{
		MaxFrameBytes:         l.MaxFrameBytes,
		MaxThinkBytes:         l.MaxThinkBytes,
		MaxToolCalls:          l.MaxToolCalls,
		MaxSteps:              l.MaxSteps,
		StepTimeoutMS:         l.StepTimeout.Milliseconds(),
		EpisodeTimeoutMS:      l.EpisodeTimeout.Milliseconds(),
		MaxConcurrentEpisodes: l.MaxConcurrentEpisodes,
	}
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
	id := newEpisodeID()
	ep := &live{inbox: make(chan inbound, 1), failed: make(chan struct{})}
	w.mu.Lock()
	w.episodes[id] = ep
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.episodes, id)
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
	if w.version >= episode.Version2 && sp.relay != nil {
		ep.infers = make(chan inferIn, maxInfersQueued)
		ep.ids = map[string]bool{}
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
		case <-w.dead:
		default:
			_ = w.send(&episode.EpisodeEnd{EpisodeID: id, Reason: reason, Detail: episode.ClipText(detail, 200)})
		}
		return finish(reason, detail)
	}
	deadEnd := func() *played {
		<-w.dead
		p.charge = w.deadCharge
		p.reason, p.detail = w.deadReason, w.deadDetail
		p.status, _ = session.Terminated()
		return p
	}
	// failEnd is for after ep.failed closed, which publishes its fields.
	failEnd := func() *played {
		p.charge = ep.charge
		return end(ep.reason, ep.detail)
	}
	timedOut := func() *played {
		if ctx.Err() != nil {
			return end(episode.ReasonAborted, ctx.Err().Error())
		}
		return end(episode.ReasonEpisodeTimeout, fmt.Sprintf("the episode exceeded the announced episode timeout %s", lim.EpisodeTimeout))
	}

	tSent := time.Now()
	ep.owed.Store(true)
	if w.send(&episode.EpisodeStart{EpisodeID: id, Query: sp.query, Tools: shop.ToolSchemasJSON(), Limits: wireLimits(lim), Relay: p.offer}) != nil {
		return deadEnd()
	}
	timer := time.NewTimer(lim.StepTimeout)
	defer timer.Stop()
	for n := 0; ; n++ {
		timer.Reset(lim.StepTimeout - time.Since(tSent))
		var in inbound
		select {
		case in = <-ep.inbox:
		case <-timer.C:
			return end(episode.ReasonStepTimeout, fmt.Sprintf("no step %d within the announced step timeout %s", n, lim.StepTimeout))
		case <-epCtx.Done():
			return timedOut()
		case <-w.dead:
			return deadEnd()
		case <-ep.failed:
			return failEnd()
		}
		st := in.step
		p.steps++
		if d := in.at.Sub(tSent); d > p.slowest {
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
			case <-w.dead:
				return deadEnd()
			case <-ep.failed:
				return failEnd()
			}
		}
		if sp.extraStepWait > 0 {
			quiet := time.NewTimer(sp.extraStepWait)
			select {
			case <-quiet.C:
			case <-ep.inbox:
				quiet.Stop()
				return end(episode.ReasonUnexpected, fmt.Sprintf("a second step arrived before the observation of step %d (unsolicited, within %s)", n, sp.extraStepWait))
			case <-ep.failed:
				quiet.Stop()
				return failEnd()
			case <-w.dead:
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
		if len(ep.inbox) > 0 {
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
		ep.observed.Store(int64(n + 1))
		ep.owed.Store(reason == "")
		tSent = time.Now()
		if w.send(&episode.Observation{EpisodeID: id, Step: n, Results: results}) != nil {
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
			case <-ep.inbox:
				quiet.Stop()
				return end(episode.ReasonUnexpected, fmt.Sprintf("a step arrived after the observation of step %d, which ended the episode (%s): episode_end follows it, not another step", n, reason))
			case <-ep.failed:
				quiet.Stop()
				return failEnd()
			case <-w.dead:
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
