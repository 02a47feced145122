package shop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/shop/pyexec"
)

// Tool names, as ShoppingBench spells them.
const (
	ToolFindProduct            = "find_product"
	ToolViewProductInformation = "view_product_information"
	ToolRecommendProduct       = "recommend_product"
	ToolTerminate              = "terminate"
	ToolWebSearch              = "web_search"
	ToolPythonExecute          = "python_execute"
)

// ToolNames lists the tools in the order they are offered to agents:
// ShoppingBench's toolkit order (src/agent/toolkit/__init__.py), with
// python_execute, which its toolkit defines but does not list, last.
func ToolNames() []string {
	return []string{ToolFindProduct, ToolViewProductInformation, ToolRecommendProduct, ToolTerminate, ToolWebSearch, ToolPythonExecute}
}

// ErrorCode classifies a failed tool call, for metrics and for scorers
// that grade well-formed calls. The agent sees ToolError.Message.
type ErrorCode string

// Error codes.
const (
	CodeUnknownTool     ErrorCode = "unknown_tool"
	CodeBadArguments    ErrorCode = "bad_arguments"    // not a JSON object
	CodeMissingArgument ErrorCode = "missing_argument" // a required argument is absent
	CodeInvalidArgument ErrorCode = "invalid_argument" // present but unusable
	CodeNotFound        ErrorCode = "not_found"        // unknown product id
	CodeTooMany         ErrorCode = "too_many_ids"
	CodeRepeatedCall    ErrorCode = "repeated_call"   // Session: second recommend, call after terminate
	CodeExecution       ErrorCode = "execution_error" // python_execute: the code raised, hit a bound or used what is refused
	CodeUnavailable     ErrorCode = "unavailable"     // web_search without a corpus
	CodeCanceled        ErrorCode = "canceled"
	CodeInternal        ErrorCode = "internal"
)

// ToolError is the error observation of a failed call. Message is written
// for the agent: it names the tool, the argument and what is expected.
type ToolError struct {
	Code    ErrorCode
	Message string
}

func (e *ToolError) Error() string { return e.Message }

// Result is the outcome of one tool call: exactly one of Output (a JSON
// value) and Err is set.
type Result struct {
	Output json.RawMessage
	Err    *ToolError
}

// OK reports whether the call succeeded.
func (r Result) OK() bool { return r.Err == nil }

// WebResult is one web_search result, in ShoppingBench's shape
// (src/agent/toolkit/web_search.py): the page's url, title and a snippet
// of its text as content.
type WebResult struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Content string `json:"content"`
}

// WebSearcher answers web_search: at most n results for q, best first.
// Package knowledge implements it over the arena's offline corpus.
type WebSearcher interface {
	WebSearch(ctx context.Context, q string, n int) ([]WebResult, error)
}

// web_search's max_results, as in ShoppingBench: 1 to 20, default 10.
const (
	DefaultWebResults = 10
	MaxWebResults     = 20
)

// ToolsOptions configure NewTools.
type ToolsOptions struct {
	// Index is the catalog's search index (required).
	Index *Index
	// MaxViewIDs bounds view_product_information and recommend_product;
	// default 20.
	MaxViewIDs int
	// MaxQueryBytes bounds find_product's and web_search's q; default
	// 1000.
	MaxQueryBytes int
	// Web answers web_search. Without it the tool is still offered, as
	// in every ShoppingBench episode, and answers with an unavailable
	// error.
	Web WebSearcher
	// Python bounds python_execute; zero fields take pyexec's defaults.
	Python pyexec.Limits
}

// Tools executes agent tool calls against one catalog. It holds no
// per-episode state (see Session) and is safe for concurrent use by any
// number of episodes.
type Tools struct {
	idx      *Index
	cat      *Catalog
	maxIDs   int
	maxQuery int
	web      WebSearcher
	py       *pyexec.Evaluator
	log      zerolog.Logger
	calls    *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// NewTools builds the tool executor. reg may be nil to skip metrics
// registration.
func NewTools(opts ToolsOptions, log zerolog.Logger, reg prometheus.Registerer) (*Tools, error) {
	if opts.Index == nil {
		return nil, errors.New("shop tools: Index is required")
	}
	if opts.MaxViewIDs == 0 {
		opts.MaxViewIDs = 20
	}
	if opts.MaxQueryBytes == 0 {
		opts.MaxQueryBytes = 1000
	}
	if opts.MaxViewIDs < 1 || opts.MaxQueryBytes < 1 {
		return nil, fmt.Errorf("shop tools: MaxViewIDs %d and MaxQueryBytes %d must be positive", opts.MaxViewIDs, opts.MaxQueryBytes)
	}
	py, err := pyexec.New(opts.Python)
	if err != nil {
		return nil, fmt.Errorf("shop tools: %w", err)
	}
	t := &Tools{
		idx:      opts.Index,
		cat:      opts.Index.Catalog(),
		maxIDs:   opts.MaxViewIDs,
		maxQuery: opts.MaxQueryBytes,
		web:      opts.Web,
		py:       py,
		log:      log.With().Str("component", "shop.tools").Logger(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_shop_tool_calls_total",
			Help: "Agent tool calls by tool and outcome (ok or an error code).",
		}, []string{"tool", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "arena_shop_tool_duration_seconds",
			Help:    "Time to execute an agent tool call.",
			Buckets: []float64{50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2e-3, 5e-3, 10e-3, 20e-3, 50e-3, 100e-3, 500e-3},
		}, []string{"tool"}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{t.calls, t.latency} {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("shop tools: register metrics: %w", err)
			}
		}
	}
	return t, nil
}

// Catalog is the catalog the tools answer from.
func (t *Tools) Catalog() *Catalog { return t.cat }

// Restocked returns tools that answer from idx and web, a restock of this
// shop, with t's limits, interpreter and metrics. t is unchanged: an
// episode keeps the tools it started with, so a restock never changes the
// shop under an episode in flight.
func (t *Tools) Restocked(idx *Index, web WebSearcher) *Tools {
	u := *t
	u.idx, u.cat, u.web = idx, idx.Catalog(), web
	return &u
}

// Execute runs the tool called name with raw JSON arguments. It never
// panics: every problem, including an unknown tool, is an error Result.
func (t *Tools) Execute(ctx context.Context, name string, args json.RawMessage) (res Result) {
	start := time.Now()
	label := name
	if !isTool(name) {
		label = "unknown"
	}
	defer func() {
		if r := recover(); r != nil {
			if re, ok := r.(*ReadError); ok {
				t.log.Error().Str("tool", label).Err(re).Msg("tool call could not read the catalog")
			} else {
				t.log.Error().Str("tool", label).Interface("panic", r).Msg("tool call panicked")
			}
			res = failure(CodeInternal, "%s: internal error; the call was not executed", name)
		}
		outcome := "ok"
		if res.Err != nil {
			outcome = string(res.Err.Code)
		}
		t.calls.WithLabelValues(label, outcome).Inc()
		t.latency.WithLabelValues(label).Observe(time.Since(start).Seconds())
	}()
	if err := ctx.Err(); err != nil {
		return failure(CodeCanceled, "%s: not executed: %v", name, err)
	}
	if !isTool(name) {
		return failure(CodeUnknownTool, "unknown tool %q: available tools are %s", clip(name, 60), strings.Join(ToolNames(), ", "))
	}
	m, err := parseArgs(args)
	if err != nil {
		return failure(CodeBadArguments, "%s: %v", name, err)
	}
	switch name {
	case ToolFindProduct:
		return t.findProduct(m)
	case ToolViewProductInformation:
		return t.viewProducts(m)
	case ToolRecommendProduct:
		ids, terr := t.recommendIDs(m)
		if terr != nil {
			return Result{Err: terr}
		}
		return jsonText("Having recommended the products to the user: " + strings.Join(ids, ",") + ".")
	case ToolWebSearch:
		return t.webSearch(ctx, m)
	case ToolPythonExecute:
		return t.python(ctx, m)
	default: // ToolTerminate
		status, terr := terminateStatus(m)
		if terr != nil {
			return Result{Err: terr}
		}
		return jsonText("The interaction has been completed with status: " + status)
	}
}

func isTool(name string) bool {
	switch name {
	case ToolFindProduct, ToolViewProductInformation, ToolRecommendProduct, ToolTerminate, ToolWebSearch, ToolPythonExecute:
		return true
	}
	return false
}

func failure(code ErrorCode, format string, args ...any) Result {
	return Result{Err: &ToolError{Code: code, Message: fmt.Sprintf(format, args...)}}
}

func jsonText(s string) Result { return Result{Output: appendString(nil, s)} }

// clip shortens agent-supplied text echoed in an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// parseFind turns find_product's arguments into a request. The value
// parsers it uses (ParsePriceRange, ParseSort, ParseServices) are exported
// so callers that build a FindRequest themselves, such as the CLI, get
// exactly the semantics agents get.
func (t *Tools) parseFind(m argMap) (FindRequest, *ToolError) {
	bad := func(code ErrorCode, format string, args ...any) (FindRequest, *ToolError) {
		return FindRequest{}, &ToolError{Code: code, Message: ToolFindProduct + ": " + fmt.Sprintf(format, args...)}
	}
	q, ok, err := m.text("q")
	if err != nil {
		return bad(CodeInvalidArgument, "%v", err)
	}
	if !ok || strings.TrimSpace(q) == "" {
		return bad(CodeMissingArgument, "missing required argument \"q\": the words to search for, e.g. {\"q\": \"wireless earbuds\", \"page\": 1}")
	}
	if len(q) > t.maxQuery {
		return bad(CodeInvalidArgument, "q is %d bytes long; keep it under %d", len(q), t.maxQuery)
	}
	req := FindRequest{Query: q}
	page, ok, err := m.page()
	if err != nil {
		return bad(CodeInvalidArgument, "%v", err)
	}
	if !ok {
		return bad(CodeMissingArgument, "missing required argument \"page\": an integer from 1 to %d", MaxPages)
	}
	if page < 1 || page > MaxPages {
		return bad(CodeInvalidArgument, "page %d out of range: pages run from 1 to %d (%d results each, %d at most)", page, MaxPages, PageSize, MaxResults)
	}
	req.Page = page
	if req.ShopID, _, err = m.text("shop_id"); err != nil {
		return bad(CodeInvalidArgument, "%v", err)
	}
	req.ShopID = strings.TrimSpace(req.ShopID)
	price, _, err := m.text("price")
	if err != nil {
		return bad(CodeInvalidArgument, "%v", err)
	}
	if req.Price, err = ParsePriceRange(price); err != nil {
		return bad(CodeInvalidArgument, "%v", err)
	}
	sort, _, err := m.text("sort")
	if err != nil {
		return bad(CodeInvalidArgument, "%v", err)
	}
	if req.Sort, err = ParseSort(sort); err != nil {
		return bad(CodeInvalidArgument, "%v", err)
	}
	services, _, err := m.list("service")
	if err != nil {
		return bad(CodeInvalidArgument, "%v", err)
	}
	if req.Services, err = parseServiceList(services); err != nil {
		return bad(CodeInvalidArgument, "%v", err)
	}
	return req, nil
}

func (t *Tools) findProduct(m argMap) Result {
	req, terr := t.parseFind(m)
	if terr != nil {
		return Result{Err: terr}
	}
	res, err := t.idx.Find(req)
	if err != nil {
		return failure(CodeInvalidArgument, "%s: %v", ToolFindProduct, err)
	}
	return Result{Output: AppendSearchItems(nil, res.Items)}
}

// AppendSearchItems writes find_product's result: a JSON array of
// {product_id, shop_id, title, price, service, sold_count}.
func AppendSearchItems(dst []byte, items []*Product) []byte {
	return appendObjects(dst, items, func(dst []byte, p *Product) []byte {
		dst = append(dst, `{"product_id":`...)
		dst = appendString(dst, p.ProductID)
		dst = append(dst, `,"shop_id":`...)
		dst = appendString(dst, p.ShopID)
		dst = append(dst, `,"title":`...)
		dst = appendString(dst, p.Title)
		dst = append(dst, `,"price":`...)
		dst = appendPrice(dst, p.Price)
		dst = append(dst, `,"service":`...)
		dst = appendServices(dst, p.Service)
		dst = append(dst, `,"sold_count":`...)
		dst = strconv.AppendInt(dst, p.SoldCount, 10)
		return append(dst, '}')
	})
}

// AppendProductInfo writes view_product_information's result: a JSON array
// of {product_id, short_description, description, sku_options, attributes}.
func AppendProductInfo(dst []byte, items []*Product) []byte {
	return appendObjects(dst, items, func(dst []byte, p *Product) []byte {
		dst = append(dst, `{"product_id":`...)
		dst = appendString(dst, p.ProductID)
		dst = append(dst, `,"short_description":`...)
		dst = appendString(dst, p.ShortDescription)
		dst = append(dst, `,"description":`...)
		dst = appendString(dst, p.Description)
		dst = append(dst, `,"sku_options":`...)
		dst = appendSKUs(dst, p.SKUOptions)
		dst = append(dst, `,"attributes":`...)
		dst = appendAttributes(dst, p.Attributes)
		return append(dst, '}')
	})
}

// appendObjects writes items as a JSON array, one object per item.
func appendObjects(dst []byte, items []*Product, appendOne func([]byte, *Product) []byte) []byte {
	dst = append(dst, '[')
	for i, p := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendOne(dst, p)
	}
	return append(dst, ']')
}

// productIDs reads and checks a product_ids argument: present, at most
// maxIDs, all known. Repeated ids are kept once, in first-seen order.
func (t *Tools) productIDs(tool string, m argMap) ([]*Product, *ToolError) {
	ids, ok, err := m.list("product_ids")
	if err != nil {
		return nil, &ToolError{Code: CodeInvalidArgument, Message: tool + ": " + err.Error()}
	}
	if !ok || len(ids) == 0 {
		return nil, &ToolError{Code: CodeMissingArgument, Message: tool + ": missing required argument \"product_ids\": a comma-separated list such as \"3706669986,4428034196\""}
	}
	var uniq []string
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			uniq = append(uniq, id)
		}
	}
	if len(uniq) > t.maxIDs {
		return nil, &ToolError{Code: CodeTooMany, Message: fmt.Sprintf("%s: %d product_ids given; at most %d per call", tool, len(uniq), t.maxIDs)}
	}
	out := make([]*Product, 0, len(uniq))
	var unknown []string
	for _, id := range uniq {
		p, ok := t.cat.Product(id)
		if !ok {
			unknown = append(unknown, strconv.Quote(clip(id, 40)))
			continue
		}
		out = append(out, p)
	}
	if len(unknown) > 0 {
		noun := "product_id"
		if len(unknown) > 1 {
			noun = "product_ids"
		}
		return nil, &ToolError{Code: CodeNotFound, Message: fmt.Sprintf("%s: unknown %s %s; use ids returned by find_product", tool, noun, strings.Join(unknown, ", "))}
	}
	return out, nil
}

func (t *Tools) viewProducts(m argMap) Result {
	items, terr := t.productIDs(ToolViewProductInformation, m)
	if terr != nil {
		return Result{Err: terr}
	}
	return Result{Output: AppendProductInfo(nil, items)}
}

func (t *Tools) recommendIDs(m argMap) ([]string, *ToolError) {
	items, terr := t.productIDs(ToolRecommendProduct, m)
	if terr != nil {
		return nil, terr
	}
	ids := make([]string, len(items))
	for i, p := range items {
		ids[i] = p.ProductID
	}
	return ids, nil
}

// webSearch runs web_search: {"q": "...", "max_results": 1..20}.
func (t *Tools) webSearch(ctx context.Context, m argMap) Result {
	bad := func(code ErrorCode, format string, args ...any) Result {
		return failure(code, ToolWebSearch+": "+format, args...)
	}
	q, ok, err := m.text("q")
	if err != nil {
		return bad(CodeInvalidArgument, "%v", err)
	}
	if !ok || strings.TrimSpace(q) == "" {
		return bad(CodeMissingArgument, "missing required argument \"q\": what to look up, e.g. {\"q\": \"which country is the brand Sony from\"}")
	}
	if len(q) > t.maxQuery {
		return bad(CodeInvalidArgument, "q is %d bytes long; keep it under %d", len(q), t.maxQuery)
	}
	n := DefaultWebResults
	raw, ok, err := m.text("max_results")
	if err != nil {
		return bad(CodeInvalidArgument, "%v", err)
	}
	if ok {
		if n, err = strconv.Atoi(strings.TrimSpace(raw)); err != nil || n < 1 || n > MaxWebResults {
			return bad(CodeInvalidArgument, "max_results must be an integer from 1 to %d, got %q", MaxWebResults, clip(raw, 40))
		}
	}
	if t.web == nil {
		return bad(CodeUnavailable, "this validator has no web corpus to search")
	}
	res, err := t.web.WebSearch(ctx, q, n)
	if err != nil {
		if ctx.Err() != nil {
			return bad(CodeCanceled, "not executed: %v", ctx.Err())
		}
		t.log.Error().Err(err).Msg("web search failed")
		return bad(CodeInternal, "the search failed; the call was not executed")
	}
	out := []byte{'['}
	for i, r := range res[:min(len(res), n)] {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"url":`...)
		out = appendString(out, r.URL)
		out = append(out, `,"title":`...)
		out = appendString(out, r.Title)
		out = append(out, `,"content":`...)
		out = appendString(out, r.Content)
		out = append(out, '}')
	}
	return Result{Output: append(out, ']')}
}

// python runs python_execute: {"code": "..."}; the result is what the
// code printed, as a JSON string.
func (t *Tools) python(ctx context.Context, m argMap) Result {
	code, ok, err := m.text("code")
	if err != nil {
		return failure(CodeInvalidArgument, "%s: %v", ToolPythonExecute, err)
	}
	if !ok {
		return failure(CodeMissingArgument, "%s: missing required argument \"code\": Python code that prints its result, e.g. {\"code\": \"print(459 + 1299 - 200)\"}", ToolPythonExecute)
	}
	out, err := t.py.Run(ctx, code)
	if err != nil {
		if ctx.Err() != nil {
			return failure(CodeCanceled, "%s: not executed: %v", ToolPythonExecute, ctx.Err())
		}
		return failure(CodeExecution, "%s: %s", ToolPythonExecute, clip(err.Error(), 400))
	}
	return jsonText(out)
}

func terminateStatus(m argMap) (string, *ToolError) {
	s, ok, err := m.text("status")
	if err != nil {
		return "", &ToolError{Code: CodeInvalidArgument, Message: ToolTerminate + ": " + err.Error()}
	}
	if !ok || strings.TrimSpace(s) == "" {
		return "", &ToolError{Code: CodeMissingArgument, Message: ToolTerminate + ": missing required argument \"status\": success or failure"}
	}
	switch st := strings.ToLower(strings.TrimSpace(s)); st {
	case "success", "failure":
		return st, nil
	}
	return "", &ToolError{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: unknown status %q: want success or failure", ToolTerminate, clip(s, 40))}
}

// Session wraps Tools for one episode and enforces the episode rules:
// recommend_product succeeds at most once, and nothing runs after
// terminate. It records the accepted recommendation and the final status.
// A Session is safe for concurrent use, though an episode's calls are
// normally sequential.
type Session struct {
	t           *Tools
	mu          sync.Mutex
	recommended []string
	status      string
}

// NewSession starts an episode.
func (t *Tools) NewSession() *Session { return &Session{t: t} }

// Execute is Tools.Execute with the episode rules applied.
func (s *Session) Execute(ctx context.Context, name string, args json.RawMessage) Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status != "" {
		return s.t.count(name, failure(CodeRepeatedCall, "%s: the episode has already terminated", clip(name, 60)))
	}
	if name == ToolRecommendProduct && s.recommended != nil {
		return s.t.count(name, failure(CodeRepeatedCall, "%s: products were already recommended (%s); it can be used only once", name, strings.Join(s.recommended, ",")))
	}
	res := s.t.Execute(ctx, name, args)
	if !res.OK() {
		return res
	}
	// Record what the call did; both parses already succeeded inside
	// Execute, so they cannot fail here.
	m, _ := parseArgs(args)
	switch name {
	case ToolRecommendProduct:
		s.recommended, _ = s.t.recommendIDs(m)
	case ToolTerminate:
		s.status, _ = terminateStatus(m)
	}
	return res
}

// count records a call rejected by the session before reaching Execute.
func (t *Tools) count(name string, res Result) Result {
	label := name
	if !isTool(name) {
		label = "unknown"
	}
	t.calls.WithLabelValues(label, string(res.Err.Code)).Inc()
	return res
}

// Recommendation returns the accepted recommend_product ids, in order.
func (s *Session) Recommendation() ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.recommended...), s.recommended != nil
}

// Terminated returns the terminate status ("success" or "failure").
func (s *Session) Terminated() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status, s.status != ""
}
