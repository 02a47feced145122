package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// writeFile writes content to a fresh file in a temp dir and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// mustLoad loads opts and fails the test on error.
func mustLoad(t *testing.T, opts LoadOptions) *Config {
	t.Helper()
	cfg, err := Load(opts)
	if err != nil {
		t.Fatalf("Load: unexpected error:\n%v", err)
	}
	return cfg
}

// loadErr loads opts and returns the error text, failing if there is none.
func loadErr(t *testing.T, opts LoadOptions) string {
	t.Helper()
	cfg, err := Load(opts)
	if err == nil {
		t.Fatalf("Load: want an error, got config %v", cfg)
	}
	if cfg != nil {
		t.Errorf("Load: returned a config alongside error %v", err)
	}
	return err.Error()
}

// yamlFor renders dotted key paths (at most one level of nesting) as YAML
// with plain, unquoted scalars.
func yamlFor(pairs [][2]string) string {
	var top strings.Builder
	var order []string
	sections := map[string][]string{}
	for _, p := range pairs {
		section, name, nested := strings.Cut(p[0], ".")
		if !nested {
			fmt.Fprintf(&top, "%s: %s\n", p[0], p[1])
			continue
		}
		if _, ok := sections[section]; !ok {
			order = append(order, section)
		}
		sections[section] = append(sections[section], fmt.Sprintf("  %s: %s\n", name, p[1]))
	}
	for _, s := range order {
		top.WriteString(s + ":\n" + strings.Join(sections[s], ""))
	}
	return top.String()
}

// layerTest exercises the layering on every kind the setter supports,
// including bool, which Config itself does not use yet.
type layerTest struct {
	Name  string   `yaml:"name"`
	Count uint32   `yaml:"count"`
	Wait  Duration `yaml:"wait"`
	On    bool     `yaml:"on"`
	Sub   struct {
		Ratio float64 `yaml:"ratio"`
		N     int     `yaml:"n"`
	} `yaml:"sub"`
}

func TestLayerPrecedence(t *testing.T) {
	type keyValues struct{ path, file, env, flag string }
	testSchema, err := newSchema(reflect.TypeFor[layerTest]())
	if err != nil {
		t.Fatal(err)
	}
	subjects := []struct {
		name    string
		schema  *schema
		newRoot func() reflect.Value
		keys    []keyValues
	}{
		{
			name:   "Config",
			schema: configSchema(),
			newRoot: func() reflect.Value {
				c := Default()
				return reflect.ValueOf(&c).Elem()
			},
			keys: []keyValues{
				{"chain.url", "ws://file:1", "ws://env:2", "wss://flag:3"},
				{"chain.netuid", "1", "2", "3"},
				{"devnet.block_time", "1s", "250ms", "2m0s"},
				{"log.level", "debug", "warn", "error"},
				{"data_dir", "/file", "/env", "/flag"},
				{"store.gc_discard_ratio", "0.25", "0.5", "0.75"},
				{"devnet.miners", "1", "2", "3"},
			},
		},
		{
			name:   "every kind",
			schema: testSchema,
			newRoot: func() reflect.Value {
				v := layerTest{Name: "default", Count: 7, Wait: Duration{time.Minute}}
				return reflect.ValueOf(&v).Elem()
			},
			keys: []keyValues{
				{"name", "file", "env", "flag"},
				{"count", "1", "2", "3"},
				{"wait", "1s", "2s", "3s"},
				{"on", "true", "false", "true"}, // default false: each layer flips it
				{"sub.ratio", "0.25", "0.5", "0.75"},
				{"sub.n", "-1", "-2", "-3"},
			},
		},
	}
	layers := []struct {
		name            string
		file, env, flag bool
	}{
		{"defaults only", false, false, false},
		{"file", true, false, false},
		{"env", false, true, false},
		{"flag", false, false, true},
		{"file then env", true, true, false},
		{"file then flag", true, false, true},
		{"env then flag", false, true, true},
		{"all layers", true, true, true},
	}
	for _, subj := range subjects {
		for _, layer := range layers {
			t.Run(subj.name+"/"+layer.name, func(t *testing.T) {
				root := subj.newRoot()
				defaults := map[string]string{}
				for _, k := range subj.keys {
					defaults[k.path] = formatValue(root.FieldByIndex(subj.schema.byPath[k.path].index))
				}
				opts := LoadOptions{
					Environ:   []string{"PATH=/usr/bin", "arena_chain_url=ignored", "ARENAX=ignored"},
					Overrides: map[string]string{},
				}
				var filePairs [][2]string
				for _, k := range subj.keys {
					filePairs = append(filePairs, [2]string{k.path, k.file})
					if layer.env {
						opts.Environ = append(opts.Environ, subj.schema.byPath[k.path].env+"="+k.env)
					}
					if layer.flag {
						opts.Overrides[k.path] = k.flag
					}
				}
				if layer.file {
					opts.Path = writeFile(t, "layers.yaml", yamlFor(filePairs))
				}
				if err := load(subj.schema, root, opts); err != nil {
					t.Fatalf("load: %v", err)
				}
				for _, k := range subj.keys {
					want := defaults[k.path]
					switch {
					case layer.flag:
						want = k.flag
					case layer.env:
						want = k.env
					case layer.file:
						want = k.file
					}
					got := formatValue(root.FieldByIndex(subj.schema.byPath[k.path].index))
					if got != want {
						t.Errorf("%s = %q, want %q", k.path, got, want)
					}
				}
			})
		}
	}
}

func TestLoadFile(t *testing.T) {
	tests := []struct {
		name    string
		content string
		check   func(t *testing.T, c *Config)
	}{
		{"empty file", "", nil},
		{"only comments", "# nothing here\n\n# at all\n", nil},
		{"empty document", "---\n", nil},
		{"null sections and values keep defaults", "chain:\nkeystore:\n  address:\n  dir: ~\n", nil},
		{
			name:    "quoted number",
			content: "chain:\n  netuid: \"16\"\n",
			check: func(t *testing.T, c *Config) {
				t.Helper()
				if c.Chain.Netuid != 16 {
					t.Errorf("chain.netuid = %d, want 16", c.Chain.Netuid)
				}
			},
		},
		{
			name:    "anchors and aliases",
			content: "chain:\n  dial_timeout: &t 5s\n  call_timeout: *t\n",
			check: func(t *testing.T, c *Config) {
				t.Helper()
				if c.Chain.DialTimeout.Duration != 5*time.Second || c.Chain.CallTimeout.Duration != 5*time.Second {
					t.Errorf("timeouts = %v, %v; want 5s, 5s", c.Chain.DialTimeout, c.Chain.CallTimeout)
				}
			},
		},
		{
			name:    "empty string is a value",
			content: "keystore:\n  password_file: \"\"\n  address: \"0x00000000000000000000000000000000000000aA\"\n",
			check: func(t *testing.T, c *Config) {
				t.Helper()
				if c.Keystore.Address != "0x00000000000000000000000000000000000000aA" {
					t.Errorf("keystore.address = %q", c.Keystore.Address)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustLoad(t, LoadOptions{Path: writeFile(t, "arena.yaml", tt.content)})
			if tt.check != nil {
				tt.check(t, cfg)
				return
			}
			if !reflect.DeepEqual(*cfg, Default()) {
				t.Errorf("config differs from defaults:\n got %v\nwant %v", cfg, Default())
			}
		})
	}
}

func TestLoadFileErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string // one line per expected error, "P" standing for the file path
	}{
		{
			name:    "unknown top-level key",
			content: "data_dir: /x\nbogus: 1\n",
			want:    []string{`config P: line 2: unknown key "bogus"`},
		},
		{
			name: "unknown nested key",
			content: "# my validator\n" +
				"data_dir: /srv/arena\n" +
				"log:\n" +
				"  level: debug\n" +
				"chain:\n" +
				"  netuid: 15\n" +
				"  ulr: wss://node\n",
			want: []string{`config P: line 7: unknown key "chain.ulr" (did you mean "chain.url"?)`},
		},
		{
			name:    "unknown section",
			content: "chian:\n  url: ws://x:1\n",
			want:    []string{`config P: line 1: unknown key "chian" (did you mean "chain"?)`},
		},
		{
			name:    "misspelt case",
			content: "Chain:\n  url: ws://x:1\n",
			want:    []string{`config P: line 1: unknown key "Chain" (did you mean "chain"?)`},
		},
		{
			name:    "several problems reported together",
			content: "chain:\n  netuid: abc\n  tempo: -3\nstore:\n  gc_intervall: 1m\n",
			want: []string{
				`config P: line 2: chain.netuid "abc": not a uint16`,
				`config P: line 3: chain.tempo "-3": not a uint64`,
				`config P: line 5: unknown key "store.gc_intervall" (did you mean "store.gc_interval"?)`,
			},
		},
		{
			name:    "duration without unit",
			content: "devnet:\n  block_time: 5\n",
			want:    []string{`config P: line 2: devnet.block_time "5": not a duration (use a number with a unit, e.g. 250ms, 10s, 2m)`},
		},
		{
			name:    "uint out of range",
			content: "chain:\n  netuid: 70000\n",
			want:    []string{`config P: line 2: chain.netuid "70000": out of range for uint16`},
		},
		{
			name:    "password in file",
			content: "keystore:\n  dir: /keys\n  password: hunter2\n",
			want:    []string{`config P: line 3: keystore.password may not be set in a config file; use keystore.password_file or ARENA_KEYSTORE_PASSWORD`},
		},
		{
			name:    "duplicate key",
			content: "chain:\n  url: ws://a:1\n  url: ws://b:1\n",
			want:    []string{`config P: line 3: duplicate key "chain.url" (first set on line 2)`},
		},
		{
			name:    "section given a value",
			content: "chain: ws://a:1\n",
			want: []string{`config P: line 1: chain: expected a mapping of settings (url, chain_id, netuid, tempo, ` +
				`dial_timeout, call_timeout, receipt_timeout, reconnect_min, reconnect_max), not the value "ws://a:1"`},
		},
		{
			name:    "leaf given a list",
			content: "chain:\n  url: [ws://a:1, ws://b:1]\n",
			want:    []string{`config P: line 2: chain.url: expected a single value, not a list`},
		},
		{
			name:    "top level is a list",
			content: "- data_dir\n",
			want:    []string{`config P: line 1: the file must be a mapping of settings (data_dir, shutdown_timeout, log, chain, keystore, store, metrics, api, web, devnet, llm, validator, catalog, episode, race, weights, judge, relay, suite)`},
		},
		{
			name:    "second document",
			content: "data_dir: /a\n---\ndata_dir: /b\n",
			want:    []string{`config P: line 2: a second YAML document starts here; put all settings in one document`},
		},
		{
			name:    "malformed YAML",
			content: "chain:\n  url: ws://a:1\n   netuid: 3\n",
			want:    []string{`config P: line 3: mapping values are not allowed in this context`},
		},
		{
			name:    "unclosed flow sequence",
			content: "chain:\n  url: [ws://a:1\n",
			want:    []string{`config P: line 1: did not find expected ',' or ']'`},
		},
		{
			name:    "merge key",
			content: "chain:\n  <<: {url: ws://a:1}\n",
			want:    []string{`config P: line 2: merge keys (<<) are not supported; write the settings out`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "arena.yaml", tt.content)
			got := loadErr(t, LoadOptions{Path: path})
			want := strings.ReplaceAll(strings.Join(tt.want, "\n"), "config P:", "config "+path+":")
			if got != want {
				t.Errorf("error:\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestLoadFileUnreadable(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		path   string
		want   string
		target error
	}{
		{"missing", filepath.Join(dir, "nope.yaml"), "config " + filepath.Join(dir, "nope.yaml") + ": no such file or directory", fs.ErrNotExist},
		{"directory", dir, "config " + dir + ": is a directory", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(LoadOptions{Path: tt.path})
			if err == nil {
				t.Fatal("want an error")
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
			if tt.target != nil && !errors.Is(err, tt.target) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.target)
			}
		})
	}
}

func TestLoadEnvAndFlagErrors(t *testing.T) {
	tests := []struct {
		name      string
		environ   []string
		overrides map[string]string
		want      string
	}{
		{
			name:    "env not a uint",
			environ: []string{"ARENA_CHAIN_NETUID=abc"},
			want:    `ARENA_CHAIN_NETUID="abc": not a uint16`,
		},
		{
			name:    "env negative uint",
			environ: []string{"ARENA_CHAIN_TEMPO=-1"},
			want:    `ARENA_CHAIN_TEMPO="-1": not a uint64`,
		},
		{
			name:    "env empty uint",
			environ: []string{"ARENA_CHAIN_CHAIN_ID="},
			want:    `ARENA_CHAIN_CHAIN_ID="": not a uint64`,
		},
		{
			name:    "env bad duration",
			environ: []string{"ARENA_DEVNET_BLOCK_TIME=5x"},
			want:    `ARENA_DEVNET_BLOCK_TIME="5x": not a duration (use a number with a unit, e.g. 250ms, 10s, 2m)`,
		},
		{
			name:    "env bad float",
			environ: []string{"ARENA_STORE_GC_DISCARD_RATIO=half"},
			want:    `ARENA_STORE_GC_DISCARD_RATIO="half": not a number`,
		},
		{
			name:    "env bad int",
			environ: []string{"ARENA_DEVNET_MINERS=1.5"},
			want:    `ARENA_DEVNET_MINERS="1.5": not an integer`,
		},
		{
			name:    "env unknown with suggestion",
			environ: []string{"ARENA_CHAIN_ULR=ws://x:1"},
			want:    `environment ARENA_CHAIN_ULR: unknown setting (did you mean "ARENA_CHAIN_URL"?)`,
		},
		{
			name:    "env unknown",
			environ: []string{"ARENA_SOMETHING_ELSE_ENTIRELY=1"},
			want:    `environment ARENA_SOMETHING_ELSE_ENTIRELY: unknown setting`,
		},
		{
			name:      "flag out of range",
			overrides: map[string]string{"chain.netuid": "70000"},
			want:      `flag chain.netuid="70000": out of range for uint16`,
		},
		{
			name:      "flag unknown",
			overrides: map[string]string{"chain.ulr": "ws://x:1"},
			want:      `flag chain.ulr: unknown setting (did you mean "chain.url"?)`,
		},
		{
			name:      "flag password",
			overrides: map[string]string{"keystore.password": "hunter2"},
			want:      `flag keystore.password: may not be set by a flag (flags show in process listings); use keystore.password_file or ARENA_KEYSTORE_PASSWORD`,
		},
		{
			name:      "every layer's problems at once, flags sorted",
			environ:   []string{"ARENA_CHAIN_NETUID=abc", "ARENA_NOPE=1"},
			overrides: map[string]string{"devnet.tempo": "x", "chain.tempo": "y"},
			want: `ARENA_CHAIN_NETUID="abc": not a uint16` + "\n" +
				`environment ARENA_NOPE: unknown setting` + "\n" +
				`flag chain.tempo="y": not a uint64` + "\n" +
				`flag devnet.tempo="x": not a uint64`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := loadErr(t, LoadOptions{Environ: tt.environ, Overrides: tt.overrides})
			if got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
			if strings.Contains(got, "hunter2") {
				t.Errorf("error leaks the password: %s", got)
			}
		})
	}
}

func TestLoadEnvFirstDuplicateWins(t *testing.T) {
	cfg := mustLoad(t, LoadOptions{Environ: []string{"ARENA_DATA_DIR=/first", "ARENA_DATA_DIR=/second"}})
	if cfg.DataDir != "/first" {
		t.Errorf("data_dir = %q, want /first (as os.Getenv would)", cfg.DataDir)
	}
}

func TestMarshalYAMLTextRoundTrip(t *testing.T) {
	want := Default()
	want.DataDir = "/srv/arena data"
	want.Log.Level = "debug"
	want.Chain.URL = "wss://node.example:443/ws"
	want.Chain.ChainID = 964
	want.Chain.Tempo = 99
	want.Chain.ReceiptTimeout = Duration{90 * time.Second}
	want.Keystore.Address = "0x00000000000000000000000000000000000000aA"
	want.Keystore.PasswordFile = "/etc/arena/password"
	want.Store.GCDiscardRatio = 0.7
	want.Devnet.Miners = 0
	want.Devnet.BlockTime = Duration{250 * time.Millisecond}

	text, err := want.MarshalYAMLText()
	if err != nil {
		t.Fatal(err)
	}
	got := mustLoad(t, LoadOptions{Path: writeFile(t, "effective.yaml", string(text))})
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("round trip through\n%s\n got %v\nwant %v", text, got, want)
	}
}
