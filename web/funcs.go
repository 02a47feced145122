package web

import (
	"fmt"
	"html/template"
	"math"
	"time"

	"arena/suite"
	"arena/validator"
)

var funcs = template.FuncMap{
	"score":   scoreText,
	"short":   shortKey,
	"pct":     func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"dur":     durText,
	"status":  statusText,
	"rate":    typeRateText,
	"deref":   func(p *int) int { return *p },
	"add":     func(a, b int) int { return a + b },
	"deref64": func(p *float64) float64 { return *p },
	"list":    func(s ...string) []string { return s },
	"dict": func(kv ...any) (map[string]any, error) {
		if len(kv)%2 != 0 {
			return nil, fmt.Errorf("dict: odd number of arguments")
		}
		m := make(map[string]any, len(kv)/2)
		for i := 0; i < len(kv); i += 2 {
			k, ok := kv[i].(string)
			if !ok {
				return nil, fmt.Errorf("dict: key %v is not a string", kv[i])
			}
			m[k] = kv[i+1]
		}
		return m, nil
	},
	"statusClass": func(row validator.LeaderboardRow) string {
		switch row.Status {
		case validator.MinerServing, validator.MinerQualifying:
			return "ok"
		case validator.MinerBackingOff:
			return "warn"
		}
		return "bad"
	},
	"partition": func(s *suite.Stats, p string) *suite.PartitionStats {
		if s == nil {
			return nil
		}
		return s.Partitions[suite.Partition(p)]
	},
	"since": func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return durText(time.Since(t).Seconds()) + " ago"
	},
}

// scoreText renders a score (float64 or *float64) with three decimals,
// or "–" when there is none.
func scoreText(v any) string {
	switch x := v.(type) {
	case float64:
		return fmt.Sprintf("%.3f", x)
	case *float64:
		if x != nil {
			return fmt.Sprintf("%.3f", *x)
		}
	}
	return "–"
}

// shortKey abbreviates an SS58 hotkey to its first 6 and last 4
// characters (the full key is in the element's title).
func shortKey(k string) string {
	r := []rune(k)
	if len(r) <= 12 {
		return k
	}
	return string(r[:6]) + "…" + string(r[len(r)-4:])
}

func durText(sec float64) string {
	if sec <= 0 || math.IsNaN(sec) || math.IsInf(sec, 0) {
		return "–"
	}
	d := time.Duration(sec * float64(time.Second))
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm %ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd %dh", int(d.Hours())/24, int(d.Hours())%24)
}

func typeRateText(m map[suite.Type]TypeScore, t suite.Type) string {
	ts, ok := m[t]
	if !ok || ts.Episodes == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d", ts.Successes, ts.Episodes)
}
