package config

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestDefaultsValidate(t *testing.T) {
	cfg := Default()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("defaults do not validate:\n%v", err)
	}
	loaded := mustLoad(t, LoadOptions{})
	if !reflect.DeepEqual(*loaded, cfg) {
		t.Errorf("Load with no inputs = %v, want Default() %v", loaded, cfg)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *Config)
		want   string // "" means valid
	}{
		{"upper-case log level", func(c *Config) { c.Log.Level = "DEBUG" }, ""},
		{"empty log level means info", func(c *Config) { c.Log.Level = "" }, ""},
		{"https url", func(c *Config) { c.Chain.URL = "HTTPS://node.example/rpc" }, ""},
		{"checksummed address", func(c *Config) { c.Keystore.Address = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" }, ""},
		{"listen on all interfaces", func(c *Config) { c.Metrics.Listen = ":9100" }, ""},
		{"ipv6 listen", func(c *Config) { c.Devnet.Listen = "[::1]:9944" }, ""},
		{"no miners", func(c *Config) { c.Devnet.Miners = 0 }, ""},
		{"full subnet", func(c *Config) { c.Devnet.Validators, c.Devnet.Miners = 64, 192 }, ""},
		{"equal reconnect bounds", func(c *Config) { c.Chain.ReconnectMax = c.Chain.ReconnectMin }, ""},

		{"empty data dir", func(c *Config) { c.DataDir = " " }, `data_dir: must not be empty`},
		{"bad log level", func(c *Config) { c.Log.Level = "verbose" },
			`log.level "verbose": must be one of trace, debug, info, warn, error, fatal, panic or disabled`},
		{"bad log format", func(c *Config) { c.Log.Format = "xml" }, `log.format "xml": must be one of auto, json or console`},
		{"url scheme", func(c *Config) { c.Chain.URL = "ftp://x" }, `chain.url "ftp://x": scheme must be ws, wss, http or https`},
		{"url scheme hides password", func(c *Config) { c.Chain.URL = "ftp://me:hunter2@x" },
			`chain.url "ftp://me:xxxxx@x": scheme must be ws, wss, http or https`},
		{"url without scheme", func(c *Config) { c.Chain.URL = "127.0.0.1:9944" },
			`chain.url "127.0.0.1:9944": not a valid URL: first path segment in URL cannot contain colon`},
		{"unparsable url hides password", func(c *Config) { c.Chain.URL = "wss://me:hunter2@node/%zz" },
			`chain.url "wss://me:xxxxx@node/%zz": not a valid URL: invalid URL escape "%zz"`},
		{"url without host", func(c *Config) { c.Chain.URL = "ws://" }, `chain.url "ws://": missing host (e.g. ws://127.0.0.1:9944)`},
		{"empty url", func(c *Config) { c.Chain.URL = "" }, `chain.url: must not be empty`},
		{"zero tempo", func(c *Config) { c.Chain.Tempo = 0 }, `chain.tempo "0": must be greater than 0`},
		{"zero dial timeout", func(c *Config) { c.Chain.DialTimeout = Duration{} }, `chain.dial_timeout "0s": must be greater than 0`},
		{"episode budget below a frame", func(c *Config) { c.Episode.MaxEpisodeBytes = c.Episode.MaxFrameBytes - 1 },
			`episode.max_episode_bytes "262143": must be at least 262144`},
		{"episode budget of one frame", func(c *Config) { c.Episode.MaxEpisodeBytes = c.Episode.MaxFrameBytes }, ""},
		{"negative call timeout", func(c *Config) { c.Chain.CallTimeout = Duration{-time.Second} }, `chain.call_timeout "-1s": must be greater than 0`},
		{"zero receipt timeout", func(c *Config) { c.Chain.ReceiptTimeout = Duration{} }, `chain.receipt_timeout "0s": must be greater than 0`},
		{"reconnect max below min", func(c *Config) { c.Chain.ReconnectMax = Duration{100 * time.Millisecond} },
			`chain.reconnect_max "100ms": must be at least chain.reconnect_min (500ms)`},
		{"empty keystore dir", func(c *Config) { c.Keystore.Dir = "" }, `keystore.dir: must not be empty`},
		{"short address", func(c *Config) { c.Keystore.Address = "0x12" }, `keystore.address "0x12": must be 0x followed by 40 hex digits`},
		{"address without 0x", func(c *Config) { c.Keystore.Address = strings.Repeat("a", 40) },
			`keystore.address "` + strings.Repeat("a", 40) + `": must be 0x followed by 40 hex digits`},
		{"address not hex", func(c *Config) { c.Keystore.Address = "0x" + strings.Repeat("g", 40) },
			`keystore.address "0x` + strings.Repeat("g", 40) + `": must be 0x followed by 40 hex digits`},
		{"password and password file", func(c *Config) { c.Keystore.Password, c.Keystore.PasswordFile = "hunter2", "/pw" },
			`keystore.password_file: is set and so is ARENA_KEYSTORE_PASSWORD; use only one`},
		{"zero gc interval", func(c *Config) { c.Store.GCInterval = Duration{} }, `store.gc_interval "0s": must be greater than 0`},
		{"discard ratio 0", func(c *Config) { c.Store.GCDiscardRatio = 0 }, `store.gc_discard_ratio "0": must be greater than 0 and less than 1`},
		{"discard ratio 1", func(c *Config) { c.Store.GCDiscardRatio = 1 }, `store.gc_discard_ratio "1": must be greater than 0 and less than 1`},
		{"discard ratio NaN", func(c *Config) { c.Store.GCDiscardRatio = math.NaN() }, `store.gc_discard_ratio "NaN": must be greater than 0 and less than 1`},
		{"metrics port only", func(c *Config) { c.Metrics.Listen = "9100" },
			`metrics.listen "9100": must be host:port with a numeric port (e.g. 127.0.0.1:9100, or :9100 for all interfaces)`},
		{"metrics named port", func(c *Config) { c.Metrics.Listen = "localhost:http" },
			`metrics.listen "localhost:http": must be host:port with a numeric port (e.g. 127.0.0.1:9100, or :9100 for all interfaces)`},
		{"devnet port out of range", func(c *Config) { c.Devnet.Listen = "127.0.0.1:70000" },
			`devnet.listen "127.0.0.1:70000": must be host:port with a numeric port (e.g. 127.0.0.1:9100, or :9100 for all interfaces)`},
		{"devnet block time too short", func(c *Config) { c.Devnet.BlockTime = Duration{5 * time.Millisecond} },
			`devnet.block_time "5ms": must be at least 10ms`},
		{"devnet zero tempo", func(c *Config) { c.Devnet.Tempo = 0 }, `devnet.tempo "0": must be greater than 0`},
		{"devnet no validators", func(c *Config) { c.Devnet.Validators = 0 }, `devnet.validators "0": must be at least 1`},
		{"devnet negative miners", func(c *Config) { c.Devnet.Miners = -1 }, `devnet.miners "-1": must not be negative`},
		{"devnet too many neurons", func(c *Config) { c.Devnet.Validators, c.Devnet.Miners = 57, 200 },
			`devnet.validators + devnet.miners: 57 + 200 = 257, but at most 256 neurons fit on a subnet`},
		{"devnet empty keystore", func(c *Config) { c.Devnet.Keystore = "" }, `devnet.keystore: must not be empty`},
		{"api on all interfaces without allow_remote", func(c *Config) { c.API.Listen = ":9101" },
			`api.listen ":9101": is not a loopback address, and the API shows every miner's trajectories; set api.allow_remote: true and api.token_file to serve it beyond this host`},
		{"api allow_remote without token file", func(c *Config) { c.API.Listen, c.API.AllowRemote = "0.0.0.0:9101", true },
			`api.token_file: must be set when api.allow_remote is true`},
		{"api remote with token file", func(c *Config) {
			c.API.Listen, c.API.AllowRemote, c.API.TokenFile = "0.0.0.0:9101", true, "/etc/arena/api.token"
		}, ""},
		{"both on random ports", func(c *Config) { c.API.Listen, c.Metrics.Listen = "127.0.0.1:0", "127.0.0.1:0" }, ""},
		{"api on the metrics port", func(c *Config) { c.API.Listen = c.Metrics.Listen },
			`api.listen: "127.0.0.1:9100" is also metrics.listen; the API needs its own port`},
		{"paraphrase endpoint and model", func(c *Config) {
			c.Suite.Paraphrase.BaseURL, c.Suite.Paraphrase.Model = "http://127.0.0.1:11434/v1", "qwen3:8b"
		}, ""},
		{"index_dir without a catalog file", func(c *Config) { c.Catalog.IndexDir = "/var/cache/arena" },
			`catalog.index_dir: is only used with catalog.file (a generated catalog is built in memory at every start); set catalog.file or leave it empty`},
		{"index_dir with a catalog file", func(c *Config) {
			c.Catalog.File, c.Catalog.IndexDir = "/var/lib/arena/catalog.jsonl.gz", "/var/cache/arena"
		}, ""},
		{"paraphrase without model", func(c *Config) { c.Suite.Paraphrase.BaseURL = "http://127.0.0.1:11434/v1" },
			`suite.paraphrase.model: must be set when suite.paraphrase.base_url is`},
		{"paraphrase url hides password", func(c *Config) {
			c.Suite.Paraphrase.BaseURL, c.Suite.Paraphrase.Model = "ftp://me:hunter2@x/v1", "m"
		}, `suite.paraphrase.base_url "ftp://me:xxxxx@x/v1": must be an http or https URL`},
		{"paraphrase zero timeout", func(c *Config) { c.Suite.Paraphrase.Timeout = Duration{} }, `suite.paraphrase.timeout "0s": must be greater than 0`},
		{"tempo beyond a u16", func(c *Config) { c.Chain.Tempo = 65536 }, `chain.tempo "65536": must be at most 65535 (subtensor's Tempo is a u16)`},
		{"tempo at the u16 limit", func(c *Config) { c.Chain.Tempo = 65535 }, ""},
		{"allowed hosts", func(c *Config) { c.API.AllowedHosts = "validator.example.org, 10.0.0.5,[2001:db8::1]" }, ""},
		{"allowed host with a port", func(c *Config) { c.API.AllowedHosts = "validator.example.org:9101" },
			`api.allowed_hosts "validator.example.org:9101": "validator.example.org:9101": give the host without a port`},
		{"allowed host as a URL", func(c *Config) { c.API.AllowedHosts = "https://validator.example.org" },
			`api.allowed_hosts "https://validator.example.org": "https://validator.example.org" is not a host name or IP address (no scheme, path or wildcard)`},
		{"allowed host wildcard", func(c *Config) { c.API.AllowedHosts = "*.example.org" },
			`api.allowed_hosts "*.example.org": "*.example.org" is not a host name or IP address (no scheme, path or wildcard)`},
		{"retention by age and size", func(c *Config) {
			c.Store.Retention.MaxAge, c.Store.Retention.MaxSize = Duration{720 * time.Hour}, 20<<30
		}, ""},
		{"retention age too short", func(c *Config) { c.Store.Retention.MaxAge = Duration{30 * time.Minute} },
			`store.retention.max_age "30m0s": must be 0 (keep every episode) or at least 24h0m0s (e.g. 720h for 30 days)`},
		{"retention age negative", func(c *Config) { c.Store.Retention.MaxAge = Duration{-time.Hour} },
			`store.retention.max_age "-1h0m0s": must be 0 (keep every episode) or at least 24h0m0s (e.g. 720h for 30 days)`},
		{"retention size too small", func(c *Config) { c.Store.Retention.MaxSize = 100 },
			`store.retention.max_size "100": must be 0 (no size limit) or at least 64MiB`},
		{"retention zero interval", func(c *Config) { c.Store.Retention.Interval = Duration{} },
			`store.retention.interval "0s": must be greater than 0`},
		{"relay on", func(c *Config) { c.Relay.BaseURL, c.Relay.Required = "https://openrouter.ai/api/v1", RelayTrue }, ""},
		{"relay required without a provider", func(c *Config) { c.Relay.Required = RelayTrue },
			`relay.base_url: must be set when relay.required is true (steps are verified against the relay's completions)`},
		{"relay required misspelt", func(c *Config) { c.Relay.Required = "yes" }, `relay.required "yes": must be auto, true or false`},
		{"relay url hides password", func(c *Config) { c.Relay.BaseURL = "ftp://me:hunter2@x/v1" },
			`relay.base_url "ftp://me:xxxxx@x/v1": must be an http or https URL such as https://openrouter.ai/api/v1`},
		{"relay empty allowlist", func(c *Config) { c.Relay.Models = " , " },
			`relay.models: must name at least one model (the default is ` + DefaultRelayModels + `)`},
		{"relay allowlist with the stand-in", func(c *Config) { c.Relay.Models = "m," + StandInModel },
			`relay.models "m,` + StandInModel + `": ` + StandInModel + ` is the offline stand-in, a script and not a model: a validator never relays or credits it`},
		{"relay zero completions", func(c *Config) { c.Relay.MaxCompletions = 0 }, `relay.max_completions "0": must be at least 1`},
		{"relay negative daily tokens", func(c *Config) { c.Relay.DailyTokens = -1 }, `relay.daily_tokens "-1": must be at least 0`},
		{"relay max_tokens above the episode's", func(c *Config) { c.Relay.MaxTokens = 70_000 },
			`relay.max_tokens "70000": must not exceed relay.max_completion_tokens (60000)`},
		{"llm agent on the stand-in", func(c *Config) { c.LLM.BaseURL = StandInURL }, ""},
		{"llm judge on the stand-in", func(c *Config) { c.LLM.BaseURL, c.Judge.Kind, c.Judge.Models = StandInURL, "llm", "m" },
			`llm.base_url "stand-in": the offline stand-in is a script, not a model: the llm judge needs a real endpoint`},
		{"relay zero wall time", func(c *Config) { c.Relay.MaxWallTime = Duration{} }, `relay.max_wall_time "0s": must be greater than 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Default()
			tt.mutate(&cfg)
			err := cfg.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("want valid, got:\n%v", err)
			case tt.want != "" && err == nil:
				t.Errorf("want error %q, got nil", tt.want)
			case tt.want != "" && err.Error() != tt.want:
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error leaks the password: %v", err)
			}
		})
	}
}

// TestParseHosts: api.allowed_hosts entries come out in the form HostOf
// gives a Host header, so a listed name matches however the browser
// spells it, and anything that is not a bare host is refused.
func TestParseHosts(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    []string
		wantErr string
	}{
		{"", nil, ""},
		{" Validator.Example.org. , 10.0.0.5,, [2001:DB8::1] ,::1", []string{"validator.example.org", "10.0.0.5", "2001:db8::1", "::1"}, ""},
		{"tunnel_host", []string{"tunnel_host"}, ""},
		{"a:80", nil, "without a port"},
		{"a/b", nil, "no scheme, path or wildcard"},
		{"user@host", nil, "no scheme, path or wildcard"},
		{"a..b", nil, "not a host name"},
		{".", nil, "not a host name"},
		{"ünïcode.example", nil, "not a host name"},
	} {
		got, err := ParseHosts(tt.in)
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("ParseHosts(%q) error %v, want one containing %q", tt.in, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || !slices.Equal(got, tt.want)):
			t.Errorf("ParseHosts(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for in, want := range map[string]string{
		"Validator.Example.org.:9101": "validator.example.org",
		"[2001:DB8::1]:9101":          "2001:db8::1",
		"127.0.0.1":                   "127.0.0.1",
		"localhost:80":                "localhost",
		"":                            "",
	} {
		if got := HostOf(in); got != want {
			t.Errorf("HostOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	cfg := Default()
	cfg.Chain.URL = "ftp://x"
	cfg.Chain.Tempo = 0
	cfg.Store.GCDiscardRatio = 2
	cfg.Devnet.Validators = 0
	err := cfg.Validate()
	if err == nil {
		t.Fatal("want errors, got nil")
	}
	lines := strings.Split(err.Error(), "\n")
	wantKeys := []string{"chain.url ", "chain.tempo ", "store.gc_discard_ratio ", "devnet.validators "}
	if len(lines) != len(wantKeys) {
		t.Fatalf("got %d lines, want %d:\n%v", len(lines), len(wantKeys), err)
	}
	for i, key := range wantKeys {
		if !strings.HasPrefix(lines[i], key) {
			t.Errorf("line %d = %q, want it to start with key %q", i+1, lines[i], strings.TrimSpace(key))
		}
	}
}

func TestPasswordFromEnvIsRedacted(t *testing.T) {
	const password = "hunter2-very-secret"
	const urlPassword = "url-pass-42"
	cfg := mustLoad(t, LoadOptions{Environ: []string{
		"ARENA_KEYSTORE_PASSWORD=" + password,
		"ARENA_CHAIN_URL=wss://validator:" + urlPassword + "@node.example:443/ws",
	}})
	if got := cfg.Keystore.Password.Reveal(); got != password {
		t.Fatalf("Reveal() = %q, want the password from the environment", got)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	yamlText, err := cfg.MarshalYAMLText()
	if err != nil {
		t.Fatal(err)
	}
	jsonText, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"MarshalYAMLText":  string(yamlText),
		"json.Marshal":     string(jsonText),
		"fmt.Sprint(cfg)":  fmt.Sprint(cfg),
		"fmt.Sprint(*cfg)": fmt.Sprint(*cfg),
		"%+v":              fmt.Sprintf("%+v", *cfg),
		"%#v":              fmt.Sprintf("%#v", *cfg),
		"%#v pointer":      fmt.Sprintf("%#v", cfg),
		"Keystore %+v":     fmt.Sprintf("%+v", cfg.Keystore),
		//lint:ignore S1025 the table is about what each fmt verb prints, so %s goes through fmt
		"%s": fmt.Sprintf("%s", cfg),
	}
	for name, out := range outputs {
		t.Run(name, func(t *testing.T) {
			if strings.Contains(out, password) || strings.Contains(out, urlPassword) {
				t.Errorf("output leaks a secret:\n%s", out)
			}
			if name != "%#v pointer" && !strings.Contains(out, redactedText) {
				t.Errorf("output does not show %q:\n%s", redactedText, out)
			}
		})
	}
	if !strings.Contains(string(yamlText), "wss://validator:xxxxx@node.example:443/ws") {
		t.Errorf("YAML does not show the redacted URL:\n%s", yamlText)
	}
	// Redacted returns a copy; the original keeps its secrets.
	red := cfg.Redacted()
	if red.Keystore.Password.Reveal() == password || !strings.Contains(cfg.Chain.URL, urlPassword) {
		t.Errorf("Redacted: copy reveals %q, original url %q", red.Keystore.Password.Reveal(), cfg.Chain.URL)
	}
}

func TestSecretNeverPrints(t *testing.T) {
	const value = "s3cr3t"
	s := Secret(value)
	formats := []string{"%v", "%s", "%q", "%x", "%X", "%d", "%#v", "%+v", "%10s", "%-12v|"}
	for _, f := range formats {
		t.Run(f, func(t *testing.T) {
			out := fmt.Sprintf(f, s)
			if strings.Contains(out, value) || strings.Contains(out, fmt.Sprintf("%x", value)) {
				t.Errorf("Sprintf(%q) = %q leaks the value", f, out)
			}
		})
	}
	if got := fmt.Sprint(s); got != "[redacted]" {
		t.Errorf("Sprint = %q, want [redacted]", got)
	}
	if got := fmt.Sprintf("%q", s); got != `"[redacted]"` {
		t.Errorf("%%q = %s, want \"[redacted]\"", got)
	}
	if got := fmt.Sprint(Secret("")); got != "" {
		t.Errorf("empty secret prints %q, want empty", got)
	}
	j, _ := json.Marshal(struct{ P Secret }{s})
	y, _ := yaml.Marshal(struct{ P Secret }{s})
	if strings.Contains(string(j), value) || strings.Contains(string(y), value) {
		t.Errorf("marshalling leaks the value: %s / %s", j, y)
	}
	if s.Reveal() != value {
		t.Errorf("Reveal() = %q, want %q", s.Reveal(), value)
	}
}

func TestDurationText(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"250ms", 250 * time.Millisecond, true},
		{"1h30m", 90 * time.Minute, true},
		{"0", 0, true},
		{"10", 0, false},
		{"5x", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var d Duration
			err := d.UnmarshalText([]byte(tt.in))
			if (err == nil) != tt.ok {
				t.Fatalf("UnmarshalText(%q) error = %v, want ok=%v", tt.in, err, tt.ok)
			}
			if tt.ok && d.Duration != tt.want {
				t.Errorf("got %v, want %v", d.Duration, tt.want)
			}
		})
	}
	out, err := yaml.Marshal(struct {
		D Duration `yaml:"d"`
	}{Duration{2 * time.Minute}})
	if err != nil || string(out) != "d: 2m0s\n" {
		t.Errorf("yaml.Marshal = %q, %v; want \"d: 2m0s\\n\"", out, err)
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"wss://user:pass@host:443/path", "wss://user:xxxxx@host:443/path"},
		{"https://user:p@ss@host/x?y=1", "https://user:xxxxx@host/x?y=1"},
		{"wss://user:pass@host", "wss://user:xxxxx@host"},
		{"wss://user@host/", "wss://user@host/"},
		{"ws://127.0.0.1:9944", "ws://127.0.0.1:9944"},
		{"http://host/path@x:y", "http://host/path@x:y"},
		{"./arena-data", "./arena-data"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := redactURL(tt.in); got != tt.want {
				t.Errorf("redactURL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// yamlLeafPaths lists the dotted paths of the scalar leaves in YAML text.
func yamlLeafPaths(t *testing.T, text []byte) []string {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		t.Fatal(err)
	}
	var paths []string
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := joinPath(prefix, n.Content[i].Value)
			if v := n.Content[i+1]; v.Kind == yaml.MappingNode {
				walk(v, p)
			} else {
				paths = append(paths, p)
			}
		}
	}
	if len(doc.Content) > 0 {
		walk(doc.Content[0], "")
	}
	return paths
}

func TestKeys(t *testing.T) {
	keys := Keys()
	byPath := map[string]Key{}
	envs := map[string]bool{}
	for _, k := range keys {
		if _, dup := byPath[k.Path]; dup {
			t.Errorf("key %s listed twice", k.Path)
		}
		if envs[k.Env] {
			t.Errorf("env %s listed twice", k.Env)
		}
		byPath[k.Path], envs[k.Env] = k, true
		if want := "ARENA_" + strings.ToUpper(strings.ReplaceAll(k.Path, ".", "_")); k.Env != want {
			t.Errorf("key %s: env %s, want %s", k.Path, k.Env, want)
		}
		if k.Help == "" || k.Type == "" {
			t.Errorf("key %s: empty help or type: %+v", k.Path, k)
		}
	}

	t.Run("spot checks", func(t *testing.T) {
		for _, want := range []Key{
			{Path: "chain.url", Env: "ARENA_CHAIN_URL", Type: "string"},
			{Path: "data_dir", Env: "ARENA_DATA_DIR", Type: "string"},
			{Path: "devnet.block_time", Env: "ARENA_DEVNET_BLOCK_TIME", Type: "duration"},
			{Path: "chain.netuid", Env: "ARENA_CHAIN_NETUID", Type: "uint16"},
			{Path: "keystore.password", Env: "ARENA_KEYSTORE_PASSWORD", Type: "secret"},
			{Path: "store.gc_discard_ratio", Env: "ARENA_STORE_GC_DISCARD_RATIO", Type: "float64"},
		} {
			got, ok := byPath[want.Path]
			if !ok || got.Env != want.Env || got.Type != want.Type {
				t.Errorf("Keys()[%s] = %+v, want env %s type %s", want.Path, got, want.Env, want.Type)
			}
		}
		if h := byPath["chain.url"].Help; !strings.HasSuffix(h, "(default ws://127.0.0.1:9944)") {
			t.Errorf("chain.url help %q does not end with its default", h)
		}
	})

	t.Run("every leaf exactly once", func(t *testing.T) {
		// An independent derivation: the leaves yaml.v3 itself writes for Config.
		text, err := yaml.Marshal(Default())
		if err != nil {
			t.Fatal(err)
		}
		want := yamlLeafPaths(t, text)
		var got []string
		for _, k := range keys {
			got = append(got, k.Path)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Keys() paths:\n got %v\nwant %v", got, want)
		}
	})

	t.Run("every key settable from its env variable", func(t *testing.T) {
		s := configSchema()
		for _, k := range keys {
			v := formatValue(reflect.ValueOf(Default()).FieldByIndex(s.byPath[k.Path].index))
			if v == "" {
				v = "x"
			}
			if _, err := Load(LoadOptions{Environ: []string{k.Env + "=" + v}}); err != nil {
				t.Errorf("%s=%s: %v", k.Env, v, err)
			}
		}
	})
}

func TestExampleFile(t *testing.T) {
	const path = "../scripts/arena.example.yaml"
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mustLoad(t, LoadOptions{Path: path})
	if err := cfg.Validate(); err != nil {
		t.Errorf("example does not validate:\n%v", err)
	}
	if !reflect.DeepEqual(*cfg, Default()) {
		t.Errorf("example values differ from Default(); its comments promise the defaults:\n got %v\nwant %v", cfg, Default())
	}
	present := yamlLeafPaths(t, text)
	s := configSchema()
	for _, k := range Keys() {
		if s.byPath[k.Path].envOnly() {
			if !strings.Contains(string(text), k.Env) {
				t.Errorf("example does not mention env-only key %s (%s)", k.Path, k.Env)
			}
			continue
		}
		if !slices.Contains(present, k.Path) {
			t.Errorf("example is missing key %s", k.Path)
		}
	}
}

// TestValidateRelayForChain: on finney and testnet a validator without a
// relay refuses to start unless relay.required is false in so many
// words; elsewhere auto means off.
func TestValidateRelayForChain(t *testing.T) {
	tests := []struct {
		name     string
		chainID  uint64
		baseURL  string
		required string
		want     string // substring of the error; "" for none
		verified bool   // RelayRequired
	}{
		{name: "finney, auto, no relay", chainID: 964, required: RelayAuto, want: "chain 964 is a public chain", verified: true},
		{name: "testnet, auto, no relay", chainID: 945, required: RelayAuto, want: "set relay.required: false", verified: true},
		{name: "finney, explicit false", chainID: 964, required: RelayFalse},
		{name: "finney, auto, relay", chainID: 964, baseURL: "https://p/v1", required: RelayAuto, verified: true},
		{name: "devnet, auto", chainID: 0, required: RelayAuto},
		{name: "local chain id, auto", chainID: 42, required: RelayAuto},
		{name: "devnet, true, no relay", chainID: 0, required: RelayTrue, want: "must be set when relay.required is true", verified: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Default()
			cfg.Relay.BaseURL, cfg.Relay.Required = tt.baseURL, tt.required
			err := cfg.ValidateRelayForChain(tt.chainID)
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if got := cfg.Relay.RelayRequired(tt.chainID); got != tt.verified {
				t.Errorf("required %v, want %v", got, tt.verified)
			}
		})
	}
}
