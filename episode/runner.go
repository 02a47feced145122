package episode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/shop"
)

// RunnerOptions configure NewRunner.
type RunnerOptions struct {
	// Signer is the validator's key; its address is proven in hello.
	Signer *chain.Signer
	// Tools executes the agents' tool calls (one Session per episode).
	Tools *shop.Tools
	// Limits bound each miner; zero fields take defaults.
	Limits Limits
	// DialTimeout bounds connecting (TCP and websocket upgrade); default 5 s.
	DialTimeout time.Duration
	// HandshakeTimeout bounds waiting for hello_ack; default 5 s.
	HandshakeTimeout time.Duration
	// WriteTimeout bounds sending one frame to a miner; default 5 s. A
	// miner that stops reading is disconnected rather than allowed to
	// block the validator.
	WriteTimeout time.Duration
	// MaxClockSkew bounds hello_ack timestamps; default 30 s.
	MaxClockSkew time.Duration
	// Relay, if set, is the inference relay: the runner then offers
	// protocol version 2 and serves infer on version-2 connections. Nil:
	// version 1 only, exactly as before version 2 existed.
	Relay Relay
	// MaxInfersQueued bounds one episode's infers waiting for the relay
	// (they are answered one at a time); beyond it an infer is answered
	// busy. Default 4.
	MaxInfersQueued int
}

// Miner is the endpoint and identity the validator expects at a uid.
type Miner struct {
	UID uint16
	// Hotkey is the uid's hotkey in the metagraph; the miner's address
	// must mirror to it.
	Hotkey chain.AccountID
	// Endpoint is the axon's ip:port.
	Endpoint string
	// AnyIdentity accepts whichever key signs hello_ack (its signature is
	// still verified; Conn.Address reports it). Only for practice runs
	// without a chain, where there is no hotkey to hold the miner to.
	AnyIdentity bool
}

// MinerFromNeuron takes a metagraph neuron's uid, hotkey and axon.
func MinerFromNeuron(n chain.Neuron) Miner {
	return Miner{UID: n.UID, Hotkey: n.Hotkey, Endpoint: n.Axon.HostPort()}
}

// Problem is what an episode asks: the episode package sees only the
// query, never the ground truth.
type Problem struct {
	ID    string
	Query string
}

// Runner runs episodes against miners. It is safe for concurrent use:
// one Runner serves all miners, each over its own connection.
type Runner struct {
	opts      RunnerOptions
	limits    Limits
	toolsJSON json.RawMessage
	log       zerolog.Logger
	m         *runnerMetrics
}

// NewRunner checks the options and registers the runner's metrics.
func NewRunner(opts RunnerOptions, log zerolog.Logger, reg prometheus.Registerer) (*Runner, error) {
	if opts.Signer == nil {
		return nil, errors.New("episode runner: Signer is required")
	}
	if opts.Tools == nil {
		return nil, errors.New("episode runner: Tools is required")
	}
	limits := opts.Limits.WithDefaults()
	if err := limits.Validate(); err != nil {
		return nil, fmt.Errorf("episode runner: %w", err)
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = 5 * time.Second
	}
	if opts.HandshakeTimeout == 0 {
		opts.HandshakeTimeout = 5 * time.Second
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = 5 * time.Second
	}
	if opts.MaxClockSkew == 0 {
		opts.MaxClockSkew = DefaultMaxClockSkew
	}
	if opts.MaxInfersQueued <= 0 {
		opts.MaxInfersQueued = 4
	}
	m, err := newRunnerMetrics(reg)
	if err != nil {
		return nil, err
	}
	return &Runner{
		opts:      opts,
		limits:    limits,
		toolsJSON: shop.ToolSchemasJSON(),
		log:       log.With().Str("component", "episode.runner").Logger(),
		m:         m,
	}, nil
}

// Limits are the effective limits.
func (r *Runner) Limits() Limits { return r.limits }

// Run connects to the miner once and runs one episode per problem over
// that connection, at most Limits.MaxConcurrentEpisodes at a time. It
// always returns one trajectory per problem, in order: when the miner
// cannot be reached or fails the handshake, each trajectory carries that
// reason and no steps. A dead miner costs at most the dial and handshake
// timeouts, or the step timeout of the episodes in flight.
func (r *Runner) Run(ctx context.Context, m Miner, problems []Problem) []Trajectory {
	return r.RunOn(ctx, r.opts.Tools, m, problems)
}

// RunOn is Run with the episodes' tool calls executed by tools instead of
// RunnerOptions.Tools: a validator whose shop restocks runs each race on
// the stock of its window.
func (r *Runner) RunOn(ctx context.Context, tools *shop.Tools, m Miner, problems []Problem) []Trajectory {
	out := make([]Trajectory, len(problems))
	conn, err := r.Connect(ctx, m)
	if err != nil {
		reason, detail := ReasonInternal, err.Error()
		var he *HandshakeError
		if errors.As(err, &he) {
			reason = he.Reason
		}
		if reason.MinerFault() {
			r.log.Warn().Uint16("uid", m.UID).Str("endpoint", m.Endpoint).Str("reason", string(reason)).Str("detail", ClipText(detail, 200)).Msg("miner connection failed; its episodes score zero")
		}
		now := time.Now()
		for i, p := range problems {
			out[i] = r.newTrajectory(m, p)
			out[i].EndReason, out[i].EndDetail = reason, detail
			out[i].Timings = Timings{Start: now, End: now}
			r.m.episodes.WithLabelValues(string(reason)).Inc()
		}
		return out
	}
	defer conn.Close()
	var wg sync.WaitGroup
	for i, p := range problems {
		wg.Go(func() { out[i] = conn.episode(ctx, tools, p) })
	}
	wg.Wait()
	return out
}

func (r *Runner) newTrajectory(m Miner, p Problem) Trajectory {
	return Trajectory{
		ProblemID:        p.ID,
		Query:            p.Query,
		MinerUID:         m.UID,
		ValidatorAddress: r.opts.Signer.Address.Hex(),
	}
}

// Conn is an authenticated connection to one miner. Episodes on it run
// concurrently; a connection-level failure ends all of them.
type Conn struct {
	r     *Runner
	miner Miner
	addr  common.Address
	w     *Wire
	log   zerolog.Logger
	slots chan struct{}
}

// Connect dials the miner's axon and runs the handshake. The error is a
// *HandshakeError naming the reason (dial_failed, handshake_timeout,
// bad_signature, replay, identity_mismatch, ...).
func (r *Runner) Connect(ctx context.Context, m Miner) (*Conn, error) {
	fail := func(reason EndReason, format string, args ...any) (*Conn, error) {
		r.m.handshakes.WithLabelValues(string(reason)).Inc()
		return nil, handshakeErr(reason, format, args...)
	}
	if m.Endpoint == "" {
		return fail(ReasonDialFailed, "uid %d serves no axon", m.UID)
	}
	dialCtx, cancel := context.WithTimeout(ctx, r.opts.DialTimeout)
	defer cancel()
	dialer := websocket.Dialer{HandshakeTimeout: r.opts.DialTimeout, ReadBufferSize: 8 << 10, WriteBufferSize: 8 << 10}
	ws, resp, err := dialer.DialContext(dialCtx, "ws://"+m.Endpoint+Path, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if ctx.Err() != nil {
			return fail(ReasonAborted, "dial %s: %v", m.Endpoint, ctx.Err())
		}
		return fail(ReasonDialFailed, "dial %s: %v", m.Endpoint, err)
	}
	ws.SetReadLimit(int64(r.limits.MaxFrameBytes))
	// Closing the socket is the only way to interrupt a blocked read, so
	// a cancelled ctx closes it during the handshake.
	stop := context.AfterFunc(ctx, func() { ws.Close() })
	addr, version, herr := r.handshake(ws, m)
	if !stop() || ctx.Err() != nil {
		ws.Close()
		return fail(ReasonAborted, "handshake with %s: %v", m.Endpoint, context.Canceled)
	}
	if herr != nil {
		ws.Close()
		r.m.handshakes.WithLabelValues(string(herr.Reason)).Inc()
		return nil, herr
	}
	_ = ws.SetReadDeadline(time.Time{})
	r.m.handshakes.WithLabelValues("ok").Inc()
	if version >= Version2 {
		// Infer frames carry whole prompts; readLoop holds every other
		// frame to MaxFrameBytes itself.
		ws.SetReadLimit(int64(max(r.limits.MaxFrameBytes, r.limits.MaxInferBytes)))
	}
	log := r.log.With().Uint16("uid", m.UID).Str("miner", addr.Hex()).Logger()
	w := NewWire(ws, WireOptions{Version: version, MaxFrameBytes: r.limits.MaxFrameBytes, WriteTimeout: r.opts.WriteTimeout}, log)
	return &Conn{r: r, miner: m, addr: addr, w: w, log: log, slots: make(chan struct{}, r.limits.MaxConcurrentEpisodes)}, nil
}

func (r *Runner) handshake(ws *websocket.Conn, m Miner) (common.Address, int, *HandshakeError) {
	addr, ack, herr := r.handshakeAck(ws, m)
	if herr != nil {
		return addr, 0, herr
	}
	return addr, ack.Version, nil
}

// maxVersion is the highest version the runner offers.
func (r *Runner) maxVersion() int {
	if r.opts.Relay != nil {
		return MaxVersion
	}
	return Version
}

func (r *Runner) handshakeAck(ws *websocket.Conn, m Miner) (common.Address, *HelloAck, *HandshakeError) {
	key := r.opts.Signer.PrivateKey()
	hello, nonce, err := NewHelloUpTo(key, time.Now(), r.maxVersion())
	if err != nil {
		return common.Address{}, nil, handshakeErr(ReasonInternal, "%v", err)
	}
	data, err := Encode(hello)
	if err != nil {
		return common.Address{}, nil, handshakeErr(ReasonInternal, "%v", err)
	}
	_ = ws.SetWriteDeadline(time.Now().Add(r.opts.WriteTimeout))
	if err := ws.WriteMessage(websocket.TextMessage, data); err != nil {
		return common.Address{}, nil, handshakeErr(ReasonDisconnected, "send hello: %v", err)
	}
	_ = ws.SetReadDeadline(time.Now().Add(r.opts.HandshakeTimeout))
	typ, frame, err := ws.ReadMessage()
	if err != nil {
		reason, _ := readFailure(err)
		if reason == ReasonStepTimeout {
			reason = ReasonHandshakeTimeout
		}
		return common.Address{}, nil, handshakeErr(reason, "read hello_ack: %v", err)
	}
	if typ != websocket.TextMessage {
		return common.Address{}, nil, handshakeErr(ReasonMalformed, "hello_ack: binary frame")
	}
	msg, err := Decode(frame)
	if err != nil {
		var de *DecodeError
		errors.As(err, &de)
		return common.Address{}, nil, handshakeErr(de.Reason(), "hello_ack: %v", err)
	}
	ack, ok := msg.(*HelloAck)
	if !ok {
		return common.Address{}, nil, handshakeErr(ReasonUnexpected, "want hello_ack, got %s", msg.MessageType())
	}
	addr, err := VerifyHelloAckUpTo(ack, r.opts.Signer.Address, nonce, time.Now(), r.opts.MaxClockSkew, r.maxVersion())
	if err != nil {
		var he *HandshakeError
		if errors.As(err, &he) {
			return common.Address{}, nil, he
		}
		return common.Address{}, nil, handshakeErr(ReasonBadSignature, "%v", err)
	}
	if got := chain.Mirror(addr); got != m.Hotkey && !m.AnyIdentity {
		return addr, nil, handshakeErr(ReasonIdentityMismatch, "miner %s mirrors to %s, but uid %d's hotkey is %s", addr, got, m.UID, m.Hotkey)
	}
	return addr, ack, nil
}

// Address is the miner's verified address.
func (c *Conn) Address() common.Address { return c.addr }

// Version is the negotiated protocol version.
func (c *Conn) Version() int { return c.w.Version() }

// Close ends the connection; episodes still running end as aborted.
func (c *Conn) Close() error {
	c.w.Close("connection closed by the validator")
	return nil
}

// Episode runs one episode on the connection and returns its trajectory.
// It waits for a free slot first (Limits.MaxConcurrentEpisodes); the wait
// is not part of the episode's time. Cancelling ctx ends it as aborted.
func (c *Conn) Episode(ctx context.Context, p Problem) Trajectory {
	return c.episode(ctx, c.r.opts.Tools, p)
}

func (c *Conn) episode(ctx context.Context, tools *shop.Tools, p Problem) Trajectory {
	r := c.r
	lim := r.limits
	tr := r.newTrajectory(c.miner, p)
	tr.MinerAddress = c.addr.Hex()
	tr.Timings.Start = time.Now()
	var session *shop.Session
	finish := func(reason EndReason, detail string) Trajectory {
		tr.EndReason, tr.EndDetail = reason, detail
		if session != nil {
			tr.Recommended, _ = session.Recommendation()
			tr.TerminateStatus, _ = session.Terminated()
		}
		tr.Timings.End = time.Now()
		r.m.episodes.WithLabelValues(string(reason)).Inc()
		return tr
	}
	deadEnd := func() Trajectory { return deadEndOr(c, finish) }

	select {
	case c.slots <- struct{}{}:
	case <-c.w.Dead():
		return deadEnd()
	case <-ctx.Done():
		return finish(ReasonAborted, ctx.Err().Error())
	}
	defer func() { <-c.slots }()

	tr.EpisodeID = NewEpisodeID()
	tr.Timings.Start = time.Now()
	relayed := c.w.Version() >= Version2 && r.opts.Relay != nil
	ep := NewWireEpisode(0)
	if relayed {
		ep = NewWireEpisode(r.opts.MaxInfersQueued)
	}
	if v := c.w.Version(); v >= Version2 {
		tr.Protocol = v
	}
	var relay *episodeRelay
	if relayed {
		relay = c.startRelay(ctx, ep, r.opts.Relay.Open(c.addr.Hex(), tr.EpisodeID), tr.EpisodeID)
		offer := relay.session.Offer()
		tr.Relay = &offer
		// The relay stops before the trajectory is finished, so its
		// completions and usage are in it.
		finishInner := finish
		finish = func(reason EndReason, detail string) Trajectory {
			relay.stop(&tr)
			return finishInner(reason, detail)
		}
		deadEnd = func() Trajectory { return deadEndOr(c, finish) }
		defer relay.stop(&tr)
	}
	c.w.Add(tr.EpisodeID, ep)
	r.m.active.Inc()
	defer func() {
		c.w.Remove(tr.EpisodeID)
		r.m.active.Dec()
	}()
	log := c.log.With().Str("episode", tr.EpisodeID).Str("problem", p.ID).Logger()

	epCtx, cancel := context.WithTimeout(ctx, lim.EpisodeTimeout)
	defer cancel()
	session = tools.NewSession()

	// end sends episode_end (best effort) and finishes the trajectory.
	end := func(reason EndReason, detail string) Trajectory {
		select {
		case <-c.w.Dead():
		default:
			_ = c.w.Send(&EpisodeEnd{EpisodeID: tr.EpisodeID, Reason: reason, Detail: ClipText(detail, 200)})
		}
		if reason.MinerFault() {
			log.Info().Str("reason", string(reason)).Str("detail", ClipText(detail, 200)).Int("steps", len(tr.Steps)).Msg("episode ended by violation; it scores zero")
		} else {
			log.Debug().Str("reason", string(reason)).Int("steps", len(tr.Steps)).Msg("episode ended")
		}
		return finish(reason, detail)
	}

	// TSent is stamped before the write: the miner may answer, and the
	// reader stamp its step, before the write call returns.
	tSent := time.Now()
	if err := c.w.Send(&EpisodeStart{EpisodeID: tr.EpisodeID, Query: p.Query, Tools: r.toolsJSON, Limits: lim.Wire(), Relay: tr.Relay}); err != nil {
		return deadEndOr(c, finish)
	}
	timer := time.NewTimer(lim.StepTimeout)
	defer timer.Stop()
	stored := 0 // storedBytes of the steps so far
	for n := 0; ; n++ {
		timer.Reset(lim.StepTimeout - time.Since(tSent))
		var in WireStep
		select {
		case in = <-ep.Inbox:
		case <-timer.C:
			return end(ReasonStepTimeout, fmt.Sprintf("no step %d within %s", n, lim.StepTimeout))
		case <-epCtx.Done():
			if ctx.Err() != nil {
				return end(ReasonAborted, ctx.Err().Error())
			}
			return end(ReasonEpisodeTimeout, fmt.Sprintf("episode exceeded %s", lim.EpisodeTimeout))
		case <-c.w.Dead():
			return deadEnd()
		case <-ep.Failed():
			reason, detail, _ := ep.Failure()
			return end(reason, detail)
		}
		st := in.Step
		NormalizeStep(st)
		rec := StepRecord{Think: st.Think, ToolCalls: st.ToolCalls, Response: st.Response, TSent: tSent, TReceived: in.At, CompletionID: st.CompletionID}
		tr.Timings.Miner += in.At.Sub(tSent)
		r.m.minerStep.Observe(in.At.Sub(tSent).Seconds())
		if len(st.Think) > lim.MaxThinkBytes {
			rec.Think = clipBytes(st.Think, lim.MaxThinkBytes)
			tr.Steps = append(tr.Steps, rec)
			return end(ReasonThinkTooLong, fmt.Sprintf("think is %d bytes, limit %d", len(st.Think), lim.MaxThinkBytes))
		}
		if len(st.ToolCalls) > lim.MaxToolCalls {
			rec.ToolCalls = st.ToolCalls[:lim.MaxToolCalls]
			tr.Steps = append(tr.Steps, rec)
			return end(ReasonTooManyCalls, fmt.Sprintf("%d tool calls in one step, limit %d", len(st.ToolCalls), lim.MaxToolCalls))
		}
		if size := stored + storedBytes(&rec); size > lim.MaxEpisodeBytes {
			return end(ReasonEpisodeTooLarge, fmt.Sprintf("step %d would bring the episode to %d stored bytes, limit %d", n, size, lim.MaxEpisodeBytes))
		}
		t0 := time.Now()
		rec.Results = make([]ToolResult, len(st.ToolCalls))
		for i, call := range st.ToolCalls {
			res := session.Execute(epCtx, call.Name, call.Parameters)
			rec.Results[i] = ToolResult{ToolCallID: call.ID, Result: res.Output}
			if res.Err != nil {
				rec.Results[i] = ToolResult{ToolCallID: call.ID, Error: &ToolError{Code: string(res.Err.Code), Message: res.Err.Message}}
			}
		}
		rec.ToolTime = time.Since(t0)
		tr.Timings.Tools += rec.ToolTime
		r.m.steps.Inc()
		if stored += storedBytes(&rec); stored > lim.MaxEpisodeBytes {
			tr.Steps = append(tr.Steps, rec)
			return end(ReasonEpisodeTooLarge, fmt.Sprintf("step %d's results bring the episode to %d stored bytes, limit %d", n, stored, lim.MaxEpisodeBytes))
		}
		if epCtx.Err() != nil {
			tr.Steps = append(tr.Steps, rec)
			if ctx.Err() != nil {
				return end(ReasonAborted, ctx.Err().Error())
			}
			return end(ReasonEpisodeTimeout, fmt.Sprintf("episode exceeded %s", lim.EpisodeTimeout))
		}
		if len(ep.Inbox) > 0 {
			tr.Steps = append(tr.Steps, rec)
			return end(ReasonUnexpected, "step sent before the previous step's observation")
		}
		tSent = time.Now()
		// Counted before the write: the miner may answer with an infer
		// before the write call returns.
		ep.Observed.Store(int64(n + 1))
		if err := c.w.Send(&Observation{EpisodeID: tr.EpisodeID, Step: n, Results: rec.Results}); err != nil {
			tr.Steps = append(tr.Steps, rec)
			return deadEndOr(c, finish)
		}
		rec.TObserved = time.Now()
		r.m.overhead.Observe((rec.TObserved.Sub(in.At) - rec.ToolTime).Seconds())
		tr.Steps = append(tr.Steps, rec)
		if _, done := session.Terminated(); done {
			return end(ReasonTerminated, "")
		}
		if n+1 >= lim.MaxSteps {
			return end(ReasonMaxSteps, fmt.Sprintf("%d steps without terminate", lim.MaxSteps))
		}
	}
}

// deadEndOr finishes with the connection's reason once the failed write
// has marked it dead.
func deadEndOr(c *Conn, finish func(EndReason, string) Trajectory) Trajectory {
	<-c.w.Dead()
	reason, detail, _ := c.w.Death()
	return finish(reason, detail)
}

// episodeRelay is one episode's relay worker: it answers the episode's
// infers one at a time, in arrival order, and keeps their records.
type episodeRelay struct {
	session RelaySession
	cancel  context.CancelFunc
	done    chan struct{}
	once    sync.Once

	mu          sync.Mutex
	completions []Completion
	fault       bool
}

func (c *Conn) startRelay(ctx context.Context, ep *WireEpisode, session RelaySession, episodeID string) *episodeRelay {
	ctx, cancel := context.WithCancel(ctx)
	er := &episodeRelay{session: session, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(er.done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-c.w.Dead():
				return
			case in := <-ep.Infers:
				req := *in.Req
				normalizeInfer(&req)
				res, rec := session.Infer(ctx, &req)
				if rec != nil {
					rec.Observations = in.Observations
					if rec.TRequested.IsZero() {
						rec.TRequested = in.At
					}
					er.mu.Lock()
					er.completions = append(er.completions, *rec)
					if rec.Error == InferProviderError {
						er.fault = true
					}
					er.mu.Unlock()
				}
				res.EpisodeID, res.RequestID = episodeID, in.Req.RequestID
				if ctx.Err() != nil {
					return // the episode is over; its end message is on its way
				}
				_ = c.w.Send(res)
			}
		}
	}()
	return er
}

// stop ends the worker, waits for it and copies its records into tr,
// once.
func (er *episodeRelay) stop(tr *Trajectory) {
	er.once.Do(func() {
		er.cancel()
		<-er.done
		usage := er.session.Close()
		er.mu.Lock()
		tr.Completions = er.completions
		tr.RelayFault = er.fault
		er.mu.Unlock()
		tr.RelayUsage = &usage
	})
}
