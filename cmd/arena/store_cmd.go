package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v3"

	"arena/internal/atomicfile"
	"arena/store"
	"arena/suite"
	"arena/validator"
	"arena/validator/records"
)

// storeDataFlags lets --data override the data_dir config key.
var storeDataFlags = configFlags{"data": "data_dir"}

func storeDataFlag(usage string) *cli.StringFlag {
	return &cli.StringFlag{Name: "data", Usage: usage + " (overrides data_dir; default ./arena-data)", TakesFile: true}
}

func newBackupCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "backup",
		Usage:     "write a full backup of the validator's database to a file",
		UsageText: "arena [--config FILE] backup --out FILE [--data DIR] [--force]",
		Description: "Copies every key of the database in --data (or data_dir) into FILE, from one consistent\n" +
			"snapshot, framed with a header and a checksum. Bring it back with `arena restore`.\n\n" +
			"Stop the validator first: a running validator locks its database, and backup then fails\n" +
			"with \"already in use by another process\". The database is opened read-only.\n\n" +
			"FILE is written under a temporary name in the same directory and renamed into place only\n" +
			"when complete, so it is never half-written. An existing FILE is left alone unless --force\n" +
			"is given. The backup holds everything the validator stores, weight-commit salts included:\n" +
			"it is created readable by its owner only (mode 0600); keep it that way.\n\n" +
			"Example:\n" +
			"  arena backup --data /var/lib/arena --out /backups/arena-$(date +%F).bak",
		Flags: []cli.Flag{
			storeDataFlag("database `DIR` to back up"),
			&cli.StringFlag{Name: "out", Usage: "backup `FILE` to write", Required: true, TakesFile: true},
			&cli.BoolFlag{Name: "force", Usage: "replace --out if it already exists"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, storeDataFlags)
			if err != nil {
				return err
			}
			return runBackup(ctx, env, log, cfg.DataDir, cmd.String("out"), cmd.Bool("force"))
		},
	}
}

func newRestoreCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "restore",
		Usage:     "rebuild the validator's database from a backup file, into an empty directory",
		UsageText: "arena [--config FILE] restore --in FILE [--data DIR]",
		Description: "Loads a file written by `arena backup` into --data (or data_dir). That directory must not\n" +
			"exist or must be empty: restore never merges into or overwrites a database. To replace one,\n" +
			"stop the validator, move the old directory aside (keep it until the restored validator runs\n" +
			"well), restore, then start the validator again.\n\n" +
			"The file's header, checksum and schema version are checked; a backup made by an arena build\n" +
			"with another schema version is refused. If anything fails, the partly restored files are\n" +
			"removed again and the directory is left as it was.\n\n" +
			"Example:\n" +
			"  arena restore --in /backups/arena-2025-01-31.bak --data /var/lib/arena",
		Flags: []cli.Flag{
			storeDataFlag("new or empty database `DIR` to restore into"),
			&cli.StringFlag{Name: "in", Usage: "backup `FILE` made by arena backup", Required: true, TakesFile: true},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, storeDataFlags)
			if err != nil {
				return err
			}
			return runRestore(ctx, env, log, cfg.DataDir, cmd.String("in"))
		},
	}
}

func runBackup(ctx context.Context, env *cliEnv, log zerolog.Logger, dataDir, out string, force bool) error {
	if dataDir == "" {
		return errors.New("backup: no data directory: pass --data DIR or set data_dir")
	}
	if !force {
		if _, err := os.Lstat(out); err == nil {
			return fmt.Errorf("backup: %s already exists; pass --force to replace it", out)
		} else if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("backup: %w", err)
		}
	}
	st, err := store.Open(store.Options{Dir: dataDir, ReadOnly: true}, log, nil)
	switch {
	case errors.Is(err, store.ErrInUse):
		return fmt.Errorf("backup: %w (stop the validator first)", err)
	case errors.Is(err, store.ErrNeedsRecovery):
		return fmt.Errorf("backup: %w (start the validator once so it recovers the database, stop it, then retry)", err)
	case err != nil:
		return fmt.Errorf("backup: %w", err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			log.Warn().Err(err).Msg("closing the store after backup")
		}
	}()

	// 0600: the backup holds weight-commit salts.
	f, err := atomicfile.Create(out, 0o600)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer f.Abort()
	info, err := st.Backup(cancelableWriter{ctx: ctx, w: f})
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	commit := f.CommitNoReplace
	if force {
		commit = f.Commit
	}
	if err := commit(); errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("backup: %s already exists; pass --force to replace it", out)
	} else if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Fprintf(env.stdout, "backup: wrote %d keys, %d bytes from %s to %s\n", info.Keys, info.Bytes, dataDir, out)
	return nil
}

func runRestore(ctx context.Context, env *cliEnv, log zerolog.Logger, dataDir, in string) error {
	if dataDir == "" {
		return errors.New("restore: no data directory: pass --data DIR or set data_dir")
	}
	f, err := os.Open(in)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer f.Close()
	info, err := store.Restore(store.Options{Dir: dataDir}, cancelableReader{ctx: ctx, r: f}, log)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "restore: loaded %d keys, %d bytes from %s into %s\n", info.Keys, info.Bytes, in, dataDir)
	return nil
}

// cancelableWriter and cancelableReader stop a long backup or restore on Ctrl-C: the
// next write or read fails with the context's error.
type cancelableWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c cancelableWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

type cancelableReader struct {
	ctx context.Context
	r   io.Reader
}

func (c cancelableReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func newStoreCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:  "store",
		Usage: "inspect the validator's database",
		Commands: []*cli.Command{{
			Name:      "check",
			Usage:     "verify the database's cross-references without changing anything",
			UsageText: "arena [--config FILE] store check [--data DIR] [--json]",
			Description: "Opens --data (or data_dir) read-only and checks that every index entry names a stored\n" +
				"episode and every episode is indexed, that every verdict has its episode, that each race's\n" +
				"clusters were exposed at its start and raced once, that finished races have one judged\n" +
				"episode per racer and problem, that weight submissions carry their salts and transactions,\n" +
				"and that qualifying runs name stored episodes. Exits 1 when a problem is found.\n" +
				"Stop the validator first (it locks the database).",
			Flags: []cli.Flag{
				storeDataFlag("database `DIR` to check"),
				&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				cfg, log, err := env.load(cmd, storeDataFlags)
				if err != nil {
					return err
				}
				return runStoreCheck(ctx, env, log, cfg.DataDir, cmd.Bool("json"))
			},
		}, {
			Name:      "reset-chain-state",
			Usage:     "let a database follow a new chain after the one it was built on was reset",
			UsageText: "arena [--config FILE] store reset-chain-state [--data DIR]",
			Description: "For a devnet or testnet restarted under the same URL: the validator then stops working\n" +
				"(\"chain reset\" in the log, /readyz 503) because the old chain's blocks and uids mean\n" +
				"nothing on the new one. Stop the validator and run this to start a new chain era: the recorded\n" +
				"genesis and chain cursor are cleared, the race standing starts over (no leader; earlier races\n" +
				"are no longer evidence), a running race is aborted, weights submissions not settled on the old\n" +
				"chain are marked failed, and miner records are dropped, to be read again from the new\n" +
				"metagraph (miners qualify again). Episodes, verdicts, race records, earlier submissions and\n" +
				"the suite with its exposures are kept, and what the database knew of the old chain is\n" +
				"recorded in its meta. Back up first (arena backup) if in doubt. Not for a real network: a\n" +
				"finney validator whose node serves another chain has a wrong chain.url.",
			Flags: []cli.Flag{storeDataFlag("database `DIR` to reset")},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				cfg, log, err := env.load(cmd, storeDataFlags)
				if err != nil {
					return err
				}
				return runResetChainState(env, log, cfg.DataDir)
			},
		}},
	}
}

func runResetChainState(env *cliEnv, log zerolog.Logger, dataDir string) error {
	if _, err := os.Stat(dataDir); err != nil {
		return fmt.Errorf("reset-chain-state: %w", err)
	}
	st, err := store.Open(store.Options{Dir: dataDir}, log, nil)
	switch {
	case errors.Is(err, store.ErrInUse):
		return fmt.Errorf("reset-chain-state: %w (stop the validator first)", err)
	case err != nil:
		return fmt.Errorf("reset-chain-state: %w", err)
	}
	rep, err := validator.ResetChainState(st, time.Now())
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("reset-chain-state: %w", cerr)
	}
	if err != nil {
		return err
	}
	leader := "none"
	if rep.Leader != nil {
		leader = fmt.Sprintf("uid %d", rep.Leader.UID)
	}
	fmt.Fprintf(env.stdout, "chain era %d: forgot genesis %s and cursor block %d (leader %s); %d unsettled weights submission(s) marked failed; %d miner record(s) to be read again",
		rep.Era, orNone(rep.Genesis), rep.Cursor, leader, rep.UnsettledWeights, rep.Miners)
	if rep.AbortedRace != 0 {
		fmt.Fprintf(env.stdout, "; race %d aborted", rep.AbortedRace)
	}
	fmt.Fprintln(env.stdout, ". Episodes, verdicts, races and the suite are kept. Start the validator on the new chain.")
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func runStoreCheck(ctx context.Context, env *cliEnv, log zerolog.Logger, dataDir string, asJSON bool) error {
	st, err := store.Open(store.Options{Dir: dataDir, ReadOnly: true}, log, nil)
	switch {
	case errors.Is(err, store.ErrInUse):
		return fmt.Errorf("store check: %w (stop the validator first)", err)
	case err != nil:
		return fmt.Errorf("store check: %w", err)
	}
	defer st.Close()
	// Every table was verified when it was opened; verify again so a
	// check run against a long-lived copy reads every block from disk.
	if err := st.Verify(); err != nil {
		return fmt.Errorf("store check: %w", err)
	}
	ledger, err := suite.NewLedger(suite.LedgerOptions{Store: st}, log, nil)
	if err != nil {
		return fmt.Errorf("store check: %w", err)
	}
	rep, err := records.New().Check(ctx, st, ledger)
	if err != nil {
		return fmt.Errorf("store check: %w", err)
	}
	if asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(env.stdout, "checked %d episodes, %d verdicts, %d races, %d weight submissions, %d miners, %d clusters\n",
			rep.Episodes, rep.Verdicts, rep.Races, rep.Submissions, rep.Miners, rep.Clusters)
		for _, p := range rep.Problems {
			fmt.Fprintf(env.stdout, "  problem: %s\n", p)
		}
	}
	if !rep.OK() {
		return cli.Exit(fmt.Sprintf("store check: %d problem(s) in %s", len(rep.Problems), dataDir), 1)
	}
	if !asJSON {
		fmt.Fprintln(env.stdout, "ok: no problems found")
	}
	return nil
}
