package suite

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"arena/internal/llmclient"
	"arena/knowledge"
	"arena/shop"
)

// Paraphrase records that a model rewrote a problem's query: which model,
// and the offline phrasing it replaced. It is stored with the problem, so
// a suite reads the same wherever it is loaded, without the model.
type Paraphrase struct {
	Model   string `json:"model"`
	Offline string `json:"offline"`
}

// ParaphraseOptions configure a Paraphraser.
type ParaphraseOptions struct {
	// BaseURL is the OpenAI-compatible API root (required).
	BaseURL string
	// Model is sent with each request (required).
	Model string
	// APIKey is sent as a bearer token; local endpoints may need none.
	APIKey string
	// Timeout bounds one request; default 30 s.
	Timeout time.Duration
	// Catalog lets the check refuse a paraphrase that names a product or
	// shop id or quotes a target's whole title (required).
	Catalog *shop.Catalog
	// Concurrency is how many requests are in flight; default 4.
	Concurrency int
	// MaxFailures is how many endpoint failures in a row end a batch's
	// model calls: the rest of the batch keeps its offline phrasing.
	// Default 5.
	MaxFailures int
	// Registerer receives arena_suite_paraphrases_total (optional).
	Registerer prometheus.Registerer
	// HTTPClient replaces the default HTTP client (optional).
	HTTPClient *http.Client
}

// Paraphrase outcomes, the label of arena_suite_paraphrases_total and the
// keys of ParaphraseReport.Outcomes.
const (
	ParaphraseKept          = "kept"
	ParaphraseDropsFact     = "drops_constraint"
	ParaphraseLeaksID       = "leaks_id"
	ParaphraseQuotesTitle   = "quotes_title"
	ParaphraseStatesAnswer  = "states_answer"
	ParaphraseMalformed     = "malformed"
	ParaphraseFailed        = "failed"
	ParaphraseNotAsked      = "not_asked"
	paraphraseMaxQueryBytes = 4000
)

// ParaphraseReport counts a batch's outcomes. Every problem not kept
// keeps its offline phrasing.
type ParaphraseReport struct {
	Problems int
	Outcomes map[string]int
	// LastError is the last endpoint failure, for the operator's log.
	LastError error
}

// Kept is the number of problems whose query is now the model's.
func (r ParaphraseReport) Kept() int { return r.Outcomes[ParaphraseKept] }

// String summarises the report in one line.
func (r ParaphraseReport) String() string {
	var parts []string
	for _, k := range []string{ParaphraseDropsFact, ParaphraseLeaksID, ParaphraseQuotesTitle, ParaphraseStatesAnswer,
		ParaphraseMalformed, ParaphraseFailed, ParaphraseNotAsked} {
		if n := r.Outcomes[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ReplaceAll(k, "_", " ")))
		}
	}
	s := fmt.Sprintf("paraphrased %d of %d", r.Kept(), r.Problems)
	if len(parts) > 0 {
		s += " (offline phrasing kept: " + strings.Join(parts, ", ") + ")"
	}
	return s
}

// Paraphraser rewrites generated queries with a chat model and keeps a
// rewrite only when code confirms it still states every constraint and
// leaks nothing (CheckParaphrase). It is safe for concurrent use.
type Paraphraser struct {
	opts     ParaphraseOptions
	client   *llmclient.Client
	log      zerolog.Logger
	outcomes *prometheus.CounterVec
}

// NewParaphraser builds a Paraphraser. It makes no request.
func NewParaphraser(opts ParaphraseOptions, log zerolog.Logger) (*Paraphraser, error) {
	if strings.TrimSpace(opts.Model) == "" {
		return nil, errors.New("paraphrase: a model is required")
	}
	if opts.Catalog == nil {
		return nil, errors.New("paraphrase: a catalog is required")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.MaxFailures <= 0 {
		opts.MaxFailures = 5
	}
	// The batch's own failure count decides when to stop; the client
	// retries nothing.
	client, err := llmclient.New(llmclient.Options{BaseURL: opts.BaseURL, APIKey: opts.APIKey, Timeout: opts.Timeout, HTTPClient: opts.HTTPClient})
	if err != nil {
		return nil, fmt.Errorf("paraphrase: %w", err)
	}
	p := &Paraphraser{opts: opts, client: client, log: log.With().Str("component", "suite.paraphrase").Logger(),
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_suite_paraphrases_total",
			Help: "Generated queries sent to the paraphrase model, by outcome (kept, or why the offline phrasing was kept).",
		}, []string{"outcome"})}
	if opts.Registerer != nil {
		if err := opts.Registerer.Register(p.outcomes); err != nil {
			return nil, fmt.Errorf("paraphrase: registering metrics: %w", err)
		}
	}
	return p, nil
}

// paraphraseInstructions ask for a rewrite that a shopper might have
// written, keeping everything the rule metrics check.
const paraphraseInstructions = `You rewrite online shopping requests so that they read as another shopper would write them.
Change the sentence structure, the word order and the connecting words; use everyday synonyms for general words.
Keep exactly, as written: every number, price, currency, unit and size; every brand, product kind and attribute value;
every service (free shipping, cash on delivery, official store, flash sale); every item of a list; every voucher or budget rule.
Do not add anything: no product names, ids, links or quotations. Do not answer the question.
Reply with the rewritten request only.`

// Apply paraphrases problems in place and returns what became of each.
// A problem whose rewrite is refused, or whose request failed, keeps its
// offline query; a kept one gets the new query, its Paraphrase record and
// a new id (ids hash the query). progress, if not nil, is called after
// each problem. Apply returns an error only when ctx ends.
func (p *Paraphraser) Apply(ctx context.Context, problems []Problem, progress func(done, total int)) (ParaphraseReport, error) {
	rep := ParaphraseReport{Problems: len(problems), Outcomes: map[string]int{}}
	done := 0
	var (
		mu       sync.Mutex
		failures atomic.Int32 // in a row
	)
	record := func(outcome string, err error) {
		p.outcomes.WithLabelValues(outcome).Inc()
		mu.Lock()
		defer mu.Unlock()
		rep.Outcomes[outcome]++
		if err != nil {
			rep.LastError = err
		}
		done++
		if progress != nil {
			progress(done, len(problems))
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.opts.Concurrency)
	for i := range problems {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if int(failures.Load()) >= p.opts.MaxFailures {
				record(ParaphraseNotAsked, nil)
				return nil
			}
			pr := &problems[i]
			text, err := p.ask(gctx, pr)
			if err != nil {
				if gctx.Err() != nil {
					return gctx.Err()
				}
				if int(failures.Add(1)) == p.opts.MaxFailures {
					p.log.Warn().Err(err).Int("failures", p.opts.MaxFailures).
						Msg("paraphrase endpoint failing; the rest of this batch keeps its offline phrasing")
				}
				record(ParaphraseFailed, err)
				return nil
			}
			failures.Store(0)
			outcome, reasons := CheckParaphrase(pr, text, p.opts.Catalog)
			if outcome != ParaphraseKept {
				p.log.Debug().Str("problem", pr.ID).Str("outcome", outcome).Strs("reasons", reasons).Msg("paraphrase refused")
				record(outcome, nil)
				return nil
			}
			q := *pr
			q.Paraphrase = &Paraphrase{Model: p.opts.Model, Offline: pr.Query}
			q.Query = cleanParaphrase(text)
			if err := q.Finish(); err != nil {
				record(ParaphraseMalformed, nil)
				return nil
			}
			*pr = q
			record(ParaphraseKept, nil)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return rep, err
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	ev := p.log.Info()
	if rep.LastError != nil {
		ev = p.log.Warn().Err(rep.LastError)
	}
	ev.Int("kept", rep.Kept()).Int("problems", rep.Problems).Msg(rep.String())
	return rep, nil
}

func (p *Paraphraser) ask(ctx context.Context, pr *Problem) (string, error) {
	params := openai.ChatCompletionNewParams{
		Model:       p.opts.Model,
		Messages:    []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(paraphraseInstructions), openai.UserMessage(pr.Query)},
		Temperature: openai.Float(0),
		MaxTokens:   openai.Int(800),
	}
	if pr.Seed != 0 {
		// Endpoints that honour a seed then answer the same problem the
		// same way; the stored query is what makes the suite reproducible.
		params.Seed = openai.Int(int64(pr.Seed >> 1))
	}
	msg, err := p.client.Chat(ctx, params)
	if err != nil {
		return "", err
	}
	return msg.Content, nil
}

// cleanParaphrase trims the whitespace and the quotes a model may put
// around its answer.
func cleanParaphrase(s string) string {
	s = strings.TrimSpace(s)
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"'", "'"}} {
		if len(s) >= 2 && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			s = strings.TrimSpace(s[len(q[0]) : len(s)-len(q[1])])
		}
	}
	return s
}

// metaPhrases betray a model talking about its task instead of doing it.
var metaPhrases = []string{"paraphras", "rewrit", "as an ai", "request:"}

// CheckParaphrase decides whether text may replace problem pr's query:
// ParaphraseKept, or the outcome that refuses it with the reasons. The
// rewrite must state every constraint as Unstated reads them (title
// words, option and attribute values in an accepted unit spelling,
// services by an accepted phrase, price bounds and voucher figures by
// their amounts), name no product or shop id, not quote a target's whole
// title, not state a knowledge problem's answer, and be one plain request
// of reasonable length.
func CheckParaphrase(pr *Problem, text string, cat *shop.Catalog) (string, []string) {
	q := cleanParaphrase(text)
	switch {
	case q == "":
		return ParaphraseMalformed, []string{"empty answer"}
	case len(q) > paraphraseMaxQueryBytes || len(q) > 3*len(pr.Query)+200:
		return ParaphraseMalformed, []string{fmt.Sprintf("%d bytes for a %d-byte query", len(q), len(pr.Query))}
	case q == strings.TrimSpace(pr.Query):
		return ParaphraseMalformed, []string{"the query unchanged"}
	}
	lower := strings.ToLower(q)
	for _, m := range metaPhrases {
		if strings.Contains(lower, m) && !strings.Contains(strings.ToLower(pr.Query), m) {
			return ParaphraseMalformed, []string{fmt.Sprintf("talks about the task (%q)", m)}
		}
	}
	if pr.Knowledge != "" && knowledge.ContainsFold(q, pr.Knowledge) {
		return ParaphraseStatesAnswer, []string{fmt.Sprintf("states the answer %q", pr.Knowledge)}
	}
	reasons := Unstated(q, pr, cat)
	if len(reasons) == 0 {
		return ParaphraseKept, nil
	}
	outcome := ParaphraseDropsFact
	for _, r := range reasons {
		switch {
		case strings.HasPrefix(r, "names "):
			return ParaphraseLeaksID, reasons
		case strings.HasPrefix(r, "quotes "):
			outcome = ParaphraseQuotesTitle
		}
	}
	return outcome, reasons
}

// WithCatalog is p checking rewrites against cat, a restock of its
// catalog, so that a problem targeting a restocked product is checked for
// its title and id too.
func (p *Paraphraser) WithCatalog(cat *shop.Catalog) *Paraphraser {
	q := *p
	q.opts.Catalog = cat
	return &q
}

// ParaphraseSource paraphrases what src generates. With a nil
// Paraphraser it is src.
func ParaphraseSource(src Source, p *Paraphraser) Source {
	if p == nil {
		return src
	}
	return func(ctx context.Context, offset uint64, n int, exclude []string) ([]Problem, error) {
		ps, err := src(ctx, offset, n, exclude)
		if err != nil {
			return nil, err
		}
		if _, err := p.Apply(ctx, ps, nil); err != nil {
			return nil, err
		}
		return ps, nil
	}
}
