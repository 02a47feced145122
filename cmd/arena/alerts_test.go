package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"arena/chain/devnet"
)

// The files an operator loads into Prometheus and Grafana, relative to
// this package.
var (
	alertsFile    = filepath.Join("..", "..", "scripts", "prometheus", "alerts.yml")
	dashboardFile = filepath.Join("..", "..", "scripts", "grafana", "arena-validator.json")
	operationsDoc = filepath.Join("..", "..", "docs", "operations.md")
)

// selector is one series selector of a PromQL expression: a metric name
// and the label values it must equal; or, scraped, one series.
type selector struct {
	name   string
	equals map[string]string
	from   string // the alert or panel expression it came from
	value  string // a scraped series' value
}

var (
	// Metric names the daemon exports (its own, and the Go process
	// collector's); PromQL functions, keywords and Prometheus's own series
	// (up) do not match.
	metricName = regexp.MustCompile(`\b((?:arena|process|go)_[a-zA-Z0-9_]+)\s*(\{[^}]*\})?`)
	matcher    = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!=|!~|=)\s*"((?:[^"\\]|\\.)*)"`)
)

// selectors lists the series selectors of a PromQL expression. Only
// equality matchers are kept: regular expressions and Grafana's variables
// ($instance) select whatever exists.
func selectors(expr, from string) []selector {
	var out []selector
	for _, m := range metricName.FindAllStringSubmatch(expr, -1) {
		s := selector{name: m[1], equals: map[string]string{}, from: from}
		for _, lm := range matcher.FindAllStringSubmatch(m[2], -1) {
			if lm[2] == "=" && !strings.Contains(lm[3], "$") {
				s.equals[lm[1]] = lm[3]
			}
		}
		out = append(out, s)
	}
	return out
}

// alertRules reads the alerting rules of an alerts file.
func alertRules(t *testing.T, path string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	rules := map[string]string{}
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Expr == "" {
				t.Fatalf("%s: a rule without alert name or expr: %+v", path, r)
			}
			rules[r.Alert] = r.Expr
		}
	}
	return rules
}

// dashboardExprs returns every "expr" of a Grafana dashboard, wherever
// the panels nest it.
func dashboardExprs(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var exprs []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if e, ok := v["expr"].(string); ok {
				exprs = append(exprs, e)
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	return exprs
}

// scrapedSeries parses the Prometheus text format into series: the metric
// name, its labels and its value.
func scrapedSeries(t *testing.T, text string) []selector {
	t.Helper()
	var out []selector
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, rest, _ := strings.Cut(line, "{")
		labels := map[string]string{}
		if strings.Contains(name, " ") {
			name, rest, _ = strings.Cut(name, " ")
		} else {
			for _, lm := range matcher.FindAllStringSubmatch(rest, -1) {
				labels[lm[1]] = lm[3]
			}
			_, rest, _ = strings.Cut(rest, "} ")
		}
		out = append(out, selector{name: name, equals: labels, value: strings.TrimSpace(rest)})
	}
	if len(out) == 0 {
		t.Fatalf("no series in the scrape:\n%s", text)
	}
	return out
}

// unmatched returns the selectors that no scraped series satisfies, each
// as the expression it came from.
func unmatched(want, got []selector) []string {
	var missing []string
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g selector) bool {
			if g.name != w.name {
				return false
			}
			for k, v := range w.equals {
				if g.equals[k] != v {
					return false
				}
			}
			return true
		}) {
			missing = append(missing, w.name+formatEquals(w.equals)+" in "+w.from)
		}
	}
	return missing
}

func formatEquals(m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for k, v := range m {
		parts = append(parts, k+"="+v)
	}
	slices.Sort(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

func TestSelectors(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`up{job="arena"} == 0`, nil},
		{`arena_validator_key_in_use == 1`, []string{"arena_validator_key_in_use"}},
		{`sum by (instance) (increase(arena_validator_races_total{outcome!="no_racers"}[4h])) == 0 and on (instance) time() - process_start_time_seconds > 1`,
			[]string{"arena_validator_races_total", "process_start_time_seconds"}},
		{`rate(arena_relay_requests_total{outcome="provider_error", kind = "a\"b"}[15m]) / rate(arena_relay_requests_total{outcome=~"ok|x"}[15m])`,
			[]string{`arena_relay_requests_total{kind=a\"b,outcome=provider_error}`, "arena_relay_requests_total"}},
		{`max(arena_chain_head_block{instance=~"$instance", job="$job"})`, []string{"arena_chain_head_block"}},
	} {
		var got []string
		for _, s := range selectors(tc.expr, "") {
			got = append(got, s.name+formatEquals(s.equals))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("selectors(%q) = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

// TestAlertsHaveRunbook: every alert of alerts.yml has its runbook line in
// docs/operations.md, and the runbook names no alert that is gone.
func TestAlertsHaveRunbook(t *testing.T) {
	rules := alertRules(t, alertsFile)
	raw, err := os.ReadFile(operationsDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Alerts and runbook\n")
	if !ok {
		t.Fatalf("%s has no section \"Alerts and runbook\"", operationsDoc)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(Arena[A-Za-z]+)` \\|").FindAllStringSubmatch(section, -1) {
		listed[m[1]] = true
	}
	for name := range rules {
		if !listed[name] {
			t.Errorf("alert %s has no runbook row in %s", name, operationsDoc)
		}
	}
	for name := range listed {
		if _, ok := rules[name]; !ok {
			t.Errorf("%s's runbook lists %s, which alerts.yml does not define", operationsDoc, name)
		}
	}
}

// TestAlertAndDashboardMetrics runs `arena run` with every optional
// subsystem that registers metrics (the inference relay and the LLM judge,
// both pointed at a provider that answers no verdict) until a race is
// decided and weights are set, scrapes /metrics, and checks that every
// series the alerting rules and the Grafana dashboard select is there,
// with the label values they match, and that the gauges the weights
// alerts scale by show the chain's hyperparameters.
func TestAlertAndDashboardMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a validator process")
	}
	var want []selector
	for name, expr := range alertRules(t, alertsFile) {
		want = append(want, selectors(expr, "alert "+name)...)
	}
	for _, expr := range dashboardExprs(t, dashboardFile) {
		want = append(want, selectors(expr, "dashboard "+expr)...)
	}
	if len(want) < 40 {
		t.Fatalf("only %d selectors in the alerts and the dashboard: is the parsing broken?", len(want))
	}

	// A chat completion that is no verdict: the judge benches its model at
	// once and scores by the grounding fallback.
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"judge-model",`+
			`"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"no verdict"}}],`+
			`"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	t.Cleanup(provider.Close)
	a := startChainOnly(t)
	// Hyperparameters the gauges that scale the weights alerts must show:
	// the rate limit above weights_every_blocks, so the interval is it.
	rateLimit := a.Config.Validator.WeightsEveryBlocks + 7
	if err := a.Devnet.SetHyper(context.Background(), devnet.Hyper{WeightsSetRateLimit: rateLimit, ActivityCutoff: 4321}); err != nil {
		t.Fatal(err)
	}
	cfgPath := writeRunConfig(t, a, t.TempDir(), filepath.Join(t.TempDir(), "data"), `race: {floor: 0, ratio_start: 0, ratio_floor: 0}
relay: {base_url: "`+provider.URL+`/v1"}
llm: {base_url: "`+provider.URL+`/v1", timeout: 2s}
judge: {kind: llm, models: judge-model, on_unavailable: grounding}
`)
	p := startValidator(t, cfgPath)
	metrics, _ := p.waitFor(t, "operator endpoints: /metrics /livez /readyz", time.Minute, nil)["listen"].(string)
	p.waitFor(t, "race done", 4*time.Minute, nil)
	p.waitFor(t, "weights set", 3*time.Minute, nil)

	code, body := getPath(t, metrics, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}
	series := scrapedSeries(t, body)
	for _, m := range unmatched(want, series) {
		t.Errorf("not exported by arena run: %s", m)
	}
	for _, g := range []struct {
		name string
		want string
	}{
		{"arena_validator_weights_interval_blocks", strconv.FormatUint(rateLimit, 10)},
		{"arena_chain_activity_cutoff_blocks", "4321"},
	} {
		i := slices.IndexFunc(series, func(s selector) bool { return s.name == g.name })
		if i < 0 || series[i].value != g.want {
			t.Errorf("%s: %+v, want %s", g.name, series[max(i, 0)], g.want)
		}
	}
}
