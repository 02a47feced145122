package validator

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/config"
	"arena/scoring/race"
	"arena/store"
	"arena/suite"
	"arena/validator/records"
)

// ServerOptions configure the metrics listener: /metrics, /livez and
// /readyz, numbers and health that are safe to publish.
type ServerOptions struct {
	// Listen is host:port (metrics.listen).
	Listen string
	// Gatherer serves /metrics.
	Gatherer prometheus.Gatherer
	// Validator answers readiness.
	Validator *Validator
	// Listener, if set, is used instead of binding Listen (OpenStack binds
	// it first, so a port clash fails before anything slow starts).
	Listener net.Listener
}

// APIServerOptions configure the JSON API listener (/api/v1), which shows
// every miner's trajectories and verdicts.
type APIServerOptions struct {
	// Listen is host:port (api.listen).
	Listen string
	// Validator answers the API.
	Validator *Validator
	// Token, if set, must come as "Authorization: Bearer TOKEN" on every
	// request (api.allow_remote with api.token_file).
	Token string
	// Listener, if set, is used instead of binding Listen.
	Listener net.Listener
	// Pages, if set, serves every path outside /api/v1 (the web
	// console's operator pages), behind the same token.
	Pages http.Handler
	// AllowedHosts are host names or IPs (api.allowed_hosts, as
	// config.ParseHosts gives them) that requests may name in their Host
	// header besides Listen's host and loopback.
	AllowedHosts []string
	// Pprof serves Go's /debug/pprof/ on this listener (api.pprof).
	Pprof bool
}

// PublicServerOptions configure the public web listener (web.public_listen):
// the console's public pages only, with no operator endpoint.
type PublicServerOptions struct {
	Listen   string
	Listener net.Listener
	// Pages serves every path (the web console's public handler).
	Pages http.Handler
}

// Listen binds an operator address (key names its config key) with a
// clear error.
func Listen(addr, key string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("operator listener %s (%s): %w", addr, key, err)
	}
	return ln, nil
}

// Server is one operator listener: the metrics surface (NewServer) or the
// read-only JSON API (NewAPIServer).
type Server struct {
	log    zerolog.Logger
	srv    *http.Server
	ln     net.Listener
	routes string
	// console is the web console's path on this listener ("" for none).
	console string
	// public: the public web listener, which serves no operator endpoint.
	public bool
	v      *Validator
}

// NewServer binds the metrics listener (so a port clash fails before
// anything starts) and serves /metrics, /livez and /readyz on it.
func NewServer(opts ServerOptions, log zerolog.Logger) (*Server, error) {
	ln := opts.Listener
	if ln == nil {
		var err error
		if ln, err = Listen(opts.Listen, "metrics.listen"); err != nil {
			return nil, err
		}
	}
	s := &Server{log: log.With().Str("component", "operator-http").Logger(), ln: ln, routes: "/metrics /livez /readyz", v: opts.Validator}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(opts.Gatherer, promhttp.HandlerOpts{ErrorLog: nil}))
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", s.readyz)
	s.srv = newHTTPServer(mux)
	return s, nil
}

// NewAPIServer binds the API listener and serves /api/v1 on it, behind
// the bearer token when one is given. A non-loopback address without a
// token is refused: the API shows every miner's trajectories. Only
// requests that name an allowed host (hostGuard) reach the API or the
// pages; reg receives the count of the others.
func NewAPIServer(opts APIServerOptions, log zerolog.Logger, reg prometheus.Registerer) (*Server, error) {
	if host, _, err := net.SplitHostPort(opts.Listen); err == nil && !config.IsLoopbackHost(host) && opts.Token == "" {
		return nil, fmt.Errorf("api.listen %s is not a loopback address and no api.token_file is set: the API shows every miner's trajectories", opts.Listen)
	}
	refused := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_api_refused_requests_total",
		Help: "Requests to api.listen refused before any handler: reason host (421, a Host header not allowed: a DNS-rebinding page or a misdirected proxy) or origin (403, sent from another site)."},
		[]string{"reason"})
	if reg != nil {
		if err := reg.Register(refused); err != nil {
			return nil, fmt.Errorf("operator API: register metrics: %w", err)
		}
	}
	ln := opts.Listener
	if ln == nil {
		var err error
		if ln, err = Listen(opts.Listen, "api.listen"); err != nil {
			return nil, err
		}
	}
	s := &Server{log: log.With().Str("component", "operator-api").Logger(), ln: ln, routes: "/api/v1", v: opts.Validator}
	mux := http.NewServeMux()
	s.handleAPI(mux)
	if opts.Pprof {
		servePprof(mux)
		s.routes += " /debug/pprof/"
	}
	if opts.Pages != nil {
		mux.Handle("GET /", opts.Pages)
		s.console = "/"
	}
	var h http.Handler = mux
	if opts.Pages != nil {
		h = linkPages(mux)
	}
	if opts.Token != "" {
		h = requireBearer(opts.Token, h)
	}
	// The guard goes outside the token check: a request from a rebinding
	// page is refused before it is even challenged.
	s.srv = newHTTPServer(hostGuard(allowedHosts(opts.Listen, opts.AllowedHosts), refused, h))
	return s, nil
}

// loopbackNames are the names a browser on the validator's machine (or at
// the end of an SSH tunnel) uses for a loopback listener.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// allowedHosts is the set of hosts the API listener answers to: its
// configured host (unless it is the unspecified address, which no browser
// names), loopback, and the operator's list.
func allowedHosts(listen string, extra []string) map[string]bool {
	set := map[string]bool{}
	for _, h := range loopbackNames {
		set[h] = true
	}
	if host, _, err := net.SplitHostPort(listen); err == nil && host != "" {
		if ip, err := netip.ParseAddr(host); err != nil || !ip.IsUnspecified() {
			set[config.HostOf(host)] = true
		}
	}
	for _, h := range extra {
		set[config.HostOf(h)] = true
	}
	return set
}

// hostGuard lets through only requests whose Host header names an allowed
// host (else 421 Misdirected Request), and that, if they carry an Origin
// header, come from this very origin (else 403). A DNS-rebinding page
// makes the victim's browser send its own name (attacker.example:9101) to
// a loopback address it resolved that name to; without this, with no
// token set (the default loopback set-up), it could read every miner's
// trajectories and the salt of a weights commit not revealed yet. The
// console carries no script and no form, so a browser has no reason to
// send an Origin from anywhere else: a page elsewhere that fetches from
// here is refused even when the browser would attach the operator's cached
// Basic credentials. Neither answer says anything of the validator.
func hostGuard(allowed map[string]bool, refused *prometheus.CounterVec, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed[config.HostOf(r.Host)] {
			refused.WithLabelValues("host").Inc()
			refuse(w, http.StatusMisdirectedRequest, "misdirected request: this listener answers only to its own host names (api.listen, loopback and api.allowed_hosts)")
			return
		}
		if origin, ok := r.Header["Origin"]; ok && !sameOrigin(origin, r.Host) {
			refused.WithLabelValues("origin").Inc()
			refuse(w, http.StatusForbidden, "forbidden: a request sent from another site")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether an Origin header names http(s)://host with
// host the request's own Host. "null" (a sandboxed frame, a local file, a
// redirect across sites) is no origin of this listener.
func sameOrigin(origin []string, host string) bool {
	if len(origin) != 1 {
		return false
	}
	u, err := url.Parse(origin[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" || u.User != nil {
		return false
	}
	return strings.EqualFold(u.Host, host)
}

// refuse answers a request that never reaches a handler: a fixed line of
// text, never cached.
func refuse(w http.ResponseWriter, code int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, msg+"\n")
}

// NewPublicServer binds web.public_listen and serves the console's public
// pages on it: nothing of the operator API, metrics or unexposed problems.
func NewPublicServer(opts PublicServerOptions, log zerolog.Logger) (*Server, error) {
	if opts.Pages == nil {
		return nil, errors.New("public web listener: no pages to serve")
	}
	ln := opts.Listener
	if ln == nil {
		var err error
		if ln, err = Listen(opts.Listen, "web.public_listen"); err != nil {
			return nil, err
		}
	}
	s := &Server{log: log.With().Str("component", "public-web").Logger(), ln: ln, routes: "public web console (pages only)", console: "/", public: true}
	s.srv = newHTTPServer(opts.Pages)
	return s, nil
}

// linkPages adds to each API answer a Link header naming its page in the
// web console (/api/v1/races/7 is /races/7; /api/v1/status is /), as the
// pages link back to their JSON.
func linkPages(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/api/v1/"); ok && rest != "" {
			page := "/" + rest
			if rest == "status" {
				page = "/"
			}
			w.Header().Set("Link", "<"+page+`>; rel="alternate"; type="text/html"`)
		}
		next.ServeHTTP(w, r)
	})
}

func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 60 * time.Second}
}

// requireBearer answers 401 to a request without "Authorization: Bearer
// token" (compared in constant time). A browser, which cannot send a
// bearer token by itself, may give the token as the password of HTTP
// Basic authentication (any user name): pages outside /api/ ask for it.
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok := subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) == 1
		if _, pass, basic := r.BasicAuth(); !ok && basic {
			ok = subtle.ConstantTimeCompare([]byte(pass), []byte(token)) == 1
		}
		if !ok {
			if strings.HasPrefix(r.URL.Path, "/api/") {
				w.Header().Set("WWW-Authenticate", `Bearer realm="arena"`)
			} else {
				w.Header().Set("WWW-Authenticate", `Basic realm="arena validator (any user name; the password is the token of api.token_file)", charset="UTF-8"`)
			}
			writeError(w, http.StatusUnauthorized, "this API needs the bearer token of api.token_file")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Addr is the bound address (useful with port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Run serves until ctx ends, then shuts down gracefully.
func (s *Server) Run(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(s.ln) }()
	ev := s.log.Info().Str("listen", s.Addr())
	if s.console != "" {
		ev = ev.Str("web_console", "http://"+s.Addr()+s.console)
	}
	if s.public {
		ev.Msg(s.routes)
	} else {
		ev.Msg("operator endpoints: " + s.routes)
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(shut)
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	ok, why := s.v.Ready()
	if !ok {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ready": false, "waiting_for": why})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ready": true})
}

// Status is /api/v1/status.
type Status struct {
	Validator string `json:"validator"`
	Hotkey    string `json:"hotkey"`
	UID       int    `json:"uid"`
	Netuid    uint16 `json:"netuid"`
	Ready     bool   `json:"ready"`
	// NotReady says why the validator is not ready (as /readyz does).
	NotReady    []string            `json:"not_ready,omitempty"`
	HeadBlock   uint64              `json:"head_block"`
	HeadAge     float64             `json:"head_age_seconds"`
	Phase       string              `json:"phase"`
	CurrentRace uint64              `json:"current_race,omitempty"`
	Races       uint64              `json:"races"`
	Leader      *race.Leader        `json:"leader,omitempty"`
	Qualifiers  []race.Qualifying   `json:"qualifiers"`
	Bar         float64             `json:"bar"`
	LastWeights *records.Submission `json:"last_weights,omitempty"`
	Suite       suite.Stats         `json:"suite"`
	Serving     int                 `json:"serving_miners"`
	Neurons     int                 `json:"neurons"`
	LastRace    *records.Race       `json:"last_race,omitempty"`
	// HiddenClustersUsed24h is how many hidden clusters the races drawn in
	// the last 24 hours (wall clock) consumed: the rate the hidden pool
	// must be refilled at.
	HiddenClustersUsed24h int `json:"hidden_clusters_used_24h"`
	// Subnet is the subnet's mechanism count and MinerBurned as last read
	// from the chain (absent on a chain without the StorageQuery precompile).
	Subnet *chain.SubnetShare `json:"subnet,omitempty"`
	// Epochs is the subnet's epoch schedule as last read from the chain
	// (absent before a weights step read it, or without StorageQuery).
	Epochs *chain.EpochSchedule `json:"epochs,omitempty"`
	// NextRaceBlock is the first block of the next race window.
	NextRaceBlock uint64 `json:"next_race_block"`
	// BlockSeconds is the measured average time between heads (0 until two
	// heads arrived); with it, next_race_block is about
	// (next_race_block - head_block) * block_seconds seconds away.
	BlockSeconds float64 `json:"block_seconds,omitempty"`
}

// StatusNow assembles the status document.
func (v *Validator) StatusNow(ctx context.Context) (Status, error) {
	st, err := v.StatusBrief(ctx)
	if err != nil {
		return st, err
	}
	if st.Suite, err = v.opts.Ledger.Stats(ctx); err != nil {
		return st, err
	}
	c, err := v.Capacity(ctx)
	st.Suite.Capacity = &c
	return st, err
}

// StatusBrief is StatusNow without the suite's statistics, which read
// every cluster: the web console keeps those on its own, refreshed in the
// background, so that no page waits on a scan of the suite.
func (v *Validator) StatusBrief(ctx context.Context) (Status, error) {
	meta, _, self := v.snapshot()
	v.mu.Lock()
	head, seen, busy, share, sched, perBlock := v.head, v.headSeen, v.raceBusy, v.share, v.schedule, v.blockSeconds
	v.mu.Unlock()
	ready, why := v.Ready()
	st := Status{Validator: v.opts.Signer.Address.Hex(), Hotkey: v.opts.Signer.Hotkey().SS58(), UID: self,
		Netuid: v.opts.Netuid, Ready: ready, NotReady: why, HeadBlock: head.Number, Phase: "idle", Qualifiers: []race.Qualifying{}}
	if !seen.IsZero() {
		st.HeadAge = time.Since(seen).Seconds()
	}
	st.NextRaceBlock = (head.Number/v.opts.RaceEveryBlocks + 1) * v.opts.RaceEveryBlocks
	st.BlockSeconds = perBlock
	if meta != nil {
		st.Neurons = len(meta.Neurons)
	}
	if share != nil {
		sh := *share
		st.Subnet = &sh
	}
	if sched != nil {
		s := *sched
		st.Epochs = &s
	}
	err := v.opts.Store.View(func(txn *badger.Txn) error {
		rs, err := v.rec.GetState(txn)
		if err != nil {
			return err
		}
		st.Races, st.Leader, st.CurrentRace = rs.State.Races, rs.State.Leader, rs.Current
		if rs.Current != 0 {
			if rc, ok, err := v.rec.GetRace(txn, rs.Current); err == nil && ok {
				st.Phase = string(rc.Phase)
			}
		} else if busy {
			st.Phase = "preparing"
		}
		quals, miners, err := v.qualifyingSnapshot(txn)
		if err != nil {
			return err
		}
		for _, m := range miners {
			if m.Endpoint != "" {
				st.Serving++
			}
		}
		if out, err := v.raceView(rs.State, quals, head.Number); err == nil {
			st.Qualifiers, st.Bar = out.Qualifiers, out.Bar
		}
		if last, ok, err := v.rec.LastSubmission(txn); err != nil {
			return err
		} else if ok {
			st.LastWeights = &last
		}
		st.HiddenClustersUsed24h, st.LastRace, err = recentRaces(func(fn func(*records.Race) error) error {
			return v.rec.ForEachRaceBack(txn, fn)
		}, time.Now().Add(-24*time.Hour))
		return err
	})
	return st, err
}

// recentRaces walks races newest first (as records.ForEachRaceBack does)
// only as far back as it must: it counts the hidden clusters of the races
// drawn at or after since (aborted races count: their clusters were
// exposed) and finds the last decided race.
func recentRaces(newestFirst func(func(*records.Race) error) error, since time.Time) (clusters int, lastDone *records.Race, err error) {
	err = newestFirst(func(rc *records.Race) error {
		inWindow := !rc.StartedAt.Before(since)
		if inWindow {
			clusters += len(rc.Clusters)
		}
		if lastDone == nil && rc.Phase == records.PhaseDone {
			lastDone = rc
		}
		if !inWindow && lastDone != nil {
			return store.ErrStop
		}
		return nil
	})
	return clusters, lastDone, err
}

// raceView applies the race rule, without a race, to the stored state and
// qualifying results at head: who qualifies now, at what bar. Status and
// the standing gauges both read it.
func (v *Validator) raceView(s race.State, quals []race.Qualifying, head uint64) (race.Output, error) {
	out, _, err := v.opts.Race.Step(s, race.Input{Block: max(head, s.LastBlock), Qualifying: quals})
	return out, err
}

// standing is the leader's uid (-1 for none) and the number of qualifiers,
// as StatusNow reports them.
func (v *Validator) standing() (leader, qualifiers int, err error) {
	v.mu.Lock()
	head := v.head.Number
	v.mu.Unlock()
	leader = -1
	err = v.opts.Store.View(func(txn *badger.Txn) error {
		rs, err := v.rec.GetState(txn)
		if err != nil {
			return err
		}
		if rs.State.Leader != nil {
			leader = int(rs.State.Leader.UID)
		}
		quals, _, err := v.qualifyingSnapshot(txn)
		if err != nil {
			return err
		}
		out, err := v.raceView(rs.State, quals, head)
		qualifiers = len(out.Qualifiers)
		return err
	})
	return leader, qualifiers, err
}

// LeaderboardRow is one miner on /api/v1/leaderboard.
type LeaderboardRow struct {
	UID         uint16   `json:"uid"`
	Hotkey      string   `json:"hotkey"`
	Leader      bool     `json:"leader"`
	Qualifying  *float64 `json:"qualifying_score,omitempty"`
	QualifiedAt uint64   `json:"qualified_at,omitempty"`
	LastRace    *float64 `json:"last_race_score,omitempty"`
	Skipped     string   `json:"skipped,omitempty"`
	// Status is "serving", "qualifying" (a run in flight), "backing off"
	// (unreachable at its last attempt; RetryBlock says when it is tried
	// again) or "not serving" (Skipped says why).
	Status     MinerStatus `json:"status"`
	RetryBlock uint64      `json:"retry_block,omitempty"`
	// FailedAttempts counts the qualifying attempts that found it
	// unreachable in a row.
	FailedAttempts int `json:"failed_attempts,omitempty"`
}

// MinerStatus is where the validator stands with a miner.
type MinerStatus string

// Miner statuses.
const (
	MinerServing    MinerStatus = "serving"
	MinerQualifying MinerStatus = "qualifying"
	MinerBackingOff MinerStatus = "backing off"
	MinerNotServing MinerStatus = "not serving"
)

// ScoreCells renders the row's qualifying and last-race scores for a
// terminal table, the same in `arena status` and `arena dev`: three
// decimals, or "-" for a score the miner does not have yet.
func (r LeaderboardRow) ScoreCells() (qualifying, lastRace string) {
	cell := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.3f", *p)
	}
	return cell(r.Qualifying), cell(r.LastRace)
}

// Leaderboard ranks miners: the leader first, then by last race score and
// qualifying score.
func (v *Validator) Leaderboard() ([]LeaderboardRow, error) {
	var rows []LeaderboardRow
	v.mu.Lock()
	head := v.head.Number
	retry, inFlight := maps.Clone(v.retry), maps.Clone(v.qualifying)
	v.mu.Unlock()
	err := v.opts.Store.View(func(txn *badger.Txn) error {
		rs, err := v.rec.GetState(txn)
		if err != nil {
			return err
		}
		miners, err := v.rec.ListMiners(txn)
		if err != nil {
			return err
		}
		last := map[uint16]float64{}
		err = v.rec.ForEachRaceBack(txn, func(rc *records.Race) error {
			if rc.Phase != records.PhaseDone {
				return nil
			}
			for _, r := range rc.Results {
				last[r.UID] = r.Score
			}
			return store.ErrStop
		})
		if err != nil {
			return err
		}
		for _, m := range miners {
			row := LeaderboardRow{UID: m.UID, Hotkey: m.Hotkey, Skipped: m.Skipped}
			row.Leader = rs.State.Leader != nil && rs.State.Leader.UID == m.UID && rs.State.Leader.Hotkey == m.Hotkey
			if m.Qualifying != nil {
				q := m.Qualifying.Score
				row.Qualifying, row.QualifiedAt = &q, m.Qualifying.Block
			}
			if sc, ok := last[m.UID]; ok {
				row.LastRace = &sc
			}
			switch r := retry[m.UID]; {
			case m.Endpoint == "" || m.Skipped != "":
				row.Status = MinerNotServing
			case inFlight[m.UID]:
				row.Status = MinerQualifying
			case r.after > head:
				row.Status, row.RetryBlock, row.FailedAttempts = MinerBackingOff, r.after, r.failures
			default:
				row.Status = MinerServing
			}
			rows = append(rows, row)
		}
		return nil
	})
	val := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Leader != b.Leader {
			return a.Leader
		}
		if val(a.LastRace) != val(b.LastRace) {
			return val(a.LastRace) > val(b.LastRace)
		}
		if val(a.Qualifying) != val(b.Qualifying) {
			return val(a.Qualifying) > val(b.Qualifying)
		}
		return a.UID < b.UID
	})
	return rows, err
}

// LiveRace is all the API shows of a race that is not decided yet
// (records.LiveRace).
type LiveRace = records.LiveRace

// publicRace is what the API may show of rc: the record itself once the
// race is decided or aborted, its LiveRace view before.
func publicRace(rc *records.Race) any {
	if !rc.Phase.Live() {
		return rc
	}
	return records.LiveOf(rc, -1)
}

// Races lists the last limit races as the API may show them, newest
// first.
func (v *Validator) Races(limit int) ([]any, error) {
	var races []records.Race
	if err := v.opts.Store.View(func(txn *badger.Txn) (err error) { races, err = v.rec.ListRaces(txn, limit); return err }); err != nil {
		return nil, err
	}
	out := make([]any, len(races))
	for i := range races {
		out[i] = publicRace(&races[i])
	}
	return out, nil
}

// RaceForView reads race id as it may be shown (records.RaceForView).
func (v *Validator) RaceForView(id uint64) (view records.RaceView, found bool, err error) {
	err = v.opts.Store.View(func(txn *badger.Txn) error {
		view, found, err = v.rec.RaceForView(txn, id)
		return err
	})
	return view, found, err
}

// EpisodeDoc is /api/v1/episodes/{id}.
type EpisodeDoc struct {
	Episode records.Episode  `json:"episode"`
	Verdict *records.Verdict `json:"verdict,omitempty"`
}

// EpisodeForView reads episode id as it may be shown
// (records.EpisodeForView: a *records.LiveError while its race is not
// decided).
func (v *Validator) EpisodeForView(id string) (doc EpisodeDoc, found bool, err error) {
	err = v.opts.Store.View(func(txn *badger.Txn) error {
		doc.Episode, doc.Verdict, found, err = v.rec.EpisodeForView(txn, id)
		return err
	})
	return doc, found, err
}

// apiFunc answers one API request with a document or an error.
type apiFunc func(r *http.Request) (any, error)

// apiError is an error the client is told: its status and text.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func apiErrorf(status int, format string, args ...any) error {
	return &apiError{status: status, msg: fmt.Sprintf(format, args...)}
}

// handleAPI routes each /api/v1 path to its answer on mux.
func (s *Server) handleAPI(mux *http.ServeMux) {
	for path, fn := range map[string]apiFunc{
		"/api/v1/status":        s.status,
		"/api/v1/leaderboard":   s.leaderboard,
		"/api/v1/races":         s.races,
		"/api/v1/races/{id}":    s.race,
		"/api/v1/episodes/{id}": s.episode,
	} {
		mux.HandleFunc("GET "+path, s.api(fn))
	}
}

// api serves fn's document as JSON. An *apiError is sent with its status
// and text, and an episode of an undecided race is a 403 saying so; any
// other error is logged here and the client gets a 500 that names no
// internal detail.
func (s *Server) api(fn apiFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		doc, err := fn(r)
		if err == nil {
			writeJSON(w, http.StatusOK, doc)
			return
		}
		var (
			ae   *apiError
			live *records.LiveError
		)
		switch {
		case errors.As(err, &ae):
			writeError(w, ae.status, ae.msg)
		case errors.As(err, &live):
			writeError(w, http.StatusForbidden, live.Error())
		default:
			s.log.Error().Err(err).Str("path", r.URL.Path).Msg("api: read failed")
			writeError(w, http.StatusInternalServerError, "internal error; the validator's log says why")
		}
	}
}

func (s *Server) status(r *http.Request) (any, error) {
	return s.v.StatusNow(r.Context())
}

func (s *Server) leaderboard(*http.Request) (any, error) {
	rows, err := s.v.Leaderboard()
	if err != nil {
		return nil, err
	}
	if rows == nil {
		rows = []LeaderboardRow{}
	}
	return rows, nil
}

func (s *Server) races(r *http.Request) (any, error) {
	limit := 20
	if q := r.URL.Query().Get("limit"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 || n > 1000 {
			return nil, apiErrorf(http.StatusBadRequest, "limit must be an integer from 1 to 1000")
		}
		limit = n
	}
	return s.v.Races(limit)
}

func (s *Server) race(r *http.Request) (any, error) {
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
	if err != nil {
		return nil, apiErrorf(http.StatusBadRequest, "race id must be a positive integer")
	}
	view, found, err := s.v.RaceForView(id)
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, apiErrorf(http.StatusNotFound, "no such race")
	case view.Live != nil:
		return view.Live, nil
	}
	return view.Decided, nil
}

func (s *Server) episode(r *http.Request) (any, error) {
	id := r.PathValue("id")
	if len(id) == 0 || len(id) > 64 {
		return nil, apiErrorf(http.StatusBadRequest, "bad episode id")
	}
	doc, found, err := s.v.EpisodeForView(id)
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, apiErrorf(http.StatusNotFound, "no such episode")
	}
	return doc, nil
}
