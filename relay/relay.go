package relay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"arena/config"
	"arena/episode"
	"arena/internal/llmclient"
)

// APIKeyEnv is the environment variable the provider's key is read from.
const APIKeyEnv = "ARENA_RELAY_API_KEY"

// Budget bounds one episode's use of the relay. A zero field means its
// default (DefaultBudget).
type Budget struct {
	Completions      int
	PromptTokens     int64
	CompletionTokens int64
	// WallTime bounds the summed provider time of the episode.
	WallTime time.Duration
	// MaxTokens bounds each completion's max_tokens; a request without
	// one is sent with the smaller of this and the completion tokens
	// left.
	MaxTokens int64
}

// DefaultBudget fits the reference LLM agent's longest episodes (30
// steps) with room: see docs/operations.md for the measured use.
func DefaultBudget() Budget {
	return Budget{Completions: 40, PromptTokens: 1_500_000, CompletionTokens: 60_000, WallTime: 240 * time.Second, MaxTokens: 2048}
}

func (b Budget) withDefaults() Budget {
	d := DefaultBudget()
	if b.Completions == 0 {
		b.Completions = d.Completions
	}
	if b.PromptTokens == 0 {
		b.PromptTokens = d.PromptTokens
	}
	if b.CompletionTokens == 0 {
		b.CompletionTokens = d.CompletionTokens
	}
	if b.WallTime == 0 {
		b.WallTime = d.WallTime
	}
	if b.MaxTokens == 0 {
		b.MaxTokens = d.MaxTokens
	}
	return b
}

// DailyBudget bounds one miner's use across episodes per UTC day; zero
// fields are unbounded.
type DailyBudget struct {
	Completions int
	Tokens      int64
}

// Options configure New.
type Options struct {
	// BaseURL is the provider's OpenAI-compatible API root (required).
	BaseURL string
	// Models is the allowlist (required): an infer naming another model
	// is refused model_not_allowed.
	Models []string
	// Required is announced to miners: steps that do not verify earn
	// nothing (the validator applies it when scoring).
	Required bool
	// Timeout bounds one provider call; default 60 s. The episode's wall
	// time budget left bounds it too.
	Timeout time.Duration
	Budget  Budget
	Daily   DailyBudget
	// MaxInferBytes is announced to miners (episode.Limits.MaxInferBytes).
	MaxInferBytes int
	// LookupEnv reads APIKeyEnv; default os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// HTTPClient replaces the default HTTP client (optional).
	HTTPClient *http.Client
	// AllowStandIn lets the allowlist and the answers name the offline
	// stand-in (config.StandInModel), for `arena practice --stand-in`
	// only: a validator never sets it, so it never credits a script.
	AllowStandIn bool
	// Now is the clock of the daily budget; default time.Now.
	Now func() time.Time
}

// Relay forwards miners' completions to the provider. It implements
// episode.Relay and is safe for concurrent use.
type Relay struct {
	opts   Options
	budget Budget
	client *llmclient.Client
	// transport is the relay's own (nil with Options.HTTPClient).
	transport *http.Transport
	log       zerolog.Logger
	m         *metrics

	mu    sync.Mutex
	daily map[string]*dayUse
}

type dayUse struct {
	day         string
	completions int
	tokens      int64
}

// New builds the relay. It makes no request.
func New(opts Options, log zerolog.Logger, reg prometheus.Registerer) (*Relay, error) {
	if opts.BaseURL == "" {
		return nil, errors.New("relay: relay.base_url is required")
	}
	if len(opts.Models) == 0 {
		return nil, errors.New("relay: relay.models is empty: name the models miners may use")
	}
	if slices.Contains(opts.Models, config.StandInModel) && !opts.AllowStandIn {
		// The stand-in is a script behind the chat wire format: relaying
		// it would verify scripted steps as a model's.
		return nil, fmt.Errorf("relay: relay.models names %s, the offline stand-in, which is not a model", config.StandInModel)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	if opts.MaxInferBytes <= 0 {
		opts.MaxInferBytes = episode.DefaultMaxInferBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	budget := opts.Budget.withDefaults()
	if budget.Completions < 1 || budget.PromptTokens < 1 || budget.CompletionTokens < 1 || budget.WallTime <= 0 || budget.MaxTokens < 1 {
		return nil, fmt.Errorf("relay: budget %+v: every bound must be positive", budget)
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	// A local provider may need no key, so an unset variable is not an
	// error; the key is never read from a file or a flag.
	key, _ := lookup(APIKeyEnv)
	var own *http.Transport
	if opts.HTTPClient == nil {
		// Every episode in flight may have a call at the provider: the
		// default transport keeps 2 idle connections per host, so most
		// calls of a race would open a new connection.
		own = http.DefaultTransport.(*http.Transport).Clone()
		own.MaxIdleConnsPerHost = maxIdleConns
		opts.HTTPClient = &http.Client{Transport: own}
	}
	client, err := llmclient.New(llmclient.Options{BaseURL: opts.BaseURL, APIKey: key, Timeout: opts.Timeout, HTTPClient: opts.HTTPClient,
		UserAgent: "arena-relay"})
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	return &Relay{opts: opts, budget: budget, client: client, transport: own, m: m, daily: map[string]*dayUse{},
		log: log.With().Str("component", "relay").Logger()}, nil
}

// maxIdleConns is the idle provider connections kept: one for each
// episode a race of 64 racers' 4 concurrent episodes has in flight.
const maxIdleConns = 256

// Close closes the relay's idle provider connections. Calls in flight
// finish; the relay stays usable.
func (r *Relay) Close() {
	if r.transport != nil {
		r.transport.CloseIdleConnections()
	}
}

// Models is the allowlist.
func (r *Relay) Models() []string { return slices.Clone(r.opts.Models) }

// Open implements episode.Relay.
func (r *Relay) Open(miner, episodeID string) episode.RelaySession {
	return &Session{r: r, miner: strings.ToLower(miner), episode: episodeID}
}

// Session is one episode's use of the relay.
type Session struct {
	r       *Relay
	miner   string
	episode string

	mu       sync.Mutex
	usage    episode.RelayUsage
	inflight int64 // completion tokens reserved by calls in flight
}

// Offer implements episode.RelaySession.
func (s *Session) Offer() episode.WireRelay {
	b := s.r.budget
	return episode.WireRelay{Models: s.r.Models(), Required: s.r.opts.Required, MaxCompletions: b.Completions,
		MaxPromptTokens: b.PromptTokens, MaxCompletionTokens: b.CompletionTokens, MaxInferBytes: s.r.opts.MaxInferBytes, MaxTokens: b.MaxTokens}
}

// Close implements episode.RelaySession.
func (s *Session) Close() episode.RelayUsage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// refusal is an infer answered without reaching the provider.
func refusal(code, format string, args ...any) *episode.InferResult {
	return &episode.InferResult{Error: &episode.InferError{Code: code, Message: fmt.Sprintf(format, args...)}}
}

// Infer implements episode.RelaySession: check, reserve the budget,
// forward, meter, record.
func (s *Session) Infer(ctx context.Context, req *episode.Infer) (*episode.InferResult, *episode.Completion) {
	r := s.r
	start := time.Now()
	obj, model, maxTokens, res := r.check(req.Body)
	if res == nil {
		res = s.reserve(len(req.Body), &maxTokens)
	}
	if res != nil {
		r.m.requests.WithLabelValues(res.Error.Code).Inc()
		s.mu.Lock()
		s.usage.Refused++
		s.mu.Unlock()
		return res, nil
	}
	// Every call is bounded: max_tokens is what the request asked, or
	// what the budget leaves (max_completion_tokens, its newer spelling,
	// is dropped so the provider sees one bound).
	delete(obj, "max_completion_tokens")
	obj["max_tokens"] = json.RawMessage(fmt.Sprint(maxTokens))
	body := encodeObject(obj)
	timeout := s.wallLeft()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t0 := time.Now()
	raw, resp, err := r.client.ChatRaw(cctx, body)
	took := time.Since(t0)
	rec := &episode.Completion{ID: newCompletionID(), RequestID: req.RequestID, Model: model, Request: body,
		TRequested: start, TAnswered: time.Now(), ProviderTime: took}
	s.mu.Lock()
	s.inflight -= maxTokens
	s.usage.ProviderTime += took
	s.mu.Unlock()
	r.m.provider.Observe(took.Seconds())
	if err == nil && resp.Model == config.StandInModel && !r.opts.AllowStandIn {
		// An operator pointed the relay at the offline stand-in under an
		// allowlisted name: its steps are a script's, never credited.
		err = fmt.Errorf("the provider answered as %s, the offline stand-in, which is not a model", config.StandInModel)
	}
	if err != nil {
		if ctx.Err() != nil {
			// The episode ended while the call was in flight: nobody is
			// waiting, and it is nobody's fault.
			r.m.requests.WithLabelValues("cancelled").Inc()
			return refusal(episode.InferNoEpisode, "the episode ended"), nil
		}
		if code := llmclient.StatusCode(err); code == 400 || code == 404 || code == 413 || code == 422 {
			r.m.requests.WithLabelValues(episode.InferBadRequest).Inc()
			s.mu.Lock()
			s.usage.Refused++
			s.mu.Unlock()
			return refusal(episode.InferBadRequest, "the provider refused the request: %s", episode.ClipText(err.Error(), 300)), nil
		}
		if cctx.Err() != nil && took >= timeout && timeout < r.opts.Timeout {
			r.m.requests.WithLabelValues(episode.InferBudgetExceeded).Inc()
			s.mu.Lock()
			s.usage.Refused++
			s.mu.Unlock()
			return refusal(episode.InferBudgetExceeded, "the episode's provider wall time (%s) ran out", r.budget.WallTime), nil
		}
		r.m.requests.WithLabelValues(episode.InferProviderError).Inc()
		r.log.Warn().Str("episode", s.episode).Str("model", model).Err(err).Msg("relay provider failed; the episode is flagged, not the miner")
		rec.Error = episode.InferProviderError
		rec.Response = nil
		s.mu.Lock()
		s.usage.ProviderFailures++
		s.mu.Unlock()
		return refusal(episode.InferProviderError, "the validator's provider failed (not your fault): %s", episode.ClipText(err.Error(), 300)), rec
	}
	u := episode.Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens, TotalTokens: resp.Usage.TotalTokens}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	rec.Response, rec.Usage = raw, u
	s.mu.Lock()
	s.usage.Completions++
	s.usage.PromptTokens += u.PromptTokens
	s.usage.CompletionTokens += u.CompletionTokens
	s.mu.Unlock()
	r.spendDaily(s.miner, u.TotalTokens)
	r.m.requests.WithLabelValues("ok").Inc()
	r.m.tokens.WithLabelValues("prompt").Add(float64(u.PromptTokens))
	r.m.tokens.WithLabelValues("completion").Add(float64(u.CompletionTokens))
	r.m.overhead.Observe((time.Since(start) - took).Seconds())
	return &episode.InferResult{CompletionID: rec.ID, Completion: raw, Usage: &u}, rec
}

// reserve checks the episode's and the day's budgets and reserves one
// completion and its completion tokens; *maxTokens is clamped to what is
// left.
func (s *Session) reserve(bodyBytes int, maxTokens *int64) *episode.InferResult {
	r := s.r
	b := r.budget
	s.mu.Lock()
	defer s.mu.Unlock()
	u := &s.usage
	switch {
	case u.Completions+u.ProviderFailures >= b.Completions:
		return refusal(episode.InferBudgetExceeded, "the episode's %d completions are spent", b.Completions)
	case u.PromptTokens+int64(bodyBytes/8) > b.PromptTokens:
		// A prompt has at least one token per 8 bytes of its body in
		// practice; the exact count is the provider's, after the call.
		return refusal(episode.InferBudgetExceeded, "the episode's %d prompt tokens are spent (%d used)", b.PromptTokens, u.PromptTokens)
	case u.ProviderTime >= b.WallTime:
		return refusal(episode.InferBudgetExceeded, "the episode's provider wall time (%s) is spent", b.WallTime)
	}
	left := b.CompletionTokens - u.CompletionTokens - s.inflight
	if left < 1 {
		return refusal(episode.InferBudgetExceeded, "the episode's %d completion tokens are spent", b.CompletionTokens)
	}
	if *maxTokens == 0 || *maxTokens > left {
		*maxTokens = min(left, b.MaxTokens)
	}
	if err := r.checkDaily(s.miner); err != nil {
		return err
	}
	s.inflight += *maxTokens
	return nil
}

func (s *Session) wallLeft() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return min(s.r.opts.Timeout, s.r.budget.WallTime-s.usage.ProviderTime)
}

func (r *Relay) checkDaily(miner string) *episode.InferResult {
	d := r.opts.Daily
	if d.Completions == 0 && d.Tokens == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.dayOf(miner)
	if d.Completions > 0 && u.completions >= d.Completions {
		return refusal(episode.InferBudgetExceeded, "this miner's %d completions for %s (UTC) are spent", d.Completions, u.day)
	}
	if d.Tokens > 0 && u.tokens >= d.Tokens {
		return refusal(episode.InferBudgetExceeded, "this miner's %d tokens for %s (UTC) are spent", d.Tokens, u.day)
	}
	return nil
}

func (r *Relay) spendDaily(miner string, tokens int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.dayOf(miner)
	u.completions++
	u.tokens += tokens
}

// dayOf is miner's use today; r.mu is held. Yesterday's entries are
// dropped as the day turns, so the map holds at most one day of miners.
func (r *Relay) dayOf(miner string) *dayUse {
	day := r.opts.Now().UTC().Format(time.DateOnly)
	u := r.daily[miner]
	if u == nil || u.day != day {
		for k, v := range r.daily {
			if v.day != day {
				delete(r.daily, k)
			}
		}
		u = &dayUse{day: day}
		r.daily[miner] = u
	}
	return u
}

// allowedKeys are the request body's fields the relay forwards; anything
// else is refused, so that every validator forwards the same requests.
var allowedKeys = map[string]bool{
	"model": true, "messages": true, "tools": true, "tool_choice": true, "parallel_tool_calls": true,
	"temperature": true, "top_p": true, "max_tokens": true, "max_completion_tokens": true, "seed": true, "stop": true,
	"presence_penalty": true, "frequency_penalty": true, "response_format": true, "reasoning_effort": true, "n": true, "stream": true,
}

// check validates an infer body and returns its fields to forward, its
// model and the max_tokens it asks for (0: none), or a refusal.
func (r *Relay) check(raw json.RawMessage) (map[string]json.RawMessage, string, int64, *episode.InferResult) {
	// gjson rather than encoding/json: validating and splitting the body
	// is the relay's one pass over the prompt, and encoding/json's took
	// seven times as long (BenchmarkCheck, docs/benchmarks.md).
	if !gjson.ValidBytes(raw) {
		return nil, "", 0, refusal(episode.InferBadRequest, "body is not a JSON object")
	}
	root := gjson.ParseBytes(raw)
	if !root.IsObject() {
		return nil, "", 0, refusal(episode.InferBadRequest, "body is not a JSON object")
	}
	obj := map[string]json.RawMessage{}
	root.ForEach(func(k, v gjson.Result) bool {
		obj[k.Str] = json.RawMessage(v.Raw) // a later duplicate wins, as with encoding/json
		return true
	})
	for k := range obj {
		if !allowedKeys[k] {
			return nil, "", 0, refusal(episode.InferBadRequest, "field %q is not relayed (docs/protocol.md, section 9)", episode.ClipText(k, 40))
		}
	}
	var model string
	if json.Unmarshal(obj["model"], &model) != nil || model == "" {
		return nil, "", 0, refusal(episode.InferBadRequest, "model is missing or not a string")
	}
	if !slices.Contains(r.opts.Models, model) {
		return nil, "", 0, refusal(episode.InferModelNotAllowed, "model %q is not on this subnet's allowlist %v", episode.ClipText(model, 80), r.opts.Models)
	}
	// The body is valid JSON (Unmarshal checked it); the shape of
	// messages and tools is read from their first bytes only, since a
	// deeper look would scan the whole prompt again on every completion,
	// and the provider answers a malformed one with 400, which is the
	// miner's bad_request all the same.
	if !startsArray(obj["messages"], '{') {
		return nil, "", 0, refusal(episode.InferBadRequest, "messages must be a non-empty array of objects")
	}
	if raw, ok := obj["tools"]; ok && !startsArray(raw, 0) {
		return nil, "", 0, refusal(episode.InferBadRequest, "tools must be an array")
	}
	if raw, ok := obj["stream"]; ok && string(raw) != "false" {
		return nil, "", 0, refusal(episode.InferBadRequest, "stream is not relayed: ask for one whole completion")
	}
	if raw, ok := obj["n"]; ok && string(raw) != "1" {
		return nil, "", 0, refusal(episode.InferBadRequest, "n must be 1")
	}
	bounds := []struct {
		key    string
		lo, hi float64
	}{{"temperature", 0, 2}, {"top_p", 0, 1}, {"presence_penalty", -2, 2}, {"frequency_penalty", -2, 2}}
	for _, b := range bounds {
		raw, ok := obj[b.key]
		if !ok {
			continue
		}
		var v float64
		if json.Unmarshal(raw, &v) != nil || v < b.lo || v > b.hi || math.IsNaN(v) {
			return nil, "", 0, refusal(episode.InferBadRequest, "%s must be a number in [%g, %g]", b.key, b.lo, b.hi)
		}
	}
	var maxTokens int64
	for _, key := range []string{"max_tokens", "max_completion_tokens"} {
		raw, ok := obj[key]
		if !ok {
			continue
		}
		var v int64
		if json.Unmarshal(raw, &v) != nil || v < 1 {
			return nil, "", 0, refusal(episode.InferBadRequest, "%s must be a positive integer", key)
		}
		if v > r.budget.MaxTokens {
			return nil, "", 0, refusal(episode.InferBudgetExceeded, "%s %d is above the relay's bound %d", key, v, r.budget.MaxTokens)
		}
		maxTokens = max(maxTokens, v)
	}
	return obj, model, maxTokens, nil
}

// startsArray reports whether raw (valid JSON) is an array whose first
// element begins with first; with first 0, an array, possibly empty.
func startsArray(raw json.RawMessage, first byte) bool {
	b := bytes.TrimLeft(raw, " \t\r\n")
	if len(b) == 0 || b[0] != '[' {
		return false
	}
	if first == 0 {
		return true
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	return len(b) > 0 && b[0] == first
}

// encodeObject writes obj as a JSON object with sorted keys, as
// json.Marshal would, but copies each value as it came: the values are
// the checked request's own, already valid JSON, and compacting them
// again would scan the whole prompt once more per completion.
func encodeObject(obj map[string]json.RawMessage) []byte {
	size := 2
	for k, v := range obj {
		size += len(k) + len(v) + 4
	}
	out := make([]byte, 0, size)
	out = append(out, '{')
	for i, k := range slices.Sorted(maps.Keys(obj)) {
		if i > 0 {
			out = append(out, ',')
		}
		out = strconv.AppendQuote(out, k) // an allowedKeys name: plain ASCII, quoted the same in Go and JSON
		out = append(out, ':')
		out = append(out, obj[k]...)
	}
	return append(out, '}')
}

func newCompletionID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "arc-" + hex.EncodeToString(b[:])
}
