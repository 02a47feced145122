// Package episodetest serves misbehaving miners on real loopback sockets,
// for tests of code that plays the validator's side of the episode
// protocol: the runner's own tests (package episode) and the conformance
// checker (package minercheck) are held to the same hostile behaviours.
//
// It is a separate package because it imports episode: episode's tests
// that use it live in the external test package episode_test.
package episodetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"arena/chain"
	"arena/episode"
)

// Env is what a behaviour knows about itself: the key it answers the
// handshake with, and the nonces it has accepted. One Env is shared by
// every connection to its miner, so a replayed hello is refused as the
// reference miner refuses it.
type Env struct {
	Signer *chain.Signer
	// Refuse, if set, replaces the reference miner's refusal of a bad
	// hello (a close frame 1008 with the end reason as text).
	Refuse func(ws *websocket.Conn, reason episode.EndReason)

	once   sync.Once
	nonces *episode.NonceCache
}

// RefuseAsReference refuses a hello as the reference miner does.
func RefuseAsReference(ws *websocket.Conn, reason episode.EndReason) {
	_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, string(reason)), time.Now().Add(time.Second))
}

// ReadVerifiedHello reads the validator's hello and verifies it as the
// reference miner does (version, timestamp, signature, a nonce never
// accepted before), refusing a bad one; nil if it refused or the
// connection died. Hostile miners misbehave in one way each, so they
// verify hellos properly unless that is their misbehaviour.
func (e *Env) ReadVerifiedHello(ws *websocket.Conn) *episode.Hello {
	e.once.Do(func() { e.nonces = episode.NewNonceCache(episode.DefaultMaxClockSkew, 1<<10) })
	refuse := e.Refuse
	if refuse == nil {
		refuse = RefuseAsReference
	}
	_, frame, err := ws.ReadMessage()
	if err != nil {
		return nil
	}
	msg, err := episode.Decode(frame)
	var de *episode.DecodeError
	if errors.As(err, &de) {
		refuse(ws, de.Reason())
		return nil
	}
	h, ok := msg.(*episode.Hello)
	if !ok {
		refuse(ws, episode.ReasonUnexpected)
		return nil
	}
	if _, err := episode.VerifyHello(h, time.Now(), episode.DefaultMaxClockSkew, e.nonces); err != nil {
		reason := episode.ReasonBadSignature
		var he *episode.HandshakeError
		if errors.As(err, &he) {
			reason = he.Reason
		}
		refuse(ws, reason)
		return nil
	}
	return h
}

// Behaviour gets each connection after the websocket upgrade; it returns
// when it has done its damage or the connection closes.
type Behaviour func(ws *websocket.Conn, env *Env)

// Hostile is one misbehaving miner and how the validator's runner ends
// its episode.
type Hostile struct {
	Name   string
	Behave Behaviour
	// IdentityOf, when set, is the key whose hotkey the uid is registered
	// under instead of the miner's own.
	IdentityOf *chain.Signer
	// Want is the runner's end reason for the miner's episode.
	Want episode.EndReason
}

// Serve serves behave on a loopback port until the test ends and returns
// its HOST:PORT. Every path upgrades, so the behaviour decides alone.
func Serve(t testing.TB, env *Env, behave Behaviour) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []*websocket.Conn
		wg    sync.WaitGroup
	)
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		mu.Lock()
		conns = append(conns, ws)
		wg.Add(1)
		mu.Unlock()
		defer wg.Done()
		defer ws.Close()
		behave(ws, env)
	})}
	done := make(chan struct{})
	go func() { _ = srv.Serve(ln); close(done) }()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// ReadHello reads and decodes the validator's hello without verifying
// it; nil if the frame is anything else or the connection died.
func ReadHello(ws *websocket.Conn) *episode.Hello {
	_, frame, err := ws.ReadMessage()
	if err != nil {
		return nil
	}
	msg, err := episode.Decode(frame)
	if err != nil {
		return nil
	}
	h, _ := msg.(*episode.Hello)
	return h
}

// SendAck signs and sends the answer to h with key; false if the
// connection died.
func SendAck(ws *websocket.Conn, signer *chain.Signer, h *episode.Hello) bool {
	ack, err := episode.NewHelloAck(signer.PrivateKey(), h, time.Now())
	if err != nil {
		return false
	}
	data, _ := episode.Encode(ack)
	return ws.WriteMessage(websocket.TextMessage, data) == nil
}

// AckHello answers the handshake properly; false if it refused the hello
// or the connection died.
func AckHello(ws *websocket.Conn, env *Env) bool {
	h := env.ReadVerifiedHello(ws)
	return h != nil && SendAck(ws, env.Signer, h)
}

// NextStart waits for the next episode_start, skipping other frames.
func NextStart(ws *websocket.Conn) *episode.EpisodeStart {
	for {
		_, frame, err := ws.ReadMessage()
		if err != nil {
			return nil
		}
		if msg, err := episode.Decode(frame); err == nil {
			if s, ok := msg.(*episode.EpisodeStart); ok {
				return s
			}
		}
	}
}

// Drain reads until the connection closes, so the validator's writes
// never block on this miner.
func Drain(ws *websocket.Conn) {
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			return
		}
	}
}

// StepJSON encodes a step with the given think and calls find_product
// calls.
func StepJSON(episodeID, think string, calls int) []byte {
	tc := make([]episode.ToolCall, calls)
	for i := range tc {
		tc[i] = episode.ToolCall{ID: fmt.Sprint("c", i), Name: "find_product", Parameters: json.RawMessage(`{"q":"phone","page":1}`)}
	}
	data, _ := episode.Encode(&episode.Step{EpisodeID: episodeID, Think: think, ToolCalls: tc})
	return data
}

// AfterStart handshakes, waits for an episode and sends one frame.
func AfterStart(frame func(*episode.EpisodeStart) []byte) Behaviour {
	return func(ws *websocket.Conn, env *Env) {
		if !AckHello(ws, env) {
			return
		}
		s := NextStart(ws)
		if s == nil {
			return
		}
		_ = ws.WriteMessage(websocket.TextMessage, frame(s))
		Drain(ws)
	}
}

// AnswerSlowly plays a find_product step delay after each prompt, never
// terminating.
func AnswerSlowly(delay time.Duration) Behaviour {
	return func(ws *websocket.Conn, env *Env) {
		if !AckHello(ws, env) {
			return
		}
		s := NextStart(ws)
		if s == nil {
			return
		}
		for {
			time.Sleep(delay) // the miner is slow on purpose
			if ws.WriteMessage(websocket.TextMessage, StepJSON(s.EpisodeID, "still looking", 1)) != nil {
				return
			}
			_, frame, err := ws.ReadMessage()
			if err != nil {
				return
			}
			if msg, err := episode.Decode(frame); err != nil || msg.MessageType() != episode.TypeObservation {
				Drain(ws)
				return
			}
		}
	}
}

// PrematureSteps sends three steps without waiting for observations.
func PrematureSteps(ws *websocket.Conn, env *Env) {
	if !AckHello(ws, env) {
		return
	}
	s := NextStart(ws)
	if s == nil {
		return
	}
	for range 3 {
		_ = ws.WriteMessage(websocket.TextMessage, StepJSON(s.EpisodeID, "hurry", 1))
	}
	Drain(ws)
}

// Script is a miner's step n of the episode start opened, given the
// observation of step n-1 (nil for step 0): a step frame, or nil to send
// nothing.
type Script func(start *episode.EpisodeStart, n int, obs *episode.Observation) []byte

// Answer plays every episode on an accepted connection with script, one
// step per prompt, episodes interleaved as their prompts arrive.
func Answer(ws *websocket.Conn, script Script) {
	type ep struct {
		start *episode.EpisodeStart
		n     int
	}
	live := map[string]*ep{}
	send := func(frame []byte) bool {
		return frame == nil || ws.WriteMessage(websocket.TextMessage, frame) == nil
	}
	for {
		_, frame, err := ws.ReadMessage()
		if err != nil {
			return
		}
		msg, err := episode.Decode(frame)
		if err != nil {
			continue
		}
		ok := true
		switch m := msg.(type) {
		case *episode.EpisodeStart:
			live[m.EpisodeID] = &ep{start: m}
			ok = send(script(m, 0, nil))
		case *episode.Observation:
			if e := live[m.EpisodeID]; e != nil {
				e.n++
				ok = send(script(e.start, e.n, m))
			}
		case *episode.EpisodeEnd:
			delete(live, m.EpisodeID)
		}
		if !ok {
			return
		}
	}
}

// Play answers the handshake properly, then every episode with script.
func Play(script Script) Behaviour {
	return func(ws *websocket.Conn, env *Env) {
		if AckHello(ws, env) {
			Answer(ws, script)
		}
	}
}

// Honest is a plain script: search the query, then terminate.
func Honest(s *episode.EpisodeStart, n int, _ *episode.Observation) []byte {
	call := func(name string, params map[string]any) []byte {
		raw, _ := json.Marshal(params)
		data, _ := episode.Encode(&episode.Step{EpisodeID: s.EpisodeID, Think: "Step " + fmt.Sprint(n) + ": " + name + ".",
			ToolCalls: []episode.ToolCall{{ID: fmt.Sprint("c", n), Name: name, Parameters: raw}}})
		return data
	}
	switch n {
	case 0:
		return call("find_product", map[string]any{"q": strings.TrimPrefix(s.Query, "I want "), "page": 1})
	case 1:
		return call("terminate", map[string]any{"status": "success"})
	}
	return nil
}

// Cases are the hostile miners every validator-side player must survive;
// other is a key that is not the miner's own.
func Cases(other *chain.Signer) []Hostile {
	return []Hostile{
		{Name: "malformed JSON", Want: episode.ReasonMalformed, Behave: AfterStart(func(*episode.EpisodeStart) []byte { return []byte(`{"type":"step","episode_id":`) })},
		{Name: "missing field", Want: episode.ReasonMalformed, Behave: AfterStart(func(s *episode.EpisodeStart) []byte {
			return []byte(`{"type":"step","episode_id":"` + s.EpisodeID + `","think":"x"}`)
		})},
		{Name: "parameters as a JSON string", Want: episode.ReasonMalformed, Behave: AfterStart(func(s *episode.EpisodeStart) []byte {
			// OpenAI's "arguments" form; the protocol wants an object.
			return []byte(`{"type":"step","episode_id":"` + s.EpisodeID + `","think":"x","tool_calls":[{"id":"c0","name":"find_product","parameters":"{\"q\":\"phone\",\"page\":1}"}]}`)
		})},
		{Name: "unknown message type", Want: episode.ReasonUnknownType, Behave: AfterStart(func(s *episode.EpisodeStart) []byte {
			return []byte(`{"type":"gossip","episode_id":"` + s.EpisodeID + `"}`)
		})},
		{Name: "oversized frame", Want: episode.ReasonOversized, Behave: AfterStart(func(s *episode.EpisodeStart) []byte {
			return []byte(`{"type":"step","episode_id":"` + s.EpisodeID + `","pad":"` + strings.Repeat("x", episode.DefaultMaxFrameBytes+1) + `"}`)
		})},
		{Name: "50 tool calls in one step", Want: episode.ReasonTooManyCalls, Behave: AfterStart(func(s *episode.EpisodeStart) []byte { return StepJSON(s.EpisodeID, "many", 50) })},
		{Name: "think of 1 MiB", Want: episode.ReasonOversized, Behave: AfterStart(func(s *episode.EpisodeStart) []byte { return StepJSON(s.EpisodeID, strings.Repeat("a", 1<<20), 1) })},
		{Name: "think above the think limit", Want: episode.ReasonThinkTooLong, Behave: AfterStart(func(s *episode.EpisodeStart) []byte {
			return StepJSON(s.EpisodeID, strings.Repeat("a", episode.DefaultMaxThinkBytes+1), 1)
		})},
		{Name: "stops answering", Want: episode.ReasonStepTimeout, Behave: func(ws *websocket.Conn, env *Env) {
			if AckHello(ws, env) {
				Drain(ws)
			}
		}},
		{Name: "writes one byte a second", Want: episode.ReasonStepTimeout, Behave: func(ws *websocket.Conn, env *Env) {
			if !AckHello(ws, env) {
				return
			}
			s := NextStart(ws)
			if s == nil {
				return
			}
			// A server frame is unmasked: FIN+text, 16-bit length, payload.
			payload := StepJSON(s.EpisodeID, "slow", 1)
			raw := append([]byte{0x81, 126, byte(len(payload) >> 8), byte(len(payload))}, payload...)
			nc := ws.UnderlyingConn()
			for _, b := range raw {
				if _, err := nc.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(time.Second) // the attack is the slowness itself
			}
		}},
		{Name: "drops the connection mid-episode", Want: episode.ReasonDisconnected, Behave: func(ws *websocket.Conn, env *Env) {
			if !AckHello(ws, env) {
				return
			}
			s := NextStart(ws)
			if s == nil {
				return
			}
			_ = ws.WriteMessage(websocket.TextMessage, StepJSON(s.EpisodeID, "one step", 1))
			_, _, _ = ws.ReadMessage() // the observation
			ws.UnderlyingConn().Close()
		}},
		{Name: "wrong signature", Want: episode.ReasonBadSignature, Behave: func(ws *websocket.Conn, env *Env) {
			h := env.ReadVerifiedHello(ws)
			if h == nil {
				return
			}
			ack, _ := episode.NewHelloAck(other.PrivateKey(), h, time.Now())
			ack.MinerAddress = env.Signer.Address.Hex() // claims its own address, signed by another key
			data, _ := episode.Encode(ack)
			if ws.WriteMessage(websocket.TextMessage, data) == nil {
				Answer(ws, Honest) // otherwise a proper miner
			}
		}},
		{Name: "ack signed for another validator", Want: episode.ReasonBadSignature, Behave: func(ws *websocket.Conn, env *Env) {
			h := env.ReadVerifiedHello(ws)
			if h == nil {
				return
			}
			// The right key and nonce, but the signed payload names
			// another validator: an ack lifted from someone else's
			// handshake.
			elsewhere := *h
			elsewhere.ValidatorAddress = other.Address.Hex()
			if SendAck(ws, env.Signer, &elsewhere) {
				Answer(ws, Honest)
			}
		}},
		{Name: "replayed hello", Want: episode.ReasonReplay, Behave: func(ws *websocket.Conn, env *Env) {
			h := env.ReadVerifiedHello(ws)
			if h == nil {
				return
			}
			// A valid ack captured from an earlier handshake: right key,
			// right validator, but the old nonce.
			old := *h
			old.Nonce = strings.Repeat("ab", episode.NonceBytes)
			ack, _ := episode.NewHelloAck(env.Signer.PrivateKey(), &old, time.Now().Add(-time.Minute))
			data, _ := episode.Encode(ack)
			if ws.WriteMessage(websocket.TextMessage, data) == nil {
				Answer(ws, Honest)
			}
		}},
		{Name: "another uid's key", Want: episode.ReasonIdentityMismatch, IdentityOf: other, Behave: Play(Honest)},
		{Name: "never acks", Want: episode.ReasonHandshakeTimeout, Behave: func(ws *websocket.Conn, env *Env) { Drain(ws) }},
		{Name: "binary frame", Want: episode.ReasonMalformed, Behave: func(ws *websocket.Conn, env *Env) {
			if AckHello(ws, env) && NextStart(ws) != nil {
				_ = ws.WriteMessage(websocket.BinaryMessage, []byte{1, 2, 3})
				Drain(ws)
			}
		}},
		{Name: "never terminates", Want: episode.ReasonMaxSteps, Behave: AnswerSlowly(0)},
		{Name: "steps without waiting for observations", Want: episode.ReasonUnexpected, Behave: PrematureSteps},
		{Name: "slow past the episode timeout", Want: episode.ReasonEpisodeTimeout, Behave: AnswerSlowly(time.Second)},
	}
}
