package minercheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"arena/episode"
	"arena/episode/episodetest"
)

// expectation is how the check must judge a misbehaving miner: the
// clause the misbehaviour breaks fails and says why, and the clauses it
// does not touch pass, so the failure is charged where it belongs. An
// empty fail is a miner that breaks nothing the check can see.
type expectation struct {
	fail     Clause
	detail   string   // in the failing clause's detail
	alsoFail []Clause // other clauses the same misbehaviour breaks
	pass     []Clause
	// unharmed are clauses that must not fail but may have nothing to
	// judge, when the misbehaviour leaves no step behind.
	unharmed []Clause
}

// handshakeClauses pass for a miner whose misbehaviour starts after the
// handshake: the hostile miners verify hellos as the reference does.
var handshakeClauses = []Clause{Handshake, Signature, Replay, Version, ForgedHello}

// others is every version-1 clause but the given ones.
func others(except ...Clause) []Clause {
	var out []Clause
	for _, c := range v1Clauses() {
		if !slices.Contains(except, c) {
			out = append(out, c)
		}
	}
	return out
}

func with(cs []Clause, more ...Clause) []Clause { return append(slices.Clone(cs), more...) }

// sharedExpectations covers every hostile miner of the episode package's
// tests (episodetest.Cases), by name.
func sharedExpectations() map[string]*expectation {
	afterHandshake := with(handshakeClauses, CloseCodes)
	return map[string]*expectation{
		"malformed JSON":              {fail: Messages, detail: "malformed", pass: afterHandshake},
		"missing field":               {fail: Messages, detail: "missing field tool_calls", pass: afterHandshake},
		"parameters as a JSON string": {fail: ToolCalls, detail: "tool_calls[0].parameters: want object", pass: afterHandshake, unharmed: []Clause{Messages}},
		"unknown message type":        {fail: Messages, detail: "unknown_type", pass: afterHandshake},
		"oversized frame":             {fail: Limits, detail: "oversized", pass: afterHandshake, unharmed: []Clause{Messages}},
		"50 tool calls in one step":   {fail: Limits, detail: "too_many_calls: step 0 has 50 tool calls", pass: with(afterHandshake, Messages)},
		"think of 1 MiB":              {fail: Limits, detail: "oversized", pass: afterHandshake, unharmed: []Clause{Messages}},
		"think above the think limit": {fail: Limits, detail: "think_too_long", pass: with(afterHandshake, Messages)},
		"stops answering":             {fail: Timeouts, detail: "step_timeout: no step 0", pass: afterHandshake, unharmed: []Clause{Messages}},
		"writes one byte a second":    {fail: Timeouts, detail: "step_timeout: no step 0", pass: afterHandshake, unharmed: []Clause{Messages}},
		"drops the connection mid-episode": {fail: CloseCodes, detail: "dropped an accepted connection mid-episode (disconnected",
			pass: with(handshakeClauses, Messages)},
		"wrong signature":                  {fail: Signature, detail: "bad_signature: the signature recovers to", pass: others(Signature)},
		"ack signed for another validator": {fail: Signature, detail: "bad_signature", pass: others(Signature)},
		"replayed hello":                   {fail: Handshake, detail: "replay: hello_ack signs nonce abababab"},
		// Identity is the metagraph's: without a chain the check cannot
		// tell, and this miner is otherwise proper.
		"another uid's key": {pass: v1Clauses()},
		"never acks":        {fail: Handshake, detail: "handshake_timeout"},
		"binary frame":      {fail: Messages, detail: "binary frame", pass: afterHandshake},
		// It also answers the observation that ended the episode.
		"never terminates": {fail: ToolErrors, detail: "without terminate", alsoFail: []Clause{OneStep},
			pass: with(afterHandshake, Messages, Limits, ToolCalls)},
		"steps without waiting for observations": {fail: OneStep, detail: "unexpected_message", pass: with(afterHandshake, Messages)},
		"slow past the episode timeout":          {fail: Timeouts, detail: "step_timeout", pass: afterHandshake, unharmed: []Clause{Messages}},
	}
}

func call(name string, params map[string]any) episode.ToolCall {
	raw, _ := json.Marshal(params)
	return episode.ToolCall{ID: "c_" + name, Name: name, Parameters: raw}
}

func step(s *episode.EpisodeStart, think string, calls ...episode.ToolCall) []byte {
	for i := range calls {
		calls[i].ID = fmt.Sprint(calls[i].ID, i)
	}
	data, _ := episode.Encode(&episode.Step{EpisodeID: s.EpisodeID, Think: think, ToolCalls: calls})
	return data
}

// serial plays one episode at a time, leaving the others waiting.
func serial(ws *websocket.Conn, env *episodetest.Env) {
	if !episodetest.AckHello(ws, env) {
		return
	}
	var queue []*episode.EpisodeStart
	var cur *episode.EpisodeStart
	n := 0
	send := func(frame []byte) bool { return frame == nil || ws.WriteMessage(websocket.TextMessage, frame) == nil }
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
			if cur != nil {
				queue = append(queue, m)
				continue
			}
			cur, n = m, 0
			ok = send(episodetest.Honest(cur, 0, nil))
		case *episode.Observation:
			if cur != nil && m.EpisodeID == cur.EpisodeID {
				n++
				ok = send(episodetest.Honest(cur, n, m))
			}
		case *episode.EpisodeEnd:
			queue = slices.DeleteFunc(queue, func(s *episode.EpisodeStart) bool { return s.EpisodeID == m.EpisodeID })
			if cur == nil || m.EpisodeID != cur.EpisodeID {
				continue
			}
			cur = nil
			if len(queue) > 0 {
				cur, n, queue = queue[0], 0, queue[1:]
				ok = send(episodetest.Honest(cur, 0, nil))
			}
		}
		if !ok {
			return
		}
	}
}

// patient waits for a valid hello, ignoring any other first message
// instead of refusing it; it verifies hellos as the reference does.
func patient() episodetest.Behaviour {
	nonces := episode.NewNonceCache(episode.DefaultMaxClockSkew, 1<<10)
	return func(ws *websocket.Conn, env *episodetest.Env) {
		for {
			_, frame, err := ws.ReadMessage()
			if err != nil {
				return
			}
			msg, err := episode.Decode(frame)
			h, ok := msg.(*episode.Hello)
			if err != nil || !ok {
				continue
			}
			if _, err := episode.VerifyHello(h, time.Now(), episode.DefaultMaxClockSkew, nonces); err != nil {
				var he *episode.HandshakeError
				if errors.As(err, &he) {
					episodetest.RefuseAsReference(ws, he.Reason)
				}
				return
			}
			if episodetest.SendAck(ws, env.Signer, h) {
				episodetest.Answer(ws, episodetest.Honest)
			}
			return
		}
	}
}

// eager follows its first step in each episode with another, a moment
// later: late enough to cross the observation on the wire unless the
// validator waits, as the one_step clause does.
func eager(ws *websocket.Conn, env *episodetest.Env) {
	if !episodetest.AckHello(ws, env) {
		return
	}
	starts := map[string]*episode.EpisodeStart{}
	steps := map[string]int{}
	for {
		_, frame, err := ws.ReadMessage()
		if err != nil {
			return
		}
		msg, err := episode.Decode(frame)
		if err != nil {
			continue
		}
		var s *episode.EpisodeStart
		switch m := msg.(type) {
		case *episode.EpisodeStart:
			s, starts[m.EpisodeID] = m, m
		case *episode.Observation:
			if s = starts[m.EpisodeID]; s != nil {
				steps[m.EpisodeID]++
			}
		}
		if s == nil {
			continue
		}
		n := steps[s.EpisodeID]
		if f := episodetest.Honest(s, n, nil); f != nil && ws.WriteMessage(websocket.TextMessage, f) != nil {
			return
		}
		if n == 0 {
			time.Sleep(20 * time.Millisecond) // the delay is the misbehaviour
			if ws.WriteMessage(websocket.TextMessage, step(s, "One more search.", call("find_product", map[string]any{"q": "phone", "page": 2}))) != nil {
				return
			}
		}
	}
}

// ownCases are misbehaviours only a conformance check looks for: the
// validator's runner tolerates them or never sees them (it sends no
// replays or bad hellos), so they are not in episodetest.Cases. The
// reference miner limited to one episode is one too.
func ownCases(t *testing.T) []struct {
	name   string
	url    string
	expect *expectation
} {
	t.Helper()
	serve := func(b episodetest.Behaviour) string {
		return wsURL(episodetest.Serve(t, &episodetest.Env{Signer: newSigner(t)}, b))
	}
	refusing := func(refuse func(*websocket.Conn, episode.EndReason)) string {
		return wsURL(episodetest.Serve(t, &episodetest.Env{Signer: newSigner(t), Refuse: refuse}, episodetest.Play(episodetest.Honest)))
	}
	return []struct {
		name   string
		url    string
		expect *expectation
	}{
		{"accepts any hello", serve(func(ws *websocket.Conn, env *episodetest.Env) {
			if h := episodetest.ReadHello(ws); h != nil && episodetest.SendAck(ws, env.Signer, h) {
				episodetest.Answer(ws, episodetest.Honest)
			}
		}), &expectation{fail: Replay, detail: "hello reusing an accepted nonce: answered hello_ack", alsoFail: []Clause{Version, ForgedHello},
			pass: others(Replay, Version, ForgedHello, CloseCodes)}},
		{"remembers no nonce", serve(func(ws *websocket.Conn, env *episodetest.Env) {
			// A nonce cache per connection forgets every nonce at once.
			if episodetest.AckHello(ws, &episodetest.Env{Signer: env.Signer}) {
				episodetest.Answer(ws, episodetest.Honest)
			}
		}), &expectation{fail: Replay, detail: "hello reusing an accepted nonce: answered hello_ack", pass: others(Replay)}},
		{"refuses by dropping the connection", refusing(func(ws *websocket.Conn, _ episode.EndReason) { ws.UnderlyingConn().Close() }),
			&expectation{fail: CloseCodes, detail: "without a close frame; want close 1008", pass: others(CloseCodes)}},
		{"refuses with a normal close", refusing(func(ws *websocket.Conn, _ episode.EndReason) {
			_ = ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye"))
		}), &expectation{fail: CloseCodes, detail: `closed with 1000 "bye"; want 1008 "replay"`, pass: others(CloseCodes)}},
		{"ignores what is not a hello", serve(patient()), &expectation{fail: CloseCodes,
			detail: "hello missing its fields: neither answered nor closed the connection within 1s", pass: others(CloseCodes)}},
		{"plays one episode at a time", serve(serial),
			&expectation{fail: Concurrency, detail: "step_timeout: no step 0", alsoFail: []Clause{Timeouts}, pass: others(Concurrency, Timeouts)}},
		{"reference miner taking one episode at a time", startReference(t, episode.ServerOptions{MaxConcurrentEpisodes: 1}),
			&expectation{fail: Concurrency, detail: "was refused: its first step calls terminate (failure)", pass: with(handshakeClauses, CloseCodes)}},
		{"ignores the announced think limit", serve(episodetest.Play(func(s *episode.EpisodeStart, n int, o *episode.Observation) []byte {
			if n == 0 {
				return step(s, strings.Repeat("I compare every listing. ", 40), call("find_product", map[string]any{"q": "phone", "page": 1}))
			}
			return episodetest.Honest(s, n, o)
		})), &expectation{fail: Limits, detail: "think_too_long: step 0's think is 1000 bytes, announced max_think_bytes 256", pass: others(Limits)}},
		{"ignores the announced tool-call limit", serve(episodetest.Play(func(s *episode.EpisodeStart, n int, o *episode.Observation) []byte {
			if n == 0 {
				search := func(p int) episode.ToolCall { return call("find_product", map[string]any{"q": "phone", "page": p}) }
				return step(s, "Three pages at once.", search(1), search(2), search(3))
			}
			return episodetest.Honest(s, n, o)
		})), &expectation{fail: Limits, detail: "too_many_calls: step 0 has 3 tool calls, announced max_tool_calls 2", pass: others(Limits)}},
		{"calls a tool it was not offered", serve(episodetest.Play(func(s *episode.EpisodeStart, n int, o *episode.Observation) []byte {
			if n == 0 {
				return step(s, "Buy it straight away.", call("buy_now", map[string]any{"product_id": "1"}))
			}
			return episodetest.Honest(s, n, o)
		})), &expectation{fail: ToolCalls, detail: `step 0 calls "buy_now", which episode_start did not offer`, pass: others(ToolCalls)}},
		{"sends a validator's message", serve(episodetest.Play(func(s *episode.EpisodeStart, n int, o *episode.Observation) []byte {
			if n == 0 {
				return []byte(`{"type":"episode_end","episode_id":"` + s.EpisodeID + `","reason":"terminated"}`)
			}
			return episodetest.Honest(s, n, o)
		})), &expectation{fail: Messages, detail: "unexpected_message: miner sent episode_end", pass: with(handshakeClauses, CloseCodes)}},
		{"sends a second step a moment after the first", serve(eager), &expectation{fail: OneStep,
			detail: "a second step arrived before the observation of step 0 (unsolicited",
			// Other clauses catch it too when the second step happens to
			// arrive while the checker is still busy with the first.
			pass: with(handshakeClauses, CloseCodes, Messages, Timeouts, ToolCalls)}},
		{"steps on after terminate", serve(episodetest.Play(func(s *episode.EpisodeStart, n int, o *episode.Observation) []byte {
			if n == 2 {
				return step(s, "Anything else?", call("find_product", map[string]any{"q": "phone", "page": 1}))
			}
			return episodetest.Honest(s, n, o)
		})), &expectation{fail: OneStep, detail: "a step arrived after the observation of step 1, which ended the episode (terminated)", pass: others(OneStep)}},
		{"repeats a tool call id", serve(episodetest.Play(func(s *episode.EpisodeStart, n int, o *episode.Observation) []byte {
			if n == 0 {
				search := func(p int) episode.ToolCall {
					return episode.ToolCall{ID: "same", Name: "find_product", Parameters: json.RawMessage(fmt.Sprintf(`{"q":"phone","page":%d}`, p))}
				}
				data, _ := episode.Encode(&episode.Step{EpisodeID: s.EpisodeID, Think: "Two pages.", ToolCalls: []episode.ToolCall{search(1), search(2)}})
				return data
			}
			return episodetest.Honest(s, n, o)
		})), &expectation{fail: ToolCalls, detail: `step 0 repeats tool call id "same"`, pass: others(ToolCalls)}},
		{"stalls after an error result", serve(episodetest.Play(func(s *episode.EpisodeStart, n int, o *episode.Observation) []byte {
			if o != nil && slices.ContainsFunc(o.Results, func(r episode.ToolResult) bool { return r.Error != nil }) {
				return nil
			}
			return episodetest.Honest(s, n, o)
		})), &expectation{fail: ToolErrors, detail: "after the observation of error results for step 0: step_timeout: no step 1",
			alsoFail: []Clause{Timeouts}, pass: others(ToolErrors, Timeouts)}},
	}
}

// TestHostileMiners checks every hostile miner, each on its own loopback
// socket, and requires the check to fail the clause it breaks, say why,
// and pass the clauses it does not touch.
func TestHostileMiners(t *testing.T) {
	c := sharedChecker(t)
	expect := sharedExpectations()
	type hostileCase struct {
		name   string
		url    string
		expect *expectation
	}
	var cases []hostileCase
	for _, h := range episodetest.Cases(newSigner(t)) {
		e, known := expect[h.Name]
		if !known {
			t.Errorf("episodetest case %q has no expectation here: say which clause it breaks", h.Name)
			continue
		}
		delete(expect, h.Name)
		cases = append(cases, hostileCase{h.Name, wsURL(episodetest.Serve(t, &episodetest.Env{Signer: newSigner(t)}, h.Behave)), e})
	}
	for name := range expect {
		t.Errorf("expectation for %q, which episodetest.Cases no longer has", name)
	}
	for _, o := range ownCases(t) {
		cases = append(cases, hostileCase{o.name, o.url, o.expect})
	}
	// All checks at once: they mostly wait on deadlines, and t.Parallel
	// would run only GOMAXPROCS of them at a time.
	reps := make([]*Report, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	for i, tc := range cases {
		wg.Go(func() { reps[i], errs[i] = c.Run(context.Background(), tc.url) })
	}
	wg.Wait()
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if errs[i] != nil {
				t.Fatalf("check %s: %v", tc.url, errs[i])
			}
			assertVerdict(t, reps[i], *tc.expect)
		})
	}
}

func assertVerdict(t *testing.T, rep *Report, e expectation) {
	t.Helper()
	var out strings.Builder
	rep.Print(&out)
	if e.fail == "" {
		if !rep.OK {
			t.Errorf("report not OK for a miner that breaks no clause the check can see\n%s", out.String())
		}
		for _, cl := range e.pass {
			if res, _ := rep.Result(cl); res.Status != Pass {
				t.Errorf("%s: %s %q; want pass", cl, res.Status, res.Detail)
			}
		}
		return
	}
	res, _ := rep.Result(e.fail)
	if res.Status != Fail || !strings.Contains(res.Detail, e.detail) {
		t.Errorf("%s: %s %q; want a failure naming %q\n%s", e.fail, res.Status, res.Detail, e.detail, out.String())
	}
	for _, cl := range e.alsoFail {
		if res, _ := rep.Result(cl); res.Status != Fail {
			t.Errorf("%s: %s %q; want a failure too\n%s", cl, res.Status, res.Detail, out.String())
		}
	}
	for _, cl := range e.pass {
		if res, _ := rep.Result(cl); res.Status != Pass {
			t.Errorf("%s: %s %q; the misbehaviour is not this clause's, want pass\n%s", cl, res.Status, res.Detail, out.String())
		}
	}
	for _, cl := range e.unharmed {
		if res, _ := rep.Result(cl); res.Status == Fail {
			t.Errorf("%s: %s %q; the misbehaviour is not this clause's\n%s", cl, res.Status, res.Detail, out.String())
		}
	}
	if e.fail == Handshake {
		for _, res := range rep.Clauses[2:] {
			if res.Status != Skip {
				t.Errorf("%s: %s after a failed handshake; want skip", res.Clause, res.Status)
			}
		}
	}
	if rep.OK {
		t.Errorf("report OK with a failing clause")
	}
}
