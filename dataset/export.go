package dataset

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/scoring/judge"
	"arena/suite"
	"arena/validator/records"
)

// Split names.
const (
	SplitTrain = "train"
	SplitEval  = "eval"
)

// Drop reasons counted in the report and the card.
const (
	DropUnjudged       = "unjudged"
	DropRaceNotDecided = "race_not_decided"
	DropValidatorFault = "validator_fault"
	DropNoSteps        = "no_steps"
	DropUnknownTool    = "unknown_tool"
	DropType           = "type"
	DropSinceBlock     = "before_since_block"
	DropNotSuccess     = "not_success"
	DropMinFinal       = "below_min_final"
	DropMinJudge       = "below_min_judge"
	DropNotAgentic     = "not_agentic"
	DropNotVerified    = "not_verified"
	DropDuplicate      = "duplicate"
	// DropNoVerifiedStep (completions): no step of the episode verified,
	// so it has no model call to export.
	DropNoVerifiedStep = "no_verified_step"

	// Per problem (dpo, grpo).
	DropNoPair        = "no_pair_meets_margin"
	DropGroupTooSmall = "group_too_small"
	DropGroupFiltered = "no_member_passes_filters"
	DropNoGroundTruth = "no_ground_truth_in_ledger"
)

// Histogram counts scores in ten bins of width 0.1 ([0.9,1.0] is the last).
type Histogram [10]int

func (h *Histogram) add(x float64) {
	i := int(math.Floor(x * 10))
	h[max(0, min(9, i))]++
}

// FileInfo is one written data file.
type FileInfo struct {
	Name  string
	Split string
	Rows  int
}

// SuiteVersion identifies the suite the episodes were drawn from: its size
// and a hash of its problem id set.
type SuiteVersion struct {
	Problems int
	Clusters int
	// IDHash is sha256 over the sorted problem ids, 16 hex digits.
	IDHash string
}

func (s SuiteVersion) String() string {
	return fmt.Sprintf("%d problems in %d clusters, id-set sha256 %s", s.Problems, s.Clusters, s.IDHash)
}

// Report is what an export read and wrote; the dataset card renders it.
type Report struct {
	Format Format
	Style  Style
	Think  ThinkMode
	Out    string

	// EpisodesRead is every stored episode looked at.
	EpisodesRead int
	// Dropped counts episodes left out, by reason.
	Dropped map[string]int
	// DroppedProblems counts problems that gave no row (dpo, grpo).
	DroppedProblems map[string]int
	// Unpaired counts dpo episodes that passed the filters but were in no
	// pair.
	Unpaired int

	// Rows and RowsByType count rows by split (and problem type).
	Rows       map[string]int
	RowsByType map[string]map[string]int
	// Episodes and EpisodesByType count the episodes the rows came from.
	Episodes       map[string]int
	EpisodesByType map[string]map[string]int
	// Successes counts exported episodes whose rule metrics say success.
	Successes int
	// Verified counts exported episodes whose every step verified against
	// the relay's completions, none dictated.
	Verified int
	// Final and Judge are the exported episodes' score histograms.
	Final, Judge Histogram
	// Clusters maps every exported leak cluster to its split.
	Clusters map[string]string
	// CompromisedClusters counts exported clusters held out of eval
	// because they are compromised.
	CompromisedClusters int

	// Lengths are the sft rows' token counts (format sft only).
	Lengths Lengths

	// Validators counts exported episodes by validator address.
	Validators map[string]int
	// Kinds counts exported episodes by kind (qualifying, race).
	Kinds              map[string]int
	BlockMin, BlockMax uint64
	Suite              SuiteVersion
	Files              []FileInfo
}

func (r *Report) episodesTotal() int {
	n := 0
	for _, v := range r.Episodes {
		n += v
	}
	return n
}

// Export writes the dataset described by opts into opts.Out, then its
// card. It reads the store only.
func Export(ctx context.Context, opts Options, log zerolog.Logger) (*Report, error) {
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if err := prepareOut(opts.Out, opts.Force); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	x := &exporter{
		o:        opts,
		counter:  opts.Tokenizer,
		log:      log.With().Str("component", "dataset").Logger(),
		tools:    Tools(),
		allowed:  map[string]bool{},
		seen:     map[[16]byte]struct{}{},
		splits:   map[string]string{},
		resolved: map[string]splitInfo{},
		prog:     newProgress(opts.Progress),
		rep: &Report{
			Format: opts.Format, Style: opts.Style, Think: opts.Think, Out: opts.Out,
			Dropped: map[string]int{}, DroppedProblems: map[string]int{},
			Rows: map[string]int{}, RowsByType: map[string]map[string]int{},
			Episodes: map[string]int{}, EpisodesByType: map[string]map[string]int{},
			Clusters: map[string]string{}, Validators: map[string]int{}, Kinds: map[string]int{},
		},
	}
	for _, t := range x.tools {
		x.allowed[t.Function.Name] = true
	}
	x.rep.Lengths.Counter = x.o.TokenizerName
	if x.rep.Lengths.Counter == "" {
		x.rep.Lengths.Counter = fmt.Sprintf("estimate: bytes / %g", EstimateBytesPerToken)
	}
	splits := []string{SplitTrain}
	if opts.EvalFraction > 0 {
		splits = append(splits, SplitEval)
	}
	var err error
	switch {
	case opts.Format == FormatSFT:
		x.out, err = openSinks[SFTRow](opts, splits)
	case opts.Format == FormatSteps:
		x.out, err = openSinks[StepsRow](opts, splits)
	case opts.Format == FormatDPO && opts.Style == StyleOpenAI:
		x.out, err = openSinks[OpenAIDPORow](opts, splits)
	case opts.Format == FormatDPO:
		x.out, err = openSinks[DPORow](opts, splits)
	case opts.Format == FormatGRPO:
		x.out, err = openSinks[GRPORow](opts, splits)
	case opts.Format == FormatCompletions:
		x.out, err = openSinks[CompletionRow](opts, splits)
	}
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	switch opts.Format {
	case FormatSFT, FormatSteps, FormatCompletions:
		err = x.single(ctx)
	default:
		err = x.grouped(ctx)
	}
	x.prog.finish()
	if cerr := x.out.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	x.rep.Files = x.out.files()
	if x.rep.Suite, err = suiteVersion(ctx, opts.Store); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if err := writeCard(filepath.Join(opts.Out, "README.md"), &x.o, x.rep); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	x.log.Info().Str("format", string(opts.Format)).Int("episodes_read", x.rep.EpisodesRead).
		Int("train_rows", x.rep.Rows[SplitTrain]).Int("eval_rows", x.rep.Rows[SplitEval]).Str("out", opts.Out).Msg("dataset exported")
	return x.rep, nil
}

// dataFiles are the names an export writes; --force removes them first so
// no stale split survives.
var dataFiles = []string{"train.jsonl", "eval.jsonl", "train.parquet", "eval.parquet", "README.md"}

func prepareOut(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return fmt.Errorf("output directory: %w", err)
	case len(entries) > 0 && !force:
		return fmt.Errorf("output directory %s is not empty; pass --force to overwrite", dir)
	}
	for _, name := range dataFiles {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("output directory: %w", err)
		}
	}
	return nil
}

type exporter struct {
	o       Options
	log     zerolog.Logger
	tools   []Tool
	allowed map[string]bool
	seen    map[[16]byte]struct{}
	// splits caches each cluster's split.
	splits map[string]string
	out    rowWriter
	prog   *progress
	rep    *Report
	index  map[string]int64

	// live holds the races not decided when the read pass began: their
	// episodes stay out of the dataset (records.Phase.Live).
	live map[uint64]bool

	// resolved caches each cluster's split for the pipeline's workers.
	resolvedMu sync.Mutex
	resolved   map[string]splitInfo

	// counter measures sft rows (Options.Tokenizer or EstimateTokens).
	counter TokenCounter
}

// scope applies the filters that decide whether an episode is usable at
// all (for dpo and grpo, on either side of a pair or in a group).
func (x *exporter) scope(e *records.Episode, v *records.Verdict) string {
	tr := &e.Trajectory
	switch {
	case e.Kind == records.Racing && x.live[e.RaceID]:
		return DropRaceNotDecided
	case v == nil:
		return DropUnjudged
	case tr.EndReason == episode.ReasonAborted || tr.EndReason == episode.ReasonInternal:
		return DropValidatorFault
	case len(x.o.Filters.Types) > 0 && !slices.Contains(x.o.Filters.Types, e.ProblemType):
		return DropType
	case e.Block < x.o.Filters.SinceBlock:
		return DropSinceBlock
	case len(tr.Steps) == 0:
		return DropNoSteps
	}
	for i := range tr.Steps {
		for _, tc := range tr.Steps[i].ToolCalls {
			if !x.allowed[tc.Name] {
				return DropUnknownTool
			}
		}
	}
	return ""
}

// quality applies the score filters, and for the completions format
// leaves out an episode with no verified step.
func (x *exporter) quality(e *records.Episode, v *records.Verdict) string {
	f := &x.o.Filters
	if f.VerifiedOnly || x.o.Format == FormatCompletions {
		vf := verificationOf(&e.Trajectory, v)
		switch {
		case f.VerifiedOnly && !vf.all:
			return DropNotVerified
		case x.o.Format == FormatCompletions && !vf.any():
			return DropNoVerifiedStep
		}
	}
	switch {
	case f.SuccessOnly && !v.Metrics.Success:
		return DropNotSuccess
	case v.Final < f.MinFinal:
		return DropMinFinal
	case v.Judge.Score < f.MinJudge:
		return DropMinJudge
	case f.Agentic && !Agentic(v):
		return DropNotAgentic
	}
	return ""
}

// Agentic is the --agentic rule: the judge's gates show that the thinking
// referred to what a tool returned AND cited a concrete datum from it (a
// product id, price, shop_id or attribute value).
func Agentic(v *records.Verdict) bool {
	return v.Judge.Gates.ReferredToResults && v.Judge.Gates.CitedDatum
}

// seenBefore reports whether a trajectory with content hash h was already
// kept, and records it (dedupe; always false with KeepDuplicates).
func (x *exporter) seenBefore(h [16]byte) bool {
	if x.o.Filters.KeepDuplicates {
		return false
	}
	if _, ok := x.seen[h]; ok {
		return true
	}
	x.seen[h] = struct{}{}
	return false
}

// clusterOf is the episode's leak cluster: as recorded, else the
// problem's in the ledger, else the problem itself.
func (x *exporter) clusterOf(e *records.Episode) (string, error) {
	if e.Cluster != "" {
		return e.Cluster, nil
	}
	p, ok, err := x.o.Ledger.Problem(e.Trajectory.ProblemID)
	if err != nil {
		return "", err
	}
	if ok && p.Cluster != "" {
		return p.Cluster, nil
	}
	return "problem:" + e.Trajectory.ProblemID, nil
}

// splitOf assigns a whole cluster to a split: eval when the seeded hash of
// its id falls below EvalFraction, never when it is compromised. It runs
// in store order and counts each compromised cluster held out of eval.
func (x *exporter) splitOf(cluster string) (string, error) {
	if s, ok := x.splits[cluster]; ok {
		return s, nil
	}
	s, held, err := x.resolveSplit(cluster)
	if err != nil {
		return "", err
	}
	if held {
		x.rep.CompromisedClusters++
	}
	x.splits[cluster] = s
	return s, nil
}

// splitInfo is a resolved cluster's split; held says a compromised
// cluster was kept out of eval.
type splitInfo struct {
	split string
	held  bool
}

// resolveSplit computes (and caches) a cluster's split without touching
// the report. It is safe for concurrent use by the pipeline's workers.
func (x *exporter) resolveSplit(cluster string) (string, bool, error) {
	x.resolvedMu.Lock()
	r, ok := x.resolved[cluster]
	x.resolvedMu.Unlock()
	if ok {
		return r.split, r.held, nil
	}
	r = splitInfo{split: SplitTrain}
	if EvalCluster(cluster, x.o.SplitSeed, x.o.EvalFraction) {
		rec, ok, err := x.o.Ledger.ClusterRecord(cluster)
		if err != nil {
			return "", false, err
		}
		if ok && rec.Partition == suite.Compromised {
			r.held = true
		} else {
			r.split = SplitEval
		}
	}
	x.resolvedMu.Lock()
	x.resolved[cluster] = r
	x.resolvedMu.Unlock()
	return r.split, r.held, nil
}

// EvalCluster reports whether the seeded hash of cluster falls in the
// eval fraction. Compromised clusters are kept out of eval by the caller.
func EvalCluster(cluster string, seed uint64, fraction float64) bool {
	if fraction <= 0 {
		return false
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seed)
	h := sha256.New()
	h.Write(b[:])
	h.Write([]byte(cluster))
	u := binary.BigEndian.Uint64(h.Sum(nil)[:8])
	return float64(u>>11)/float64(1<<53) < fraction
}

func (x *exporter) meta(e *records.Episode, v *records.Verdict, cluster, split string, verified bool) *Meta {
	if x.o.Style == StyleOpenAI && x.o.Format != FormatSteps {
		return nil
	}
	tr := &e.Trajectory
	return &Meta{
		EpisodeID: tr.EpisodeID, ProblemID: tr.ProblemID, Type: string(e.ProblemType), Cluster: cluster, Split: split,
		Kind: string(e.Kind), RaceID: e.RaceID, Hotkey: e.Hotkey, MinerUID: int(tr.MinerUID), Block: e.Block,
		Final: v.Final, Judge: v.Judge.Score, JudgeFindings: v.Judge.FindingNames(), Success: v.Metrics.Success, EndReason: string(tr.EndReason),
		Verified: verified,
	}
}

// stepMeta gives the meta of each step's row (steps, completions).
func (x *exporter) stepMeta(e *records.Episode, v *records.Verdict, cluster, split string, vf verification) func(step int) *Meta {
	return func(step int) *Meta {
		m := x.meta(e, v, cluster, split, vf.step(step))
		m.Step = step
		return m
	}
}

// used records an exported episode in the report.
func (x *exporter) used(e *records.Episode, v *records.Verdict, cluster, split string) {
	r := x.rep
	typ := string(e.ProblemType)
	r.Episodes[split]++
	bump(r.EpisodesByType, split, typ)
	if v.Metrics.Success {
		r.Successes++
	}
	if verificationOf(&e.Trajectory, v).all {
		r.Verified++
	}
	r.Final.add(v.Final)
	r.Judge.add(v.Judge.Score)
	r.Clusters[cluster] = split
	r.Validators[e.Trajectory.ValidatorAddress]++
	r.Kinds[string(e.Kind)]++
	if r.episodesTotal() == 1 || e.Block < r.BlockMin {
		r.BlockMin = e.Block
	}
	r.BlockMax = max(r.BlockMax, e.Block)
}

func bump(m map[string]map[string]int, a, b string) {
	if m[a] == nil {
		m[a] = map[string]int{}
	}
	m[a][b]++
}

func (x *exporter) write(split, typ string, row any) error {
	if err := x.out.write(split, row); err != nil {
		return err
	}
	x.rep.Rows[split]++
	bump(x.rep.RowsByType, split, typ)
	return nil
}

// writeLine writes a row already encoded by the pipeline.
func (x *exporter) writeLine(split, typ string, r encodedRow) error {
	if err := x.out.writeLine(split, r.row, r.line); err != nil {
		return err
	}
	x.rep.Rows[split]++
	bump(x.rep.RowsByType, split, typ)
	return nil
}

func (x *exporter) rowsWritten() int { return x.rep.Rows[SplitTrain] + x.rep.Rows[SplitEval] }

// single streams sft and steps: one read of every episode, rows written
// as episodes pass. Episodes are decoded and converted in parallel (see
// pipeline) and written in store order.
func (x *exporter) single(ctx context.Context) error {
	if x.sequential() {
		return x.singleSequential(ctx)
	}
	instruction := ""
	if x.o.Format == FormatSteps {
		instruction = stepsInstruction(x.tools)
	}
	c, err := newConstJSON(x.tools, instruction)
	if err != nil {
		return err
	}
	process := func(t *task) {
		if !t.decode() {
			return
		}
		e, v := t.e, t.v
		t.reason = x.scope(e, v)
		if t.reason == "" {
			t.reason = x.quality(e, v)
		}
		if t.reason != "" {
			return
		}
		args := argsOf(&e.Trajectory)
		if !x.o.Filters.KeepDuplicates {
			t.hash = contentHashWith(&e.Trajectory, args)
		}
		if t.cluster, t.clusterErr = x.clusterOf(e); t.clusterErr != nil {
			return
		}
		if t.split, _, t.splitErr = x.resolveSplit(t.cluster); t.splitErr != nil {
			return
		}
		t.rows, t.size, t.rowErr = x.encodeRows(e, v, t.cluster, t.split, instruction, c, args)
		if t.size.drop {
			t.reason, t.rows = DropTooLong, nil
		}
	}
	handle := func(t *task) error {
		if t.err != nil {
			return t.err
		}
		x.rep.EpisodesRead++
		x.prog.tick("reading", x.rep.EpisodesRead, x.rowsWritten())
		reason := t.reason
		// A row too long is still a duplicate first, as without the bound.
		if (reason == "" || reason == DropTooLong) && x.seenBefore(t.hash) {
			reason = DropDuplicate
		}
		if reason == "" || reason == DropTooLong {
			x.rep.Lengths.note(t.size)
		}
		if reason != "" {
			x.rep.Dropped[reason]++
			return nil
		}
		if t.clusterErr != nil {
			return t.clusterErr
		}
		if t.splitErr != nil {
			return t.splitErr
		}
		split, err := x.splitOf(t.cluster)
		if err != nil {
			return err
		}
		if split != t.split {
			return fmt.Errorf("internal: cluster %s resolved to split %s, then %s", t.cluster, t.split, split)
		}
		x.used(t.e, t.v, t.cluster, split)
		if t.rowErr != nil {
			return fmt.Errorf("write %s.jsonl: %w", split, t.rowErr)
		}
		typ := string(t.e.ProblemType)
		for _, r := range t.rows {
			if err := x.writeLine(split, typ, r); err != nil {
				return err
			}
		}
		return nil
	}
	return x.pipeline(ctx, process, handle)
}

// encodeRows builds an episode's rows (one for sft, one per step for
// steps) and encodes each as its JSON line. The row itself is kept only
// for Parquet.
func (x *exporter) encodeRows(e *records.Episode, v *records.Verdict, cluster, split, instruction string, c *constJSON, args compactArgs) ([]encodedRow, rowSize, error) {
	enc := encoders.Get().(*rowEncoder)
	defer encoders.Put(enc)
	keep := func(row any) any {
		if x.o.Parquet {
			return row
		}
		return nil
	}
	tr := &e.Trajectory
	if err := checkText(tr, x.o.Format == FormatCompletions); err != nil {
		return nil, rowSize{}, err
	}
	vf := verificationOf(tr, v)
	switch x.o.Format {
	case FormatSFT:
		msgs, size := x.fit(append(promptMessages(tr.Query), completionWith(tr, x.o.Think, x.o.Style, args)...))
		if size.drop {
			return nil, size, nil
		}
		row := &SFTRow{Messages: msgs, Tools: x.tools, Meta: x.meta(e, v, cluster, split, vf.all)}
		line, err := enc.sftLine(c, row)
		if err != nil {
			return nil, size, err
		}
		return []encodedRow{{row: keep(row), line: line}}, size, nil
	case FormatCompletions:
		var out []encodedRow
		err := completionRows(tr, vf, x.stepMeta(e, v, cluster, split, vf), func(row *CompletionRow) error {
			line, err := enc.value(nil, row)
			if err != nil {
				return err
			}
			out = append(out, encodedRow{row: keep(row), line: append(line, '\n')})
			return nil
		})
		return out, rowSize{}, err
	}
	out := make([]encodedRow, 0, len(tr.Steps))
	err := stepSamples(tr, x.o.Think, func(step int, input, output string) error {
		m := x.meta(e, v, cluster, split, vf.step(step))
		m.Step = step
		row := &StepsRow{Instruction: instruction, Input: input, Output: output, Meta: m}
		line, err := enc.stepsLine(c, row)
		if err != nil {
			return err
		}
		out = append(out, encodedRow{row: keep(row), line: line})
		return nil
	})
	return out, rowSize{}, err
}

// member is what the first pass of dpo and grpo keeps of an episode.
type member struct {
	id    string
	final float64
	pass  bool // passes the score filters
}

// grouped makes dpo pairs or grpo groups: the first pass keeps a small
// tuple per usable episode, grouped by problem; the second reads each
// problem's episodes back by id.
func (x *exporter) grouped(ctx context.Context) error {
	groups := map[string][]member{}
	process := func(t *task) {
		if !t.decode() {
			return
		}
		t.reason = x.scope(t.e, t.v)
		if t.reason != "" {
			return
		}
		if !x.o.Filters.KeepDuplicates {
			t.hash = contentHash(&t.e.Trajectory)
		}
		t.pass = x.quality(t.e, t.v) == ""
		// Only the member tuple is needed from here on.
		t.e = &records.Episode{Trajectory: episode.Trajectory{EpisodeID: t.e.Trajectory.EpisodeID, ProblemID: t.e.Trajectory.ProblemID}}
	}
	handle := func(t *task) error {
		if t.err != nil {
			return t.err
		}
		x.rep.EpisodesRead++
		x.prog.tick("grouping", x.rep.EpisodesRead, 0)
		reason := t.reason
		if reason == "" && x.seenBefore(t.hash) {
			reason = DropDuplicate
		}
		if reason != "" {
			x.rep.Dropped[reason]++
			return nil
		}
		pid := t.e.Trajectory.ProblemID
		groups[pid] = append(groups[pid], member{id: t.e.Trajectory.EpisodeID, final: t.v.Final, pass: t.pass})
		return nil
	}
	var err error
	if x.sequential() {
		err = x.groupSequential(ctx, groups)
	} else {
		err = x.pipeline(ctx, process, handle)
	}
	if err != nil {
		return err
	}
	x.seen = nil // dedupe is done; free it
	problems := make([]string, 0, len(groups))
	for pid := range groups {
		problems = append(problems, pid)
	}
	sort.Strings(problems)
	x.index = map[string]int64{}
	return x.o.Store.View(func(txn *badger.Txn) error {
		for i, pid := range problems {
			if err := ctx.Err(); err != nil {
				return err
			}
			x.prog.tick("writing", i+1, x.rowsWritten())
			g := groups[pid]
			delete(groups, pid)
			var err error
			if x.o.Format == FormatDPO {
				err = x.pairs(txn, pid, g)
			} else {
				err = x.group(txn, pid, g)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

type loaded struct {
	e       records.Episode
	v       records.Verdict
	cluster string
}

func (x *exporter) load(txn *badger.Txn, id string) (*loaded, error) {
	e, ok, err := x.o.Records.GetEpisode(txn, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("episode %s vanished between passes", id)
	}
	v, ok, err := x.o.Records.GetVerdict(txn, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("verdict of episode %s vanished between passes", id)
	}
	if err := checkText(&e.Trajectory, false); err != nil {
		return nil, err
	}
	l := &loaded{e: e, v: v}
	if l.cluster, err = x.clusterOf(&e); err != nil {
		return nil, err
	}
	return l, nil
}

// Pair picks disjoint DPO pairs from one problem's episodes: the best
// chosen candidates (members that pass the filters) against the worst
// remaining episodes, while the gap is at least margin and positive.
// It returns index pairs into g and is exported for tests.
func Pair(finals []float64, pass []bool, margin float64, maxPairs int) [][2]int {
	order := make([]int, len(finals))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return finals[order[a]] > finals[order[b]] })
	used := make([]bool, len(finals))
	var out [][2]int
	lo := len(order) - 1
	for _, c := range order {
		if maxPairs > 0 && len(out) >= maxPairs {
			break
		}
		if used[c] || !pass[c] {
			continue
		}
		for lo >= 0 && (used[order[lo]] || order[lo] == c) {
			lo--
		}
		if lo < 0 {
			break
		}
		r := order[lo]
		gap := finals[c] - finals[r]
		if gap <= 0 || gap < margin {
			break // r is the lowest left, so no later (lower) chosen does better
		}
		used[c], used[r] = true, true
		out = append(out, [2]int{c, r})
	}
	return out
}

func (x *exporter) pairs(txn *badger.Txn, pid string, g []member) error {
	finals := make([]float64, len(g))
	pass := make([]bool, len(g))
	for i, m := range g {
		finals[i], pass[i] = m.final, m.pass
	}
	pairs := Pair(finals, pass, x.o.MinMargin, x.o.MaxPairs)
	if len(pairs) == 0 {
		x.rep.DroppedProblems[DropNoPair]++
	}
	paired := make(map[int]bool, 2*len(pairs))
	for _, p := range pairs {
		paired[p[0]], paired[p[1]] = true, true
	}
	for i, p := range pass {
		if p && !paired[i] {
			x.rep.Unpaired++
		}
	}
	for _, p := range pairs {
		c, err := x.load(txn, g[p[0]].id)
		if err != nil {
			return err
		}
		r, err := x.load(txn, g[p[1]].id)
		if err != nil {
			return err
		}
		split, err := x.splitOf(c.cluster)
		if err != nil {
			return err
		}
		x.used(&c.e, &c.v, c.cluster, split)
		x.used(&r.e, &r.v, c.cluster, split)
		cv, rv := verificationOf(&c.e.Trajectory, &c.v).all, verificationOf(&r.e.Trajectory, &r.v).all
		prompt := promptMessages(c.e.Trajectory.Query)
		chosen := completion(&c.e.Trajectory, x.o.Think, x.o.Style)
		rejected := completion(&r.e.Trajectory, x.o.Think, x.o.Style)
		typ := string(c.e.ProblemType)
		if x.o.Style == StyleOpenAI {
			err = x.write(split, typ, &OpenAIDPORow{Input: OpenAIInput{Messages: prompt, Tools: x.tools}, PreferredOutput: chosen, NonPreferredOutput: rejected})
		} else {
			err = x.write(split, typ, &DPORow{Prompt: prompt, Chosen: chosen, Rejected: rejected, Tools: x.tools, Meta: &PairMeta{
				ProblemID: pid, Type: typ, Cluster: c.cluster, Split: split,
				ChosenEpisode: c.e.Trajectory.EpisodeID, RejectedEpisode: r.e.Trajectory.EpisodeID,
				ChosenFinal: c.v.Final, RejectedFinal: r.v.Final, Margin: c.v.Final - r.v.Final,
				Verified: cv && rv, ChosenVerified: cv, RejectedVerified: rv,
			}})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// groundTruth is reward_model.ground_truth: what a rule reward needs to
// score an answer.
type groundTruth struct {
	Type    suite.Type     `json:"type"`
	Reward  suite.Reward   `json:"reward"`
	Voucher *suite.Voucher `json:"voucher"`
	Targets []string       `json:"targets"`
}

// Advantages are Dr. GRPO's: each reward minus the group's mean, with no
// division by the standard deviation.
func Advantages(rewards []float64) []float64 {
	if len(rewards) == 0 {
		return nil
	}
	mean := 0.0
	for _, r := range rewards {
		mean += r
	}
	mean /= float64(len(rewards))
	out := make([]float64, len(rewards))
	for i, r := range rewards {
		out[i] = r - mean
	}
	return out
}

func (x *exporter) group(txn *badger.Txn, pid string, g []member) error {
	if len(g) < x.o.MinGroup {
		x.rep.DroppedProblems[DropGroupTooSmall]++
		return nil
	}
	if x.o.Filters.quality() && !slices.ContainsFunc(g, func(m member) bool { return m.pass }) {
		x.rep.DroppedProblems[DropGroupFiltered]++
		return nil
	}
	p, ok, err := x.o.Ledger.Problem(pid)
	if err != nil {
		return err
	}
	if !ok {
		x.rep.DroppedProblems[DropNoGroundTruth]++
		return nil
	}
	gt, err := json.Marshal(groundTruth{Type: p.Type, Reward: p.Reward, Voucher: p.Voucher, Targets: p.Targets})
	if err != nil {
		return fmt.Errorf("problem %s ground truth: %w", pid, err)
	}
	rewards := make([]float64, len(g))
	for i, m := range g {
		rewards[i] = m.final
	}
	adv := Advantages(rewards)
	all := make([]*loaded, len(g))
	for i, m := range g {
		if all[i], err = x.load(txn, m.id); err != nil {
			return err
		}
	}
	first := all[0]
	cluster := p.Cluster
	if cluster == "" {
		cluster = first.cluster
	}
	split, err := x.splitOf(cluster)
	if err != nil {
		return err
	}
	members := make([]GroupMember, len(g))
	allVerified := true
	for i, l := range all {
		x.used(&l.e, &l.v, cluster, split)
		verified := verificationOf(&l.e.Trajectory, &l.v).all
		allVerified = allVerified && verified
		members[i] = GroupMember{
			EpisodeID: g[i].id, Hotkey: l.e.Hotkey, Reward: g[i].final, Advantage: adv[i], StepRewards: stepRewards(l.v.Judge.PerStep),
			Success: l.v.Metrics.Success, Verified: verified, Completion: completion(&l.e.Trajectory, x.o.Think, x.o.Style),
		}
	}
	query := p.Query
	if first.e.Trajectory.Query != "" {
		query = first.e.Trajectory.Query
	}
	row := &GRPORow{
		DataSource:  "arena/shopping",
		Prompt:      promptMessages(query),
		Ability:     "shopping_agent",
		RewardModel: RewardModel{Style: "rule", GroundTruth: string(gt)},
		ExtraInfo:   GRPOExtra{Split: split, Index: x.index[split], ProblemID: pid, Type: string(p.Type), Cluster: cluster, Verified: allVerified, Group: members},
	}
	x.index[split]++
	return x.write(split, string(p.Type), row)
}

// stepRewards returns the judge's per-step scores in step order.
func stepRewards(per []judge.StepScore) []float64 {
	per = slices.Clone(per)
	slices.SortStableFunc(per, func(a, b judge.StepScore) int { return a.Step - b.Step })
	out := make([]float64, len(per))
	for i, s := range per {
		out[i] = s.Score
	}
	return out
}

// loadLiveRaces reads, in the read pass's own transaction, which races are
// not decided yet, so the pass sees the same store the phases came from.
func (x *exporter) loadLiveRaces(txn *badger.Txn) error {
	races, err := x.o.Records.ListRaces(txn, 0)
	if err != nil {
		return err
	}
	x.live = map[uint64]bool{}
	for _, rc := range races {
		if rc.Phase.Live() {
			x.live[rc.ID] = true
		}
	}
	return nil
}
