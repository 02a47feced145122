package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"arena/internal/llmclient/llmtest"
	"arena/shop"
)

// chatServer is a fake chat endpoint whose answer to a query is reply's,
// or, when fail gives a status for it, that error.
type chatServer struct{ *llmtest.Server }

func newChatServer(t *testing.T, reply func(string) string, fail func(string) int) *chatServer {
	t.Helper()
	return &chatServer{llmtest.NewServer(t, func(r llmtest.Request) llmtest.Reply {
		if fail != nil {
			if code := fail(r.Last); code != 0 {
				return llmtest.Reply{Status: code}
			}
		}
		return llmtest.Reply{Content: reply(r.Last)}
	})}
}

func (cs *chatServer) paraphraser(t *testing.T, cat *shop.Catalog, reg prometheus.Registerer, edit func(*ParaphraseOptions)) *Paraphraser {
	t.Helper()
	opts := ParaphraseOptions{BaseURL: cs.URL + "/v1", Model: "rewriter-1", Catalog: cat, Registerer: reg,
		HTTPClient: cs.Client(), Timeout: 5 * time.Second}
	if edit != nil {
		edit(&opts)
	}
	p, err := NewParaphraser(opts, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// dropWord removes every occurrence of w (and its plural) from s.
func dropWord(s, w string) string {
	return regexp.MustCompile(`(?i)\b`+regexp.QuoteMeta(w)+`(e?s)?\b`).ReplaceAllString(s, "")
}

// TestParaphraseKeepsOnlyFaithfulRewrites: good rewrites replace the
// query (with the offline phrasing and model recorded and a new id);
// lossy, leaking, title-quoting, empty and meta answers are refused and
// the offline phrasing kept, each under its outcome.
func TestParaphraseKeepsOnlyFaithfulRewrites(t *testing.T) {
	verifyNoLeaks(t)
	g := testGenerator(t, 5000, 3)
	ps, _, err := g.Generate(context.Background(), Request{Count: 36})
	if err != nil {
		t.Fatal(err)
	}
	cat := g.idx.Catalog()
	// Each problem gets one behaviour, by position.
	behaviours := []string{"good", "good", "lossy", "leak_id", "leak_shop", "quote_title", "empty", "meta", "unchanged"}
	want := map[string]string{"good": ParaphraseKept, "lossy": ParaphraseDropsFact, "leak_id": ParaphraseLeaksID,
		"leak_shop": ParaphraseLeaksID, "quote_title": ParaphraseQuotesTitle, "empty": ParaphraseMalformed,
		"meta": ParaphraseMalformed, "unchanged": ParaphraseMalformed}
	byQuery := map[string]int{}
	for i, p := range ps {
		byQuery[p.Query] = i
	}
	reply := func(q string) string {
		i, ok := byQuery[q]
		if !ok {
			return "unknown query"
		}
		p := ps[i]
		prod, _ := cat.Product(p.Targets[0])
		switch behaviours[i%len(behaviours)] {
		case "good":
			return "Hi there! " + q + " Thanks a lot."
		case "lossy":
			return "Hi! " + dropWord(q, titleWords(p.Reward.Items[0].Title[0])[0])
		case "leak_id":
			return q + " I think it is " + p.Targets[0] + "."
		case "leak_shop":
			return q + " The seller " + prod.ShopID + " had it."
		case "quote_title":
			return q + " Something like " + prod.Title + "."
		case "empty":
			return "   "
		case "meta":
			return "Here is the rewritten request: " + q
		}
		return q
	}
	cs := newChatServer(t, reply, nil)
	reg := prometheus.NewRegistry()
	pp := cs.paraphraser(t, cat, reg, nil)
	orig := append([]Problem(nil), ps...)
	rep, err := pp.Apply(context.Background(), ps, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep)
	counts := map[string]int{}
	for i := range ps {
		b := behaviours[i%len(behaviours)]
		counts[want[b]]++
		got, was := ps[i], orig[i]
		if want[b] == ParaphraseKept {
			if got.Paraphrase == nil || got.Paraphrase.Offline != was.Query || got.Paraphrase.Model != "rewriter-1" {
				t.Errorf("problem %d (%s): paraphrase record %+v, want the offline query and the model", i, b, got.Paraphrase)
			}
			if got.Query == was.Query || got.ID == was.ID {
				t.Errorf("problem %d (%s): query or id unchanged", i, b)
			}
			if id, _ := got.ContentID(); id != got.ID {
				t.Errorf("problem %d: id %s is not the content id %s", i, got.ID, id)
			}
			if u := Unstated(got.Query, &got, cat); u != nil {
				t.Errorf("problem %d: kept paraphrase leaves %v unstated", i, u)
			}
			continue
		}
		if got.Query != was.Query || got.ID != was.ID || got.Paraphrase != nil {
			t.Errorf("problem %d (%s): refused rewrite changed the problem: %q", i, b, got.Query)
		}
	}
	for outcome, n := range counts {
		if rep.Outcomes[outcome] != n {
			t.Errorf("outcome %s: %d, want %d (report %v)", outcome, rep.Outcomes[outcome], n, rep.Outcomes)
		}
		if got := testutil.ToFloat64(pp.outcomes.WithLabelValues(outcome)); int(got) != n {
			t.Errorf("arena_suite_paraphrases_total{outcome=%q} = %v, want %d", outcome, got, n)
		}
	}

	// What the endpoint was asked: the model, temperature 0 and the
	// offline query as the user message.
	reqs := cs.Requests()
	if len(reqs) != len(ps) {
		t.Fatalf("%d requests for %d problems", len(reqs), len(ps))
	}
	for _, r := range reqs {
		b := r.Body
		if b["model"] != "rewriter-1" || b["temperature"] != 0.0 {
			t.Fatalf("request %v: want model rewriter-1 and temperature 0", b)
		}
	}

	// A kept paraphrase survives the suite file.
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, ps); err != nil {
		t.Fatal(err)
	}
	back, _, err := ReadJSONL(&buf, "suite.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i := range ps {
		if (back[i].Paraphrase == nil) != (ps[i].Paraphrase == nil) || back[i].Query != ps[i].Query {
			t.Fatalf("problem %d after a round trip: %+v, want %+v", i, back[i].Paraphrase, ps[i].Paraphrase)
		}
		if back[i].Paraphrase != nil && *back[i].Paraphrase != *ps[i].Paraphrase {
			t.Fatalf("problem %d: paraphrase %+v after a round trip, want %+v", i, back[i].Paraphrase, ps[i].Paraphrase)
		}
		if strings.Contains(mustJSON(t, ps[i].Public()), "offline") {
			t.Fatalf("the public view carries the offline phrasing")
		}
	}
}

// verifyNoLeaks checks, after every other cleanup (test servers close in
// theirs), that the test left no goroutine behind.
func verifyNoLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParaphraseRefusesStatedAnswer: a knowledge problem's rewrite must
// not give away the fact the shopper asks to be looked up.
func TestParaphraseRefusesStatedAnswer(t *testing.T) {
	k, _ := knowledgeEnv(t, 20_000)
	ps, _, err := k.Generate(context.Background(), Request{Count: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if got, reasons := CheckParaphrase(&p, "So: "+p.Query+" (it is "+p.Knowledge+")", k.g.cat); got != ParaphraseStatesAnswer {
			t.Errorf("%s: outcome %s %v, want %s", p.ID, got, reasons, ParaphraseStatesAnswer)
		}
		if got, reasons := CheckParaphrase(&p, "So: "+p.Query, k.g.cat); got != ParaphraseKept {
			t.Errorf("%s: faithful rewrite refused: %s %v", p.ID, got, reasons)
		}
	}
}

// TestParaphraseEndpointFailures: failed requests (5xx, a timeout) keep
// the offline phrasing; after MaxFailures failures in a row the batch
// stops asking; a cancelled context is an error.
func TestParaphraseEndpointFailures(t *testing.T) {
	verifyNoLeaks(t)
	g := testGenerator(t, 5000, 3)
	ps, _, err := g.Generate(context.Background(), Request{Count: 20})
	if err != nil {
		t.Fatal(err)
	}
	cat := g.idx.Catalog()

	t.Run("down", func(t *testing.T) {
		cs := newChatServer(t, func(q string) string { return q }, func(string) int { return http.StatusServiceUnavailable })
		pp := cs.paraphraser(t, cat, nil, func(o *ParaphraseOptions) { o.Concurrency = 1; o.MaxFailures = 3 })
		batch := append([]Problem(nil), ps...)
		rep, err := pp.Apply(context.Background(), batch, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Outcomes[ParaphraseFailed] != 3 || rep.Outcomes[ParaphraseNotAsked] != len(ps)-3 || len(cs.Requests()) != 3 {
			t.Fatalf("report %v after %d requests; want 3 failed and the rest not asked", rep.Outcomes, len(cs.Requests()))
		}
		if rep.LastError == nil || !strings.Contains(rep.LastError.Error(), "model overloaded") {
			t.Fatalf("last error %v, want the endpoint's message", rep.LastError)
		}
		for i := range batch {
			if batch[i].Query != ps[i].Query {
				t.Fatalf("problem %d changed although the endpoint is down", i)
			}
		}
	})

	t.Run("intermittent", func(t *testing.T) {
		var n atomic.Int32
		cs := newChatServer(t, func(q string) string { return "Hello. " + q },
			func(string) int {
				if n.Add(1)%2 == 0 {
					return http.StatusTooManyRequests
				}
				return 0
			})
		pp := cs.paraphraser(t, cat, nil, func(o *ParaphraseOptions) { o.Concurrency = 1; o.MaxFailures = 2 })
		batch := append([]Problem(nil), ps...)
		rep, err := pp.Apply(context.Background(), batch, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Kept() != len(ps)/2 || rep.Outcomes[ParaphraseFailed] != len(ps)/2 {
			t.Fatalf("report %v; want every other request kept and none skipped (failures are not in a row)", rep.Outcomes)
		}
	})

	t.Run("slow", func(t *testing.T) {
		release := make(chan struct{})
		cs := newChatServer(t, func(q string) string { <-release; return "Hello. " + q }, nil)
		defer close(release)
		pp := cs.paraphraser(t, cat, nil, func(o *ParaphraseOptions) { o.Timeout = 50 * time.Millisecond; o.MaxFailures = 1 })
		batch := append([]Problem(nil), ps[:4]...)
		rep, err := pp.Apply(context.Background(), batch, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Kept() != 0 || rep.Outcomes[ParaphraseFailed] == 0 || !strings.Contains(rep.LastError.Error(), "timed out") {
			t.Fatalf("report %v (%v); want timeouts and the offline phrasing kept", rep.Outcomes, rep.LastError)
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cs := newChatServer(t, func(q string) string { cancel(); return "Hello. " + q }, nil)
		pp := cs.paraphraser(t, cat, nil, func(o *ParaphraseOptions) { o.Concurrency = 1 })
		batch := append([]Problem(nil), ps...)
		if _, err := pp.Apply(ctx, batch, nil); err == nil {
			t.Fatal("Apply with a cancelled context returned no error")
		}
	})
}

func TestNewParaphraserErrors(t *testing.T) {
	cat := testIndex(t, 5000).Catalog()
	for _, tc := range []struct {
		name string
		opts ParaphraseOptions
		want string
	}{
		{"no model", ParaphraseOptions{BaseURL: "http://127.0.0.1:1/v1", Catalog: cat}, "a model is required"},
		{"no catalog", ParaphraseOptions{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, "a catalog is required"},
		{"bad url", ParaphraseOptions{BaseURL: "127.0.0.1:1", Model: "m", Catalog: cat}, "not an http(s) URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewParaphraser(tc.opts, zerolog.Nop()); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}
