package web

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/store"
	"arena/suite"
	"arena/validator"
	"arena/validator/records"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Validator is what the console reads of a running validator.
type Validator interface {
	// StatusBrief is the status document without suite statistics.
	StatusBrief(ctx context.Context) (validator.Status, error)
	// Leaderboard is every miner, ranked.
	Leaderboard() ([]validator.LeaderboardRow, error)
	Store() *store.Store
	Records() *records.Records
	Ledger() *suite.Ledger
}

// Options configure a Console.
type Options struct {
	// Validator is read for every page (required).
	Validator Validator
	// Refresh is how often Run reads new races into the race digests
	// (default 2s); SuiteRefresh how often it recounts the suite (30s).
	Refresh      time.Duration
	SuiteRefresh time.Duration
	// PublicRate and PublicBurst limit each client (clientKey) on the public
	// handler (requests per second and at once; defaults 5 and 20).
	PublicRate  float64
	PublicBurst int
	// Registerer receives the console's metrics (optional).
	Registerer prometheus.Registerer
}

// Console renders the pages. Build it with New, serve Operator and
// Public, and Run it to keep its caches fresh.
type Console struct {
	opts    Options
	log     zerolog.Logger
	tmpl    *template.Template
	static  http.Handler
	races   digests
	suite   suiteCache
	quals   qualCache
	limiter *ipLimiter
	m       consoleMetrics

	operator, public http.Handler
	refreshMu        sync.Mutex
}

type consoleMetrics struct {
	render  *prometheus.HistogramVec
	limited prometheus.Counter
}

// New parses the templates and builds both handlers.
func New(opts Options, log zerolog.Logger) (*Console, error) {
	if opts.Validator == nil {
		return nil, errors.New("web: no validator to show")
	}
	if opts.Refresh <= 0 {
		opts.Refresh = 2 * time.Second
	}
	if opts.SuiteRefresh <= 0 {
		opts.SuiteRefresh = 30 * time.Second
	}
	if opts.PublicRate <= 0 {
		opts.PublicRate = 5
	}
	if opts.PublicBurst <= 0 {
		opts.PublicBurst = 20
	}
	tmpl, err := template.New("console").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("web: templates: %w", err)
	}
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	c := &Console{opts: opts, log: log.With().Str("component", "web").Logger(), tmpl: tmpl, limiter: newIPLimiter(opts.PublicRate, opts.PublicBurst)}
	c.static = c.staticFiles(sub)
	c.m.render = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "arena_web_page_seconds",
		Help:    "Server time to build and render one console page, by page and listener.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1}}, []string{"page", "listener"})
	c.m.limited = prometheus.NewCounter(prometheus.CounterOpts{Name: "arena_web_public_rate_limited_total",
		Help: "Requests to the public console refused with 429 because their client (an IPv4 address or an IPv6 /64) exceeded web.public_rate."})
	if opts.Registerer != nil {
		for _, col := range []prometheus.Collector{c.m.render, c.m.limited} {
			if err := opts.Registerer.Register(col); err != nil {
				return nil, fmt.Errorf("web: register metrics: %w", err)
			}
		}
	}
	c.operator = c.routes(false)
	c.public = c.routes(true)
	return c, nil
}

// Operator serves every page, for the operator listener.
func (c *Console) Operator() http.Handler { return c.operator }

// Public serves the public pages, rate-limited per IP.
func (c *Console) Public() http.Handler { return c.public }

// Run refreshes the race digests and the suite statistics until ctx
// ends. Pages also refresh the digests on demand if Run has not loaded
// them yet, so a console that is not run still shows the truth.
func (c *Console) Run(ctx context.Context) error {
	c.refreshRaces()
	c.suite.refresh(ctx, c.opts.Validator.Ledger())
	races, suiteT := time.NewTicker(c.opts.Refresh), time.NewTicker(c.opts.SuiteRefresh)
	defer races.Stop()
	defer suiteT.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-races.C:
			before := c.newestRace()
			c.refreshRaces()
			if c.newestRace() != before {
				// A race drew hidden clusters: recount, so the overview's
				// pool and its clusters used in the last day agree.
				c.suite.refresh(ctx, c.opts.Validator.Ledger())
			}
		case <-suiteT.C:
			c.suite.refresh(ctx, c.opts.Validator.Ledger())
		}
	}
}

// Refresh brings the caches up to date now (tests and benchmarks call it
// instead of waiting for Run's tickers).
func (c *Console) Refresh(ctx context.Context) error {
	if err := c.refreshRaces(); err != nil {
		return err
	}
	c.suite.refresh(ctx, c.opts.Validator.Ledger())
	_, _, err := c.suite.get()
	return err
}

func (c *Console) refreshRaces() error {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	v := c.opts.Validator
	err := c.races.refresh(v.Store(), v.Records())
	if err != nil {
		c.log.Warn().Err(err).Msg("web: read new races")
	}
	return err
}

// newestRace is the id of the newest race in the digests (0: none).
func (c *Console) newestRace() uint64 {
	rows := c.races.snapshot()
	if len(rows) == 0 {
		return 0
	}
	return rows[len(rows)-1].ID
}

// raceRows is the digests, loading them first if Run has not.
func (c *Console) raceRows() ([]RaceRow, error) {
	c.races.mu.RLock()
	loaded := c.races.loaded
	c.races.mu.RUnlock()
	if !loaded {
		if err := c.refreshRaces(); err != nil {
			return nil, err
		}
	}
	return c.races.snapshot(), nil
}

// pageFunc builds one page's data. An error that is a *pageError is shown
// to the reader with its status; any other is a 500.
type pageFunc func(r *http.Request, public bool) (view any, err error)

type pageError struct {
	status int
	msg    string
}

func (e *pageError) Error() string { return e.msg }

func notFound(format string, args ...any) error {
	return &pageError{status: http.StatusNotFound, msg: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) error {
	return &pageError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

func (c *Console) routes(public bool) http.Handler {
	mux := http.NewServeMux()
	listener := "operator"
	if public {
		listener = "public"
	}
	page := func(name string, build pageFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { c.serve(w, r, name, listener, public, build) }
	}
	mux.HandleFunc("GET /{$}", page("overview", c.overview))
	mux.HandleFunc("GET /leaderboard", page("leaderboard", c.leaderboard))
	mux.HandleFunc("GET /races", page("races", c.raceList))
	mux.HandleFunc("GET /races/{id}", page("race", c.race))
	mux.HandleFunc("GET /episodes/{id}", page("episode", c.episode))
	mux.HandleFunc("GET /miners/{uid}", page("miner", c.miner))
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/static/icon.svg", http.StatusMovedPermanently)
	})
	mux.Handle("GET /static/", c.static)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		c.fail(w, r, public, &pageError{status: http.StatusNotFound, msg: "no such page: " + r.URL.Path})
	})
	var h http.Handler = mux
	if public {
		h = c.limit(h)
	}
	return securityHeaders(public, h)
}

// contentSecurityPolicy allows nothing but the console's own stylesheet
// and images: pages carry no script, and inline SVG is styled with
// presentation attributes, not style attributes.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self' data:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func securityHeaders(public bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		switch {
		case len(r.URL.Path) > 8 && r.URL.Path[:8] == "/static/":
			h.Set("Cache-Control", "public, max-age=3600")
		case public:
			// Shared caches may serve a page for a few seconds: a burst
			// of readers costs one render.
			h.Set("Cache-Control", "public, max-age=5")
		default:
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}

func (c *Console) serve(w http.ResponseWriter, r *http.Request, name, listener string, public bool, build pageFunc) {
	start := time.Now()
	defer func() { c.m.render.WithLabelValues(name, listener).Observe(time.Since(start).Seconds()) }()
	view, err := build(r, public)
	if err != nil {
		c.fail(w, r, public, err)
		return
	}
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, view)
		return
	}
	l := layout{Public: public, Page: name, JSON: jsonTwin(r), View: view}
	if !public {
		l.API = apiTwin(name, r)
	}
	c.render(w, http.StatusOK, name, l)
}

// layout is what every page template gets: the page's view under .View.
type layout struct {
	Public bool
	Page   string
	// JSON is the link to the page's JSON twin; API to the operator API's
	// document about the same thing, if there is one.
	JSON  string
	API   string
	View  any
	Error string
}

func (c *Console) render(w http.ResponseWriter, status int, name string, data layout) {
	var buf bytes.Buffer
	if err := c.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		c.log.Error().Err(err).Str("page", name).Msg("web: render page")
		http.Error(w, "the page could not be rendered; the validator's log says why", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func (c *Console) fail(w http.ResponseWriter, r *http.Request, public bool, err error) {
	status, msg := http.StatusInternalServerError, "the console could not read the validator's store"
	var pe *pageError
	if errors.As(err, &pe) {
		status, msg = pe.status, pe.msg
	} else {
		c.log.Error().Err(err).Str("path", r.URL.Path).Msg("web: build page")
		if !public {
			msg += ": " + err.Error()
		}
	}
	if wantsJSON(r) {
		writeJSON(w, status, map[string]string{"error": msg})
		return
	}
	c.render(w, status, "error", layout{Public: public, Page: "error", Error: msg})
}

// staticFiles serves the files under /static/ and nothing else: a
// directory (/static/ itself included) is a 404, not a listing of what the
// console embeds.
func (c *Console) staticFiles(fsys fs.FS) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, _ := strings.CutPrefix(r.URL.Path, "/static/")
		if fi, err := fs.Stat(fsys, name); err != nil || fi.IsDir() {
			c.fail(w, r, true, notFound("no such file: %s", clip(r.URL.Path, 80)))
			return
		}
		http.ServeFileFS(w, r, fsys, name)
	})
}

func wantsJSON(r *http.Request) bool { return r.URL.Query().Get("format") == "json" }

// jsonTwin is the request's URL with format=json.
func jsonTwin(r *http.Request) string {
	u := *r.URL
	q := u.Query()
	q.Set("format", "json")
	u.RawQuery = q.Encode()
	return u.RequestURI()
}

// apiTwin is the /api/v1 path about what page name shows, or "".
func apiTwin(name string, r *http.Request) string {
	switch name {
	case "overview":
		return "/api/v1/status"
	case "leaderboard", "races":
		return "/api/v1/" + name
	case "race":
		return "/api/v1/races/" + url.PathEscape(r.PathValue("id"))
	case "episode":
		return "/api/v1/episodes/" + url.PathEscape(r.PathValue("id"))
	}
	return ""
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func parseUint(s, what string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, badRequest("%s must be a non-negative integer, not %q", what, clip(s, 40))
	}
	return n, nil
}
