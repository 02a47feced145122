package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v3"

	"arena/dataset"
	"arena/internal/bpe"
	"arena/store"
	"arena/suite"
	"arena/validator"
	"arena/validator/records"
)

func newExportCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:  "export",
		Usage: "export judged trajectories as training data (SFT, per-step, DPO pairs, GRPO groups, relayed model calls)",
		UsageText: "arena export --data DIR --format sft|steps|dpo|grpo|completions --out DIR [--style trl|openai] [--think reasoning_content|tags|drop]\n" +
			"             [--success-only] [--min-final X] [--min-judge X] [--agentic] [--verified-only] [--types product,shop,voucher] [--since-block N]\n" +
			"             [--min-margin M] [--eval-fraction F] [--split-seed S] [--max-tokens N [--truncate]] [--tokenizer tokenizer.json] [--parquet] [--force]",
		Description: "Reads the validator's database (--data, or data_dir) read-only and writes train.jsonl (and\n" +
			"eval.jsonl with --eval-fraction) plus a dataset card README.md into the --out directory.\n" +
			"--parquet also writes train.parquet / eval.parquet with the same rows.\n\n" +
			"Formats: sft, one conversation per trajectory with OpenAI tool calls; steps, one\n" +
			"{instruction, input, output} sample per agent step; dpo, pairs on one problem, chosen by a\n" +
			"higher final score than rejected by at least --min-margin; grpo, one row per problem with\n" +
			"every racer's episode, reward and Dr. GRPO advantage (verl's layout); completions, one row per\n" +
			"verified step with the exact request the model saw through the validator's relay, its raw\n" +
			"completion and usage. Every other format's meta carries verified.\n\n" +
			"Splits are by leak cluster: whole clusters go to eval by a seeded hash, so no cluster is in\n" +
			"both; compromised clusters never go to eval. Identical trajectories are exported once.\n" +
			"--agentic keeps episodes whose judge gates show the thinking referred to tool results and\n" +
			"cited a datum from them; --verified-only keeps episodes whose every step verified against\n" +
			"the relay's completions, none dictated. --max-tokens N leaves out sft rows longer than N tokens of\n" +
			"Qwen3's chat template (--truncate cuts them after the last whole step that fits), counted with\n" +
			"--tokenizer (the model's tokenizer.json) or else estimated high from their bytes; the card gives\n" +
			"the length distribution. Stop the validator first, or export from a backup: the database\n" +
			"is locked while the validator runs. See docs/dataset.md.\n\n" +
			"Example:\n" +
			"  arena export --data /var/lib/arena --format sft --success-only --agentic --eval-fraction 0.1 --out ./sft\n" +
			"  arena export --data /var/lib/arena --format sft --max-tokens 32768 --tokenizer ./Qwen3-8B/tokenizer.json --out ./sft\n" +
			"  arena export --data /var/lib/arena --format grpo --parquet --out ./grpo\n" +
			"  arena export --data /var/lib/arena --format completions --out ./completions",
		Flags: []cli.Flag{
			storeDataFlag("validator database `DIR` to read"),
			&cli.StringFlag{Name: "format", Usage: "`FORMAT`: sft, steps, dpo, grpo or completions", Required: true},
			&cli.StringFlag{Name: "out", Usage: "output `DIR` (missing or empty, unless --force)", Required: true, TakesFile: true},
			&cli.BoolFlag{Name: "force", Usage: "write into a non-empty --out, replacing the export's files"},
			&cli.BoolFlag{Name: "parquet", Usage: "also write Parquet files next to the JSON Lines"},
			&cli.StringFlag{Name: "style", Usage: "`STYLE`: trl or openai (OpenAI fine-tuning keys, DPO as input/preferred_output)", Value: "trl"},
			&cli.StringFlag{Name: "think", Usage: "where thinking goes: `MODE` reasoning_content, tags (<think>) or drop (default reasoning_content for trl, tags for openai)"},
			&cli.BoolFlag{Name: "success-only", Usage: "keep episodes whose rule metrics say success"},
			&cli.Float64Flag{Name: "min-final", Usage: "keep episodes with a final score of at least `X` in [0,1]"},
			&cli.Float64Flag{Name: "min-judge", Usage: "keep episodes with a judge score of at least `X` in [0,1]"},
			&cli.BoolFlag{Name: "agentic", Usage: "keep episodes whose thinking passes the grounding gates (referred to results and cited a datum)"},
			&cli.BoolFlag{Name: "verified-only", Usage: "keep episodes whose every step is a completion of the validator's relay, none dictated"},
			&cli.StringFlag{Name: "types", Usage: "comma-separated problem `TYPES` to keep: product, shop, voucher (default all)"},
			&cli.Uint64Flag{Name: "since-block", Usage: "keep episodes started at or after block `N`"},
			&cli.BoolFlag{Name: "keep-duplicates", Usage: "do not drop identical trajectories"},
			&cli.Float64Flag{Name: "min-margin", Usage: "dpo: least final-score gap `M` between chosen and rejected", Value: 0.1},
			&cli.IntFlag{Name: "max-pairs", Usage: "dpo: at most `N` pairs per problem (0: no cap)"},
			&cli.IntFlag{Name: "min-group", Usage: "grpo: least group size `N`", Value: 2},
			&cli.IntFlag{Name: "max-tokens", Usage: "sft: drop rows longer than `N` tokens of Qwen3's chat template (0: no bound)"},
			&cli.BoolFlag{Name: "truncate", Usage: "sft: cut a row longer than --max-tokens at the last step boundary that fits instead of dropping it"},
			&cli.StringFlag{Name: "tokenizer", Usage: "sft: the target model's tokenizer.json (or .json.gz; byte-level BPE such as Qwen3's) to count tokens with (default: an estimate from bytes)", TakesFile: true},
			&cli.Float64Flag{Name: "eval-fraction", Usage: "share `F` in [0,1) of leak clusters sent to eval.jsonl"},
			&cli.Uint64Flag{Name: "split-seed", Usage: "seed `S` of the cluster hash that picks eval clusters"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, storeDataFlags)
			if err != nil {
				return err
			}
			format, err := dataset.ParseFormat(cmd.String("format"))
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			style, err := dataset.ParseStyle(cmd.String("style"))
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			think, err := dataset.ParseThinkMode(cmd.String("think"))
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			types, err := dataset.ParseTypes(cmd.String("types"))
			if err != nil {
				return fmt.Errorf("export: --types: %w", err)
			}
			if f := cmd.Float64("eval-fraction"); !(f >= 0 && f < 1) {
				return fmt.Errorf("export: --eval-fraction %v: want a number in [0,1)", f)
			}
			if cfg.DataDir == "" {
				return errors.New("export: no data directory: pass --data DIR or set data_dir")
			}
			var counter dataset.TokenCounter
			tokenizerName := ""
			if p := cmd.String("tokenizer"); p != "" {
				tok, err := bpe.Load(p)
				if err != nil {
					return fmt.Errorf("export: --tokenizer: %w", err)
				}
				counter, tokenizerName = tok, "the tokenizer "+filepath.Base(p)
			}
			if err := store.CheckFree(cmd.String("out"), validator.StoreOptions(*cfg).Space); err != nil {
				return fmt.Errorf("export: not started: %w (free space, write elsewhere, or lower store.min_free_soft)", err)
			}
			if env.getenv("GOMEMLIMIT") == "" {
				debug.SetMemoryLimit(dataset.MemoryLimit)
			}
			st, err := store.Open(dataset.StoreOptions(cfg.DataDir), log, nil)
			switch {
			case errors.Is(err, store.ErrInUse):
				return fmt.Errorf("export: %w (stop the validator first, or export from a restored backup)", err)
			case errors.Is(err, store.ErrNeedsRecovery):
				return fmt.Errorf("export: %w (start the validator once so it recovers the database, stop it, then retry)", err)
			case err != nil:
				return fmt.Errorf("export: %w", err)
			}
			defer func() {
				if err := st.Close(); err != nil {
					log.Warn().Err(err).Msg("closing the store after export")
				}
			}()
			ledger, err := suite.NewLedger(suite.LedgerOptions{Store: st}, log, nil)
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			rep, err := dataset.Export(ctx, dataset.Options{
				Store: st, Ledger: ledger, Records: records.New(),
				Format: format, Style: style, Think: think,
				Filters: dataset.Filters{
					SuccessOnly: cmd.Bool("success-only"), MinFinal: cmd.Float64("min-final"), MinJudge: cmd.Float64("min-judge"),
					Agentic: cmd.Bool("agentic"), Types: types, SinceBlock: cmd.Uint64("since-block"), KeepDuplicates: cmd.Bool("keep-duplicates"),
					VerifiedOnly: cmd.Bool("verified-only"),
				},
				MinMargin: cmd.Float64("min-margin"), MaxPairs: int(cmd.Int("max-pairs")), MinGroup: int(cmd.Int("min-group")),
				MaxTokens: int(cmd.Int("max-tokens")), Truncate: cmd.Bool("truncate"), Tokenizer: counter, TokenizerName: tokenizerName,
				EvalFraction: cmd.Float64("eval-fraction"), SplitSeed: cmd.Uint64("split-seed"),
				Out: cmd.String("out"), Force: cmd.Bool("force"), Parquet: cmd.Bool("parquet"),
				Progress: env.stderr, Source: cfg.DataDir, Command: exportCommandLine(cmd),
			}, log)
			if err != nil {
				return err
			}
			fmt.Fprintf(env.stdout, "export: %s, %d episodes read, %d train rows, %d eval rows in %s\n",
				format, rep.EpisodesRead, rep.Rows[dataset.SplitTrain], rep.Rows[dataset.SplitEval], rep.Out)
			if l := rep.Lengths; format == dataset.FormatSFT {
				q := dataset.Quantiles(l.Before)
				fmt.Fprintf(env.stdout, "export: rows of %d to %d tokens (median %d, counted with %s)", q[0], q[4], q[1], l.Counter)
				if n := cmd.Int("max-tokens"); n > 0 {
					fmt.Fprintf(env.stdout, "; %d longer than %d tokens dropped", l.Dropped, n)
					if cmd.Bool("truncate") {
						fmt.Fprintf(env.stdout, ", %d truncated at a step boundary", l.Truncated)
					}
				}
				fmt.Fprintln(env.stdout)
			}
			return nil
		},
	}
}

// exportCommandLine renders the export's flags as set, for the card.
func exportCommandLine(cmd *cli.Command) string {
	parts := []string{"arena export"}
	for _, f := range cmd.Flags {
		name := f.Names()[0]
		if !cmd.IsSet(name) {
			continue
		}
		if v, ok := cmd.Value(name).(bool); ok {
			if v {
				parts = append(parts, "--"+name)
			}
			continue
		}
		parts = append(parts, fmt.Sprintf("--%s %v", name, cmd.Value(name)))
	}
	return strings.Join(parts, " ")
}
