package dataset

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"arena/store"
	"arena/suite"
	"arena/validator/records"
)

// Format is an export format.
type Format string

// Formats.
const (
	FormatSFT   Format = "sft"
	FormatSteps Format = "steps"
	FormatDPO   Format = "dpo"
	FormatGRPO  Format = "grpo"
	// FormatCompletions is one row per verified step: the request the
	// relay forwarded to the provider, the provider's raw answer and its
	// usage (protocol version 2 episodes only).
	FormatCompletions Format = "completions"
)

// ParseFormat reads a format name.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case FormatSFT, FormatSteps, FormatDPO, FormatGRPO, FormatCompletions:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q: want sft, steps, dpo, grpo or completions", s)
}

// ThinkMode says where a step's think text goes.
type ThinkMode string

// Think modes.
const (
	// ThinkReasoning puts it in the assistant turn's reasoning_content.
	ThinkReasoning ThinkMode = "reasoning_content"
	// ThinkTags puts it in <think>…</think> before the turn's content.
	ThinkTags ThinkMode = "tags"
	// ThinkDrop leaves it out.
	ThinkDrop ThinkMode = "drop"
)

// ParseThinkMode reads a think mode; "" is the style's default.
func ParseThinkMode(s string) (ThinkMode, error) {
	switch m := ThinkMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "", ThinkReasoning, ThinkTags, ThinkDrop:
		return m, nil
	}
	return "", fmt.Errorf("unknown think mode %q: want reasoning_content, tags or drop", s)
}

// Style chooses between TRL's and OpenAI's small differences.
type Style string

// Styles.
const (
	// StyleTRL: content always present, reasoning_content allowed, a meta
	// column, DPO as prompt/chosen/rejected.
	StyleTRL Style = "trl"
	// StyleOpenAI: content omitted on tool-only assistant turns, no
	// reasoning_content and no meta (OpenAI's fine-tuning validator refuses
	// unknown keys), DPO as input/preferred_output/non_preferred_output.
	StyleOpenAI Style = "openai"
)

// ParseStyle reads a style name.
func ParseStyle(s string) (Style, error) {
	switch st := Style(strings.ToLower(strings.TrimSpace(s))); st {
	case StyleTRL, StyleOpenAI:
		return st, nil
	case "":
		return StyleTRL, nil
	}
	return "", fmt.Errorf("unknown style %q: want trl or openai", s)
}

// Filters select the episodes to export. Episodes without a verdict and
// episodes the validator itself cut short (aborted, internal) are never
// exported; neither are episodes that call a tool outside the schema.
type Filters struct {
	// SuccessOnly keeps episodes whose rule metrics say success.
	SuccessOnly bool
	// MinFinal and MinJudge are lower bounds on the final score and the
	// judge's score (0: no bound).
	MinFinal float64
	MinJudge float64
	// Agentic keeps episodes whose judge gates show the thinking referred
	// to tool results AND cited a datum (an id, price, shop or attribute a
	// tool returned): the "sub-task" traces that only narrate fail it.
	Agentic bool
	// Types keeps these problem types (empty: all).
	Types []suite.Type
	// SinceBlock keeps episodes started at or after this block.
	SinceBlock uint64
	// KeepDuplicates turns off dedupe of identical trajectories.
	KeepDuplicates bool
	// VerifiedOnly keeps episodes whose every step verified against the
	// validator's relay completions and none was dictated
	// (docs/scoring.md, "Verified inference").
	VerifiedOnly bool
}

// quality reports whether any of the score filters is set.
func (f *Filters) quality() bool {
	return f.SuccessOnly || f.MinFinal > 0 || f.MinJudge > 0 || f.Agentic || f.VerifiedOnly
}

// Options configure Export.
type Options struct {
	// Store is the validator's database, opened read-only (required).
	Store *store.Store
	// Ledger is the suite ledger over Store (required).
	Ledger *suite.Ledger
	// Records are the validator's keyspaces (default records.New()).
	Records *records.Records

	Format  Format
	Style   Style
	Think   ThinkMode
	Filters Filters

	// MinMargin is the least final-score gap of a DPO pair (pairs always
	// need chosen > rejected).
	MinMargin float64
	// MaxPairs caps DPO pairs per problem (0: as many as the episodes give).
	MaxPairs int
	// MinGroup is the least GRPO group size (default 2).
	MinGroup int

	// MaxTokens bounds an sft row's length in tokens of Qwen3's chat template (0: no
	// bound): longer rows are dropped, or cut with Truncate.
	MaxTokens int
	// Truncate cuts a row longer than MaxTokens at the last step boundary that fits
	// instead of dropping it; a row whose first step alone is too long is still dropped.
	Truncate bool
	// Tokenizer counts the tokens (default EstimateTokens); TokenizerName names it in
	// the card.
	Tokenizer     TokenCounter
	TokenizerName string

	// EvalFraction is the share of leak clusters sent to eval, in [0,1).
	EvalFraction float64
	// SplitSeed salts the cluster hash that picks eval clusters.
	SplitSeed uint64

	// Out is the output directory; it must be missing or empty unless
	// Force.
	Out   string
	Force bool
	// Parquet also writes train.parquet / eval.parquet.
	Parquet bool
	// RowGroupBytes flushes a Parquet row group after about this many bytes
	// of rows (default 32 MiB), bounding memory.
	RowGroupBytes int

	// Workers is the number of goroutines that decode and convert episodes
	// (0: GOMAXPROCS). A negative value selects the sequential reference
	// pass (no pipeline), kept for tests. The output does not depend on it.
	Workers int

	// Progress receives a progress line on a terminal (nil: none).
	Progress io.Writer
	// Source names the data dir in the card.
	Source string
	// Command is the command line, recorded in the card.
	Command string
	// Now stamps the card (default time.Now).
	Now func() time.Time
}

func (o *Options) validate() error {
	var errs []error
	if o.Store == nil || o.Ledger == nil {
		errs = append(errs, errors.New("a store and a suite ledger are required"))
	}
	if _, err := ParseFormat(string(o.Format)); err != nil {
		errs = append(errs, err)
	}
	if o.Style == "" {
		o.Style = StyleTRL
	}
	if _, err := ParseStyle(string(o.Style)); err != nil {
		errs = append(errs, err)
	}
	if _, err := ParseThinkMode(string(o.Think)); err != nil {
		errs = append(errs, err)
	}
	if o.Think == "" {
		o.Think = ThinkReasoning
		if o.Style == StyleOpenAI {
			o.Think = ThinkTags
		}
	}
	if o.Style == StyleOpenAI && o.Think == ThinkReasoning {
		errs = append(errs, errors.New("--think reasoning_content does not fit --style openai (OpenAI fine-tuning has no reasoning field): use tags or drop"))
	}
	if o.Format == FormatGRPO && o.Style == StyleOpenAI {
		errs = append(errs, errors.New("format grpo has one layout (verl's); --style openai applies to sft and dpo"))
	}
	if o.Format == FormatCompletions && o.Style == StyleOpenAI {
		errs = append(errs, errors.New("format completions has one layout (the provider's own request and answer); --style openai applies to sft and dpo"))
	}
	if o.EvalFraction < 0 || o.EvalFraction >= 1 || o.EvalFraction != o.EvalFraction {
		errs = append(errs, fmt.Errorf("eval fraction %v must be in [0,1)", o.EvalFraction))
	}
	if o.MinMargin < 0 {
		errs = append(errs, fmt.Errorf("min margin %v must not be negative", o.MinMargin))
	}
	if o.MaxPairs < 0 {
		errs = append(errs, fmt.Errorf("max pairs %d must not be negative", o.MaxPairs))
	}
	if o.MinGroup == 0 {
		o.MinGroup = 2
	}
	if o.MinGroup < 1 {
		errs = append(errs, fmt.Errorf("min group %d must be positive", o.MinGroup))
	}
	if o.Filters.MinFinal < 0 || o.Filters.MinFinal > 1 || o.Filters.MinJudge < 0 || o.Filters.MinJudge > 1 {
		errs = append(errs, fmt.Errorf("min final %v and min judge %v must be in [0,1]", o.Filters.MinFinal, o.Filters.MinJudge))
	}
	for _, t := range o.Filters.Types {
		if !slices.Contains(suite.Types(), t) {
			errs = append(errs, fmt.Errorf("unknown problem type %q: want product, shop or voucher", t))
		}
	}
	if o.MaxTokens < 0 {
		errs = append(errs, fmt.Errorf("max tokens %d must not be negative", o.MaxTokens))
	}
	if o.Truncate && o.MaxTokens == 0 {
		errs = append(errs, errors.New("truncate needs a max tokens bound"))
	}
	if (o.MaxTokens > 0 || o.Tokenizer != nil) && o.Format != FormatSFT {
		errs = append(errs, fmt.Errorf("a token bound or tokenizer for format %s: not implemented (format sft only)", o.Format))
	}
	if o.Tokenizer == nil {
		o.Tokenizer, o.TokenizerName = EstimateTokens{}, ""
	}
	if strings.TrimSpace(o.Out) == "" {
		errs = append(errs, errors.New("no output directory"))
	}
	if o.Records == nil {
		o.Records = records.New()
	}
	if o.RowGroupBytes <= 0 {
		o.RowGroupBytes = 32 << 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return errors.Join(errs...)
}

// ParseTypes reads a comma-separated list of problem types.
func ParseTypes(s string) ([]suite.Type, error) {
	var out []suite.Type
	for _, f := range strings.Split(s, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		t, err := suite.ParseType(f)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}
