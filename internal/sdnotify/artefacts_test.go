package sdnotify

// Checks on the deployment artefacts that ship with the validator daemon:
// scripts/arena-validator.service, Dockerfile (+ .dockerignore) and
// scripts/grafana/arena-validator.json. They live here, beside the
// sd_notify client the unit relies on, because they have no Go package of
// their own.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"arena/config"
)

// repoRoot walks up from the package directory to the module root.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(data, []byte("module arena\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("module root (go.mod of module arena) not found above the test directory")
		}
		dir = parent
	}
}

func readArtefact(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// configEnvNames is every ARENA_* variable config accepts; any other one
// makes config.Load fail, so the artefacts may set only these.
func configEnvNames() map[string]bool {
	names := map[string]bool{}
	for _, k := range config.Keys() {
		names[k.Env] = true
	}
	return names
}

// ---- systemd unit ----

const unitPath = "scripts/arena-validator.service"

// unitFile is a parsed systemd unit: section -> key -> values in order.
type unitFile map[string]map[string][]string

func parseUnit(t *testing.T, text string) unitFile {
	t.Helper()
	u := unitFile{}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
			continue
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
			u[section] = map[string][]string{}
			continue
		}
		if strings.HasSuffix(line, `\`) {
			t.Fatalf("%s:%d: line continuations are not expected in this unit", unitPath, n)
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok || section == "" {
			t.Fatalf("%s:%d: not a key=value line inside a section: %q", unitPath, n, line)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		u[section][key] = append(u[section][key], value)
	}
	return u
}

// last returns the effective value of a key (the last assignment wins), and
// whether it is assigned at all.
func (u unitFile) last(section, key string) (string, bool) {
	vs, ok := u[section][key]
	if !ok || len(vs) == 0 {
		return "", false
	}
	return vs[len(vs)-1], true
}

func TestUnitDirectives(t *testing.T) {
	u := parseUnit(t, readArtefact(t, unitPath))
	want := []struct{ section, key, value string }{
		{"Service", "Type", "notify"},
		{"Service", "ExecStart", "/usr/local/bin/arena run --config /etc/arena/arena.yaml"},
		{"Service", "User", "arena"},
		{"Service", "Group", "arena"},
		{"Service", "Restart", "on-failure"},
		{"Service", "RestartSec", "5"},
		{"Service", "WatchdogSec", "60"},
		{"Service", "TimeoutStopSec", "90"},
		{"Service", "StateDirectory", "arena"},
		{"Service", "ConfigurationDirectory", "arena"},
		{"Service", "EnvironmentFile", "-/etc/arena/arena.env"},
		{"Service", "ProtectSystem", "strict"},
		{"Service", "ProtectHome", "true"},
		{"Service", "PrivateTmp", "true"},
		{"Service", "PrivateDevices", "true"},
		{"Service", "NoNewPrivileges", "true"},
		{"Service", "ProtectKernelTunables", "true"},
		{"Service", "ProtectKernelModules", "true"},
		{"Service", "ProtectControlGroups", "true"},
		{"Service", "RestrictAddressFamilies", "AF_UNIX AF_INET AF_INET6"},
		{"Service", "RestrictNamespaces", "true"},
		{"Service", "LockPersonality", "true"},
		{"Service", "MemoryDenyWriteExecute", "true"},
		{"Service", "SystemCallArchitectures", "native"},
		{"Service", "CapabilityBoundingSet", ""},
		{"Service", "LimitNOFILE", "65536"},
		{"Install", "WantedBy", "multi-user.target"},
	}
	for _, w := range want {
		got, ok := u.last(w.section, w.key)
		switch {
		case !ok:
			t.Errorf("[%s] %s= is missing (want %q)", w.section, w.key, w.value)
		case got != w.value:
			t.Errorf("[%s] %s=%q, want %q", w.section, w.key, got, w.value)
		}
	}
	// The daemon's own shutdown bound must fire before systemd's SIGKILL,
	// so that a hung stop is reported by the daemon, not hidden by a kill.
	if stop, ok := u.last("Service", "TimeoutStopSec"); ok {
		d, err := time.ParseDuration(stop + "s")
		if err != nil || d <= config.Default().ShutdownTimeout.Duration {
			t.Errorf("TimeoutStopSec=%s must exceed the default shutdown_timeout %s", stop, config.Default().ShutdownTimeout)
		}
	}
	// ARENA_* variables set in the unit must be real config keys: config
	// rejects unknown ones and the daemon would not start.
	known := configEnvNames()
	for _, env := range u["Service"]["Environment"] {
		for _, field := range strings.Fields(env) {
			name, _, _ := strings.Cut(strings.Trim(field, `"`), "=")
			if strings.HasPrefix(name, "ARENA_") && !known[name] {
				t.Errorf("Environment=%s: %s is not a config key's variable", env, name)
			}
		}
	}
}

// TestUnitVerify runs systemd's own checker on the unit as shipped and on
// broken copies of it, which must fail: a check that passes everything
// proves nothing. ExecStart's binary is not installed here, so every copy
// points it at an existing executable. CI installs systemd (.ci/run) and
// must run this; elsewhere it is skipped without systemd-analyze.
func TestUnitVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		msg := "systemd-analyze is not installed (apt-get install systemd); unit not verified"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	stand, err := exec.LookPath("true")
	if err != nil {
		if stand, err = os.Executable(); err != nil {
			t.Fatal(err)
		}
	}
	shipped := readArtefact(t, unitPath)
	const bin = "ExecStart=/usr/local/bin/arena "
	if !strings.Contains(shipped, bin) {
		t.Fatalf("%s has no %q line to substitute", unitPath, bin)
	}
	runnable := strings.Replace(shipped, bin, "ExecStart="+stand+" ", 1)
	tests := []struct {
		name string
		edit func(unit string) string
		want string // in the problems reported; "" for none
	}{
		{name: "as shipped", edit: func(u string) string { return u }},
		{
			name: "unknown key",
			edit: func(u string) string { return strings.Replace(u, "\nWatchdogSec=", "\nWatchdogSecs=", 1) },
			want: "Unknown key",
		},
		{
			name: "bad value",
			edit: func(u string) string { return strings.Replace(u, "\nType=notify\n", "\nType=notifyy\n", 1) },
			want: "Failed to parse service type",
		},
		{
			name: "no ExecStart",
			edit: func(u string) string { return strings.Replace(u, "\nExecStart=", "\n#ExecStart=", 1) },
			want: "no ExecStart",
		},
		{
			name: "binary missing",
			edit: func(u string) string {
				return strings.Replace(u, "ExecStart="+stand+" ", "ExecStart="+filepath.Join(t.TempDir(), "arena")+" ", 1)
			},
			want: "is not executable",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			unit := tt.edit(runnable)
			if tt.want != "" && unit == runnable {
				t.Fatal("the edit changed nothing: the unit no longer has the line it breaks")
			}
			problems := verifyUnit(t, analyze, unit)
			switch {
			case tt.want == "" && len(problems) > 0:
				t.Fatalf("systemd-analyze verify %s:\n%s", unitPath, strings.Join(problems, "\n"))
			case tt.want != "" && !strings.Contains(strings.Join(problems, "\n"), tt.want):
				t.Fatalf("systemd-analyze verify passed a broken unit: want a problem with %q, got %q", tt.want, problems)
			}
		})
	}
}

// verifyUnit writes text as the unit file and returns systemd-analyze
// verify's complaints about it. verify exits 0 on unknown keys, unparsable
// values and other warnings, so any output line naming the unit counts, as
// does a failing exit.
func verifyUnit(t *testing.T, analyze, text string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), filepath.Base(unitPath))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// --man=no: a container has no man pages for Documentation= to check.
	out, err := exec.Command(analyze, "verify", "--man=no", path).CombinedOutput()
	var problems []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.Contains(line, filepath.Base(unitPath)) {
			problems = append(problems, line)
		} else if line != "" {
			t.Logf("systemd-analyze: %s", line)
		}
	}
	if err != nil {
		problems = append(problems, "exit: "+err.Error())
	}
	return problems
}

// ---- Dockerfile ----

// dockerInstr is one Dockerfile instruction with continuations joined.
type dockerInstr struct {
	line int
	cmd  string // upper-cased: FROM, COPY, USER, ...
	args string
}

func parseDockerfile(t *testing.T, text string) []dockerInstr {
	t.Helper()
	var out []dockerInstr
	var cur strings.Builder
	start := 0
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || (line == "" && cur.Len() == 0) {
			continue // comments (and parser directives) and blank lines
		}
		if cur.Len() == 0 {
			start = n
		}
		if body, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(line)
		cmd, args, _ := strings.Cut(strings.TrimSpace(cur.String()), " ")
		out = append(out, dockerInstr{line: start, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)})
		cur.Reset()
	}
	if cur.Len() != 0 {
		t.Fatal("Dockerfile ends inside a continued line")
	}
	return out
}

// secretSource matches COPY/ADD sources that look like keys or passwords.
var secretSource = regexp.MustCompile(`(?i)(\.key\b|\.pem\b|keystore|password|secret|\.env\b|arena-keys)`)

func TestDockerfile(t *testing.T) {
	instrs := parseDockerfile(t, readArtefact(t, "Dockerfile"))
	var froms []int
	for i, in := range instrs {
		if in.cmd == "FROM" {
			froms = append(froms, i)
		}
	}
	if len(froms) < 2 {
		t.Fatalf("want a multi-stage build (>= 2 FROM), got %d", len(froms))
	}
	if build := instrs[froms[0]].args; !strings.HasPrefix(build, "golang:1.26") {
		t.Errorf("builder stage is FROM %s, want golang:1.26", build)
	}

	final := instrs[froms[len(froms)-1]:]
	var user string
	got := map[string][]string{}
	for _, in := range final {
		got[in.cmd] = append(got[in.cmd], in.args)
		if in.cmd == "USER" {
			user = in.args
		}
	}
	name, _, _ := strings.Cut(user, ":")
	switch name {
	case "":
		t.Error("final stage sets no USER: the image would run as root")
	case "root", "0":
		t.Errorf("final stage runs as USER %s", user)
	}
	for cmd, want := range map[string]string{
		"ENTRYPOINT": `["/arena"]`,
		"CMD":        `["run", "--config", "/etc/arena/arena.yaml"]`,
		"EXPOSE":     "9100",
		"VOLUME":     "/data",
	} {
		if !slices.Contains(got[cmd], want) {
			t.Errorf("final stage: want %s %s, have %q", cmd, want, got[cmd])
		}
	}

	known := configEnvNames()
	for _, in := range instrs {
		switch in.cmd {
		case "COPY", "ADD":
			if secretSource.MatchString(in.args) {
				t.Errorf("Dockerfile:%d: %s %s copies something that looks like a secret", in.line, in.cmd, in.args)
			}
		case "ENV":
			for _, field := range strings.Fields(in.args) {
				name, _, _ := strings.Cut(field, "=")
				if strings.HasPrefix(name, "ARENA_") && !known[name] {
					t.Errorf("Dockerfile:%d: ENV %s is not a config key's variable", in.line, name)
				}
				if strings.Contains(name, "PASSWORD") || strings.Contains(name, "API_KEY") {
					t.Errorf("Dockerfile:%d: ENV %s bakes a secret into the image", in.line, name)
				}
			}
		}
	}
	// The final stage takes only the binary from the builder, never the context.
	for _, in := range final {
		if (in.cmd == "COPY" || in.cmd == "ADD") && !strings.Contains(in.args, "--from=") {
			t.Errorf("Dockerfile:%d: final stage copies from the build context: %s %s", in.line, in.cmd, in.args)
		}
	}
}

func TestDockerignore(t *testing.T) {
	var patterns []string
	for _, line := range strings.Split(readArtefact(t, ".dockerignore"), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, line)
		}
	}
	for _, want := range []string{".git", "/arena", "arena-data", "arena-keys", "arena-devnet", "**/*.key", "**/keystore", "**/*.env"} {
		if !slices.Contains(patterns, want) {
			t.Errorf(".dockerignore does not exclude %s", want)
		}
	}
	// The build needs these; excluding them would break `COPY . .`.
	for _, keep := range []string{"go.mod", "go.sum", "cmd", "*.go", "**/*.go"} {
		if slices.Contains(patterns, keep) {
			t.Errorf(".dockerignore excludes %s, which the build needs", keep)
		}
	}
}

// ---- Grafana dashboard ----

// dashboardMetrics is every series the dashboard may query: metrics the
// packages already export plus the ones `arena run` exports. Histograms
// appear as their _bucket series.
var dashboardMetrics = []string{
	"arena_chain_head_block",
	"arena_validator_head_age_seconds",
	"arena_validator_blocks_behind",
	"arena_chain_head_gap_blocks_total",
	"arena_chain_resubscribes_total",
	"arena_validator_metagraph_neurons",
	"arena_validator_serving_miners",
	"arena_episode_episodes_total",
	"arena_shop_tool_duration_seconds_bucket",
	"arena_episode_step_overhead_seconds_bucket",
	"arena_validator_judge_seconds_bucket",
	"arena_judge_llm_fallbacks_total",
	"arena_validator_race_phase",
	"arena_validator_leader_uid",
	"arena_validator_qualifiers",
	"arena_validator_races_total",
	"arena_validator_weights_submissions_total",
	"arena_validator_blocks_since_weights",
	"arena_suite_pool_clusters",
	"arena_store_size_bytes",
	"arena_store_gc_runs_total",
	"arena_store_free_bytes",
	"arena_store_filesystem_bytes",
	"arena_store_space_level",
	"arena_store_write_errors_total",
}

// promqlWords are the functions, aggregations and keywords the dashboard
// uses; any other bare identifier in an expression is taken for a metric.
var promqlWords = map[string]bool{
	"sum": true, "max": true, "min": true, "avg": true, "count": true, "topk": true, "bottomk": true,
	"rate": true, "irate": true, "increase": true, "delta": true, "deriv": true, "histogram_quantile": true,
	"clamp_min": true, "clamp_max": true, "time": true, "timestamp": true, "abs": true, "vector": true, "scalar": true,
	"max_over_time": true, "min_over_time": true, "avg_over_time": true, "changes": true, "resets": true, "absent": true,
	"and": true, "or": true, "unless": true, "bool": true, "offset": true,
}

var (
	promString   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers = regexp.MustCompile(`\{[^}]*\}`)
	promRange    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent    = regexp.MustCompile(`\b[a-zA-Z_:][a-zA-Z0-9_:]*`)
	arenaName    = regexp.MustCompile(`\barena_[a-z0-9_]+`)
)

// exprIdents returns the bare identifiers of a PromQL expression: metric
// names, functions and keywords, without label names, label values,
// ranges or grouping labels.
func exprIdents(expr string) []string {
	for _, re := range []*regexp.Regexp{promString, promMatchers, promRange, promGrouping} {
		expr = re.ReplaceAllString(expr, " ")
	}
	return promIdent.FindAllString(expr, -1)
}

func TestExprIdents(t *testing.T) {
	got := exprIdents(`histogram_quantile(0.99, sum by (le, tool) (rate(arena_shop_tool_duration_seconds_bucket{instance=~"$instance",tool!="x"}[$__rate_interval]))) > 1e-3`)
	want := []string{"histogram_quantile", "sum", "rate", "arena_shop_tool_duration_seconds_bucket"}
	if !slices.Equal(got, want) {
		t.Fatalf("exprIdents = %q, want %q", got, want)
	}
}

// collectExprs gathers every "expr" string anywhere in the JSON tree.
func collectExprs(v any, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			if s, ok := c.(string); ok && k == "expr" {
				*out = append(*out, s)
				continue
			}
			collectExprs(c, out)
		}
	case []any:
		for _, c := range v {
			collectExprs(c, out)
		}
	}
}

func TestGrafanaDashboard(t *testing.T) {
	raw := readArtefact(t, "scripts/grafana/arena-validator.json")
	var dash struct {
		UID           string `json:"uid"`
		Title         string `json:"title"`
		SchemaVersion int    `json:"schemaVersion"`
		Inputs        []struct {
			Name     string `json:"name"`
			Type     string `json:"type"`
			PluginID string `json:"pluginId"`
		} `json:"__inputs"`
		Panels []struct {
			Type       string `json:"type"`
			Title      string `json:"title"`
			Datasource *struct {
				UID string `json:"uid"`
			} `json:"datasource"`
		} `json:"panels"`
	}
	if err := json.Unmarshal([]byte(raw), &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	if dash.UID != "arena-validator" {
		t.Errorf("uid %q, want arena-validator", dash.UID)
	}
	if dash.SchemaVersion < 36 {
		t.Errorf("schemaVersion %d, want a current one (~39)", dash.SchemaVersion)
	}
	if len(dash.Inputs) != 1 || dash.Inputs[0].Name != "DS_PROMETHEUS" || dash.Inputs[0].PluginID != "prometheus" {
		t.Errorf("__inputs = %+v, want the one Prometheus input DS_PROMETHEUS", dash.Inputs)
	}
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.UID != "${DS_PROMETHEUS}" {
			t.Errorf("panel %q does not use ${DS_PROMETHEUS}", p.Title)
		}
	}

	var tree any
	if err := json.Unmarshal([]byte(raw), &tree); err != nil {
		t.Fatal(err)
	}
	var exprs []string
	collectExprs(tree, &exprs)
	if len(exprs) == 0 {
		t.Fatal("dashboard has no expr")
	}
	allowed := map[string]bool{}
	for _, m := range dashboardMetrics {
		allowed[m] = true
	}
	used := map[string]bool{}
	for _, e := range exprs {
		n := 0
		for _, id := range exprIdents(e) {
			switch {
			case allowed[id]:
				used[id] = true
				n++
			case !promqlWords[id]:
				t.Errorf("expr %q uses %q, which is not a listed metric", e, id)
			}
		}
		if n == 0 {
			t.Errorf("expr %q queries no listed metric", e)
		}
	}
	for _, m := range dashboardMetrics {
		if !used[m] {
			t.Errorf("no panel shows %s", m)
		}
	}
	// Template variables and anything else may name only listed metrics too.
	for _, name := range arenaName.FindAllString(raw, -1) {
		if !allowed[name] {
			t.Errorf("dashboard mentions %s, which is not a listed metric", name)
		}
	}
}
