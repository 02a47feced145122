package episode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/chain"
)

// Agent decides a miner's steps. Step is called once per step with the
// episode so far and must return before ctx's deadline (a share of the
// validator's step timeout). An error ends the episode on the miner's side
// with terminate(failure).
type Agent interface {
	Step(ctx context.Context, view EpisodeView) (Action, error)
}

// AgentFunc adapts a function to Agent.
type AgentFunc func(ctx context.Context, view EpisodeView) (Action, error)

// Step calls f.
func (f AgentFunc) Step(ctx context.Context, view EpisodeView) (Action, error) { return f(ctx, view) }

// EpisodeView is what an agent sees: the task and its own history.
type EpisodeView struct {
	EpisodeID string
	Query     string
	// Tools are the OpenAI function schemas the validator offered.
	Tools     json.RawMessage
	Limits    Limits
	Validator common.Address
	// History holds the previous steps with the validator's results.
	History []Turn
	// Relay is the validator's inference relay offer (protocol version
	// 2 with the relay on), nil otherwise. Infer is then set: it asks the
	// relay for a completion over the episode's connection, and a step
	// built from it names its CompletionID (Action.CompletionID).
	Relay *WireRelay
	Infer InferFunc
}

// InferFunc asks the validator's relay for one chat completion. body is
// an OpenAI chat-completions request body. A refusal or provider failure
// is an *InferError; the result then is nil.
type InferFunc func(ctx context.Context, body json.RawMessage) (*InferResult, error)

// Turn is one past step and its observation.
type Turn struct {
	Action  Action
	Results []ToolResult
}

// Action is one step an agent takes.
type Action struct {
	Think     string
	ToolCalls []ToolCall
	// Response is an optional message to the user.
	Response string
	// CompletionID names the relay completion the action was taken from
	// (protocol version 2); empty for an action of no completion.
	CompletionID string
}

// ServerOptions configure NewServer.
type ServerOptions struct {
	// Signer is the miner's key: its mirror account must be the hotkey
	// the miner is registered with.
	Signer *chain.Signer
	// Agent answers every episode.
	Agent Agent
	// Listen is the address Run serves on, such as 127.0.0.1:8091.
	Listen string
	// MaxFrameBytes bounds frames from a validator; default 4 MiB
	// (observations with many viewed products are large).
	MaxFrameBytes int
	// MaxConcurrentEpisodes bounds episodes across all validators; an
	// episode beyond it is answered at once with terminate(failure).
	// Default 16.
	MaxConcurrentEpisodes int
	// MaxClockSkew bounds hello timestamps; default 30 s.
	MaxClockSkew time.Duration
	// HandshakeTimeout bounds waiting for hello; default 10 s.
	HandshakeTimeout time.Duration
	// WriteTimeout bounds sending one frame; default 10 s.
	WriteTimeout time.Duration
	// AcceptValidator, if set, may refuse a verified validator address
	// (for example one without a validator permit).
	AcceptValidator func(common.Address) error
	// StepShare is the fraction of the validator's step timeout given to
	// the agent, leaving the rest for the network; default 0.9.
	StepShare float64
	// OnEpisodeEnd, if set, is told about every episode the agent played
	// once it is over, so an embedding miner can log or count them. It is
	// called on the episode's goroutine and must not block.
	OnEpisodeEnd func(EpisodeOutcome)
	// MaxVersion is the highest protocol version the server answers
	// with; default MaxVersion. 1 keeps the miner on version 1.
	MaxVersion int
}

// EpisodeOutcome describes one episode the miner played.
type EpisodeOutcome struct {
	// EpisodeID is the validator's id for the episode, clipped to 80
	// bytes since it is the validator's text.
	EpisodeID string
	Validator common.Address
	// Reason is the validator's episode_end reason ("other" for a reason
	// this version does not know), or ReasonDisconnected when the
	// connection ended, or the miner shut down, before episode_end came.
	Reason EndReason
	// Steps is the number of steps the miner sent.
	Steps    int
	Duration time.Duration
}

// Server is the miner side of the protocol, for miners to embed: it
// answers the handshake with the miner's key, keeps within the limits the
// validator announces (clipping think, dropping excess tool calls) and
// runs each episode's steps through the Agent.
type Server struct {
	opts    ServerOptions
	log     zerolog.Logger
	m       *serverMetrics
	nonces  *NonceCache
	upgrade websocket.Upgrader
	slots   chan struct{}

	mu    sync.Mutex
	conns map[*websocket.Conn]struct{}
	wg    sync.WaitGroup
}

// NewServer checks the options and registers the server's metrics.
func NewServer(opts ServerOptions, log zerolog.Logger, reg prometheus.Registerer) (*Server, error) {
	if opts.Signer == nil {
		return nil, errors.New("episode server: Signer is required")
	}
	if opts.Agent == nil {
		return nil, errors.New("episode server: Agent is required")
	}
	if opts.MaxFrameBytes == 0 {
		opts.MaxFrameBytes = 4 << 20
	}
	if opts.MaxConcurrentEpisodes == 0 {
		opts.MaxConcurrentEpisodes = 16
	}
	if opts.MaxClockSkew == 0 {
		opts.MaxClockSkew = DefaultMaxClockSkew
	}
	if opts.HandshakeTimeout == 0 {
		opts.HandshakeTimeout = 10 * time.Second
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = 10 * time.Second
	}
	if opts.StepShare == 0 {
		opts.StepShare = 0.9
	}
	if opts.MaxVersion == 0 {
		opts.MaxVersion = MaxVersion
	}
	if opts.MaxFrameBytes < minFrameBytes || opts.MaxConcurrentEpisodes < 1 || opts.StepShare <= 0 || opts.StepShare > 1 {
		return nil, fmt.Errorf("episode server: bad limits: max frame %d (min %d), max concurrent episodes %d, step share %g (0..1]",
			opts.MaxFrameBytes, minFrameBytes, opts.MaxConcurrentEpisodes, opts.StepShare)
	}
	m, err := newServerMetrics(reg)
	if err != nil {
		return nil, err
	}
	return &Server{
		opts:   opts,
		log:    log.With().Str("component", "episode.server").Str("miner", opts.Signer.Address.Hex()).Logger(),
		m:      m,
		nonces: NewNonceCache(opts.MaxClockSkew, 1<<16),
		upgrade: websocket.Upgrader{
			ReadBufferSize:  8 << 10,
			WriteBufferSize: 8 << 10,
			// Validators are programs, not browsers; there is no origin
			// to check, and the handshake authenticates them.
			CheckOrigin: func(*http.Request) bool { return true },
		},
		slots: make(chan struct{}, opts.MaxConcurrentEpisodes),
		conns: make(map[*websocket.Conn]struct{}),
	}, nil
}

// Address is the miner's address.
func (s *Server) Address() common.Address { return s.opts.Signer.Address }

// Handler serves the protocol at Path.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(Path, s.serveHTTP)
	return mux
}

// Run listens on Listen and serves until ctx ends.
func (s *Server) Run(ctx context.Context) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.opts.Listen)
	if err != nil {
		return fmt.Errorf("episode server: listen %s: %w", s.opts.Listen, err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx ends, then closes every connection and
// waits for their goroutines.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: s.opts.HandshakeTimeout}
	s.log.Info().Str("listen", ln.Addr().String()).Str("path", Path).Msg("miner serving")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx) // does not touch hijacked websocket connections
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("episode server: %w", err)
	}
	return nil
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	ws, err := s.upgrade.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered the client
	}
	s.mu.Lock()
	s.conns[ws] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, ws)
		s.mu.Unlock()
		ws.Close()
		s.wg.Done()
	}()
	(&minerConn{s: s, ws: ws, log: s.log.With().Str("remote", r.RemoteAddr).Logger()}).serve(r.Context())
}

// minerConn is one validator's connection on the miner side.
type minerConn struct {
	s         *Server
	ws        *websocket.Conn
	log       zerolog.Logger
	validator common.Address
	version   int
	wmu       sync.Mutex

	// pending are the infers waiting for their infer_result, by
	// request_id; nextID numbers them.
	pmu     sync.Mutex
	pending map[string]chan *InferResult
	nextID  atomic.Uint64
}

func (c *minerConn) send(msg Message) error {
	data, err := Encode(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(c.s.opts.WriteTimeout))
	return c.ws.WriteMessage(websocket.TextMessage, data)
}

func (c *minerConn) refuse(reason EndReason, err error) {
	c.s.m.handshakes.WithLabelValues(string(reason)).Inc()
	c.log.Warn().Str("reason", string(reason)).Err(err).Msg("validator handshake refused")
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(time.Second))
	_ = c.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, string(reason)))
}

func (c *minerConn) handshake() bool {
	opts := c.s.opts
	c.ws.SetReadLimit(int64(opts.MaxFrameBytes))
	_ = c.ws.SetReadDeadline(time.Now().Add(opts.HandshakeTimeout))
	_, frame, err := c.ws.ReadMessage()
	if err != nil {
		c.s.m.handshakes.WithLabelValues(string(ReasonDisconnected)).Inc()
		return false
	}
	msg, err := Decode(frame)
	if err != nil {
		var de *DecodeError
		errors.As(err, &de)
		c.refuse(de.Reason(), err)
		return false
	}
	hello, ok := msg.(*Hello)
	if !ok {
		c.refuse(ReasonUnexpected, fmt.Errorf("want hello, got %s", msg.MessageType()))
		return false
	}
	addr, err := VerifyHello(hello, time.Now(), opts.MaxClockSkew, c.s.nonces)
	if err != nil {
		reason := ReasonBadSignature
		var he *HandshakeError
		if errors.As(err, &he) {
			reason = he.Reason
		}
		c.refuse(reason, err)
		return false
	}
	if opts.AcceptValidator != nil {
		if err := opts.AcceptValidator(addr); err != nil {
			c.refuse(ReasonIdentityMismatch, fmt.Errorf("validator %s: %w", addr, err))
			return false
		}
	}
	version := Negotiate(hello, opts.MaxVersion)
	ack, err := NewHelloAckVersion(opts.Signer.PrivateKey(), hello, time.Now(), version)
	if err != nil {
		c.refuse(ReasonInternal, err)
		return false
	}
	if err := c.send(ack); err != nil {
		return false
	}
	_ = c.ws.SetReadDeadline(time.Time{})
	c.validator = addr
	c.version = version
	c.log = c.log.With().Str("validator", addr.Hex()).Logger()
	c.s.m.handshakes.WithLabelValues("ok").Inc()
	return true
}

// minerEpisode is the reader's handle on an episode the agent is playing.
type minerEpisode struct {
	obs    chan *Observation
	cancel context.CancelCauseFunc
	// release frees the episode's concurrency slot, once: when the
	// validator's episode_end is read, or when the agent's goroutine ends.
	release func()
}

func (c *minerConn) serve(ctx context.Context) {
	if !c.handshake() {
		return
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	var mu sync.Mutex
	episodes := map[string]*minerEpisode{}
	remove := func(id string) {
		mu.Lock()
		delete(episodes, id)
		mu.Unlock()
	}
	for {
		_, frame, err := c.ws.ReadMessage()
		if err != nil {
			cancel()
			return
		}
		msg, err := Decode(frame)
		if err != nil {
			c.log.Warn().Err(err).Msg("bad frame from validator; closing the connection")
			cancel()
			return
		}
		switch m := msg.(type) {
		case *EpisodeStart:
			mu.Lock()
			_, dup := episodes[m.EpisodeID]
			mu.Unlock()
			if dup {
				c.log.Warn().Str("episode", ClipText(m.EpisodeID, 40)).Msg("duplicate episode_start ignored")
				continue
			}
			select {
			case c.s.slots <- struct{}{}:
			default:
				c.s.m.episodes.WithLabelValues("busy").Inc()
				c.log.Warn().Int("max", c.s.opts.MaxConcurrentEpisodes).Msg("episode refused: miner at its concurrency limit")
				_ = c.send(terminateStep(m.EpisodeID, "miner busy: at its concurrent episode limit"))
				continue
			}
			epCtx, epCancel := context.WithCancelCause(ctx)
			ep := &minerEpisode{obs: make(chan *Observation, 1), cancel: epCancel, release: sync.OnceFunc(func() { <-c.s.slots })}
			mu.Lock()
			episodes[m.EpisodeID] = ep
			mu.Unlock()
			wg.Go(func() {
				defer ep.release()
				defer remove(m.EpisodeID)
				defer epCancel(nil)
				start := time.Now()
				steps := c.play(epCtx, m, ep)
				if c.s.opts.OnEpisodeEnd != nil {
					out := EpisodeOutcome{EpisodeID: ClipText(m.EpisodeID, 80), Validator: c.validator, Reason: ReasonDisconnected,
						Steps: steps, Duration: time.Since(start)}
					var ended episodeEnded
					if errors.As(context.Cause(epCtx), &ended) {
						out.Reason = EndReason(metricReason(ended.reason))
					}
					c.s.opts.OnEpisodeEnd(out)
				}
			})
		case *Observation:
			mu.Lock()
			ep := episodes[m.EpisodeID]
			mu.Unlock()
			if ep == nil {
				continue
			}
			select {
			case ep.obs <- m:
			default:
				c.log.Warn().Str("episode", ClipText(m.EpisodeID, 40)).Msg("unexpected observation dropped")
			}
		case *InferResult:
			c.pmu.Lock()
			ch := c.pending[m.RequestID]
			delete(c.pending, m.RequestID)
			c.pmu.Unlock()
			if ch != nil {
				ch <- m // buffered, one result per request
			}
		case *EpisodeEnd:
			mu.Lock()
			ep := episodes[m.EpisodeID]
			mu.Unlock()
			if ep != nil {
				ep.cancel(episodeEnded{reason: m.Reason})
				// The validator counts the episode as over once it sent
				// episode_end and may start the next one right behind it:
				// the slot is free now, not when the agent's goroutine has
				// wound down, or that next episode would be refused.
				ep.release()
			}
			c.s.m.episodes.WithLabelValues(metricReason(m.Reason)).Inc()
			if m.Reason.MinerFault() {
				c.log.Warn().Str("episode", ClipText(m.EpisodeID, 40)).Str("reason", ClipText(string(m.Reason), 40)).Str("detail", ClipText(m.Detail, 200)).Msg("validator ended the episode for a violation")
			}
		default:
			c.log.Warn().Str("type", msg.MessageType()).Msg("unexpected message from validator; closing the connection")
			cancel()
			return
		}
	}
}

// episodeEnded is the cause an episode's context is cancelled with when
// the validator's episode_end arrives; it carries the reason to
// OnEpisodeEnd without another lock.
type episodeEnded struct{ reason EndReason }

func (e episodeEnded) Error() string { return "episode ended by the validator: " + string(e.reason) }

// metricReason keeps the label set closed: the reason is the validator's
// text.
func metricReason(r EndReason) string {
	switch r {
	case ReasonTerminated, ReasonMaxSteps, ReasonMalformed, ReasonUnknownType, ReasonUnexpected, ReasonOversized,
		ReasonTooManyCalls, ReasonThinkTooLong, ReasonEpisodeTooLarge, ReasonStepTimeout, ReasonEpisodeTimeout, ReasonAborted, ReasonInternal:
		return string(r)
	}
	return "other"
}

func terminateStep(episodeID, why string) *Step {
	return &Step{
		EpisodeID: episodeID,
		Think:     why,
		ToolCalls: []ToolCall{{ID: "terminate", Name: "terminate", Parameters: json.RawMessage(`{"status":"failure"}`)}},
	}
}

// play runs one episode: ask the agent, send the step, wait for the
// observation, until terminate, the step budget or episode_end. It
// returns the number of steps sent.
func (c *minerConn) play(ctx context.Context, start *EpisodeStart, ep *minerEpisode) (steps int) {
	lim := start.Limits.Limits()
	view := EpisodeView{EpisodeID: start.EpisodeID, Query: start.Query, Tools: start.Tools, Limits: lim, Validator: c.validator}
	if c.version >= Version2 && start.Relay != nil {
		view.Relay = start.Relay
		view.Infer = func(ctx context.Context, body json.RawMessage) (*InferResult, error) {
			// Leave room for the envelope: a frame above the validator's
			// bound would end the connection, not just this request.
			if limit := start.Relay.MaxInferBytes; limit > 0 && len(body)+len(start.EpisodeID)+256 > limit {
				return nil, &InferError{Code: InferTooLarge, Message: fmt.Sprintf("infer body is %d bytes, max_infer_bytes %d", len(body), limit)}
			}
			return c.infer(ctx, start.EpisodeID, body)
		}
	}
	stepBudget := time.Duration(float64(lim.StepTimeout) * c.s.opts.StepShare)
	for n := 0; n < lim.MaxSteps; n++ {
		act, err := c.ask(ctx, stepBudget, view)
		if ctx.Err() != nil {
			return steps
		}
		if err != nil {
			c.log.Warn().Str("episode", start.EpisodeID).Err(err).Msg("agent failed; terminating the episode")
			st := terminateStep(start.EpisodeID, "agent error")
			act = Action{Think: st.Think, ToolCalls: st.ToolCalls}
		}
		act = c.clamp(act, lim, start.EpisodeID)
		st := &Step{EpisodeID: start.EpisodeID, Think: act.Think, ToolCalls: act.ToolCalls}
		if c.version >= Version2 {
			st.CompletionID = act.CompletionID
		}
		if st.ToolCalls == nil {
			st.ToolCalls = []ToolCall{}
		}
		if act.Response != "" {
			st.Response = &act.Response
		}
		if err := c.send(st); err != nil {
			return steps
		}
		steps++
		c.s.m.steps.Inc()
		select {
		case obs := <-ep.obs:
			view.History = append(view.History, Turn{Action: act, Results: obs.Results})
		case <-ctx.Done():
			return steps
		}
		if terminates(act) {
			break
		}
	}
	// Terminated or out of steps: the validator's episode_end follows.
	<-ctx.Done()
	return steps
}

// infer sends one infer and waits for its infer_result.
func (c *minerConn) infer(ctx context.Context, episodeID string, body json.RawMessage) (*InferResult, error) {
	id := fmt.Sprintf("r%d", c.nextID.Add(1))
	ch := make(chan *InferResult, 1)
	c.pmu.Lock()
	if c.pending == nil {
		c.pending = map[string]chan *InferResult{}
	}
	c.pending[id] = ch
	c.pmu.Unlock()
	defer func() {
		c.pmu.Lock()
		delete(c.pending, id)
		c.pmu.Unlock()
	}()
	if err := c.send(&Infer{EpisodeID: episodeID, RequestID: id, Body: body}); err != nil {
		return nil, fmt.Errorf("send infer: %w", err)
	}
	select {
	case res := <-ch:
		if res.Error != nil {
			return nil, res.Error
		}
		return res, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("infer %s: %w", id, context.Cause(ctx))
	}
}

func terminates(a Action) bool {
	for _, c := range a.ToolCalls {
		if c.Name == "terminate" {
			return true
		}
	}
	return false
}

// ask calls the agent with a deadline, turning a panic into an error so
// one broken episode cannot take the miner down.
func (c *minerConn) ask(ctx context.Context, budget time.Duration, view EpisodeView) (act Action, err error) {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("agent panicked: %v", r)
		}
	}()
	return c.s.opts.Agent.Step(ctx, view)
}

// clamp keeps an action within the announced limits, so that an embedding
// miner's agent cannot get its episode zeroed by a long think or too many
// calls.
func (c *minerConn) clamp(a Action, lim Limits, episodeID string) Action {
	if len(a.Think) > lim.MaxThinkBytes {
		c.log.Warn().Str("episode", episodeID).Int("bytes", len(a.Think)).Int("limit", lim.MaxThinkBytes).Msg("think clipped to the limit")
		a.Think = clipBytes(a.Think, lim.MaxThinkBytes)
	}
	if len(a.ToolCalls) > lim.MaxToolCalls {
		c.log.Warn().Str("episode", episodeID).Int("calls", len(a.ToolCalls)).Int("limit", lim.MaxToolCalls).Msg("tool calls beyond the limit dropped")
		a.ToolCalls = a.ToolCalls[:lim.MaxToolCalls]
	}
	for i := range a.ToolCalls {
		if a.ToolCalls[i].ID == "" {
			a.ToolCalls[i].ID = fmt.Sprintf("call_%d", i)
		}
		if len(a.ToolCalls[i].Parameters) == 0 || strings.TrimSpace(string(a.ToolCalls[i].Parameters)) == "null" {
			a.ToolCalls[i].Parameters = json.RawMessage(`{}`)
		}
	}
	return a
}

// clipBytes cuts s to at most n bytes at a UTF-8 boundary.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
