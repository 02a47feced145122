package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Limits enforced by Validate.
const (
	MinDevnetBlockTime = 10 * time.Millisecond
	MaxDevnetNeurons   = 256 // validators + miners on the devnet
	// MinRetentionAge and MinRetentionSize keep a slip of the unit
	// ("30m" for 30 days, "100" for 100 GiB) from pruning every episode
	// the rules allow at the next retention run.
	MinRetentionAge  = 24 * time.Hour
	MinRetentionSize = ByteSize(64 << 20)
)

// logLevels and logFormats mirror what internal/logx accepts ("" means the
// default there, so it is accepted here too).
var (
	logLevels  = []string{"trace", "debug", "info", "warn", "error", "fatal", "panic", "disabled"}
	logFormats = []string{"auto", "json", "console"}
)

// Validate checks the assembled configuration. It returns nil or the
// errors.Join of one error per problem; each is one line that names the key,
// shows the offending value (URLs with their password redacted) and says
// what is expected.
func (c *Config) Validate() error {
	v := &validator{}

	v.nonEmpty("data_dir", c.DataDir)

	if lvl := strings.ToLower(strings.TrimSpace(c.Log.Level)); lvl != "" && !slices.Contains(logLevels, lvl) {
		v.bad("log.level", c.Log.Level, "must be one of "+orList(logLevels))
	}
	if f := strings.ToLower(strings.TrimSpace(c.Log.Format)); f != "" && !slices.Contains(logFormats, f) {
		v.bad("log.format", c.Log.Format, "must be one of "+orList(logFormats))
	}

	v.chainURL("chain.url", c.Chain.URL)
	v.positiveUint("chain.tempo", c.Chain.Tempo)
	if c.Chain.Tempo > 65535 {
		v.bad("chain.tempo", fmt.Sprint(c.Chain.Tempo), "must be at most 65535 (subtensor's Tempo is a u16)")
	}
	v.positive("chain.dial_timeout", c.Chain.DialTimeout)
	v.positive("chain.call_timeout", c.Chain.CallTimeout)
	v.positive("chain.receipt_timeout", c.Chain.ReceiptTimeout)
	v.positive("chain.reconnect_min", c.Chain.ReconnectMin)
	v.positive("chain.reconnect_max", c.Chain.ReconnectMax)
	if c.Chain.ReconnectMax.Duration < c.Chain.ReconnectMin.Duration {
		v.bad("chain.reconnect_max", c.Chain.ReconnectMax.String(),
			fmt.Sprintf("must be at least chain.reconnect_min (%s)", c.Chain.ReconnectMin))
	}

	v.nonEmpty("keystore.dir", c.Keystore.Dir)
	if a := c.Keystore.Address; a != "" && !isHexAddress(a) {
		v.bad("keystore.address", a, "must be 0x followed by 40 hex digits")
	}
	if c.Keystore.Password != "" && c.Keystore.PasswordFile != "" {
		v.problem("keystore.password_file", "is set and so is ARENA_KEYSTORE_PASSWORD; use only one")
	}

	v.positive("store.gc_interval", c.Store.GCInterval)
	if r := c.Store.GCDiscardRatio; !(r > 0 && r < 1) {
		v.bad("store.gc_discard_ratio", strconv.FormatFloat(r, 'g', -1, 64), "must be greater than 0 and less than 1")
	}

	for key, pct := range map[string]float64{"store.min_free_soft_percent": c.Store.MinFreeSoftPercent, "store.min_free_hard_percent": c.Store.MinFreeHardPercent} {
		if !(pct >= 0 && pct < 100) {
			v.bad(key, strconv.FormatFloat(pct, 'g', -1, 64), "must be at least 0 and less than 100")
		}
	}
	if c.Store.MinFreeHard > c.Store.MinFreeSoft {
		v.bad("store.min_free_hard", formatByteSize(c.Store.MinFreeHard), "must not exceed store.min_free_soft ("+formatByteSize(c.Store.MinFreeSoft)+")")
	}
	if c.Store.MinFreeHardPercent > c.Store.MinFreeSoftPercent {
		v.bad("store.min_free_hard_percent", strconv.FormatFloat(c.Store.MinFreeHardPercent, 'g', -1, 64), "must not exceed store.min_free_soft_percent")
	}
	if r := c.Store.Retention; r.MaxAge.Duration != 0 && r.MaxAge.Duration < MinRetentionAge {
		v.bad("store.retention.max_age", r.MaxAge.String(), "must be 0 (keep every episode) or at least "+MinRetentionAge.String()+" (e.g. 720h for 30 days)")
	}
	if r := c.Store.Retention; r.MaxSize != 0 && r.MaxSize < MinRetentionSize {
		v.bad("store.retention.max_size", formatByteSize(r.MaxSize), "must be 0 (no size limit) or at least "+formatByteSize(MinRetentionSize))
	}
	v.positive("store.retention.interval", c.Store.Retention.Interval)
	v.positive("shutdown_timeout", c.ShutdownTimeout)

	v.hostPort("metrics.listen", c.Metrics.Listen)
	v.hostPort("api.listen", c.API.Listen)
	if host, _, err := net.SplitHostPort(c.API.Listen); err == nil && !IsLoopbackHost(host) && !c.API.AllowRemote {
		v.bad("api.listen", c.API.Listen, "is not a loopback address, and the API shows every miner's trajectories; "+
			"set api.allow_remote: true and api.token_file to serve it beyond this host")
	}
	if c.API.AllowRemote && strings.TrimSpace(c.API.TokenFile) == "" {
		v.problem("api.token_file", "must be set when api.allow_remote is true")
	}
	if _, err := ParseHosts(c.API.AllowedHosts); err != nil {
		v.bad("api.allowed_hosts", c.API.AllowedHosts, err.Error())
	}
	if _, port, err := net.SplitHostPort(c.API.Listen); err == nil && port != "0" && c.API.Listen == c.Metrics.Listen {
		v.problem("api.listen", fmt.Sprintf("%q is also metrics.listen; the API needs its own port", c.API.Listen))
	}

	if c.Web.PublicListen != "" {
		v.hostPort("web.public_listen", c.Web.PublicListen)
		for key, other := range map[string]string{"metrics.listen": c.Metrics.Listen, "api.listen": c.API.Listen} {
			if _, port, err := net.SplitHostPort(other); err == nil && port != "0" && other == c.Web.PublicListen {
				v.problem("web.public_listen", fmt.Sprintf("%q is also %s; the public console needs its own port", other, key))
			}
		}
	}
	if !(c.Web.PublicRate > 0) || math.IsInf(c.Web.PublicRate, 0) {
		v.bad("web.public_rate", strconv.FormatFloat(c.Web.PublicRate, 'g', -1, 64), "must be a positive number of requests per second")
	}
	if c.Web.PublicBurst < 1 {
		v.bad("web.public_burst", strconv.Itoa(c.Web.PublicBurst), "must be at least 1")
	}

	v.hostPort("devnet.listen", c.Devnet.Listen)
	if c.Devnet.BlockTime.Duration < MinDevnetBlockTime {
		v.bad("devnet.block_time", c.Devnet.BlockTime.String(), "must be at least "+MinDevnetBlockTime.String())
	}
	v.positiveUint("devnet.tempo", c.Devnet.Tempo)
	if c.Devnet.Validators < 1 {
		v.bad("devnet.validators", strconv.Itoa(c.Devnet.Validators), "must be at least 1")
	}
	if c.Devnet.Miners < 0 {
		v.bad("devnet.miners", strconv.Itoa(c.Devnet.Miners), "must not be negative")
	}
	if n := c.Devnet.Validators + c.Devnet.Miners; c.Devnet.Validators >= 1 && c.Devnet.Miners >= 0 && n > MaxDevnetNeurons {
		v.problem("devnet.validators + devnet.miners", fmt.Sprintf("%d + %d = %d, but at most %d neurons fit on a subnet",
			c.Devnet.Validators, c.Devnet.Miners, n, MaxDevnetNeurons))
	}
	v.nonEmpty("devnet.keystore", c.Devnet.Keystore)

	if u := c.LLM.BaseURL; u == StandInURL {
		// The miner's offline stand-in; the llm judge may not use it.
		if c.Judge.Kind == "llm" {
			v.bad("llm.base_url", u, "the offline stand-in is a script, not a model: the llm judge needs a real endpoint")
		}
	} else if u != "" {
		if parsed, err := url.Parse(u); err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
			v.bad("llm.base_url", redactURL(u), "must be an http or https URL")
		}
	}
	v.positive("llm.timeout", c.LLM.Timeout)

	if pc := c.Suite.Paraphrase; pc.BaseURL != "" {
		if parsed, err := url.Parse(pc.BaseURL); err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
			v.bad("suite.paraphrase.base_url", redactURL(pc.BaseURL), "must be an http or https URL")
		}
		if strings.TrimSpace(pc.Model) == "" {
			v.problem("suite.paraphrase.model", "must be set when suite.paraphrase.base_url is")
		}
	}
	v.positive("suite.paraphrase.timeout", c.Suite.Paraphrase.Timeout)

	vc := c.Validator
	v.positiveUint("validator.sync_every_blocks", vc.SyncEveryBlocks)
	v.positiveUint("validator.race_every_blocks", vc.RaceEveryBlocks)
	v.positiveUint("validator.weights_every_blocks", vc.WeightsEveryBlocks)
	v.atLeast("validator.qualifying_problems", vc.QualifyingProblems, 1)
	v.atLeast("validator.race_problems", vc.RaceProblems, 1)
	v.atLeast("validator.qualifying_concurrency", vc.QualifyingConcurrency, 1)
	v.atLeast("validator.public_problems", vc.PublicProblems, vc.QualifyingProblems)
	v.atLeast("validator.hidden_min_clusters", vc.HiddenMinClusters, vc.RaceProblems)

	if c.Catalog.File == "" {
		v.atLeast("catalog.products", c.Catalog.Products, 100)
		if c.Catalog.IndexDir != "" {
			v.problem("catalog.index_dir", "is only used with catalog.file (a generated catalog is built in memory at every start); set catalog.file or leave it empty")
		}
		if c.Catalog.RestockEveryBlocks > 0 {
			v.atLeast("catalog.restock_products", c.Catalog.RestockProducts, 1)
		}
	}

	e := c.Episode
	v.atLeast("episode.max_frame_bytes", e.MaxFrameBytes, 4096)
	v.atLeast("episode.max_think_bytes", e.MaxThinkBytes, 1)
	v.atLeast("episode.max_tool_calls", e.MaxToolCalls, 1)
	v.atLeast("episode.max_steps", e.MaxSteps, 1)
	v.positive("episode.step_timeout", e.StepTimeout)
	v.positive("episode.episode_timeout", e.EpisodeTimeout)
	v.atLeast("episode.max_concurrent_episodes", e.MaxConcurrentEpisodes, 1)
	v.atLeast("episode.max_episode_bytes", e.MaxEpisodeBytes, max(e.MaxFrameBytes, 4096))

	r := c.Race
	v.unit("race.floor", r.Floor)
	v.unit("race.ratio_start", r.RatioStart)
	v.unit("race.ratio_floor", r.RatioFloor)
	v.unit("race.margin", r.Margin)
	if r.RatioFloor > r.RatioStart {
		v.bad("race.ratio_floor", fmtFloat(r.RatioFloor), "must not exceed race.ratio_start ("+fmtFloat(r.RatioStart)+")")
	}
	if r.Margin >= 1 {
		v.bad("race.margin", fmtFloat(r.Margin), "must be below 1")
	}
	if !(r.Confidence >= 0.5 && r.Confidence <= 0.999) {
		v.bad("race.confidence", fmtFloat(r.Confidence), "must be in [0.5, 0.999]")
	}
	if !(r.TieMargin >= r.Margin && r.TieMargin < 1) {
		v.bad("race.tie_margin", fmtFloat(r.TieMargin), "must be at least race.margin ("+fmtFloat(r.Margin)+") and below 1")
	}

	w := c.Weights
	if !slices.Contains(weightPolicies, w.Policy) {
		v.bad("weights.policy", w.Policy, "must be one of "+orList(weightPolicies))
	}
	v.unit("weights.top_share", w.TopShare)
	v.unit("weights.tail_share", w.TailShare)
	v.unit("weights.burn_fraction", w.BurnFraction)
	if w.TopShare+w.TailShare > 1+1e-9 {
		v.problem("weights.top_share + weights.tail_share", fmt.Sprintf("%s + %s exceeds 1", fmtFloat(w.TopShare), fmtFloat(w.TailShare)))
	}

	switch c.Judge.Kind {
	case "grounding":
	case "llm":
		if c.LLM.BaseURL == "" {
			v.problem("llm.base_url", "must be set when judge.kind is llm")
		}
		if strings.Trim(c.Judge.Models, ", ") == "" {
			v.problem("judge.models", "must name at least one model when judge.kind is llm")
		}
	default:
		v.bad("judge.kind", c.Judge.Kind, "must be grounding or llm")
	}
	if !(c.Judge.TemplateCap > 0 && c.Judge.TemplateCap <= 1) {
		v.bad("judge.template_cap", fmtFloat(c.Judge.TemplateCap), "must be in (0, 1]")
	}
	switch c.Judge.OnUnavailable {
	case "void", "grounding":
	default:
		v.bad("judge.on_unavailable", c.Judge.OnUnavailable, "must be void or grounding")
	}

	v.relay(c)

	return errors.Join(v.errs...)
}

// relay checks relay.*. Whether a validator may start without a relay
// depends on the chain it reached (ValidateRelayForChain).
func (v *validator) relay(c *Config) {
	r := &c.Relay
	switch r.Required {
	case RelayAuto, RelayTrue, RelayFalse:
	default:
		v.bad("relay.required", r.Required, "must be auto, true or false")
	}
	if r.BaseURL != "" {
		u, err := url.Parse(r.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			v.bad("relay.base_url", redactURL(r.BaseURL), "must be an http or https URL such as https://openrouter.ai/api/v1")
		}
	}
	models := r.ModelList()
	if len(models) == 0 {
		v.problem("relay.models", "must name at least one model (the default is "+DefaultRelayModels+")")
	}
	if slices.Contains(models, StandInModel) {
		v.bad("relay.models", r.Models, StandInModel+" is the offline stand-in, a script and not a model: a validator never relays or credits it")
	}
	if r.Required == RelayTrue && r.BaseURL == "" {
		v.problem("relay.base_url", "must be set when relay.required is true (steps are verified against the relay's completions)")
	}
	v.positive("relay.timeout", r.Timeout)
	v.positive("relay.max_wall_time", r.MaxWallTime)
	v.atLeast("relay.max_completions", r.MaxCompletions, 1)
	v.atLeast("relay.max_prompt_tokens", r.MaxPromptTokens, 1)
	v.atLeast("relay.max_completion_tokens", r.MaxCompletionTokens, 1)
	v.atLeast("relay.max_tokens", r.MaxTokens, 1)
	v.atLeast("relay.daily_completions", r.DailyCompletions, 0)
	v.atLeast("relay.daily_tokens", r.DailyTokens, 0)
	if r.MaxTokens > r.MaxCompletionTokens {
		v.bad("relay.max_tokens", strconv.Itoa(r.MaxTokens), fmt.Sprintf("must not exceed relay.max_completion_tokens (%d)", r.MaxCompletionTokens))
	}
}

// ValidateRelayForChain is the start-up check of `arena run` once the
// chain's id is known (chainID; chain.chain_id when it is set): on
// finney and testnet a validator without a relay refuses to start
// unless relay.required is false in so many words, so that no public
// validator credits unverified steps by omission.
func (c *Config) ValidateRelayForChain(chainID uint64) error {
	if c.Relay.BaseURL != "" || !c.Relay.RelayRequired(chainID) {
		return nil
	}
	if c.Relay.Required == RelayTrue {
		return errors.New("relay.base_url: must be set when relay.required is true")
	}
	return fmt.Errorf("relay.base_url: chain %d is a public chain (finney 964, testnet 945), where steps must be verified: set relay.base_url (and ARENA_RELAY_API_KEY) to an OpenAI-compatible provider, or set relay.required: false to run without verification", chainID)
}

// weightPolicies mirror scoring/weights' kinds.
var weightPolicies = []string{"winner_take_all", "taper"}

type validator struct{ errs []error }

func (v *validator) atLeast(key string, n, lowest int) {
	if n < lowest {
		v.bad(key, strconv.Itoa(n), fmt.Sprintf("must be at least %d", lowest))
	}
}

// unit checks a share or score in [0, 1].
func (v *validator) unit(key string, f float64) {
	if !(f >= 0 && f <= 1) {
		v.bad(key, fmtFloat(f), "must be between 0 and 1")
	}
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// bad records `key "value": msg`.
func (v *validator) bad(key, value, msg string) {
	v.errs = append(v.errs, fmt.Errorf("%s %q: %s", key, value, msg))
}

// problem records `key: msg` when showing the value would not help.
func (v *validator) problem(key, msg string) {
	v.errs = append(v.errs, fmt.Errorf("%s: %s", key, msg))
}

func (v *validator) nonEmpty(key, value string) {
	if strings.TrimSpace(value) == "" {
		v.problem(key, "must not be empty")
	}
}

func (v *validator) positive(key string, d Duration) {
	if d.Duration <= 0 {
		v.bad(key, d.String(), "must be greater than 0")
	}
}

func (v *validator) positiveUint(key string, n uint64) {
	if n == 0 {
		v.bad(key, "0", "must be greater than 0")
	}
}

func (v *validator) chainURL(key, raw string) {
	if strings.TrimSpace(raw) == "" {
		v.problem(key, "must not be empty")
		return
	}
	shown := redactURL(raw)
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, password included; show only the cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		v.bad(key, shown, "not a valid URL: "+err.Error())
		return
	}
	switch strings.ToLower(u.Scheme) {
	case "ws", "wss", "http", "https":
	default:
		v.bad(key, shown, "scheme must be ws, wss, http or https")
		return
	}
	if u.Host == "" {
		v.bad(key, shown, "missing host (e.g. ws://127.0.0.1:9944)")
	}
}

func (v *validator) hostPort(key, value string) {
	_, port, err := net.SplitHostPort(value)
	if err == nil {
		if n, perr := strconv.ParseUint(port, 10, 16); perr != nil || n > 65535 {
			err = errors.New("bad port")
		}
	}
	if err != nil {
		v.bad(key, value, "must be host:port with a numeric port (e.g. 127.0.0.1:9100, or :9100 for all interfaces)")
	}
}

// ParseHosts reads api.allowed_hosts: host names or IP addresses separated
// by commas, without scheme, port or path (a Host header's port is not
// what tells a rebinding page from the operator). Names are lower-cased
// and lose a trailing dot; IPv6 addresses lose their brackets, so each
// compares with HostOf. Empty entries are skipped.
func ParseHosts(list string) ([]string, error) {
	var out []string
	for _, raw := range strings.Split(list, ",") {
		h := strings.TrimSpace(raw)
		if h == "" {
			continue
		}
		if strings.Contains(h, "://") || strings.ContainsAny(h, "/?#@ *") {
			return nil, fmt.Errorf("%q is not a host name or IP address (no scheme, path or wildcard)", h)
		}
		if ip, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
			out = append(out, ip.String())
			continue
		}
		if strings.Contains(h, ":") {
			return nil, fmt.Errorf("%q: give the host without a port", h)
		}
		h = strings.TrimSuffix(strings.ToLower(h), ".")
		for _, r := range h {
			if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-' || r == '.' || r == '_') {
				return nil, fmt.Errorf("%q is not a host name or IP address", raw)
			}
		}
		if h == "" || strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
			return nil, fmt.Errorf("%q is not a host name or IP address", strings.TrimSpace(raw))
		}
		out = append(out, h)
	}
	return out, nil
}

// HostOf is the host of a Host header or listen address in the form
// ParseHosts gives: without the port, lower-cased, without a trailing dot,
// an IPv6 address without brackets and in canonical form.
func HostOf(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.Trim(h, "[]")
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.String()
	}
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// IsLoopbackHost reports whether a listen address's host part binds only
// loopback: "localhost" or a loopback IP. An empty host binds every
// interface.
func IsLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func isHexAddress(s string) bool {
	hex, ok := strings.CutPrefix(s, "0x")
	if !ok {
		hex, ok = strings.CutPrefix(s, "0X")
	}
	if !ok || len(hex) != 40 {
		return false
	}
	for _, r := range hex {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F') {
			return false
		}
	}
	return true
}

// orList renders ["a","b","c"] as "a, b or c".
func orList(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}
