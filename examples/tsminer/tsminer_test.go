package tsminer

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/minercheck"
	"arena/practice"
	"arena/shop"
	"arena/shop/gen"
	"arena/suite"
)

// ---- the validator side: a small generated shop and problems ----

var (
	shopOnce  sync.Once
	shopTools *shop.Tools
	shopIndex *shop.Index
	shopErr   error
)

// tools builds a small generated catalog, its index and the shop tools once.
func tools(t *testing.T) (*shop.Tools, *shop.Index) {
	t.Helper()
	shopOnce.Do(func() {
		ctx := context.Background()
		g, err := gen.New(gen.Options{Products: 1500, Seed: 7}, zerolog.Nop())
		if err != nil {
			shopErr = err
			return
		}
		ps, err := g.Products(ctx)
		if err != nil {
			shopErr = err
			return
		}
		cat, err := shop.NewCatalog(ps)
		if err != nil {
			shopErr = err
			return
		}
		if shopIndex, shopErr = shop.BuildIndex(ctx, cat, shop.IndexOptions{Workers: 2}, zerolog.Nop()); shopErr != nil {
			return
		}
		shopTools, shopErr = shop.NewTools(shop.ToolsOptions{Index: shopIndex}, zerolog.Nop(), nil)
	})
	if shopErr != nil {
		t.Fatalf("build the shop: %v", shopErr)
	}
	return shopTools, shopIndex
}

// problems generates n problems of the default mix from the small catalog.
func problems(t *testing.T, n int, seed uint64) []suite.Problem {
	t.Helper()
	_, idx := tools(t)
	g, err := suite.NewGenerator(suite.GeneratorOptions{Index: idx, Seed: seed, Workers: 2}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ps, _, err := g.Generate(context.Background(), suite.Request{Count: n})
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// findable returns up to n generated product problems whose query is
// replaced by their target's title, kept only when find_product with that
// title lists the target first. The Deterministic model (search with the
// query, recommend the first hit) rarely meets a generated query's price and
// service wishes, since the generator makes near misses rank close; these
// are the problems it can solve.
func findable(t *testing.T, n int) []suite.Problem {
	t.Helper()
	st, idx := tools(t)
	g, err := suite.NewGenerator(suite.GeneratorOptions{Index: idx, Seed: 2, Workers: 2}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ps, _, err := g.Generate(context.Background(), suite.Request{Count: 40, Mix: suite.Mix{suite.TypeProduct: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var out []suite.Problem
	for _, p := range ps {
		prod, ok := idx.Catalog().Product(p.Targets[0])
		if len(p.Targets) != 1 || !ok {
			continue
		}
		args, _ := json.Marshal(map[string]any{"q": prod.Title, "page": 1})
		res := st.Execute(context.Background(), "find_product", args)
		var hits []struct {
			ProductID string `json:"product_id"`
		}
		if res.Err != nil || json.Unmarshal(res.Output, &hits) != nil || len(hits) == 0 || hits[0].ProductID != prod.ProductID {
			continue
		}
		p.Query = prod.Title
		if out = append(out, p); len(out) == n {
			break
		}
	}
	if len(out) == 0 {
		t.Fatal("no generated product problem whose target is the first hit for its title")
	}
	return out
}

// play runs practice (the validator's runner, tools and scoring) against the
// miner at endpoint.
func play(t *testing.T, endpoint string, limits episode.Limits, ps []suite.Problem) (*practice.Report, practice.Identity) {
	t.Helper()
	st, _ := tools(t)
	p, err := practice.New(practice.Options{Tools: st, Limits: limits}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var id practice.Identity
	rep, err := p.Run(ctx, endpoint, ps, func(i practice.Identity) { id = i }, nil)
	if err != nil {
		t.Fatalf("practice against the ts-miner: %v", err)
	}
	return rep, id
}

// allTerminated checks every episode ended `terminated`, and none on a violation.
func allTerminated(t *testing.T, rep *practice.Report) {
	t.Helper()
	for _, r := range rep.Results {
		if r.EndReason.MinerFault() {
			t.Errorf("problem %s: violation %s (%s)", r.ProblemID, r.EndReason, r.EndDetail)
		} else if r.EndReason != episode.ReasonTerminated {
			t.Errorf("problem %s: ended %s (%s), want terminated", r.ProblemID, r.EndReason, r.EndDetail)
		}
	}
	if len(rep.Results) == 0 {
		t.Error("no episodes")
	}
}

// ---- tests ----

// TestPracticeDeterministicLLM plays the validator's practice runner against
// the TypeScript miner with a Deterministic model: the handshake identity is
// the one the miner printed, every episode ends terminated, episodes run
// concurrently on the connection and some succeed.
func TestPracticeDeterministicLLM(t *testing.T) {
	f := NewFakeLLM(t, 30*time.Millisecond, Deterministic)
	m := Launch(t, Options{LLMBaseURL: f.URL(), LLMModel: FakeModel, LLMAPIKey: FakeKey})
	ps := append(findable(t, 4), problems(t, 8, 1)...)
	rep, id := play(t, m.Endpoint, episode.Limits{}, ps)

	if rep.Miner.Address != m.Address || id.Address != m.Address {
		t.Errorf("handshake address %s (onConnect %s), the miner printed %s", rep.Miner.Address, id.Address, m.Address)
	}
	if rep.Miner.Hotkey != m.Hotkey {
		t.Errorf("hotkey %s, the miner printed %s", rep.Miner.Hotkey, m.Hotkey)
	}
	allTerminated(t, rep)
	ok := 0
	for _, r := range rep.Results {
		if r.Steps != 3 {
			t.Errorf("problem %s: %d steps, want 3 (search, recommend, terminate)", r.ProblemID, r.Steps)
		}
		if r.Success {
			ok++
		}
	}
	if ok == 0 {
		for _, r := range rep.Results {
			t.Logf("%s %q: %v", r.ProblemID, r.Query, r.Why)
		}
		t.Error("no episode succeeded")
	}
	if got := f.maxIn.Load(); got < 2 {
		t.Errorf("at most %d chat requests in flight: episodes did not run concurrently", got)
	}
	t.Logf("%d/%d succeeded, %d chat requests, up to %d at once", ok, len(rep.Results), f.requests.Load(), f.maxIn.Load())
}

// TestMisbehavingLLM: a model endpoint that answers HTTP 500, malformed JSON
// or no choices makes the miner end each episode with terminate, never a
// violation, and the miner keeps serving.
func TestMisbehavingLLM(t *testing.T) {
	f := NewFakeLLM(t, 0, func(_ *FakeLLM, w http.ResponseWriter, _ *http.Request, req *chatRequest) *reply {
		switch (len(query(req)) + assistantTurns(req)) % 3 {
		case 0:
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusInternalServerError)
		case 1:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","tool_calls":[`))
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"choices":[]}`))
		}
		return nil
	})
	m := Launch(t, Options{LLMBaseURL: f.URL(), LLMModel: FakeModel, LLMAPIKey: FakeKey})
	for round := range 2 {
		rep, _ := play(t, m.Endpoint, episode.Limits{}, problems(t, 6, uint64(10+round)))
		allTerminated(t, rep)
		for _, r := range rep.Results {
			if r.Steps != 1 || r.Success {
				t.Errorf("round %d, problem %s: %d steps, success %v; want one terminate step", round, r.ProblemID, r.Steps, r.Success)
			}
		}
		if err := m.Alive(); err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, m.Stderr())
		}
	}
	if f.requests.Load() < 12 {
		t.Errorf("%d chat requests; want the miner to try every episode", f.requests.Load())
	}
}

// TestLimits: a model that asks for too many tool calls, thinks too much and
// never terminates is held to the announced limits: calls and think clipped,
// the frame under max_frame_bytes, and terminate on the last allowed step.
func TestLimits(t *testing.T) {
	long := strings.Repeat("Compare the price, the shop and the options of each listing (é€😀). ", 700) // ~50 KB, multi-byte
	f := NewFakeLLM(t, 0, func(_ *FakeLLM, _ http.ResponseWriter, _ *http.Request, req *chatRequest) *reply {
		var calls []toolCall
		for i := range 12 {
			calls = append(calls, call(fmt.Sprintf("dup%d", i%2), "find_product", map[string]any{"q": query(req), "page": 1 + i%5}))
		}
		return &reply{content: long, calls: calls}
	})
	m := Launch(t, Options{LLMBaseURL: f.URL(), LLMModel: FakeModel, LLMAPIKey: FakeKey})
	for _, lim := range []episode.Limits{
		{MaxToolCalls: 3, MaxThinkBytes: 1000, MaxSteps: 3},
		{MaxToolCalls: 5, MaxThinkBytes: 8000, MaxFrameBytes: 8 << 10, MaxSteps: 2}, // think fits its limit, not the frame
	} {
		rep, _ := play(t, m.Endpoint, lim, problems(t, 4, 3))
		allTerminated(t, rep)
		for _, r := range rep.Results {
			if r.Steps != lim.MaxSteps {
				t.Errorf("limits %+v, problem %s: %d steps, want %d ending with terminate", lim, r.ProblemID, r.Steps, lim.MaxSteps)
			}
		}
	}
	// Every way of cutting a step ran (the miner logs each).
	for _, cut := range []string{"tool calls cut to the limit", "think cut to the limit", "step cut to max_frame_bytes"} {
		if !strings.Contains(m.Stderr(), cut) {
			t.Errorf("the miner never logged %q", cut)
		}
	}
}

// TestSlowLLM: a model that never answers still gets the validator a step
// before step_timeout_ms: terminate, not a step_timeout.
func TestSlowLLM(t *testing.T) {
	f := NewFakeLLM(t, 0, func(_ *FakeLLM, w http.ResponseWriter, r *http.Request, _ *chatRequest) *reply {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
		http.Error(w, "too late", http.StatusGatewayTimeout)
		return nil
	})
	m := Launch(t, Options{LLMBaseURL: f.URL(), LLMModel: FakeModel, LLMAPIKey: FakeKey})
	start := time.Now()
	rep, _ := play(t, m.Endpoint, episode.Limits{StepTimeout: 5 * time.Second}, problems(t, 4, 4))
	allTerminated(t, rep)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("practice took %s", d)
	}
}

// TestBusyMinerRefuses: beyond --max-episodes the miner answers
// episode_start at once with terminate(failure), a normal ending (§5).
func TestBusyMinerRefuses(t *testing.T) {
	f := NewFakeLLM(t, 300*time.Millisecond, Deterministic)
	m := Launch(t, Options{LLMBaseURL: f.URL(), LLMModel: FakeModel, LLMAPIKey: FakeKey, MaxEpisodes: 1})
	rep, _ := play(t, m.Endpoint, episode.Limits{MaxConcurrentEpisodes: 4}, problems(t, 8, 5))
	allTerminated(t, rep)
	refused := 0
	for _, r := range rep.Results {
		if r.Steps == 1 {
			refused++
		}
	}
	if refused == 0 {
		t.Error("no episode was refused with one slot and four in flight")
	}
}

// ---- the handshake, checked on a raw websocket ----

// textHash is EIP-191's personal-message hash (docs/protocol.md §3.2).
func textHash(payload string) []byte {
	return crypto.Keccak256([]byte(fmt.Sprintf("\x19Ethereum Signed Message:\n%d%s", len(payload), payload)))
}

func signText(t *testing.T, payload string, key *ecdsa.PrivateKey) string {
	sig, err := crypto.Sign(textHash(payload), key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return "0x" + hex.EncodeToString(sig)
}

type hello struct {
	Type      string `json:"type"`
	Version   int    `json:"version"`
	Validator string `json:"validator_address"`
	Nonce     string `json:"nonce"`
	Timestamp int64  `json:"timestamp"`
	Signature string `json:"signature"`
}

// newHello is a hello signed by key, as §3.1 writes its payload.
func newHello(t *testing.T, key *ecdsa.PrivateKey, version int, ts int64) hello {
	n := make([]byte, 32)
	_, _ = rand.Read(n)
	h := hello{Type: "hello", Version: version, Validator: crypto.PubkeyToAddress(key.PublicKey).Hex(), Nonce: hex.EncodeToString(n), Timestamp: ts}
	payload := fmt.Sprintf("arena/v1 hello\nversion:%d\nvalidator:%s\nnonce:%s\ntimestamp:%d", h.Version, strings.ToLower(h.Validator), h.Nonce, h.Timestamp)
	h.Signature = signText(t, payload, key)
	return h
}

// exchange dials the miner, sends msg and returns the reply, or the close
// frame's code and text.
func exchange(t *testing.T, endpoint string, msg any) (reply map[string]any, code int, text string) {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+endpoint+"/arena/v1", nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer ws.Close()
	if err := ws.WriteJSON(msg); err != nil {
		t.Fatal(err)
	}
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, b, err := ws.ReadMessage()
	if ce, ok := err.(*websocket.CloseError); ok {
		return nil, ce.Code, ce.Text
	}
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if err := json.Unmarshal(b, &reply); err != nil {
		t.Fatalf("reply %s: %v", b, err)
	}
	return reply, 0, ""
}

// TestHandshake: the miner answers a good hello with a hello_ack signed by
// the address it printed over §3.1's payload, and refuses bad hellos with
// close code 1008 and the end reason (§3).
func TestHandshake(t *testing.T) {
	key, _ := crypto.GenerateKey()
	minerKey, _ := crypto.GenerateKey()
	m := Launch(t, Options{LLMBaseURL: "http://127.0.0.1:9/v1", LLMModel: FakeModel,
		Key: hex.EncodeToString(crypto.FromECDSA(minerKey))})
	if want := crypto.PubkeyToAddress(minerKey.PublicKey).Hex(); m.Address != want {
		t.Fatalf("miner printed address %s for MINER_PRIVATE_KEY, want %s", m.Address, want)
	}

	now := time.Now().Unix()
	h := newHello(t, key, 1, now)
	ack, code, text := exchange(t, m.Endpoint, h)
	if ack == nil {
		t.Fatalf("good hello refused: %d %q", code, text)
	}
	if ack["type"] != "hello_ack" || ack["version"] != float64(1) || ack["nonce"] != h.Nonce {
		t.Fatalf("hello_ack %v", ack)
	}
	ts, _ := ack["timestamp"].(float64)
	if d := int64(ts) - now; d < -30 || d > 30 {
		t.Errorf("hello_ack timestamp %v is %ds from now", ack["timestamp"], d)
	}
	addr, _ := ack["miner_address"].(string)
	if !common.IsHexAddress(addr) || !strings.EqualFold(addr, m.Address) {
		t.Fatalf("hello_ack miner_address %q, printed %s", addr, m.Address)
	}
	payload := fmt.Sprintf("arena/v1 hello_ack\nversion:1\nminer:%s\nvalidator:%s\nnonce:%s\ntimestamp:%d",
		strings.ToLower(addr), strings.ToLower(h.Validator), h.Nonce, int64(ts))
	sigHex, _ := ack["signature"].(string)
	sig, err := hex.DecodeString(strings.TrimPrefix(sigHex, "0x"))
	if err != nil || len(sig) != 65 || (sig[64] != 27 && sig[64] != 28) {
		t.Fatalf("hello_ack signature %q: want 0x + 130 hex digits with v 27 or 28", sigHex)
	}
	sig[64] -= 27
	pub, err := crypto.SigToPub(textHash(payload), sig)
	if err != nil || crypto.PubkeyToAddress(*pub) != common.HexToAddress(m.Address) {
		t.Fatalf("hello_ack signature does not recover to %s over the §3.1 payload (%v)", m.Address, err)
	}

	other, _ := crypto.GenerateKey()
	forged := newHello(t, key, 1, now)
	forged.Signature = newHello(t, other, 1, now).Signature
	missing := map[string]any{"type": "hello", "version": 1, "validator_address": h.Validator, "timestamp": now, "signature": h.Signature}
	for _, c := range []struct {
		name   string
		msg    any
		reason string
	}{
		{"replayed nonce", h, "replay"},
		{"signed by another key", forged, "bad_signature"},
		{"stale timestamp", newHello(t, key, 1, now-120), "replay"},
		{"future timestamp", newHello(t, key, 1, now+120), "replay"},
		{"version 2", newHello(t, key, 2, now), "version_mismatch"},
		{"no nonce", missing, "malformed"},
		{"episode_start first", map[string]any{"type": "episode_start", "episode_id": "e1", "query": "q", "tools": []any{},
			"limits": map[string]any{"max_frame_bytes": 262144, "max_think_bytes": 16384, "max_tool_calls": 8, "max_steps": 30,
				"step_timeout_ms": 60000, "episode_timeout_ms": 300000, "max_concurrent_episodes": 4}}, "unexpected_message"},
	} {
		_, code, text := exchange(t, m.Endpoint, c.msg)
		if code != websocket.ClosePolicyViolation || text != c.reason {
			t.Errorf("%s: closed %d %q, want 1008 %q", c.name, code, text, c.reason)
		}
	}
	if _, resp, err := websocket.DefaultDialer.Dial("ws://"+m.Endpoint+"/other", nil); err == nil || resp == nil || resp.StatusCode == http.StatusSwitchingProtocols {
		t.Errorf("dialing another path upgraded (%v)", err)
	}
}

// TestMinerCheck runs `arena miner check`'s checker against the
// TypeScript miner: every clause of the protocol passes, the version-2
// clauses through the relay included; held to version 1 on both sides,
// every version-1 clause passes and the version-2 ones are skipped.
func TestMinerCheck(t *testing.T) {
	v1 := minercheck.Clauses()[:slices.Index(minercheck.Clauses(), minercheck.Negotiation)]
	tests := []struct {
		name    string
		version int // the miner's --max-version and the check's (0: both default)
		pass    []minercheck.Clause
	}{
		{name: "version 2", pass: minercheck.Clauses()},
		{name: "version 1", version: 1, pass: v1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFakeLLM(t, 0, Deterministic)
			m := Launch(t, Options{LLMBaseURL: f.URL(), LLMModel: FakeModel, LLMAPIKey: FakeKey, MaxVersion: tt.version})
			c, err := minercheck.New(minercheck.Options{MaxVersion: tt.version}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			rep, err := c.Run(t.Context(), "ws://"+m.Endpoint+episode.Path)
			if err != nil {
				t.Fatal(err)
			}
			for _, cl := range minercheck.Clauses() {
				want := minercheck.Skip
				if slices.Contains(tt.pass, cl) {
					want = minercheck.Pass
				}
				if r, ok := rep.Result(cl); !ok || r.Status != want {
					t.Errorf("clause %s: %+v, want %s", cl, r, want)
				}
			}
			if err := m.Alive(); err != nil {
				t.Error(err)
			}
		})
	}
}
