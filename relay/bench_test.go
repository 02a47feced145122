package relay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"arena/chain"
	"arena/episode"
	"arena/shop"
	"arena/shop/gen"
)

// BenchmarkRelayOverhead measures what the relay adds to one completion
// as a miner sees it, at 64 concurrent episodes (16 miners × 4, a race's
// load) on loopback: the miner's infer over the episode websocket → the
// runner → the relay's checks and budget → internal/llmclient → an
// httptest provider → back the same way, minus the provider's own time
// (from its handler having read the request to its writing the answer).
// Each op is one completion. Reported: p50-µs and p99-µs of that
// overhead, and the process's CPU time per completion. Sub-benchmarks
// vary the provider's own time (0: completions back to back, every core
// busy relaying, a saturation test; 250 ms: still several times the
// completion rate of 64 episodes on a real provider, which answers in
// seconds) and the prompt size (8 KiB, a mid-episode prompt; 64 KiB, a
// long one). direct=true is the floor to read them against: the same
// agents post the same bodies straight to the provider over HTTP, with
// no relay and no websocket hop, as a miner with its own endpoint would.
// Recorded in docs/benchmarks.md ("Inference relay").
func BenchmarkRelayOverhead(b *testing.B) {
	tools := benchTools(b)
	for _, bc := range []struct {
		name     string
		provider benchHold
		prompt   int
		mode     benchMode
	}{
		{"provider=0ms/prompt=8KiB", benchHold{}, 8 << 10, relayed},
		{"provider=250ms/prompt=8KiB", benchHold{mean: 250 * time.Millisecond}, 8 << 10, relayed},
		{"provider=250ms/prompt=64KiB", benchHold{mean: 250 * time.Millisecond}, 64 << 10, relayed},
		{"provider=250ms/prompt=8KiB/direct=true", benchHold{mean: 250 * time.Millisecond}, 8 << 10, direct},
		{"provider=250ms/prompt=8KiB/paired=true", benchHold{mean: 250 * time.Millisecond}, 8 << 10, paired},
		// A provider's time varies from call to call, so real episodes'
		// completions do not arrive in step; with a fixed time all 64
		// agents ask at the same instant, every 250 ms, and each burst
		// queues on the two cores.
		{"provider=250ms±50%/prompt=8KiB", benchHold{mean: 250 * time.Millisecond, spread: true}, 8 << 10, relayed},
		{"provider=250ms±50%/prompt=8KiB/direct=true", benchHold{mean: 250 * time.Millisecond, spread: true}, 8 << 10, direct},
		{"provider=250ms±50%/prompt=8KiB/paired=true", benchHold{mean: 250 * time.Millisecond, spread: true}, 8 << 10, paired},
	} {
		b.Run(bc.name, func(b *testing.B) {
			defer goleak.VerifyNone(b, goleak.IgnoreCurrent())
			benchOverhead(b, tools, bc.provider, bc.prompt, bc.mode)
		})
	}
}

// benchMode is how the benchmark's agents reach the provider.
type benchMode int

const (
	relayed benchMode = iota // through the episode websocket and the relay
	direct                   // straight to the provider over HTTP: the floor
	// paired alternates the two in every agent, so that both halves of a
	// pair meet the same load: the median of (relayed − direct) over
	// consecutive pairs is what the relay adds, whatever else the machine
	// is doing.
	paired
)

const (
	benchMiners     = 16
	benchPerMiner   = 4
	benchConcurrent = benchMiners * benchPerMiner
)

func benchOverhead(b *testing.B, tools *shop.Tools, providerTime benchHold, promptBytes int, mode benchMode) {
	prov := newBenchProvider(providerTime)
	defer prov.Close()
	rl, err := New(Options{BaseURL: prov.URL + "/v1", Models: []string{"bench-model"}, Timeout: time.Minute,
		Budget:    Budget{Completions: 1 << 30, PromptTokens: 1 << 50, CompletionTokens: 1 << 50, WallTime: time.Hour},
		LookupEnv: func(string) (string, bool) { return "", false }}, zerolog.Nop(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer rl.Close()
	vkey, _ := crypto.GenerateKey()
	runner, err := episode.NewRunner(episode.RunnerOptions{Signer: chain.NewSigner(vkey), Tools: tools, Relay: rl,
		Limits: episode.Limits{StepTimeout: 10 * time.Minute, EpisodeTimeout: 20 * time.Minute, MaxConcurrentEpisodes: benchPerMiner}},
		zerolog.Nop(), nil)
	if err != nil {
		b.Fatal(err)
	}

	own := &http.Transport{MaxIdleConnsPerHost: benchConcurrent}
	defer own.CloseIdleConnections()
	ownClient := &http.Client{Transport: own}
	var left atomic.Int64
	left.Store(int64(b.N))
	rec := &overheads{prov: prov}
	bodyFor := benchBody(promptBytes)
	agent := episode.AgentFunc(func(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
		// One step that takes completions until the op budget is spent,
		// so every op is one relayed completion and nothing else.
		for n := 0; left.Add(-1) >= 0; n++ {
			marker := fmt.Sprintf("mark-%s-%d", v.EpisodeID, n)
			body := bodyFor(marker)
			t0 := time.Now()
			if mode == direct || mode == paired && n%2 == 1 {
				resp, err := ownClient.Post(prov.URL+"/v1/chat/completions", "application/json", bytes.NewReader(body))
				if err != nil {
					return episode.Action{}, err
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					return episode.Action{}, fmt.Errorf("direct call: %d %v", resp.StatusCode, err)
				}
			} else {
				res, err := v.Infer(ctx, body)
				if err != nil {
					return episode.Action{}, err
				}
				if len(res.Completion) == 0 {
					return episode.Action{}, fmt.Errorf("empty completion")
				}
			}
			rec.add(marker, time.Since(t0))
		}
		return episode.Action{Think: "done", ToolCalls: []episode.ToolCall{{ID: "c", Name: "terminate", Parameters: []byte(`{"status":"success"}`)}}}, nil
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var servers sync.WaitGroup
	defer servers.Wait()
	defer cancel()
	miners := make([]episode.Miner, benchMiners)
	for i := range miners {
		mkey, _ := crypto.GenerateKey()
		signer := chain.NewSigner(mkey)
		srv, err := episode.NewServer(episode.ServerOptions{Signer: signer, Agent: agent, MaxConcurrentEpisodes: benchConcurrent},
			zerolog.Nop(), nil)
		if err != nil {
			b.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		servers.Go(func() { _ = srv.Serve(ctx, ln) })
		miners[i] = episode.Miner{UID: uint16(i + 1), Hotkey: chain.Mirror(signer.Address), Endpoint: ln.Addr().String()}
	}
	problems := make([]episode.Problem, benchPerMiner)
	for i := range problems {
		problems[i] = episode.Problem{ID: fmt.Sprintf("p%d", i), Query: "I want red running shoes under 100"}
	}

	cpu0 := cpuTime(b)
	b.ResetTimer()
	var races sync.WaitGroup
	for _, m := range miners {
		races.Go(func() {
			for _, tr := range runner.Run(ctx, m, problems) {
				if tr.EndReason != episode.ReasonTerminated {
					b.Errorf("uid %d: episode ended %s: %s", m.UID, tr.EndReason, tr.EndDetail)
				}
			}
		})
	}
	races.Wait()
	b.StopTimer()
	cpu := cpuTime(b) - cpu0

	each := rec.overheads(b)
	p50, p99 := percentiles(slices.Collect(maps.Values(each)))
	b.ReportMetric(float64(p50.Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(p99.Nanoseconds())/1e3, "p99-µs")
	if mode == paired && b.N >= 2*benchConcurrent {
		relayedHalf, directHalf, added := pairUp(b, each)
		for _, m := range []struct {
			d    []time.Duration
			unit string
		}{{relayedHalf, "relayed-p50-µs"}, {directHalf, "direct-p50-µs"}, {added, "added-p50-µs"}} {
			p50, _ := percentiles(m.d)
			b.ReportMetric(float64(p50.Nanoseconds())/1e3, m.unit)
		}
	}
	// CPU time per completion of the whole process (miners, runner,
	// relay and the fake provider together): what the path costs,
	// whatever else the machine is doing.
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(b.N), "cpu-µs/op")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// overheads pairs each completion's round trip at the miner with the
// provider's own time for the same request.
type overheads struct {
	prov *benchProvider
	mu   sync.Mutex
	rtt  map[string]time.Duration
}

func (o *overheads) add(marker string, rtt time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.rtt == nil {
		o.rtt = map[string]time.Duration{}
	}
	o.rtt[marker] = rtt
}

// overheads is each completion's round trip minus the provider's own
// time, by marker.
func (o *overheads) overheads(b *testing.B) map[string]time.Duration {
	b.Helper()
	own := o.prov.times()
	d := make(map[string]time.Duration, len(o.rtt))
	for marker, rtt := range o.rtt {
		pt, ok := own[marker]
		if !ok {
			b.Fatalf("the provider never answered %s", marker)
		}
		d[marker] = rtt - pt
	}
	if len(d) != b.N {
		b.Fatalf("%d completions timed, want %d", len(d), b.N)
	}
	return d
}

// pairUp splits a paired run's overheads into its relayed calls (even
// call numbers), its direct calls (odd), and the difference within each
// pair of consecutive calls of one episode.
func pairUp(b *testing.B, each map[string]time.Duration) (relayedHalf, directHalf, added []time.Duration) {
	b.Helper()
	for marker, d := range each {
		i := strings.LastIndexByte(marker, '-')
		n, err := strconv.Atoi(marker[i+1:])
		if err != nil {
			b.Fatalf("marker %q: %v", marker, err)
		}
		if n%2 == 1 {
			directHalf = append(directHalf, d)
			continue
		}
		relayedHalf = append(relayedHalf, d)
		if next, ok := each[fmt.Sprintf("%s-%d", marker[:i], n+1)]; ok {
			added = append(added, d-next)
		}
	}
	if len(added) < len(each)/3 {
		b.Fatalf("only %d pairs in %d calls", len(added), len(each))
	}
	return relayedHalf, directHalf, added
}

// percentiles are the median and the 99th percentile of d.
func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	slices.Sort(d)
	return d[len(d)/2], d[min(len(d)-1, len(d)*99/100)]
}

// benchProvider answers every chat completion with one canned tool call
// after holding it for its own time, and records that time by the
// request's marker.
type benchProvider struct {
	*httptest.Server
	mu  sync.Mutex
	own map[string]time.Duration
}

var benchAnswer = []byte(`{"id":"chatcmpl-bench","object":"chat.completion","created":1760000000,"model":"bench-model",` +
	`"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,` +
	`"reasoning_content":"The search returned p1 at 42.5 and p2 at 99; p1 is under the user's 100 budget and ships free, so I look at its details before recommending it.",` +
	`"tool_calls":[{"id":"call_0","type":"function","function":{"name":"view_product_information","arguments":"{\"product_ids\":\"p1\"}"}}]}}],` +
	`"usage":{"prompt_tokens":2100,"completion_tokens":64,"total_tokens":2164}}`)

// benchHold is how long the fake provider holds each request: mean, or
// with spread uniformly between half and one and a half times mean, drawn
// from a fixed seed.
type benchHold struct {
	mean   time.Duration
	spread bool
}

func newBenchProvider(h benchHold) *benchProvider {
	p := &benchProvider{own: map[string]time.Duration{}}
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(1, 2))
	next := func() time.Duration {
		if !h.spread || h.mean == 0 {
			return h.mean
		}
		mu.Lock()
		defer mu.Unlock()
		return h.mean/2 + time.Duration(rng.Int64N(int64(h.mean)))
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		t0 := time.Now()
		i := bytes.Index(body, []byte("mark-"))
		if i < 0 {
			http.Error(w, "no marker", http.StatusBadRequest)
			return
		}
		marker := string(body[i : i+bytes.IndexByte(body[i:], '"')])
		if hold := next(); hold > 0 {
			t := time.NewTimer(hold)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		own := time.Since(t0)
		p.mu.Lock()
		p.own[marker] = own
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(benchAnswer)
	}))
	return p
}

func (p *benchProvider) times() map[string]time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.own
}

// benchBody returns a maker of chat requests of about size bytes (a
// system prompt, the query, a search and its result, padded with more
// results) that differ only in the marker. The prompt is built once: a
// miner's own cost of writing its prompt is not the relay's, and building
// it per call put a third of the process's CPU on the cores the relay
// shares.
func benchBody(size int) func(marker string) []byte {
	const slot = "@MARKER@"
	var results strings.Builder
	results.WriteString("[")
	for i := 0; results.Len() < size-1200; i++ {
		if i > 0 {
			results.WriteString(",")
		}
		fmt.Fprintf(&results, `{"product_id":"p%d","shop_id":"s%d","title":"Lightweight red running shoe %d with breathable mesh","price":%d.5,"sold_count":%d,"service":["freeShipping"]}`, i, i%7, i, 40+i%60, 100*i)
	}
	results.WriteString("]")
	msgs := fmt.Sprintf(`[{"role":"system","content":"You are a shopping agent. Use the tools to find what the user asks for, reason about the results, and recommend products by id."},`+
		`{"role":"user","content":"I want red running shoes under 100, ref %s"},`+
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_0","type":"function","function":{"name":"find_product","arguments":"{\"q\":\"red running shoes\",\"page\":1}"}}]},`+
		`{"role":"tool","tool_call_id":"call_0","content":%q}]`, slot, results.String())
	before, after, _ := strings.Cut(`{"model":"bench-model","temperature":0.6,"messages":`+msgs+`}`, slot)
	return func(marker string) []byte {
		return []byte(before + marker + after)
	}
}

var (
	benchToolsOnce sync.Once
	benchToolsVal  *shop.Tools
	benchToolsErr  error
)

// benchTools is a small shop: the runner needs tools to offer, and the
// benchmark's agent calls none.
func benchTools(b *testing.B) *shop.Tools {
	b.Helper()
	benchToolsOnce.Do(func() {
		g, err := gen.New(gen.Options{Products: 200, Seed: 1}, zerolog.Nop())
		if err != nil {
			benchToolsErr = err
			return
		}
		ps, err := g.Products(context.Background())
		if err != nil {
			benchToolsErr = err
			return
		}
		cat, err := shop.NewCatalog(ps)
		if err != nil {
			benchToolsErr = err
			return
		}
		idx, err := shop.BuildIndex(context.Background(), cat, shop.IndexOptions{Workers: 1}, zerolog.Nop())
		if err != nil {
			benchToolsErr = err
			return
		}
		benchToolsVal, benchToolsErr = shop.NewTools(shop.ToolsOptions{Index: idx}, zerolog.Nop(), nil)
	})
	if benchToolsErr != nil {
		b.Fatal(benchToolsErr)
	}
	return benchToolsVal
}

// BenchmarkCheck measures the relay's request check on a mid-episode
// prompt (8 KiB) and a long one (64 KiB): the part of the relay's own
// time that grows with the prompt. Recorded in docs/benchmarks.md
// ("Inference relay").
func BenchmarkCheck(b *testing.B) {
	rl, err := New(Options{BaseURL: "http://127.0.0.1:1/v1", Models: []string{"bench-model"}, Timeout: time.Minute,
		LookupEnv: func(string) (string, bool) { return "", false }}, zerolog.Nop(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer rl.Close()
	for _, size := range []int{8 << 10, 64 << 10} {
		body := benchBody(size)("mark-check-0")
		b.Run(fmt.Sprintf("prompt=%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, _, res := rl.check(body); res != nil {
					b.Fatal(res.Error)
				}
			}
		})
	}
}
