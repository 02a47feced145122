package dataset

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"arena/internal/atomicfile"
)

// writeCard writes the dataset card: Hugging Face front matter naming
// the split files, then counts, success rate, score histograms, the
// filters and the provenance.
func writeCard(path string, o *Options, r *Report) error {
	var b strings.Builder
	b.WriteString("---\nconfigs:\n- config_name: default\n  data_files:\n")
	for _, f := range r.Files {
		if strings.HasSuffix(f.Name, ".jsonl") {
			fmt.Fprintf(&b, "  - split: %s\n    path: %s\n", f.Split, f.Name)
		}
	}
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "# arena shopping-agent trajectories: %s\n\n", r.Format)
	fmt.Fprintf(&b, "Exported %s from `%s`", o.Now().UTC().Format(time.RFC3339), o.Source)
	if o.Command != "" {
		fmt.Fprintf(&b, " with\n\n```\n%s\n```\n", o.Command)
	} else {
		b.WriteString(".\n")
	}
	fmt.Fprintf(&b, "\nFormat `%s`, style `%s`, think `%s`. See docs/dataset.md in the arena repository for the row layout and training recipes.\n", r.Format, r.Style, r.Think)

	b.WriteString("\n## Files\n\n| file | split | rows |\n|---|---|---:|\n")
	for _, f := range r.Files {
		fmt.Fprintf(&b, "| %s | %s | %d |\n", f.Name, f.Split, f.Rows)
	}

	splits := []string{SplitTrain}
	if o.EvalFraction > 0 {
		splits = append(splits, SplitEval)
	}
	fmt.Fprintf(&b, "\n## Counts\n\nRows are %s; episodes are the trajectories the rows were made from.\n\n", rowUnit(r.Format))
	b.WriteString("| split | type | rows | episodes |\n|---|---|---:|---:|\n")
	types := typeNames(r)
	for _, s := range splits {
		for _, t := range types {
			fmt.Fprintf(&b, "| %s | %s | %d | %d |\n", s, t, r.RowsByType[s][t], r.EpisodesByType[s][t])
		}
		fmt.Fprintf(&b, "| %s | **all** | %d | %d |\n", s, r.Rows[s], r.Episodes[s])
	}

	used := r.episodesTotal()
	b.WriteString("\n## Success rate\n\n")
	if used == 0 {
		b.WriteString("No episode was exported.\n")
	} else {
		fmt.Fprintf(&b, "%d of %d exported episodes succeeded by the rule metrics: %.1f%%.\n", r.Successes, used, 100*float64(r.Successes)/float64(used))
		fmt.Fprintf(&b, "\n%d of %d exported episodes are verified inference: every step is a completion of the validator's relay, none dictated (`verified` in the meta).\n", r.Verified, used)
	}

	b.WriteString("\n## Score histograms\n\nOver the exported episodes. `final` is the validator's final score; `judge` the reasoning judge's.\n\n```\n")
	writeHistogram(&b, "final", &r.Final)
	b.WriteString("\n")
	writeHistogram(&b, "judge", &r.Judge)
	b.WriteString("```\n")

	f := &o.Filters
	b.WriteString("\n## Filters\n\n")
	fmt.Fprintf(&b, "- success only: %s\n", yesNo(f.SuccessOnly))
	fmt.Fprintf(&b, "- minimum final score: %g\n", f.MinFinal)
	fmt.Fprintf(&b, "- minimum judge score: %g\n", f.MinJudge)
	fmt.Fprintf(&b, "- agentic only: %s (judge gates referred_to_results AND cited_datum)\n", yesNo(f.Agentic))
	if len(f.Types) == 0 {
		b.WriteString("- problem types: all\n")
	} else {
		ts := make([]string, len(f.Types))
		for i, t := range f.Types {
			ts[i] = string(t)
		}
		fmt.Fprintf(&b, "- problem types: %s\n", strings.Join(ts, ", "))
	}
	fmt.Fprintf(&b, "- since block: %d\n", f.SinceBlock)
	fmt.Fprintf(&b, "- verified only: %s (every step a relay completion, none dictated)\n", yesNo(f.VerifiedOnly))
	fmt.Fprintf(&b, "- dedupe identical trajectories: %s\n", yesNo(!f.KeepDuplicates))
	b.WriteString("- always left out: episodes without a verdict, episodes the validator aborted (aborted, internal), episodes with no step or calling a tool outside the schema\n")
	switch r.Format {
	case FormatDPO:
		fmt.Fprintf(&b, "- DPO: the score filters select chosen episodes only; minimum margin %g; at most %s pairs per problem; each episode in at most one pair\n", o.MinMargin, limit(o.MaxPairs))
	case FormatGRPO:
		fmt.Fprintf(&b, "- GRPO: a group is every usable episode of the problem; minimum group size %d; with score filters a group needs at least one member passing them\n", o.MinGroup)
	case FormatCompletions:
		b.WriteString("- completions: one row per step that verified against the relay's completion and was not dictated; unverified and dictated steps are left out\n")
	}
	if len(r.Dropped)+len(r.DroppedProblems) > 0 || r.Unpaired > 0 {
		b.WriteString("\n| left out | count |\n|---|---:|\n")
		for _, k := range sortedKeys(r.Dropped) {
			fmt.Fprintf(&b, "| episodes: %s | %d |\n", k, r.Dropped[k])
		}
		for _, k := range sortedKeys(r.DroppedProblems) {
			fmt.Fprintf(&b, "| problems: %s | %d |\n", k, r.DroppedProblems[k])
		}
		if r.Unpaired > 0 {
			fmt.Fprintf(&b, "| episodes: passed the filters but in no pair | %d |\n", r.Unpaired)
		}
	}

	if r.Format == FormatSFT {
		writeLengths(&b, o, &r.Lengths)
	}

	b.WriteString("\n## Splits\n\n")
	n := map[string]int{}
	for _, s := range r.Clusters {
		n[s]++
	}
	fmt.Fprintf(&b, "By leak cluster: every cluster is wholly in one split. Eval fraction %g, split seed %d. "+
		"%d clusters in train, %d in eval; %d compromised clusters were kept out of eval.\n",
		o.EvalFraction, o.SplitSeed, n[SplitTrain], n[SplitEval], r.CompromisedClusters)

	b.WriteString("\n## Provenance\n\n")
	b.WriteString("- validator address(es):")
	if len(r.Validators) == 0 {
		b.WriteString(" none\n")
	} else {
		b.WriteString("\n")
		for _, k := range sortedKeys(r.Validators) {
			name := k
			if name == "" {
				name = "(unrecorded)"
			}
			fmt.Fprintf(&b, "  - `%s` (%d episodes)\n", name, r.Validators[k])
		}
	}
	if used > 0 {
		fmt.Fprintf(&b, "- blocks: %d to %d\n", r.BlockMin, r.BlockMax)
	} else {
		b.WriteString("- blocks: none\n")
	}
	kinds := make([]string, 0, len(r.Kinds))
	for _, k := range sortedKeys(r.Kinds) {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, r.Kinds[k]))
	}
	fmt.Fprintf(&b, "- episode kinds: %s\n", orNone(strings.Join(kinds, ", ")))
	fmt.Fprintf(&b, "- suite version: %s\n", r.Suite)
	fmt.Fprintf(&b, "- episodes read: %d\n", r.EpisodesRead)
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, b.String())
		return err
	})
}

func rowUnit(f Format) string {
	switch f {
	case FormatSteps:
		return "steps (one sample per agent step)"
	case FormatDPO:
		return "preference pairs"
	case FormatGRPO:
		return "problems (one group each)"
	case FormatCompletions:
		return "model calls (one per verified step: the request the provider received, its answer and usage)"
	}
	return "trajectories"
}

func writeHistogram(b *strings.Builder, name string, h *Histogram) {
	top := 0
	for _, c := range h {
		top = max(top, c)
	}
	fmt.Fprintf(b, "%s\n", name)
	for i, c := range h {
		bar := 0
		if top > 0 {
			bar = (c*40 + top - 1) / top
		}
		hi := ")"
		if i == 9 {
			hi = "]"
		}
		fmt.Fprintf(b, "  [%.1f, %.1f%s %-40s %d\n", float64(i)/10, float64(i+1)/10, hi, strings.Repeat("#", bar), c)
	}
}

func typeNames(r *Report) []string {
	set := map[string]bool{}
	for _, m := range []map[string]map[string]int{r.RowsByType, r.EpisodesByType} {
		for _, byType := range m {
			for t := range byType {
				set[t] = true
			}
		}
	}
	return sortedKeys(set)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func limit(n int) string {
	if n == 0 {
		return "unlimited"
	}
	return fmt.Sprint(n)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// writeLengths renders the rows' token lengths and what --max-tokens did.
func writeLengths(b *strings.Builder, o *Options, l *Lengths) {
	b.WriteString("\n## Length\n\n")
	fmt.Fprintf(b, "Tokens of each row rendered in Qwen3's chat template (system prompt with the tool schemas, every turn with its thinking), counted with %s.\n\n", l.Counter)
	b.WriteString("| rows | count | min | median | p90 | p99 | max |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range []struct {
		name string
		v    []int
	}{{"before the bound", l.Before}, {"written", l.Written}} {
		q := Quantiles(r.v)
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %d |\n", r.name, len(r.v), q[0], q[1], q[2], q[3], q[4])
	}
	switch {
	case o.MaxTokens == 0:
		b.WriteString("\nNo bound (--max-tokens): every row is written whole.\n")
	case o.Truncate:
		fmt.Fprintf(b, "\nBound %d tokens with --truncate: %d rows cut at the last step boundary that fits, %d dropped (their first step alone is longer).\n", o.MaxTokens, l.Truncated, l.Dropped)
	default:
		fmt.Fprintf(b, "\nBound %d tokens: %d longer rows dropped.\n", o.MaxTokens, l.Dropped)
	}
}
