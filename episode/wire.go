package episode

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"
)

// WireOptions configure a Wire.
type WireOptions struct {
	// Version is the negotiated protocol version.
	Version int
	// MaxFrameBytes is max_frame_bytes, which every frame but an infer
	// keeps (the socket's read limit admits infer-sized frames on a
	// version-2 connection).
	MaxFrameBytes int
	// WriteTimeout bounds each write.
	WriteTimeout time.Duration
	// ReadFailure, if set, classifies a failed read instead of the
	// runner's classification (the checker words its report for a
	// miner's author).
	ReadFailure func(error) (EndReason, string)
	// OnInfer, if set, sees every infer on a version-2 connection before
	// it is routed; ep is nil when the infer names no live episode.
	OnInfer func(inf *Infer, ep *WireEpisode)
}

// Wire is one miner connection after the handshake, the part the runner
// and the conformance checker share: one reader routes steps and infers to
// their live episodes by episode id, a violation that names no live
// episode ends the connection once (a close frame with 1008 and the
// reason, then the socket), and writes are serialised.
type Wire struct {
	ws   *websocket.Conn
	opts WireOptions
	log  zerolog.Logger

	// replies are the goroutines answering infers that reach no
	// episode's relay; the reader joins them.
	replies sync.WaitGroup

	wmu sync.Mutex // gorilla allows one writer at a time

	mu       sync.Mutex
	episodes map[string]*WireEpisode

	dead       chan struct{}
	deadOnce   sync.Once
	deadReason EndReason
	deadDetail string
	deadCause  WireCause
	readerDone chan struct{}
}

// WireCause is the frame that ended a connection or an episode, when one
// did: a frame that did not decode (Frame), or a decoded message of a
// type the reader refuses there (Type).
type WireCause struct {
	Frame *DecodeError
	Type  string
}

// WireStep is a step as the reader received it.
type WireStep struct {
	Step *Step
	At   time.Time
}

// WireInfer is an infer queued for its episode's relay worker.
type WireInfer struct {
	Req *Infer
	At  time.Time
	// Observations is the number of observations sent when it arrived.
	Observations int
}

// WireEpisode is the reader's handle on an episode in flight.
type WireEpisode struct {
	// Inbox holds the next step; a second one before the observation
	// fails the episode.
	Inbox chan WireStep
	// Infers, when not nil, queues the episode's infers for its relay
	// worker; without it an infer is answered unavailable.
	Infers chan WireInfer
	// Observed is the number of observations sent so far, stamped on each
	// infer as it arrives.
	Observed atomic.Int64
	// OnStep, if set, runs on the reader as each step arrives.
	OnStep func()

	failed   chan struct{}
	failOnce sync.Once
	reason   EndReason
	detail   string
	cause    WireCause
}

// NewWireEpisode is an episode handle; infers > 0 gives it a queue of
// that many infers for a relay worker.
func NewWireEpisode(infers int) *WireEpisode {
	ep := &WireEpisode{Inbox: make(chan WireStep, 1), failed: make(chan struct{})}
	if infers > 0 {
		ep.Infers = make(chan WireInfer, infers)
	}
	return ep
}

// Fail ends the episode once with reason.
func (e *WireEpisode) Fail(r EndReason, detail string) { e.failWith(r, detail, WireCause{}) }

func (e *WireEpisode) failWith(r EndReason, detail string, cause WireCause) {
	e.failOnce.Do(func() {
		e.reason, e.detail, e.cause = r, detail, cause
		close(e.failed)
	})
}

// Failed is closed once the episode failed.
func (e *WireEpisode) Failed() <-chan struct{} { return e.failed }

// Failure is why the episode failed; valid once Failed is closed.
func (e *WireEpisode) Failure() (EndReason, string, WireCause) { return e.reason, e.detail, e.cause }

// NewWire takes over ws after the handshake and starts its reader.
func NewWire(ws *websocket.Conn, opts WireOptions, log zerolog.Logger) *Wire {
	if opts.ReadFailure == nil {
		opts.ReadFailure = readFailure
	}
	w := &Wire{ws: ws, opts: opts, log: log, episodes: map[string]*WireEpisode{},
		dead: make(chan struct{}), readerDone: make(chan struct{})}
	go w.readLoop()
	return w
}

// Version is the negotiated protocol version.
func (w *Wire) Version() int { return w.opts.Version }

// Add makes ep the live episode id; Remove ends that.
func (w *Wire) Add(id string, ep *WireEpisode) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.episodes[id] = ep
}

// Remove forgets episode id: a late step for it is dropped.
func (w *Wire) Remove(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.episodes, id)
}

// Dead is closed once the connection ended.
func (w *Wire) Dead() <-chan struct{} { return w.dead }

// Death is why the connection ended; valid once Dead is closed.
func (w *Wire) Death() (EndReason, string, WireCause) {
	return w.deadReason, w.deadDetail, w.deadCause
}

// Close ends the connection (episodes still live end with aborted and
// detail) and waits for the reader and its replies.
func (w *Wire) Close(detail string) {
	w.Kill(ReasonAborted, detail)
	<-w.readerDone
}

// Kill ends the connection once, with the reason every live episode ends
// with.
func (w *Wire) Kill(r EndReason, detail string) { w.kill(r, detail, WireCause{}) }

func (w *Wire) kill(r EndReason, detail string, cause WireCause) {
	w.deadOnce.Do(func() {
		w.deadReason, w.deadDetail, w.deadCause = r, detail, cause
		close(w.dead)
		if r.MinerFault() {
			w.log.Warn().Str("reason", string(r)).Str("detail", ClipText(detail, 200)).Msg("miner connection ended by violation")
		}
		w.wmu.Lock()
		_ = w.ws.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		_ = w.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, string(r)))
		w.wmu.Unlock()
		w.ws.Close()
	})
}

// readFailure classifies a read error.
func readFailure(err error) (EndReason, string) {
	var ne net.Error
	switch {
	case errors.Is(err, websocket.ErrReadLimit):
		return ReasonOversized, "frame exceeds max_frame_bytes"
	case errors.As(err, &ne) && ne.Timeout():
		return ReasonStepTimeout, err.Error()
	}
	return ReasonDisconnected, err.Error()
}

func (w *Wire) readLoop() {
	defer close(w.readerDone)
	defer w.replies.Wait()
	for {
		typ, frame, err := w.ws.ReadMessage()
		at := time.Now()
		if err != nil {
			reason, detail := w.opts.ReadFailure(err)
			w.Kill(reason, detail)
			return
		}
		if typ != websocket.TextMessage {
			w.Kill(ReasonMalformed, "binary frame")
			return
		}
		msg, err := Decode(frame)
		if err != nil {
			var de *DecodeError
			errors.As(err, &de)
			// A bad frame that names a live episode ends only that
			// episode; one that cannot be attributed ends the connection.
			if ep := w.lookup(de.Episode); ep != nil {
				ep.failWith(de.Reason(), err.Error(), WireCause{Frame: de})
				continue
			}
			w.kill(de.Reason(), err.Error(), WireCause{Frame: de})
			return
		}
		if len(frame) > w.opts.MaxFrameBytes && msg.MessageType() != TypeInfer {
			w.Kill(ReasonOversized, "frame exceeds max_frame_bytes")
			return
		}
		if inf, ok := msg.(*Infer); ok {
			if w.opts.Version < Version2 {
				w.kill(ReasonUnexpected, "infer on a version-1 connection", WireCause{Type: TypeInfer})
				return
			}
			w.routeInfer(inf, at)
			continue
		}
		step, ok := msg.(*Step)
		if !ok {
			w.kill(ReasonUnexpected, "miner sent "+msg.MessageType(), WireCause{Type: msg.MessageType()})
			return
		}
		ep := w.lookup(step.EpisodeID)
		if ep == nil {
			// Most likely a late answer to an episode that already timed
			// out; dropping it keeps the miner's other episodes alive.
			w.log.Debug().Str("episode", ClipText(step.EpisodeID, 40)).Msg("step for no live episode dropped")
			continue
		}
		if ep.OnStep != nil {
			ep.OnStep()
		}
		select {
		case ep.Inbox <- WireStep{Step: step, At: at}:
		default:
			ep.Fail(ReasonUnexpected, "step sent before the previous step's observation")
		}
	}
}

// routeInfer queues an infer for its episode's relay worker, or answers
// it at once when it cannot be served.
func (w *Wire) routeInfer(inf *Infer, at time.Time) {
	ep := w.lookup(inf.EpisodeID)
	if w.opts.OnInfer != nil {
		w.opts.OnInfer(inf, ep)
	}
	refuse := func(code, msg string) {
		res := &InferResult{EpisodeID: inf.EpisodeID, RequestID: inf.RequestID, Error: &InferError{Code: code, Message: msg}}
		w.replies.Go(func() { _ = w.Send(res) })
	}
	switch {
	case ep == nil:
		refuse(InferNoEpisode, "no live episode "+ClipText(inf.EpisodeID, 40))
	case ep.Infers == nil:
		refuse(InferUnavailable, "this validator runs no inference relay")
	default:
		select {
		case ep.Infers <- WireInfer{Req: inf, At: at, Observations: int(ep.Observed.Load())}:
		default:
			refuse(InferBusy, fmt.Sprintf("more than %d infers of this episode waiting", cap(ep.Infers)))
		}
	}
}

func (w *Wire) lookup(id string) *WireEpisode {
	if id == "" {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.episodes[id]
}

// Send writes one message; a failure ends the connection.
func (w *Wire) Send(msg Message) error {
	var data []byte
	var err error
	if obs, ok := msg.(*Observation); ok {
		data = appendObservation(make([]byte, 0, 1024), obs)
	} else if data, err = Encode(msg); err != nil {
		w.Kill(ReasonInternal, err.Error()) // callers wait for the connection to be dead
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
		go w.Kill(ReasonDisconnected, "write: "+err.Error()) // kill takes wmu
		return err
	}
	return nil
}

// NewEpisodeID is a fresh random episode id.
func NewEpisodeID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read does not fail on supported platforms
	return hex.EncodeToString(b[:])
}
