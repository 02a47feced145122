package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v3"

	"arena/config"
	"arena/internal/atomicfile"
	"arena/knowledge"
	"arena/shop"
	"arena/store"
	"arena/suite"
)

func newSuiteCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:  "suite",
		Usage: "generate, import and inspect problem suites, their leak clusters and the exposure ledger",
		UsageText: "arena suite generate --catalog FILE --count N [--mix product:0.4,shop:0.3,voucher:0.3] [--seed S] (--out FILE.jsonl | --data DIR)\n" +
			"arena suite import --format shoppingbench|oro FILE (--out FILE.jsonl | --data DIR)\n" +
			"arena suite show (--suite FILE.jsonl | --data DIR) [--public] ID\n" +
			"arena suite clusters (--suite FILE.jsonl | --data DIR) [--threshold J] [--top N]\n" +
			"arena suite stats [--data DIR]\n" +
			"arena suite refill --catalog FILE --min N [--seed S] [--data DIR]\n" +
			"arena suite capacity [--catalog FILE | --products N] [--data DIR] [--block N] [--json]\n" +
			"arena suite calibrate --catalog FILE (--suite FILE.jsonl | --data DIR | --generate N) [--per-type N] [--json]",
		Description: "A suite is a set of shopping problems with ground truth, in ShoppingBench's JSON (query,\n" +
			"reward, voucher) plus arena's id, type, difficulty, cluster, seed and targets.\n\n" +
			"Problems that share a target product or have near-duplicate queries form one leak cluster.\n" +
			"In the validator's database (--data) every cluster sits in one partition: public\n" +
			"(qualifying), hidden (race), retired (exposed in a race) or compromised (leak detected).\n\n" +
			"Example:\n" +
			"  arena shop generate --products 100000 --seed 1 --out catalog.jsonl.gz\n" +
			"  arena suite generate --catalog catalog.jsonl.gz --count 10000 --seed 7 --out suite.jsonl\n" +
			"  arena suite clusters --suite suite.jsonl\n" +
			"  arena suite generate --catalog catalog.jsonl.gz --count 2000 --partition hidden --data ./arena-data",
		Commands: []*cli.Command{
			newSuiteGenerateCommand(env),
			newSuiteImportCommand(env),
			newSuiteShowCommand(env),
			newSuiteClustersCommand(env),
			newSuiteStatsCommand(env),
			newSuiteRefillCommand(env),
			newSuiteCapacityCommand(env),
			newSuiteCalibrateCommand(env),
		},
	}
}

// suiteSinkFlags choose where new problems go.
func suiteSinkFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "out", Usage: "write the problems, clustered, to `FILE` (arena JSON Lines)", TakesFile: true},
		storeDataFlag("add the problems to the ledger in database `DIR`"),
		&cli.StringFlag{Name: "partition", Usage: "with --data: `PARTITION` for new clusters, public or hidden", Value: "hidden"},
		&cli.Float64Flag{Name: "threshold", Usage: "near-duplicate Jaccard `J` for leak clusters", Value: 0.5},
	}
}

func newSuiteGenerateCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "generate",
		Usage:     "generate problems from a catalog, each verified solvable with the shop tools",
		UsageText: "arena suite generate --catalog FILE --count N [--mix product:0.4,shop:0.3,voucher:0.3] [--seed S] (--out FILE.jsonl | --data DIR)",
		Description: "Every problem states constraints its targets satisfy (title words, a price bound, services,\n" +
			"attribute or SKU pairs), is checked findable within 5 pages of find_product, and is graded\n" +
			"easy, medium or hard. The same catalog, seed and count give the same problems.\n\n" +
			"Types in --mix: product, shop, voucher and knowledge. Knowledge problems ask for a product\n" +
			"through a fact found with web_search over the corpus the validator builds from the same\n" +
			"catalog, e.g. --mix product:0.35,shop:0.25,voucher:0.25,knowledge:0.15.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "catalog", Usage: "catalog `FILE` (JSON Lines, plain or gzip)", Required: true, TakesFile: true},
			&cli.IntFlag{Name: "count", Usage: "number of problems `N`", Value: 1000},
			&cli.StringFlag{Name: "mix", Usage: "type `WEIGHTS`", Value: "product:0.4,shop:0.3,voucher:0.3"},
			&cli.Uint64Flag{Name: "seed", Usage: "random seed `S`", Value: 1},
		}, suiteSinkFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, storeDataFlags)
			if err != nil {
				return err
			}
			mix, err := suite.ParseMix(cmd.String("mix"))
			if err != nil {
				return err
			}
			if cmd.Int("count") < 1 {
				return fmt.Errorf("--count %d: must be positive", cmd.Int("count"))
			}
			if err := checkSink(cmd); err != nil {
				return err
			}
			cat, err := loadCatalog(ctx, env, log, cmd)
			if err != nil {
				return err
			}
			prog := newProgressLine(env.stderr, "indexing")
			idx, err := shop.BuildIndex(ctx, cat, shop.IndexOptions{Progress: func(d, t int) { prog.update(int64(d), int64(t), "products") }}, log)
			prog.finish()
			if err != nil {
				return err
			}
			g, err := newSuiteGenerator(ctx, idx, cmd.Uint64("seed"), mix, log)
			if err != nil {
				return err
			}
			para, err := newParaphraser(cfg, cat, log)
			if err != nil {
				return err
			}
			start := time.Now()
			prog = newProgressLine(env.stderr, "generating")
			ps, rep, err := g.Generate(ctx, suite.Request{Count: cmd.Int("count"), Mix: mix,
				Progress: func(d, t int) { prog.update(int64(d), int64(t), "problems") }})
			prog.finish()
			if err != nil {
				return err
			}
			fmt.Fprintf(env.stdout, "generated %d problems in %s (%d attempts, %d given up, %d duplicates, %d replaced for a shared target)\n",
				rep.Problems, time.Since(start).Round(time.Millisecond), rep.Attempts, rep.GivenUp, rep.Duplicates, rep.SharedTargets)
			for _, t := range suite.AllTypes() {
				if t != suite.TypeKnowledge || rep.ByType[t] > 0 {
					fmt.Fprintf(env.stdout, "  %-9s %d\n", t, rep.ByType[t])
				}
			}
			fmt.Fprintf(env.stdout, "  easy %d, medium %d, hard %d\n", rep.Difficulty[suite.Easy], rep.Difficulty[suite.Medium], rep.Difficulty[suite.Hard])
			if para != nil {
				prog = newProgressLine(env.stderr, "paraphrasing")
				prep, err := para.Apply(ctx, ps, func(d, t int) { prog.update(int64(d), int64(t), "problems") })
				prog.finish()
				if err != nil {
					return err
				}
				fmt.Fprintf(env.stdout, "%s with %s\n", prep, cfg.Suite.Paraphrase.Model)
				if prep.LastError != nil {
					fmt.Fprintf(env.stdout, "  last endpoint error: %v\n", prep.LastError)
				}
			}
			return sinkProblems(ctx, env, log, cmd, cfg.DataDir, ps)
		},
	}
}

// newSuiteGenerator builds the problem generator for a mix, with the web
// corpus the validator serves web_search from (built the same way from
// the same catalog) when the mix asks for knowledge problems.
func newSuiteGenerator(ctx context.Context, idx *shop.Index, seed uint64, mix suite.Mix, log zerolog.Logger) (*suite.Generator, error) {
	gopts := suite.GeneratorOptions{Index: idx, Seed: seed}
	if mix[suite.TypeKnowledge] > 0 {
		var err error
		if gopts.Knowledge, err = knowledge.Build(ctx, idx.Catalog(), knowledge.Options{}, log); err != nil {
			return nil, err
		}
	}
	return suite.NewGenerator(gopts, log)
}

// newParaphraser returns the paraphrase stage suite.paraphrase configures,
// or nil when it is off.
func newParaphraser(cfg *config.Config, cat *shop.Catalog, log zerolog.Logger) (*suite.Paraphraser, error) {
	pc := cfg.Suite.Paraphrase
	if pc.BaseURL == "" {
		return nil, nil
	}
	return suite.NewParaphraser(suite.ParaphraseOptions{BaseURL: pc.BaseURL, Model: pc.Model, APIKey: pc.APIKey.Reveal(),
		Timeout: pc.Timeout.Duration, Catalog: cat}, log)
}

func checkSink(cmd *cli.Command) error {
	if cmd.IsSet("out") == cmd.IsSet("data") {
		return errors.New("give exactly one of --out FILE.jsonl and --data DIR")
	}
	if _, err := suite.ParsePartition(cmd.String("partition")); err != nil {
		return err
	}
	return nil
}

// sinkProblems clusters the problems and writes them to --out, or adds
// them to the ledger in dataDir.
func sinkProblems(ctx context.Context, env *cliEnv, log zerolog.Logger, cmd *cli.Command, dataDir string, ps []suite.Problem) error {
	copts := suite.ClusterOptions{Threshold: cmd.Float64("threshold")}
	if out := cmd.String("out"); cmd.IsSet("out") {
		cl, err := suite.Cluster(ctx, ps, copts)
		if err != nil {
			return err
		}
		cl.Apply(ps)
		// 0600: the problems carry their ground truth.
		if err := atomicfile.Write(out, 0o600, func(w io.Writer) error { return suite.WriteJSONL(w, ps) }); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "wrote %d problems in %d leak clusters to %s\n", len(ps), len(cl.Clusters), out)
		return nil
	}
	part, _ := suite.ParsePartition(cmd.String("partition"))
	l, closeFn, err := openLedger(env, log, dataDir, copts, false)
	if err != nil {
		return err
	}
	defer closeFn()
	rep, err := l.Add(ctx, ps, part)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "ledger %s: added %d problems to %s (%d new clusters, %d joined), %d already known, %d discarded (fell into a cluster they may not join)\n",
		dataDir, rep.Added, part, rep.NewClusters, rep.Joined, rep.Known, rep.Discarded)
	return nil
}

func openLedger(env *cliEnv, log zerolog.Logger, dataDir string, copts suite.ClusterOptions, readOnly bool) (*suite.Ledger, func(), error) {
	st, err := store.Open(store.Options{Dir: dataDir, ReadOnly: readOnly}, log, nil)
	if err != nil {
		return nil, nil, err
	}
	l, err := suite.NewLedger(suite.LedgerOptions{Store: st, Cluster: copts}, log, nil)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return l, func() {
		if err := st.Close(); err != nil {
			fmt.Fprintf(env.stderr, "warning: close %s: %v\n", dataDir, err)
		}
	}, nil
}

func newSuiteImportCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "import ShoppingBench task files or ORO's problem suite",
		UsageText: "arena suite import --format shoppingbench|oro FILE (--out FILE.jsonl | --data DIR)",
		Description: "shoppingbench reads data/*.jsonl task files (product, shop and voucher tasks; the type\n" +
			"follows from each record). oro reads problem_suite_v3.json; its title embeddings are ignored.\n" +
			"Malformed records are reported with file and line (or index) and the others are kept.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Usage: "`FORMAT`: shoppingbench or oro", Required: true},
		}, suiteSinkFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, storeDataFlags)
			if err != nil {
				return err
			}
			if cmd.Args().Len() != 1 {
				return errors.New("give one FILE to import")
			}
			if err := checkSink(cmd); err != nil {
				return err
			}
			ps, rep, err := suite.ImportFile(cmd.Args().First(), cmd.String("format"))
			if err != nil {
				return err
			}
			for i, e := range rep.Errors {
				if i == 20 {
					fmt.Fprintf(env.stderr, "... and %d more\n", len(rep.Errors)-20)
					break
				}
				fmt.Fprintf(env.stderr, "skipped %v\n", e)
			}
			fmt.Fprintf(env.stdout, "imported %d of %d records (%d malformed, %d duplicates)\n", rep.Imported, rep.Records, len(rep.Errors), rep.Duplicates)
			if len(ps) == 0 {
				return errors.New("nothing to import")
			}
			return sinkProblems(ctx, env, log, cmd, cfg.DataDir, ps)
		},
	}
}

func suiteSourceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "suite", Usage: "read problems from `FILE` (arena JSON Lines) instead of the database", TakesFile: true},
		storeDataFlag("database `DIR` holding the ledger"),
	}
}

// loadProblems reads --suite, or every problem of the ledger.
func loadProblems(ctx context.Context, env *cliEnv, log zerolog.Logger, cmd *cli.Command, dataDir string) ([]suite.Problem, error) {
	if path := cmd.String("suite"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		ps, rep, err := suite.ReadJSONL(f, path)
		if err != nil {
			return nil, err
		}
		if len(rep.Errors) > 0 {
			fmt.Fprintf(env.stderr, "note: skipped %d bad lines, first: %v\n", len(rep.Errors), rep.Errors[0])
		}
		return ps, nil
	}
	l, closeFn, err := openLedger(env, log, dataDir, suite.ClusterOptions{}, true)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	return l.AllProblems(ctx)
}

func newSuiteShowCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "print a problem (or a cluster's problems) with its ground truth",
		UsageText: "arena suite show (--suite FILE.jsonl | --data DIR) [--public] ID",
		Flags: append(suiteSourceFlags(),
			&cli.BoolFlag{Name: "public", Usage: "print only what a miner sees"}),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, storeDataFlags)
			if err != nil {
				return err
			}
			id := cmd.Args().First()
			if id == "" || cmd.Args().Len() != 1 {
				return errors.New("give one problem or cluster ID")
			}
			ps, err := loadProblems(ctx, env, log, cmd, cfg.DataDir)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(env.stdout)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			found := 0
			for i := range ps {
				if ps[i].ID != id && ps[i].Cluster != id {
					continue
				}
				found++
				var v any = ps[i]
				if cmd.Bool("public") {
					v = ps[i].Public()
				}
				if err := enc.Encode(v); err != nil {
					return err
				}
			}
			if found == 0 {
				return fmt.Errorf("no problem or cluster %q", id)
			}
			return nil
		},
	}
}

func newSuiteClustersCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "clusters",
		Usage:     "cluster a suite into leak clusters and report their sizes",
		UsageText: "arena suite clusters (--suite FILE.jsonl | --data DIR) [--threshold J] [--top N]",
		Flags: append(suiteSourceFlags(),
			&cli.Float64Flag{Name: "threshold", Usage: "near-duplicate Jaccard `J`", Value: 0.5},
			&cli.IntFlag{Name: "top", Usage: "list the `N` largest clusters", Value: 10}),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, storeDataFlags)
			if err != nil {
				return err
			}
			ps, err := loadProblems(ctx, env, log, cmd, cfg.DataDir)
			if err != nil {
				return err
			}
			start := time.Now()
			cl, err := suite.Cluster(ctx, ps, suite.ClusterOptions{Threshold: cmd.Float64("threshold")})
			if err != nil {
				return err
			}
			fmt.Fprintf(env.stdout, "%d problems in %d clusters (threshold %.2f, %s)\n", len(ps), len(cl.Clusters),
				cmd.Float64("threshold"), time.Since(start).Round(time.Millisecond))
			sizes := cl.Sizes()
			var keys []int
			for k := range sizes {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "size\tclusters")
			for _, k := range keys {
				fmt.Fprintf(tw, "%d\t%d\n", k, sizes[k])
			}
			tw.Flush()
			fmt.Fprintln(env.stdout, "\nlargest clusters:")
			tw = tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "cluster\tproblems\ttargets\tfirst problems")
			for _, c := range cl.Clusters[:min(cmd.Int("top"), len(cl.Clusters))] {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", c.ID, len(c.Problems), len(c.Targets), strings.Join(c.Problems[:min(3, len(c.Problems))], ","))
			}
			return tw.Flush()
		},
	}
}

func newSuiteStatsCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "report the ledger's pool by partition and type, and how many races it covers",
		UsageText: "arena suite stats [--data DIR] [--per-race K]",
		Flags: []cli.Flag{
			storeDataFlag("database `DIR` holding the ledger"),
			&cli.IntFlag{Name: "per-race", Usage: "hidden clusters a race uses, `K`", Value: 10},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, storeDataFlags)
			if err != nil {
				return err
			}
			st, err := store.Open(store.Options{Dir: cfg.DataDir, ReadOnly: true}, log, nil)
			if err != nil {
				return err
			}
			defer st.Close()
			l, err := suite.NewLedger(suite.LedgerOptions{Store: st, ProblemsPerRace: cmd.Int("per-race")}, log, nil)
			if err != nil {
				return err
			}
			s, err := l.Stats(ctx)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "partition\tclusters\tproblems\tproduct\tshop\tvoucher")
			for _, p := range suite.Partitions() {
				ps := s.Partitions[p]
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\n", p, ps.Clusters, ps.Problems,
					ps.ByType[suite.TypeProduct], ps.ByType[suite.TypeShop], ps.ByType[suite.TypeVoucher])
			}
			tw.Flush()
			fmt.Fprintf(env.stdout, "hidden pool: %d never-exposed clusters, enough for %d races of %d problems\n",
				s.HiddenAvailable, s.RacesCovered, s.ProblemsPerRace)
			return nil
		},
	}
}

func newSuiteRefillCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "refill",
		Usage:     "generate hidden problems until the race pool holds at least N never-exposed clusters",
		UsageText: "arena suite refill --catalog FILE --min N [--seed S] [--mix WEIGHTS] [--data DIR]",
		Description: "New problems that fall into an existing public, retired or compromised cluster (a shared\n" +
			"target or a near-duplicate query) are discarded. The generator position is kept in the\n" +
			"database, so each refill continues with fresh problems.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "catalog", Usage: "catalog `FILE` (JSON Lines, plain or gzip)", Required: true, TakesFile: true},
			&cli.IntFlag{Name: "min", Usage: "keep at least `N` hidden clusters", Value: 100},
			&cli.StringFlag{Name: "mix", Usage: "type `WEIGHTS`", Value: "product:0.4,shop:0.3,voucher:0.3"},
			&cli.Uint64Flag{Name: "seed", Usage: "generator seed `S` (keep it fixed for one database)", Value: 1},
			storeDataFlag("database `DIR` holding the ledger"),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, storeDataFlags)
			if err != nil {
				return err
			}
			mix, err := suite.ParseMix(cmd.String("mix"))
			if err != nil {
				return err
			}
			cat, err := loadCatalog(ctx, env, log, cmd)
			if err != nil {
				return err
			}
			idx, err := shop.BuildIndex(ctx, cat, shop.IndexOptions{}, log)
			if err != nil {
				return err
			}
			g, err := newSuiteGenerator(ctx, idx, cmd.Uint64("seed"), mix, log)
			if err != nil {
				return err
			}
			para, err := newParaphraser(cfg, cat, log)
			if err != nil {
				return err
			}
			l, closeFn, err := openLedger(env, log, cfg.DataDir, suite.ClusterOptions{}, false)
			if err != nil {
				return err
			}
			defer closeFn()
			rep, err := l.Refill(ctx, cmd.Int("min"), suite.ParaphraseSource(suite.GeneratorSource(g, mix), para))
			fmt.Fprintf(env.stdout, "refill: %d rounds, %d generated, %d added (%d new clusters), %d discarded; %d hidden clusters available\n",
				rep.Rounds, rep.Generated, rep.Added, rep.NewClusters, rep.Discarded, rep.HiddenAvailable)
			return err
		},
	}
}
