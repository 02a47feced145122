package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v3"

	"arena/suite"
	"arena/validator"
)

func newSuiteCapacityCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "capacity",
		Usage:     "work out how many days of races a catalog's unused products sustain at the configured race rate",
		UsageText: "arena [--config FILE] suite capacity [--catalog FILE | --products N] [--data DIR] [--block N] [--block-seconds S] [--sample N] [--json]",
		Description: "Loads the catalog the validator would serve (catalog.file, or the generated catalog with\n" +
			"the restocks due at --block) and works out what `arena status` reports as the suite's\n" +
			"capacity: the days of races the hidden pool and the products no problem targets yet\n" +
			"sustain, at validator.race_problems every validator.race_every_blocks blocks, and how much\n" +
			"of that the catalog's restocks (catalog.restock_*) add back each day.\n\n" +
			"With --data it reads what the validator's ledger already spent. Without it, it generates\n" +
			"--sample problems (default validator.public_problems, as a first start does) to measure\n" +
			"the targets a problem takes in this catalog and this mix.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "catalog", Usage: "catalog `FILE` (overrides catalog.file)", TakesFile: true},
			&cli.IntFlag{Name: "products", Usage: "size `N` of the generated catalog (overrides catalog.products)"},
			&cli.StringFlag{Name: "data", Usage: "validator database `DIR` whose ledger to read (default: none, a first start)", TakesFile: true},
			&cli.Uint64Flag{Name: "block", Usage: "the chain's block `N`: a generated catalog holds the restocks due then"},
			&cli.Float64Flag{Name: "block-seconds", Usage: "seconds `S` a block takes", Value: validator.NominalBlockSeconds},
			&cli.IntFlag{Name: "sample", Usage: "problems `N` to generate to measure the targets a problem takes (without --data)"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed `S` of the sample problems", Value: 1},
			&cli.BoolFlag{Name: "json", Usage: "print the capacity as JSON"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, configFlags{"catalog": "catalog.file", "products": "catalog.products"})
			if err != nil {
				return err
			}
			if cmd.Float64("block-seconds") <= 0 {
				return usageError{err: fmt.Errorf("--block-seconds %v must be positive", cmd.Float64("block-seconds")), command: cmd.FullName()}
			}
			mix, err := suite.ParseMix(cfg.Validator.ProblemMix)
			if err != nil {
				return fmt.Errorf("validator.problem_mix: %w", err)
			}
			block := cmd.Uint64("block")
			idx, web, err := validator.LoadShop(ctx, cfg.Catalog, block, log, func(string, int, int) {})
			if err != nil {
				return err
			}
			var use suite.TargetUse
			pool, source := 0, ""
			if dir := cmd.String("data"); dir != "" {
				l, closeFn, err := openLedger(env, log, dir, suite.ClusterOptions{}, true)
				if err != nil {
					return err
				}
				defer closeFn()
				if use, err = l.TargetUse(ctx); err != nil {
					return err
				}
				if pool, err = l.HiddenAvailable(); err != nil {
					return err
				}
				source = "the ledger in " + dir
			} else {
				n := int(cmd.Int("sample"))
				if n <= 0 {
					n = cfg.Validator.PublicProblems
				}
				g, err := suite.NewGenerator(suite.GeneratorOptions{Index: idx, Seed: cmd.Uint64("seed"), Knowledge: web}, log)
				if err != nil {
					return err
				}
				ps, _, err := g.Generate(ctx, suite.Request{Count: n, Mix: mix})
				if err != nil {
					return err
				}
				use.Problems = len(ps)
				seen := map[string]bool{}
				for _, p := range ps {
					for _, t := range p.Targets {
						if !seen[t] {
							seen[t] = true
							use.Targets = append(use.Targets, t)
						}
					}
				}
				source = fmt.Sprintf("%d sample problems", len(ps))
			}
			rs := validator.RestockOf(cfg.Catalog)
			c := validator.CapacityOf(validator.CapacityOptions{Use: use, HiddenAvailable: pool, Catalog: idx.Catalog(),
				RaceProblems: cfg.Validator.RaceProblems, RaceEveryBlocks: cfg.Validator.RaceEveryBlocks, Restock: rs,
				BlockSeconds: cmd.Float64("block-seconds")})
			if cmd.Bool("json") {
				enc := json.NewEncoder(env.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					Products int `json:"products"`
					suite.Capacity
				}{idx.Catalog().Len(), c})
			}
			w := env.stdout
			what := fmt.Sprintf("generated (seed %d)", cfg.Catalog.Seed)
			if cfg.Catalog.File != "" {
				what = cfg.Catalog.File
			}
			fmt.Fprintf(w, "catalog: %d products, %s", idx.Catalog().Len(), what)
			if rs.EveryBlocks > 0 {
				fmt.Fprintf(w, "; restocks %d products every %d blocks (%d lots at block %d)", rs.Products, rs.EveryBlocks, rs.Lots(block), block)
			} else {
				fmt.Fprint(w, "; never restocks")
			}
			fmt.Fprintf(w, "\nraces: %d problems every %d blocks at %g s a block: %.0f problems a day\n",
				cfg.Validator.RaceProblems, cfg.Validator.RaceEveryBlocks, cmd.Float64("block-seconds"), c.ProblemsPerDay)
			fmt.Fprintf(w, "spent: %d problems target %d products (%.2f a problem; from %s); hidden pool %d\n",
				use.Problems, len(use.Targets), c.TargetsPerProblem, source, pool)
			fmt.Fprintf(w, "capacity: %s\n", capacityLine(&c))
			return nil
		},
	}
}
