package judge

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/internal/llmclient"
)

// PromptVersion names the embedded prompt; it is stored in every llm
// verdict so a verdict can be traced to the exact instructions.
const PromptVersion = "v2"

//go:embed prompt_v2.txt
var promptText string

// LLMOptions configure the llm judge.
type LLMOptions struct {
	// BaseURL is an OpenAI-compatible endpoint (Chutes, OpenRouter, vLLM,
	// Ollama...), for example https://openrouter.ai/api/v1 (required).
	BaseURL string
	// APIKey is sent as a bearer token; local endpoints may need none.
	APIKey string
	// Models are tried in order until one returns a valid verdict
	// (at least one is required).
	Models []string
	// Timeout bounds one request; default 60 s.
	Timeout time.Duration
	// Retries is how often a request answered with 429 or 5xx is retried
	// on the same model before the next model is tried; default 2,
	// negative for none.
	Retries int
	// Backoff is the first retry delay, doubled at each retry up to
	// MaxBackoff; defaults 500 ms and 8 s.
	Backoff, MaxBackoff time.Duration
	// MaxTokens bounds each completion; default 4096.
	MaxTokens int64
	// MaxResultBytes clips each tool result shown to the model; default
	// 4000.
	MaxResultBytes int
	// HTTPClient replaces the default HTTP client (optional).
	HTTPClient *http.Client
	// Fallback is the judge whose verdict is used, flagged Fallback, when
	// every model fails; default the grounding judge.
	Fallback *Grounding
	// Registerer receives the judge's metrics; nil registers none.
	Registerer prometheus.Registerer
	// Rand is the nonce source; default crypto/rand.
	Rand io.Reader
	// BenchFor is how long a model whose answer could not be used
	// (unparseable, off the schema, no choices) is skipped; default
	// 10 minutes.
	BenchFor time.Duration
	// OnUnavailable says what a race judged while no model answers is
	// worth: UnavailableVoid (the default: the race is void) or
	// UnavailableGrounding (scored by the grounding fallback). See
	// Policy.Voids.
	OnUnavailable string
	// Now is the clock of the bench; default time.Now.
	Now func() time.Time
}

// LLM is the llm judge: the gate ladder applied by a chat model, with the
// grounding judge as its fallback. It is safe for concurrent use.
type LLM struct {
	opts        LLMOptions
	client      *llmclient.Client
	log         zerolog.Logger
	requests    *prometheus.CounterVec
	fallback    prometheus.Counter
	unavailable prometheus.Counter
	benches     *prometheus.CounterVec
	benchedNow  *prometheus.GaugeVec
	clipped     prometheus.Counter

	mu      sync.Mutex
	benched map[string]time.Time // model → skipped until
}

// NewLLM builds the llm judge. It makes no request until the first
// verdict.
func NewLLM(opts LLMOptions, log zerolog.Logger) (*LLM, error) {
	if opts.BaseURL == "" || len(opts.Models) == 0 {
		return nil, errors.New("llm judge: a base URL and at least one model are required")
	}
	for _, m := range opts.Models {
		if strings.TrimSpace(m) == "" {
			return nil, errors.New("llm judge: empty model name")
		}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	switch {
	case opts.Retries == 0:
		opts.Retries = 2
	case opts.Retries < 0:
		opts.Retries = 0
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 8 * time.Second
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = 4096
	}
	if opts.MaxResultBytes <= 0 {
		opts.MaxResultBytes = 4000
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	if opts.BenchFor <= 0 {
		opts.BenchFor = 10 * time.Minute
	}
	switch opts.OnUnavailable {
	case "":
		opts.OnUnavailable = UnavailableVoid
	case UnavailableVoid, UnavailableGrounding:
	default:
		return nil, fmt.Errorf("llm judge: on unavailable %q: must be %s or %s", opts.OnUnavailable, UnavailableVoid, UnavailableGrounding)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log = log.With().Str("component", "scoring.judge.llm").Logger()
	if opts.Fallback == nil {
		opts.Fallback = NewGrounding(GroundingOptions{}, log)
	}
	// Retries are ours (per model, with our backoff and metrics), so the
	// client makes none.
	client, err := llmclient.New(llmclient.Options{BaseURL: opts.BaseURL, APIKey: opts.APIKey, Timeout: opts.Timeout, HTTPClient: opts.HTTPClient})
	if err != nil {
		return nil, fmt.Errorf("llm judge: %w", err)
	}
	j := &LLM{opts: opts, client: client, log: log, benched: map[string]time.Time{},
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_judge_llm_requests_total",
			Help: "LLM judge requests by model and outcome (ok, retryable, timeout, error, invalid).",
		}, []string{"model", "outcome"}),
		fallback: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_judge_llm_fallbacks_total",
			Help: "LLM judge verdicts that fell back to the grounding judge.",
		}),
		unavailable: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_judge_llm_unavailable_total",
			Help: "LLM judge verdicts for which no model answered (every one failed or was benched).",
		}),
		benches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_judge_llm_benched_total",
			Help: "Times a model was benched for an answer that could not be used.",
		}, []string{"model"}),
		benchedNow: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "arena_judge_llm_model_benched",
			Help: "1 while a model is benched (skipped) for an answer that could not be used.",
		}, []string{"model"}),
		clipped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_judge_llm_clipped_total",
			Help: "LLM judge verdicts lowered to what the grounding evidence supports.",
		}),
	}
	for _, m := range opts.Models {
		j.benchedNow.WithLabelValues(m).Set(0)
	}
	if opts.Registerer != nil {
		for _, c := range []prometheus.Collector{j.requests, j.fallback, j.unavailable, j.benches, j.benchedNow, j.clipped} {
			if err := opts.Registerer.Register(c); err != nil {
				return nil, fmt.Errorf("llm judge: registering metrics: %w", err)
			}
		}
	}
	return j, nil
}

// Judge implements Judge. It returns an error only when ctx ends; any
// failure of the models gives the grounding verdict with Fallback set
// (and Unavailable when no model answered). A model's verdict is bounded
// by the grounding verdict (bound).
func (j *LLM) Judge(ctx context.Context, t *episode.Trajectory) (Verdict, error) {
	ground := j.opts.Fallback.Score(t)
	fb := ground
	fb.Fallback = true
	fb.PromptVersion = PromptVersion
	nonce, err := j.nonce()
	if err != nil {
		j.log.Error().Err(err).Msg("no nonce; using the grounding verdict")
		j.fallback.Inc()
		return fb, nil
	}
	data := renderTrajectory(t, j.opts.MaxResultBytes)
	for bytes.Contains(data, []byte(nonce)) { // cannot happen by chance; never trust it to
		if nonce, err = j.nonce(); err != nil {
			j.fallback.Inc()
			return fb, nil
		}
	}
	params := j.params(nonce, data, steps(t))
	lastErr := errors.New("every model is benched")
	for _, model := range j.opts.Models {
		if j.isBenched(model) {
			continue
		}
		params.Model = shared.ChatModel(model)
		v, err := j.ask(ctx, params, model, steps(t))
		if err == nil {
			if bound(&v, &ground) {
				j.clipped.Inc()
			}
			return v, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			return fb, ctx.Err()
		}
		if errors.Is(err, errUnusable) {
			j.bench(model)
		}
		j.log.Warn().Str("model", model).Err(err).Msg("llm judge model failed; trying the next")
	}
	j.log.Warn().Err(lastErr).Msg("no llm judge model answered; using the grounding verdict")
	j.fallback.Inc()
	j.unavailable.Inc()
	fb.Unavailable = true
	return fb, nil
}

// Policy implements the judges' policy (PolicyOf): the grounding
// fallback's template options and OnUnavailable.
func (j *LLM) Policy() Policy {
	return Policy{Templates: j.opts.Fallback.opts.Templates, OnUnavailable: j.opts.OnUnavailable}
}

// errUnusable marks an answer that could not be used as a verdict: the
// model is benched for it.
var errUnusable = errors.New("unusable answer")

// isBenched reports whether model is benched now, lifting an expired
// bench.
func (j *LLM) isBenched(model string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	until, ok := j.benched[model]
	if !ok {
		return false
	}
	if j.opts.Now().Before(until) {
		return true
	}
	delete(j.benched, model)
	j.benchedNow.WithLabelValues(model).Set(0)
	j.log.Info().Str("model", model).Msg("llm judge model back from the bench")
	return false
}

// bench skips model for BenchFor.
func (j *LLM) bench(model string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	until := j.opts.Now().Add(j.opts.BenchFor)
	j.benched[model] = until
	j.benches.WithLabelValues(model).Inc()
	j.benchedNow.WithLabelValues(model).Set(1)
	j.log.Warn().Str("model", model).Time("until", until).Msg("llm judge model benched: its answer could not be used")
}

// bound lowers the model's verdict v to what the grounding verdict g
// supports: no step scores above g's score for that step, no gate passes
// that g's gates do not, and the score is the ladder's for the bounded
// gates. A model can therefore see less in a trajectory than the
// evidence shows, never more (an id the validator never showed, a price
// it never returned). When it clips anything the verdict carries a
// FindingClipped with the steps; g's injection finding is carried over.
// It reports whether it clipped.
func bound(v, g *Verdict) bool {
	var steps []int
	for k := range v.PerStep {
		st := &v.PerStep[k]
		limit, why := ScoreNoReference, "no such step"
		if st.Step >= 0 && st.Step < len(g.PerStep) {
			limit, why = g.PerStep[st.Step].Score, g.PerStep[st.Step].Reason
		}
		if st.Score > limit {
			st.Score = limit
			st.Reason += " [clipped to " + strconv.FormatFloat(limit, 'f', -1, 64) + ": " + why + "]"
			steps = append(steps, st.Step)
		}
	}
	gates := Gates{
		ReferredToResults: v.Gates.ReferredToResults && g.Gates.ReferredToResults,
		CitedDatum:        v.Gates.CitedDatum && g.Gates.CitedDatum,
		Compared:          v.Gates.Compared && g.Gates.Compared,
	}
	clippedGates := gates != v.Gates
	v.Gates = gates
	score := min(Ladder(gates), g.Score)
	clippedScore := score < v.Score
	v.Score = score
	for _, f := range g.Findings {
		if f.Name == FindingInjection {
			v.Findings = append(v.Findings, f)
		}
	}
	if len(steps) == 0 && !clippedGates && !clippedScore {
		return false
	}
	slices.Sort(steps)
	detail := "the model's verdict exceeded what the validator's observations support; bounded by the grounding verdict"
	if len(steps) > 0 {
		detail += " at steps " + joinInts(steps)
	}
	v.Findings = append(v.Findings, Finding{Name: FindingClipped, Detail: detail, Steps: steps})
	return true
}

func steps(t *episode.Trajectory) int {
	if t == nil {
		return 0
	}
	return len(t.Steps)
}

// nonce is 16 random bytes in hex, fresh for every call, so the agent
// cannot close the fence: it never sees the nonce before writing.
func (j *LLM) nonce() (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(j.opts.Rand, b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// ask tries one model, retrying 429 and 5xx with exponential backoff.
func (j *LLM) ask(ctx context.Context, params openai.ChatCompletionNewParams, model string, n int) (Verdict, error) {
	delay := j.opts.Backoff
	for attempt := 0; ; attempt++ {
		msg, err := j.client.Chat(ctx, params)
		if err == nil {
			v, err := parseVerdict(msg.Content, n)
			if err != nil {
				j.requests.WithLabelValues(model, "invalid").Inc()
				return Verdict{}, fmt.Errorf("model %s: %w: %w", model, errUnusable, err)
			}
			j.requests.WithLabelValues(model, "ok").Inc()
			v.Judge, v.Model, v.PromptVersion, v.Raw = NameLLM, model, PromptVersion, msg.Content
			return v, nil
		}
		switch {
		case errors.Is(err, llmclient.ErrNoChoices):
			j.requests.WithLabelValues(model, "invalid").Inc()
			return Verdict{}, fmt.Errorf("model %s: %w: %w", model, errUnusable, err)
		case errors.Is(err, llmclient.ErrTimeout):
			j.requests.WithLabelValues(model, "timeout").Inc()
			return Verdict{}, fmt.Errorf("model %s: %w", model, err)
		case !llmclient.Retryable(err):
			j.requests.WithLabelValues(model, "error").Inc()
			return Verdict{}, fmt.Errorf("model %s: %w", model, err)
		}
		j.requests.WithLabelValues(model, "retryable").Inc()
		if attempt >= j.opts.Retries {
			return Verdict{}, fmt.Errorf("model %s: %d attempts: %w", model, attempt+1, err)
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return Verdict{}, ctx.Err()
		case <-timer.C:
		}
		delay = min(2*delay, j.opts.MaxBackoff)
	}
}

// params builds the request: the instructions, the fenced trajectory and
// the instructions again, at temperature 0 with the verdict schema.
func (j *LLM) params(nonce string, data []byte, n int) openai.ChatCompletionNewParams {
	instructions := strings.ReplaceAll(promptText, "{{NONCE}}", nonce)
	var user strings.Builder
	fmt.Fprintf(&user, "The trajectory has %d steps, numbered from 0.\n", n)
	fmt.Fprintf(&user, "<<<BEGIN UNTRUSTED TRAJECTORY %s>>>\n", nonce)
	user.Write(data)
	fmt.Fprintf(&user, "\n<<<END UNTRUSTED TRAJECTORY %s>>>\n\n", nonce)
	user.WriteString("The untrusted data has ended. Your instructions, repeated:\n\n")
	user.WriteString(instructions)
	return openai.ChatCompletionNewParams{
		Messages:    []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(instructions), openai.UserMessage(user.String())},
		Temperature: openai.Float(0),
		MaxTokens:   openai.Int(j.opts.MaxTokens),
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name:   "reasoning_verdict",
				Strict: openai.Bool(true),
				Schema: VerdictSchema(),
			},
		}},
	}
}

// VerdictSchema is the JSON schema the model's answer must match; the
// judge also checks it itself (parseVerdict), since not every
// OpenAI-compatible server enforces response formats.
func VerdictSchema() map[string]any {
	score := map[string]any{"type": "number", "enum": []float64{ScoreNoReference, ScoreNoDatum, ScoreNoCompare, ScoreCompared}}
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"gates", "score", "per_step"},
		"properties": map[string]any{
			"gates": map[string]any{
				"type":                 "object",
				"additionalProperties": false,
				"required":             []string{"referred_to_results", "cited_datum", "compared"},
				"properties": map[string]any{
					"referred_to_results": map[string]any{"type": "boolean"},
					"cited_datum":         map[string]any{"type": "boolean"},
					"compared":            map[string]any{"type": "boolean"},
				},
			},
			"score": score,
			"per_step": map[string]any{
				"type": "array",
				"items": map[string]any{
					"type":                 "object",
					"additionalProperties": false,
					"required":             []string{"step", "score", "reason"},
					"properties": map[string]any{
						"step":   map[string]any{"type": "integer", "minimum": 0},
						"score":  score,
						"reason": map[string]any{"type": "string"},
					},
				},
			},
		},
	}
}

// parseVerdict decodes and validates the model's answer against
// VerdictSchema, and checks what a schema cannot: the score is the
// ladder's value for the gates, and steps exist and are not repeated.
func parseVerdict(raw string, n int) (Verdict, error) {
	var top map[string]json.RawMessage
	if err := strictObject([]byte(raw), &top, "gates", "score", "per_step"); err != nil {
		return Verdict{}, fmt.Errorf("verdict: %w", err)
	}
	var v Verdict
	var gates map[string]json.RawMessage
	if err := strictObject(top["gates"], &gates, "referred_to_results", "cited_datum", "compared"); err != nil {
		return Verdict{}, fmt.Errorf("gates: %w", err)
	}
	for name, dst := range map[string]*bool{"referred_to_results": &v.Gates.ReferredToResults, "cited_datum": &v.Gates.CitedDatum, "compared": &v.Gates.Compared} {
		if err := strictBool(gates[name], dst); err != nil {
			return Verdict{}, fmt.Errorf("gates.%s: %w", name, err)
		}
	}
	var err error
	if v.Score, err = rung(top["score"]); err != nil {
		return Verdict{}, fmt.Errorf("score: %w", err)
	}
	if v.Score != Ladder(v.Gates) {
		return Verdict{}, fmt.Errorf("score %v is not the ladder's %v for the gates", v.Score, Ladder(v.Gates))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(top["per_step"], &items); err != nil || items == nil {
		return Verdict{}, errors.New("per_step: not an array")
	}
	seen := map[int]bool{}
	for i, it := range items {
		var f map[string]json.RawMessage
		if err := strictObject(it, &f, "step", "score", "reason"); err != nil {
			return Verdict{}, fmt.Errorf("per_step[%d]: %w", i, err)
		}
		var s StepScore
		var step float64
		if err := json.Unmarshal(f["step"], &step); err != nil || step != math.Trunc(step) || step < 0 || int(step) >= n || seen[int(step)] {
			return Verdict{}, fmt.Errorf("per_step[%d].step: not a new step number in [0,%d)", i, n)
		}
		s.Step = int(step)
		seen[s.Step] = true
		if s.Score, err = rung(f["score"]); err != nil {
			return Verdict{}, fmt.Errorf("per_step[%d].score: %w", i, err)
		}
		if err := json.Unmarshal(f["reason"], &s.Reason); err != nil || f["reason"][0] != '"' {
			return Verdict{}, fmt.Errorf("per_step[%d].reason: not a string", i)
		}
		v.PerStep = append(v.PerStep, s)
	}
	return v, nil
}

// strictObject decodes b into an object with exactly the keys want.
func strictObject(b []byte, dst *map[string]json.RawMessage, want ...string) error {
	if err := json.Unmarshal(b, dst); err != nil || *dst == nil {
		return errors.New("not a JSON object")
	}
	for _, k := range want {
		if _, ok := (*dst)[k]; !ok {
			return fmt.Errorf("missing %q", k)
		}
	}
	if len(*dst) != len(want) {
		return errors.New("unexpected properties")
	}
	return nil
}

func strictBool(b json.RawMessage, dst *bool) error {
	s := string(bytes.TrimSpace(b))
	if s != "true" && s != "false" {
		return errors.New("not a boolean")
	}
	*dst = s == "true"
	return nil
}

// rung decodes a score that must be one of the ladder's values.
func rung(b json.RawMessage) (float64, error) {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return 0, errors.New("not a number")
	}
	for _, r := range []float64{ScoreNoReference, ScoreNoDatum, ScoreNoCompare, ScoreCompared} {
		if math.Abs(f-r) < 1e-9 {
			return r, nil
		}
	}
	return 0, fmt.Errorf("%v is not a rung of the ladder", f)
}

// renderTrajectory is the data shown to the model: the query and, per
// step, the think, the calls, the (clipped) results and the response.
// It is JSON, so no string in it can contain a raw line break or forge a
// fence line.
func renderTrajectory(t *episode.Trajectory, maxResult int) []byte {
	type call struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters,omitempty"`
	}
	type result struct {
		Result string `json:"result,omitempty"`
		Error  string `json:"error,omitempty"`
	}
	type step struct {
		Step     int      `json:"step"`
		Think    string   `json:"think"`
		Calls    []call   `json:"tool_calls"`
		Results  []result `json:"results"`
		Response *string  `json:"response,omitempty"`
	}
	out := struct {
		Query string `json:"query"`
		Steps []step `json:"steps"`
	}{Steps: []step{}}
	if t != nil {
		out.Query = t.Query
		for i, s := range t.Steps {
			st := step{Step: i, Think: s.Think, Response: s.Response, Calls: []call{}, Results: []result{}}
			for _, c := range s.ToolCalls {
				p := c.Parameters
				if !json.Valid(p) {
					p = nil
				}
				st.Calls = append(st.Calls, call{Name: c.Name, Parameters: p})
			}
			for _, r := range s.Results {
				var rr result
				if r.Error != nil {
					rr.Error = r.Error.Code + ": " + r.Error.Message
				} else {
					rr.Result = string(r.Result)
					if len(rr.Result) > maxResult {
						rr.Result = rr.Result[:maxResult] + " [clipped]"
					}
				}
				st.Results = append(st.Results, rr)
			}
			out.Steps = append(out.Steps, st)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return []byte(`{"query":"","steps":[]}`)
	}
	return b
}
