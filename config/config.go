package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
)

// Config is the whole effective configuration of an arena process. Every
// leaf field carries a yaml tag (its key) and a help tag (one line shown by
// `arena config keys`); Keys derives the key list from these tags.
type Config struct {
	DataDir string `yaml:"data_dir" help:"directory for the validator's database and state"`
	// ShutdownTimeout bounds a graceful stop; keep it under systemd's
	// TimeoutStopSec so the daemon, not systemd, reports a hung stop.
	ShutdownTimeout Duration       `yaml:"shutdown_timeout" help:"longest a graceful stop may take before the process exits non-zero anyway"`
	Log             LogConfig      `yaml:"log"`
	Chain           ChainConfig    `yaml:"chain"`
	Keystore        KeystoreConfig `yaml:"keystore"`
	Store           StoreConfig    `yaml:"store"`
	Metrics         MetricsConfig  `yaml:"metrics"`
	API             APIConfig      `yaml:"api"`
	Web             WebConfig      `yaml:"web"`
	Devnet          DevnetConfig   `yaml:"devnet"`
	LLM             LLMConfig      `yaml:"llm"`

	Validator ValidatorConfig `yaml:"validator"`
	Catalog   CatalogConfig   `yaml:"catalog"`
	Episode   EpisodeConfig   `yaml:"episode"`
	Race      RaceConfig      `yaml:"race"`
	Weights   WeightsConfig   `yaml:"weights"`
	Judge     JudgeConfig     `yaml:"judge"`
	Relay     RelayConfig     `yaml:"relay"`
	Suite     SuiteConfig     `yaml:"suite"`
}

// RelayConfig configures the validator's inference relay (protocol
// version 2, docs/protocol.md): miners' agents take their completions
// through it, and a step is verified against the completion it names.
// The allowlist and the budgets are part of the subnet's rules, so
// validators on the defaults agree on what counts.
type RelayConfig struct {
	BaseURL string `yaml:"base_url" help:"OpenAI-compatible provider the relay forwards miners' completions to; empty: no relay (steps are not verified)"`
	Models  string `yaml:"models" help:"comma-separated allowlist of models miners may ask for (the subnet's rule; keep the default unless the subnet changes it)"`
	// Required is a word, not a bool, so that "unset" (auto) differs from
	// an operator's explicit false: auto is secure by default on the
	// public chains.
	Required string   `yaml:"required" help:"auto (required on finney 964 and testnet 945, off elsewhere), true (an unverified or dictated step earns nothing; a relay must be configured) or false (steps are checked and findings recorded, without effect on scores)"`
	Timeout  Duration `yaml:"timeout" help:"bound on one provider call"`
	APIKey   Secret   `yaml:"api_key" help:"provider API key; only from ARENA_RELAY_API_KEY, never a file or flag"`

	MaxCompletions      int      `yaml:"max_completions" help:"completions one episode may take"`
	MaxPromptTokens     int      `yaml:"max_prompt_tokens" help:"prompt tokens one episode may spend"`
	MaxCompletionTokens int      `yaml:"max_completion_tokens" help:"completion tokens one episode may spend"`
	MaxWallTime         Duration `yaml:"max_wall_time" help:"summed provider time one episode may take"`
	MaxTokens           int      `yaml:"max_tokens" help:"largest max_tokens of one completion (a request without one is sent with this bound)"`
	DailyCompletions    int      `yaml:"daily_completions" help:"completions one miner may take per UTC day across episodes (0: unbounded)"`
	DailyTokens         int      `yaml:"daily_tokens" help:"tokens one miner may spend per UTC day across episodes (0: unbounded)"`
}

// Relay policies (relay.required).
const (
	RelayAuto  = "auto"
	RelayTrue  = "true"
	RelayFalse = "false"
)

// PublicChainIDs are the chains on which relay.required: auto means
// true: finney (964) and testnet (945).
var PublicChainIDs = []uint64{964, 945}

// DefaultRelayModels is the subnet's default allowlist: open-weight
// models that serve tool calls on the common OpenAI-compatible providers.
const DefaultRelayModels = "Qwen/Qwen3-32B,deepseek-ai/DeepSeek-V3"

// StandInModel is the name of the offline stand-in that `arena dev` and
// `arena practice --agent llm` without a provider may use: a script
// behind the chat wire format, not a model. Validate refuses it in
// relay.models, so no validator ever credits it.
const StandInModel = "arena-stand-in-not-a-model"

// StandInURL, as llm.base_url (--llm-base-url stand-in), points the
// reference LLM agent at the stand-in served in process.
const StandInURL = "stand-in"

// RelayRequired resolves relay.required for a chain id (0: unknown, as
// chain.chain_id 0 accepts any chain): auto is true on finney and
// testnet.
func (r RelayConfig) RelayRequired(chainID uint64) bool {
	switch r.Required {
	case RelayTrue:
		return true
	case RelayFalse:
		return false
	}
	return slices.Contains(PublicChainIDs, chainID)
}

// ModelList is relay.models split on commas, blanks dropped.
func (r RelayConfig) ModelList() []string {
	var out []string
	for m := range strings.SplitSeq(r.Models, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// SuiteConfig configures how generated problems are phrased.
type SuiteConfig struct {
	Paraphrase ParaphraseConfig `yaml:"paraphrase"`
}

// ParaphraseConfig points the optional paraphrase stage at an
// OpenAI-compatible chat endpoint. Empty base_url: offline phrasing only.
type ParaphraseConfig struct {
	BaseURL string   `yaml:"base_url" help:"OpenAI-compatible API base URL that rewrites generated queries (each rewrite is verified by code; empty: offline phrasing only)"`
	Model   string   `yaml:"model" help:"model name sent with each paraphrase request"`
	Timeout Duration `yaml:"timeout" help:"bound on one paraphrase request"`
	APIKey  Secret   `yaml:"api_key" help:"API key; only from ARENA_SUITE_PARAPHRASE_API_KEY, never a file or flag"`
}

// ValidatorConfig sets the daemon's schedule and suite sizes, in blocks
// and problems.
type ValidatorConfig struct {
	SyncEveryBlocks       uint64 `yaml:"sync_every_blocks" help:"refresh the metagraph and hyperparameters every this many blocks"`
	RaceEveryBlocks       uint64 `yaml:"race_every_blocks" help:"a race window opens every this many blocks"`
	WeightsEveryBlocks    uint64 `yaml:"weights_every_blocks" help:"set weights at most every this many blocks (and never faster than the chain's rate limit)"`
	QualifyingProblems    int    `yaml:"qualifying_problems" help:"public problems each new or changed miner runs to qualify"`
	RaceProblems          int    `yaml:"race_problems" help:"hidden problems (one per fresh leak cluster) in each race"`
	QualifyingConcurrency int    `yaml:"qualifying_concurrency" help:"miners qualifying at the same time"`
	PublicProblems        int    `yaml:"public_problems" help:"size of the generated public (qualifying) set"`
	HiddenMinClusters     int    `yaml:"hidden_min_clusters" help:"refill the hidden pool from the generator when fewer never-exposed clusters remain"`
	SuiteSeed             uint64 `yaml:"suite_seed" help:"seed of the problem generator (0: random at first start, then persisted by the suite)"`
	ProblemMix            string `yaml:"problem_mix" help:"types of generated problems and their weights, e.g. product:0.35,shop:0.25,voucher:0.25,knowledge:0.15 (knowledge problems are solved through web_search)"`
	AllowPrivateAxons     bool   `yaml:"allow_private_axons" help:"dial miners on loopback and private addresses (devnet only; off in production)"`
}

// CatalogConfig says where the shop's products come from.
type CatalogConfig struct {
	File     string `yaml:"file" help:"catalog file: ShoppingBench product JSON Lines, plain or gzip; empty generates one"`
	IndexDir string `yaml:"index_dir" help:"directory for catalog.file's index and knowledge files (created if missing); empty: beside the catalog file"`
	Products int    `yaml:"products" help:"products to generate when catalog.file is empty"`
	Seed     uint64 `yaml:"seed" help:"seed of the generated catalog (every validator with the same seed gets the same shop)"`
	// A generated catalog restocks on a block schedule every validator
	// shares, so that problems keep getting fresh targets (docs/design.md,
	// "Suite and leak clusters").
	RestockEveryBlocks uint64 `yaml:"restock_every_blocks" help:"a generated catalog adds restock_products new products every this many blocks after restock_from_block; the same on every validator (0: never restock)"`
	RestockProducts    int    `yaml:"restock_products" help:"products each restock adds to a generated catalog; the same on every validator"`
	RestockFromBlock   uint64 `yaml:"restock_from_block" help:"block the restock schedule counts from (the first restock is restock_every_blocks later); the same on every validator, e.g. the block the subnet's validators agreed to start at"`
}

// EpisodeConfig bounds what one miner may cost the validator.
type EpisodeConfig struct {
	MaxFrameBytes         int      `yaml:"max_frame_bytes" help:"largest websocket frame accepted from a miner"`
	MaxThinkBytes         int      `yaml:"max_think_bytes" help:"longest think text in one step"`
	MaxToolCalls          int      `yaml:"max_tool_calls" help:"tool calls allowed in one step"`
	MaxSteps              int      `yaml:"max_steps" help:"steps allowed in one episode"`
	StepTimeout           Duration `yaml:"step_timeout" help:"a miner's time for one step"`
	EpisodeTimeout        Duration `yaml:"episode_timeout" help:"bound on a whole episode"`
	MaxConcurrentEpisodes int      `yaml:"max_concurrent_episodes" help:"episodes in flight on one miner's connection"`
	MaxEpisodeBytes       int      `yaml:"max_episode_bytes" help:"bytes one episode may store of its steps (the miner's text and calls after normalisation, and their tool results; relay completions have their own budgets); beyond it the episode ends as episode_too_large and scores 0 (at least max_frame_bytes)"`
}

// RaceConfig holds the race's parameters (scoring/race.Params).
type RaceConfig struct {
	Floor        float64 `yaml:"floor" help:"absolute minimum qualifying score, in [0,1]"`
	RatioStart   float64 `yaml:"ratio_start" help:"share of the leader's qualifying score needed to qualify when a reign starts"`
	RatioFloor   float64 `yaml:"ratio_floor" help:"share the qualifying ratio decays to as the reign ages (<= ratio_start)"`
	DecayBlocks  uint64  `yaml:"decay_blocks" help:"blocks of reign over which the ratio decays"`
	Margin       float64 `yaml:"margin" help:"a challenger must be shown to beat the incumbent by more than this per hidden problem"`
	Confidence   float64 `yaml:"confidence" help:"confidence, in [0.5, 0.999], at which a crown decision must be shown (docs/scoring.md)"`
	TieMargin    float64 `yaml:"tie_margin" help:"first crown only: with no racer shown to beat another, the earliest registered wins once shown no worse than each other by more than this (>= margin)"`
	WindowBlocks uint64  `yaml:"window_blocks" help:"evidence epoch length: a decision counts the races since the start of the previous epoch (0 keeps every race)"`
}

// WeightsConfig is the deterministic weights policy (scoring/weights.Policy).
type WeightsConfig struct {
	Policy       string  `yaml:"policy" help:"winner_take_all or taper"`
	TopShare     float64 `yaml:"top_share" help:"taper: share of rank 1"`
	TailShare    float64 `yaml:"tail_share" help:"taper: share split by ranks 2..K"`
	BurnFraction float64 `yaml:"burn_fraction" help:"fraction given to burn_uid before the policy splits the rest"`
	BurnUID      uint16  `yaml:"burn_uid" help:"uid receiving the burn, the taper's remainder and everything before the first race"`
}

// JudgeConfig selects the reasoning judge.
type JudgeConfig struct {
	Kind   string `yaml:"kind" help:"grounding (deterministic, default) or llm (uses llm.base_url and judge.models)"`
	Models string `yaml:"models" help:"llm judge: comma-separated models in fallback order"`
	// TemplateCap caps the reasoning score of every trajectory in a
	// miner's qualifying run or race whose thinks share one skeleton.
	TemplateCap float64 `yaml:"template_cap" help:"highest reasoning score (q) of a miner whose thinks in a qualifying run or race follow one template, in (0, 1]; 1 records the finding without capping"`
	// OnUnavailable: what a race or qualifying run judged while no model
	// answered is worth.
	OnUnavailable string `yaml:"on_unavailable" help:"llm judge: void (a race or qualifying run judged entirely while no model answered does not count) or grounding (it is scored by the grounding fallback)"`
}

// LogConfig selects the log level and output format.
type LogConfig struct {
	Level  string `yaml:"level" help:"trace, debug, info, warn, error, fatal, panic or disabled"`
	Format string `yaml:"format" help:"auto (console on a terminal, JSON otherwise), json or console"`
}

// ChainConfig says which subtensor node to talk to and how patiently.
type ChainConfig struct {
	URL            string   `yaml:"url" help:"subtensor EVM JSON-RPC endpoint (ws, wss, http or https)"`
	ChainID        uint64   `yaml:"chain_id" help:"expected eth_chainId: 964 finney, 945 testnet, 0 accepts any (devnet)"`
	Netuid         uint16   `yaml:"netuid" help:"subnet the validator serves"`
	Tempo          uint64   `yaml:"tempo" help:"blocks per epoch on the subnet; only a fallback: epochs are read from the chain (StorageQuery) when it has the precompile"`
	DialTimeout    Duration `yaml:"dial_timeout" help:"time allowed to connect to the node"`
	CallTimeout    Duration `yaml:"call_timeout" help:"time allowed for one JSON-RPC call"`
	ReceiptTimeout Duration `yaml:"receipt_timeout" help:"time to wait for a sent transaction to be mined"`
	ReconnectMin   Duration `yaml:"reconnect_min" help:"first wait before reconnecting after the connection drops"`
	ReconnectMax   Duration `yaml:"reconnect_max" help:"longest wait between reconnect attempts (backoff cap)"`
}

// KeystoreConfig locates the validator's signing key.
type KeystoreConfig struct {
	Dir          string `yaml:"dir" help:"go-ethereum keystore directory holding the validator's key"`
	Address      string `yaml:"address" help:"0x address of the key to use; empty uses the only key in dir"`
	PasswordFile string `yaml:"password_file" help:"file holding the password that unlocks the key"`
	Password     Secret `yaml:"password" help:"key password; only from ARENA_KEYSTORE_PASSWORD, never a file or flag"`
}

// StoreConfig tunes the Badger database.
type StoreConfig struct {
	GCInterval     Duration `yaml:"gc_interval" help:"how often to run Badger value-log garbage collection"`
	GCDiscardRatio float64  `yaml:"gc_discard_ratio" help:"rewrite a value-log file when this fraction of it is stale, in (0,1)"`

	MinFreeSoft        ByteSize `yaml:"min_free_soft" help:"free space on the data dir's filesystem under which no new race, qualifying run or export starts and /readyz fails (the larger of this and min_free_soft_percent)"`
	MinFreeSoftPercent float64  `yaml:"min_free_soft_percent" help:"the soft free-space limit as a percentage of the filesystem's size"`
	MinFreeHard        ByteSize `yaml:"min_free_hard" help:"free space under which the store stops writing and the validator shuts down (exit non-zero) before the disk fails under Badger"`
	MinFreeHardPercent float64  `yaml:"min_free_hard_percent" help:"the hard free-space limit as a percentage of the filesystem's size"`
	Reserve            ByteSize `yaml:"reserve" help:"size of the emergency reserve file kept in the data dir and deleted at the hard limit, so the final flush has room (0 keeps none)"`

	Retention RetentionConfig `yaml:"retention"`
}

// RetentionConfig bounds how many episodes the store keeps. Both limits are
// off by default: the trajectories are the product (arena export), so
// nothing is pruned unless the operator asks.
type RetentionConfig struct {
	MaxAge   Duration `yaml:"max_age" help:"prune stored episodes (with their verdicts and index entries) that started longer ago than this, e.g. 720h for 30 days; at least 24h; 0 keeps them (race records, their scores and weights history are always kept, and so are the episodes of races still in the evidence window, of a live race and of miners' current qualifying runs)"`
	MaxSize  ByteSize `yaml:"max_size" help:"prune the oldest prunable episodes while stored episodes and verdicts take more than this, e.g. 20GiB; at least 64MiB; 0: no size limit"`
	Interval Duration `yaml:"interval" help:"how often retention runs when max_age or max_size is set"`
}

// Enabled reports whether any retention limit is set.
func (r RetentionConfig) Enabled() bool { return r.MaxAge.Duration > 0 || r.MaxSize > 0 }

// MetricsConfig sets where Prometheus metrics and health endpoints listen.
type MetricsConfig struct {
	Listen string `yaml:"listen" help:"host:port for /metrics, /livez and /readyz only (numbers and health, safe to publish to a Prometheus host)"`
}

// APIConfig configures the operator JSON API, which shows every miner's
// trajectories and verdicts and therefore stays on loopback unless the
// operator opts in, with a bearer token.
type APIConfig struct {
	Listen      string `yaml:"listen" help:"host:port of the JSON API (/api/v1); a non-loopback address needs api.allow_remote"`
	AllowRemote bool   `yaml:"allow_remote" help:"serve the API on a non-loopback api.listen; every request then needs the bearer token in api.token_file"`
	TokenFile   string `yaml:"token_file" help:"file holding the API's bearer token (one line; must grant group and world nothing); required with api.allow_remote"`
	// AllowedHosts are the names a browser may use for api.listen besides
	// its own host and loopback: any other Host header is a DNS-rebinding
	// page (or a misdirected proxy) and is answered 421.
	AllowedHosts string `yaml:"allowed_hosts" help:"comma-separated host names or IPs (no port) the API and operator console answer to besides api.listen's host and localhost, 127.0.0.1 and ::1, e.g. validator.example.org for a reverse proxy or tunnel; any other Host header gets 421"`
	Pprof        bool   `yaml:"pprof" help:"serve Go's /debug/pprof/ profiles on api.listen, behind the same token and host check (heap, CPU, goroutines of the running validator); off: 404"`
}

// Hosts is AllowedHosts as a list (Validate has checked each entry).
func (a APIConfig) Hosts() []string {
	hosts, _ := ParseHosts(a.AllowedHosts)
	return hosts
}

// WebConfig configures the web console's public listener. The operator
// pages are always served on api.listen, beside the API.
type WebConfig struct {
	PublicListen string  `yaml:"public_listen" help:"host:port for the public web console (leaderboard, decided races and their trajectories; no operator endpoint, no unexposed problem); empty: no public listener"`
	PublicRate   float64 `yaml:"public_rate" help:"requests per second one client (an IPv4 address, or an IPv6 /64) may make to the public listener, on average"`
	PublicBurst  int     `yaml:"public_burst" help:"requests one client (an IPv4 address, or an IPv6 /64) may make to the public listener at once before public_rate applies"`
}

// DevnetConfig configures `arena devnet`, the local test chain.
type DevnetConfig struct {
	Listen     string   `yaml:"listen" help:"host:port where the devnet serves JSON-RPC and websocket"`
	BlockTime  Duration `yaml:"block_time" help:"time between devnet blocks (at least 10ms)"`
	Netuid     uint16   `yaml:"netuid" help:"subnet created on the devnet"`
	Tempo      uint64   `yaml:"tempo" help:"devnet epoch length in blocks (short for fast epochs)"`
	Validators int      `yaml:"validators" help:"validator neurons registered at genesis (at least 1)"`
	Miners     int      `yaml:"miners" help:"miner neurons registered at genesis (validators+miners <= 256)"`
	Keystore   string   `yaml:"keystore" help:"directory where the devnet writes its development keys"`
}

// LLMConfig configures calls to an OpenAI-compatible chat endpoint (the
// reference miner's llm agent).
type LLMConfig struct {
	BaseURL string   `yaml:"base_url" help:"OpenAI-compatible API base URL, e.g. http://127.0.0.1:11434/v1"`
	Model   string   `yaml:"model" help:"model name sent with each request"`
	Timeout Duration `yaml:"timeout" help:"bound on one chat request"`
	APIKey  Secret   `yaml:"api_key" help:"API key; only from ARENA_LLM_API_KEY, never a file or flag"`
}

// Default returns the built-in configuration: a validator talking to a
// local devnet on 127.0.0.1:9944, with all data under the current directory.
func Default() Config {
	return Config{
		DataDir:         "./arena-data",
		ShutdownTimeout: Duration{time.Minute},
		Log:             LogConfig{Level: "info", Format: "auto"},
		Chain: ChainConfig{
			URL:            "ws://127.0.0.1:9944",
			ChainID:        0,
			Netuid:         15,
			Tempo:          360,
			DialTimeout:    Duration{10 * time.Second},
			CallTimeout:    Duration{30 * time.Second},
			ReceiptTimeout: Duration{2 * time.Minute},
			ReconnectMin:   Duration{500 * time.Millisecond},
			ReconnectMax:   Duration{30 * time.Second},
		},
		Keystore: KeystoreConfig{Dir: "./arena-keys"},
		Store: StoreConfig{GCInterval: Duration{5 * time.Minute}, GCDiscardRatio: 0.5,
			MinFreeSoft: 2 << 30, MinFreeSoftPercent: 5, MinFreeHard: 256 << 20, MinFreeHardPercent: 1, Reserve: 256 << 20,
			Retention: RetentionConfig{Interval: Duration{time.Hour}}},
		Metrics: MetricsConfig{Listen: "127.0.0.1:9100"},
		API:     APIConfig{Listen: "127.0.0.1:9101"},
		Web:     WebConfig{PublicRate: 5, PublicBurst: 20},
		Devnet: DevnetConfig{
			Listen:     "127.0.0.1:9944",
			BlockTime:  Duration{time.Second},
			Netuid:     15,
			Tempo:      20,
			Validators: 1,
			Miners:     8,
			Keystore:   "./arena-devnet",
		},
		LLM:   LLMConfig{Timeout: Duration{50 * time.Second}},
		Suite: SuiteConfig{Paraphrase: ParaphraseConfig{Timeout: Duration{30 * time.Second}}},
		Validator: ValidatorConfig{
			SyncEveryBlocks:       10,
			RaceEveryBlocks:       360,
			WeightsEveryBlocks:    100,
			QualifyingProblems:    20,
			RaceProblems:          50,
			QualifyingConcurrency: 4,
			PublicProblems:        200,
			HiddenMinClusters:     100,
			ProblemMix:            "product:0.4,shop:0.3,voucher:0.3",
		},
		// 2,500 products a day: at the default race size and mix a day of
		// races spends about 1,800 targets (docs/benchmarks.md, "Hidden
		// pool capacity"), so restocks outpace races by a third.
		Catalog: CatalogConfig{Products: 100_000, Seed: 1, RestockEveryBlocks: 7200, RestockProducts: 2500},
		Episode: EpisodeConfig{
			MaxFrameBytes:         256 << 10,
			MaxThinkBytes:         16 << 10,
			MaxToolCalls:          8,
			MaxSteps:              30,
			StepTimeout:           Duration{60 * time.Second},
			EpisodeTimeout:        Duration{300 * time.Second},
			MaxConcurrentEpisodes: 4,
			MaxEpisodeBytes:       1 << 20,
		},
		Race: RaceConfig{Floor: 0.2, RatioStart: 0.8, RatioFloor: 0.7, DecayBlocks: 7200, Margin: 0.01,
			Confidence: 0.95, TieMargin: 0.02, WindowBlocks: 50400},
		Weights: WeightsConfig{Policy: "winner_take_all", TopShare: 0.7, TailShare: 0.3},
		Judge:   JudgeConfig{Kind: "grounding", TemplateCap: 0.4, OnUnavailable: "void"},
		// The budgets fit the reference LLM agent's longest episode (30
		// steps) with room; docs/operations.md gives the measured use.
		Relay: RelayConfig{Models: DefaultRelayModels, Required: RelayAuto, Timeout: Duration{60 * time.Second},
			MaxCompletions: 40, MaxPromptTokens: 1_500_000, MaxCompletionTokens: 60_000, MaxWallTime: Duration{240 * time.Second}, MaxTokens: 2048},
	}
}

// Duration is a time.Duration that reads and writes as text such as "250ms",
// "10s" or "2m" in YAML, JSON, environment variables and flags. Use the
// embedded field for the value: ctx, cancel := context.WithTimeout(ctx,
// cfg.Chain.CallTimeout.Duration).
type Duration struct{ time.Duration }

// MarshalText writes the duration as time.Duration.String does ("1m30s").
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses a Go duration string. A bare number other than 0 is
// rejected: a unit is required.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := parseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

func parseDuration(s string) (time.Duration, error) {
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("not a duration (use a number with a unit, e.g. 250ms, 10s, 2m)")
	}
	return v, nil
}

// redactedText is what a non-empty Secret shows instead of its value.
const redactedText = "[redacted]"

// ByteSize is a number of bytes that reads as text such as "2GiB",
// "512MiB", "1.5GB" or a plain count of bytes, and writes in IEC units.
type ByteSize uint64

// MarshalText writes the size in IEC units ("2.0 GiB" reads back as "2GiB"
// would only when exact, so whole units are written without a fraction).
func (b ByteSize) MarshalText() ([]byte, error) { return []byte(formatByteSize(b)), nil }

// UnmarshalText parses a size with an optional SI or IEC unit.
func (b *ByteSize) UnmarshalText(text []byte) error {
	v, err := parseByteSize(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

func parseByteSize(s string) (ByteSize, error) {
	v, err := humanize.ParseBytes(s)
	if err != nil {
		return 0, fmt.Errorf("not a size (use bytes or a unit, e.g. 512MiB, 2GiB, 10GB)")
	}
	return ByteSize(v), nil
}

func formatByteSize(b ByteSize) string {
	for _, u := range []struct {
		name string
		size ByteSize
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b >= u.size && b%u.size == 0 {
			return strconv.FormatUint(uint64(b/u.size), 10) + u.name
		}
	}
	return strconv.FormatUint(uint64(b), 10)
}

// Secret is a string that never prints its value. fmt (every verb), YAML,
// JSON and text marshalling all show "[redacted]" when it is non-empty and
// "" when it is empty. Reveal returns the value for the one place that needs
// it.
type Secret string

// Reveal returns the secret's value. Call it only where the value is used,
// never to log or display it.
func (s Secret) Reveal() string { return string(s) }

// String returns "[redacted]", or "" for an empty secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redactedText
}

// GoString keeps %#v redacted too.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// Format makes every fmt verb (%v, %s, %q, %x, %d, ...) see only the
// redacted text, so no format string can leak the value.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, s.GoString())
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), s.String())
}

// MarshalYAML emits the redacted text.
func (s Secret) MarshalYAML() (any, error) { return s.String(), nil }

// MarshalJSON emits the redacted text as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// MarshalText emits the redacted text.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
