package practice

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"arena/episode"
	"arena/relay/standin"
	"arena/scoring"
	"arena/scoring/judge"
	"arena/shop"
	"arena/suite"
)

// Result is one episode's outcome.
type Result struct {
	ProblemID  string           `json:"problem_id"`
	Type       suite.Type       `json:"type"`
	Difficulty suite.Difficulty `json:"difficulty,omitempty"`
	Query      string           `json:"query"`
	EpisodeID  string           `json:"episode_id"`
	Success    bool             `json:"success"`
	// Final is success × c(q), the score a validator records.
	Final float64 `json:"final"`
	// Q is the reasoning score after the run's template cap.
	Q         float64           `json:"q"`
	Findings  []string          `json:"findings,omitempty"`
	EndReason episode.EndReason `json:"end_reason"`
	EndDetail string            `json:"end_detail,omitempty"`
	Steps     int               `json:"steps"`
	// Why lists what kept the answer from succeeding: each unmet
	// constraint of each requested item, and the rule metrics' reasons.
	Why []string `json:"why,omitempty"`
	// Void is set when the run was judged with no llm model answering
	// and judge.on_unavailable is void: a validator would not count it.
	Void bool `json:"void,omitempty"`
	// DurationMS is the episode's wall time.
	DurationMS float64 `json:"duration_ms"`
	// Verified counts the steps that are exactly a relay completion and
	// not dictated, Unverified and Dictated the steps that failed (only
	// with verification on); NoCredit is set when they cost the episode
	// its score (--require-verified).
	Verified   int  `json:"verified_steps,omitempty"`
	Unverified int  `json:"unverified_steps,omitempty"`
	Dictated   int  `json:"dictated_steps,omitempty"`
	NoCredit   bool `json:"no_credit,omitempty"`
	// RelayFault: the validator's provider failed during the episode; a
	// validator voids the racer's race (not the miner's fault).
	RelayFault bool `json:"relay_fault,omitempty"`
	// MissingRung is the first gate of the judge's ladder no think
	// passed, with the q it leaves (docs/scoring.md, "Reasoning judge:
	// what earns credit"); empty when q has the whole ladder.
	MissingRung string `json:"missing_rung,omitempty"`
}

func newResult(p *suite.Problem, t *episode.Trajectory, e *judge.Evaluation, void bool) Result {
	r := Result{ProblemID: p.ID, Type: p.Type, Difficulty: p.Difficulty, Query: p.Query, EpisodeID: t.EpisodeID,
		Success: e.Metrics.Success, Final: e.Final, Q: e.Verdict.Score, Findings: e.Verdict.FindingNames(),
		EndReason: t.EndReason, EndDetail: t.EndDetail, Steps: len(t.Steps), Void: void,
		DurationMS: float64(t.Timings.Duration()) / float64(time.Millisecond), NoCredit: e.Verdict.NoCredit, RelayFault: t.RelayFault}
	if vr := e.Verdict.Verification; vr != nil {
		r.Verified, _ = e.Verdict.VerifiedSteps()
		r.Unverified, r.Dictated = len(vr.Unverified), len(vr.Dictated)
	}
	if !r.Success {
		r.Why = why(&e.Metrics, t)
	}
	r.MissingRung = missingRung(e.Verdict.Gates)
	if r.NoCredit {
		for _, f := range e.Verdict.Findings {
			if f.Name == judge.FindingUnverified || f.Name == judge.FindingDictated {
				r.Why = append(r.Why, fmt.Sprintf("no credit, %s: %s", f.Name, f.Detail))
			}
		}
	}
	return r
}

// why explains a failed answer in the rule metrics' own words, the
// most specific cause first: a violation, an ungrounded or unknown id,
// then each unmet rule of each item.
func why(m *scoring.Metrics, t *episode.Trajectory) []string {
	var out []string
	if t.EndReason.MinerFault() {
		out = append(out, fmt.Sprintf("episode ended %s: %s", t.EndReason, episode.ClipText(t.EndDetail, 120)))
	}
	out = append(out, unknownIDs(t)...)
	if len(t.Recommended) == 0 {
		out = append(out, "no product was recommended")
	}
	for _, it := range m.Items {
		for _, f := range it.Failed {
			out = append(out, fmt.Sprintf("item %d: %s", it.Position, f))
		}
	}
	out = append(out, m.Reasons...)
	if len(out) == 0 {
		out = append(out, fmt.Sprintf("rule %.2f, shop %.2f, budget %.2f, format %.2f, length %.2f", m.Rule, m.Shop, m.Budget, m.Format, m.Length))
	}
	return out
}

// unknownIDs are the not_found errors of the calls that name product ids
// (recommend_product, view_product_information): a made-up or mistyped
// id is refused there, and a refused recommendation recommends nothing.
func unknownIDs(t *episode.Trajectory) []string {
	var out []string
	for i := range t.Steps {
		st := &t.Steps[i]
		for _, res := range st.Results {
			if res.Error == nil || res.Error.Code != string(shop.CodeNotFound) {
				continue
			}
			name := ""
			for _, c := range st.ToolCalls {
				if c.ID == res.ToolCallID {
					name = c.Name
				}
			}
			out = append(out, fmt.Sprintf("step %d: %s answered not_found: %s", i, name, episode.ClipText(res.Error.Message, 120)))
		}
	}
	return out
}

// missingRung names the first gate of the ladder the trajectory did not
// pass and the q it leaves (judge.Ladder's rungs).
func missingRung(g judge.Gates) string {
	switch {
	case !g.ReferredToResults:
		return fmt.Sprintf("q %.1f: no think names anything an earlier result returned (gate: referred to results)", judge.ScoreNoReference)
	case !g.CitedDatum:
		return fmt.Sprintf("q %.1f: no think cites an observed product_id, shop_id, price or attribute value (gate: cited a datum)", judge.ScoreNoDatum)
	case !g.Compared:
		return fmt.Sprintf("q %.1f: no think compares two observed products with a reason (gate: compared)", judge.ScoreNoCompare)
	}
	return ""
}

// Cell is one slice of the results.
type Cell struct {
	Episodes int     `json:"episodes"`
	Success  float64 `json:"success"`
	Score    float64 `json:"score"`
}

// SlowStep is one of the slowest steps (miner time, network included).
type SlowStep struct {
	ProblemID string  `json:"problem_id"`
	Step      int     `json:"step"` // from 0, as observation.step
	MS        float64 `json:"ms"`
	Tools     string  `json:"tools"`
}

// Report is a practice run's outcome. The first fields are the ones
// `arena practice --json` promises (docs/mining.md).
type Report struct {
	Episodes int     `json:"episodes"`
	Success  float64 `json:"success"`
	Score    float64 `json:"score"`
	Q        float64 `json:"q"`
	// ByType is the success rate per problem type.
	ByType map[suite.Type]float64 `json:"by_type"`
	// Findings counts the episodes with each judge finding (templated,
	// injection, clipped, ...), except unverified and dictated, which
	// count steps.
	Findings map[string]int `json:"findings"`
	// VerifiedShare is the share of all steps played that are exactly a
	// relay completion and not dictated (nil with verification off).
	VerifiedShare *float64 `json:"verified_share,omitempty"`
	// Steps is the number of steps played.
	Steps int `json:"steps"`

	Miner Identity `json:"miner"`
	// Cells break success and score down by type and difficulty.
	Cells      map[suite.Type]map[suite.Difficulty]Cell `json:"cells"`
	EndReasons map[episode.EndReason]int                `json:"end_reasons"`
	Slowest    []SlowStep                               `json:"slowest_steps"`
	// Worst are the five lowest-scoring problems, with why they failed.
	Worst   []Result `json:"worst"`
	Void    int      `json:"void,omitempty"`
	Results []Result `json:"results"`
	// StandIn: the relay served the offline stand-in (--stand-in), so
	// every completion is a script's: verified_share shows the plumbing
	// works, and no validator would credit it.
	StandIn bool `json:"stand_in,omitempty"`

	trajectories []episode.Trajectory
	evaluations  []judge.Evaluation
	problems     []suite.Problem
}

func newReport(id Identity, results []Result, trajs []episode.Trajectory, verification bool) *Report {
	r := &Report{Episodes: len(results), Miner: id, ByType: map[suite.Type]float64{}, Findings: map[string]int{},
		Cells: map[suite.Type]map[suite.Difficulty]Cell{}, EndReasons: map[episode.EndReason]int{}, Results: results}
	byType := map[suite.Type]*Cell{}
	cells := map[suite.Type]map[suite.Difficulty]*Cell{}
	verified := 0
	for i := range results {
		res := &results[i]
		s := 0.0
		if res.Success {
			s = 1
		}
		r.Success += s
		r.Score += res.Final
		r.Q += res.Q
		r.EndReasons[res.EndReason]++
		if res.Void {
			r.Void++
		}
		r.Steps += res.Steps
		for _, f := range res.Findings {
			switch f {
			case judge.FindingUnverified, judge.FindingDictated:
			default:
				r.Findings[f]++
			}
		}
		// Verification findings count steps: the acceptance reads an
		// unverified count equal to the steps a scripted miner played.
		if res.Unverified > 0 {
			r.Findings[judge.FindingUnverified] += res.Unverified
		}
		if res.Dictated > 0 {
			r.Findings[judge.FindingDictated] += res.Dictated
		}
		verified += res.Verified
		if byType[res.Type] == nil {
			byType[res.Type] = &Cell{}
		}
		if cells[res.Type] == nil {
			cells[res.Type] = map[suite.Difficulty]*Cell{}
		}
		if cells[res.Type][res.Difficulty] == nil {
			cells[res.Type][res.Difficulty] = &Cell{}
		}
		for _, c := range []*Cell{byType[res.Type], cells[res.Type][res.Difficulty]} {
			c.Episodes++
			c.Success += s
			c.Score += res.Final
		}
	}
	n := float64(len(results))
	r.Success, r.Score, r.Q = r.Success/n, r.Score/n, r.Q/n
	if verification {
		share := 0.0
		if r.Steps > 0 {
			share = float64(verified) / float64(r.Steps)
		}
		r.VerifiedShare = &share
	}
	for t, c := range byType {
		r.ByType[t] = c.Success / float64(c.Episodes)
	}
	for t, ds := range cells {
		r.Cells[t] = map[suite.Difficulty]Cell{}
		for d, c := range ds {
			r.Cells[t][d] = Cell{Episodes: c.Episodes, Success: c.Success / float64(c.Episodes), Score: c.Score / float64(c.Episodes)}
		}
	}
	worst := slices.Clone(results)
	slices.SortStableFunc(worst, func(a, b Result) int {
		return cmp.Or(cmp.Compare(a.Final, b.Final), cmp.Compare(a.Q, b.Q))
	})
	r.Worst = worst[:min(5, len(worst))]
	r.Slowest = slowest(trajs, 5)
	return r
}

// slowest are the k steps with the longest miner time.
func slowest(trajs []episode.Trajectory, k int) []SlowStep {
	var out []SlowStep
	for i := range trajs {
		t := &trajs[i]
		for j := range t.Steps {
			st := &t.Steps[j]
			d := stepTime(st)
			if d <= 0 {
				continue
			}
			names := make([]string, len(st.ToolCalls))
			for c := range st.ToolCalls {
				names[c] = st.ToolCalls[c].Name
			}
			out = append(out, SlowStep{ProblemID: t.ProblemID, Step: j, MS: float64(d) / float64(time.Millisecond), Tools: strings.Join(names, ",")})
		}
	}
	slices.SortStableFunc(out, func(a, b SlowStep) int { return cmp.Compare(b.MS, a.MS) })
	return out[:min(k, len(out))]
}

// JSON is the report as one JSON object, indented so that a reader (or
// grep) sees one field a line.
func (r *Report) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

// Print writes the human-readable report.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "miner %s (register hotkey %s)\n", r.Miner.Address, r.Miner.Hotkey)
	fmt.Fprintf(w, "%d episodes: success %.1f%%, score %.3f, reasoning q %.2f\n", r.Episodes, 100*r.Success, r.Score, r.Q)
	if r.StandIn {
		fmt.Fprintf(w, "the relay served the offline stand-in (%s), a script playing the reference heuristic, not a model: this run shows your plumbing works; a validator refuses the stand-in\n", standin.Model)
	}
	if r.VerifiedShare != nil {
		fmt.Fprintf(w, "verified inference: %.0f%% of %d steps are exactly a relay completion (unverified %d, dictated %d steps)\n",
			100**r.VerifiedShare, r.Steps, r.Findings[judge.FindingUnverified], r.Findings[judge.FindingDictated])
	}
	if r.Void > 0 {
		fmt.Fprintf(w, "%d episodes were judged with no llm model answering: a validator under judge.on_unavailable: void would not count them\n", r.Void)
	}
	fmt.Fprintf(w, "\n%-10s %-7s %8s %8s %7s\n", "type", "level", "episodes", "success", "score")
	types := make([]suite.Type, 0, len(r.Cells))
	for t := range r.Cells {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		diffs := make([]suite.Difficulty, 0, len(r.Cells[t]))
		for d := range r.Cells[t] {
			diffs = append(diffs, d)
		}
		slices.SortFunc(diffs, func(a, b suite.Difficulty) int { return cmp.Compare(difficultyRank(a), difficultyRank(b)) })
		for _, d := range diffs {
			c := r.Cells[t][d]
			fmt.Fprintf(w, "%-10s %-7s %8d %7.1f%% %7.3f\n", t, orDash(string(d)), c.Episodes, 100*c.Success, c.Score)
		}
	}
	fmt.Fprintln(w)
	if len(r.Findings) == 0 {
		fmt.Fprintln(w, "judge findings: none")
	} else {
		fmt.Fprintf(w, "judge findings:")
		for _, f := range sortedKeys(r.Findings) {
			fmt.Fprintf(w, " %s %d", f, r.Findings[f])
		}
		fmt.Fprintln(w, " (docs/scoring.md, \"Reasoning judge: what earns credit\")")
	}
	fmt.Fprintf(w, "end reasons:")
	for _, e := range sortedKeys(r.EndReasons) {
		fmt.Fprintf(w, " %s %d", e, r.EndReasons[e])
	}
	fmt.Fprintln(w)
	if len(r.Slowest) > 0 {
		fmt.Fprintln(w, "\nslowest steps (your agent's time, network included):")
		for _, s := range r.Slowest {
			fmt.Fprintf(w, "  %8.0f ms  problem %s step %d (%s)\n", s.MS, s.ProblemID, s.Step, s.Tools)
		}
	}
	fmt.Fprintln(w, "\nworst problems:")
	for _, res := range r.Worst {
		fmt.Fprintf(w, "  %s (%s %s) final %.3f q %.2f: %s\n", res.ProblemID, res.Type, orDash(string(res.Difficulty)), res.Final, res.Q, episode.ClipText(strings.Join(strings.Fields(res.Query), " "), 100))
		if len(res.Findings) > 0 {
			fmt.Fprintf(w, "      findings: %s\n", strings.Join(res.Findings, ", "))
		}
		if res.MissingRung != "" {
			fmt.Fprintf(w, "      judge: %s\n", res.MissingRung)
		}
		for _, y := range res.Why[:min(maxWhy, len(res.Why))] {
			fmt.Fprintf(w, "      %s\n", y)
		}
		if len(res.Why) > maxWhy {
			fmt.Fprintf(w, "      and %d more (--json lists them)\n", len(res.Why)-maxWhy)
		}
	}
	failed := 0
	for i := range r.Results {
		if !r.Results[i].Success {
			failed++
		}
	}
	if failed > len(r.Worst) {
		fmt.Fprintf(w, "  (%d problems failed in all: --json gives each one's why and missing_rung)\n", failed)
	}
}

// maxWhy bounds the reasons printed per worst problem.
const maxWhy = 5

func difficultyRank(d suite.Difficulty) int {
	switch d {
	case suite.Easy:
		return 0
	case suite.Medium:
		return 1
	case suite.Hard:
		return 2
	}
	return 3
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
