package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/rs/zerolog"
	"github.com/urfave/cli/v3"

	"arena/chain"
	"arena/config"
	"arena/internal/sdnotify"
	"arena/validator"
	"arena/web"
)

// runFlags map `arena run`'s flags to config keys.
var runFlags = configFlags{"data": "data_dir", "listen": "metrics.listen", "api-listen": "api.listen", "chain": "chain.url"}

func newRunCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run the validator daemon",
		UsageText: "arena run --config FILE [--data DIR] [--listen HOST:PORT] [--api-listen HOST:PORT] [--chain URL]",
		Description: "Follows the chain, qualifies miners on the public problem set, races the qualifiers and the\n" +
			"incumbent on fresh hidden problems at every race window, judges every trajectory, stores\n" +
			"everything in the data dir and sets weights on chain (commit-reveal when the subnet requires it).\n\n" +
			"Every setting is checked before anything starts; see `arena config keys` and\n" +
			"scripts/arena.example.yaml. The keystore password comes from keystore.password_file or\n" +
			"ARENA_KEYSTORE_PASSWORD. /metrics, /livez and /readyz listen on metrics.listen; the JSON API\n" +
			"(every miner's trajectories) on api.listen, loopback unless api.allow_remote with a token.\n" +
			"SIGTERM or Ctrl-C stops it gracefully: episodes in flight end \"aborted\", state is flushed,\n" +
			"and the exit code is 0. Under systemd (Type=notify) it reports READY=1, STOPPING=1 and\n" +
			"watchdog keep-alives. See docs/operations.md.",
		Flags: []cli.Flag{
			storeDataFlag("database `DIR`"),
			&cli.StringFlag{Name: "listen", Usage: "`HOST:PORT` for /metrics, /livez and /readyz (metrics.listen)"},
			&cli.StringFlag{Name: "api-listen", Usage: "`HOST:PORT` for the JSON API (api.listen)"},
			&cli.StringFlag{Name: "chain", Usage: "subtensor EVM JSON-RPC `URL` (chain.url)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, runFlags)
			if err != nil {
				return err
			}
			signer, err := unlockMinerKey(cfg)
			if err != nil {
				return fmt.Errorf("validator key: %w", err)
			}
			reg := newRegistry()
			stack, err := validator.OpenStack(ctx, validator.StackOptions{Config: *cfg, Signer: signer, Registry: reg,
				Console: web.ForStack(cfg.Web, reg, log)}, log)
			if err != nil {
				return err
			}
			begin, finish := env.boundShutdown(ctx, log, cfg.ShutdownTimeout.Duration)
			defer finish()
			logBanner(ctx, log, cfg, signer, stack)
			err = serveWithSystemd(ctx, env, log, stack)
			begin()
			if cerr := stack.Close(); err == nil && cerr != nil {
				err = cerr
			}
			if err == nil && ctx.Err() != nil {
				log.Info().Msg("shut down cleanly")
			}
			return err
		},
	}
}

// logBanner says once, at start, what this validator is: its build, the
// chain, its key and uid, where it listens and keeps its data, and how it
// sets weights. A chain read that fails is shown as such; the validator
// retries it on its own.
func logBanner(ctx context.Context, log zerolog.Logger, cfg *config.Config, signer *chain.Signer, s *validator.Stack) {
	uid, weights := "not registered", "set"
	if mg, err := s.Chain.Metagraph(ctx, cfg.Chain.Netuid); err != nil {
		uid = "unknown (" + err.Error() + ")"
	} else if n, ok := mg.ByHotkey(signer.Hotkey()); ok {
		uid = strconv.Itoa(int(n.UID))
	}
	if hp, err := s.Chain.Hyperparams(ctx, cfg.Chain.Netuid); err != nil {
		weights = "unknown (" + err.Error() + ")"
	} else if hp.CommitRevealEnabled {
		weights = "commit-reveal"
	}
	log.Info().Str("version", versionString()).Str("chain", cfg.Redacted().Chain.URL).Uint64("chain_id", s.Chain.ChainID().Uint64()).
		Uint16("netuid", cfg.Chain.Netuid).Str("address", signer.Address.Hex()).Str("hotkey", signer.Hotkey().SS58()).Str("uid", uid).
		Str("listen", s.Server.Addr()).Str("api_listen", s.API.Addr()).Str("data_dir", cfg.DataDir).Str("weights", weights).
		Uint64("race_every_blocks", cfg.Validator.RaceEveryBlocks).Str("console", consoleURL(s.API.Addr())).Msg("arena run starting")
	if s.Public != nil {
		log.Info().Str("url", consoleURL(s.Public.Addr())).Msg("public web console")
	}
}

// newRegistry is a registry with the Go runtime and process collectors.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// serveWithSystemd runs the stack and keeps systemd informed: READY=1 at
// the first sync, STOPPING=1 on shutdown, and watchdog keep-alives.
func serveWithSystemd(ctx context.Context, env *cliEnv, log zerolog.Logger, stack *validator.Stack) error {
	notify := sdnotify.New(sdnotify.Options{Getenv: env.getenv}, log)
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() {
		// A malformed WATCHDOG_USEC would get the daemon killed later by
		// systemd; say so now.
		if err := notify.Run(runCtx); err != nil {
			log.Error().Err(err).Msg("systemd watchdog disabled")
		}
	})
	wg.Go(func() {
		select {
		case <-stack.Validator.ReadyC():
			if err := notify.Ready(); err != nil {
				log.Warn().Err(err).Msg("systemd: READY=1")
			}
			_ = notify.Status("following the chain")
		case <-runCtx.Done():
		}
	})
	err := stack.Run(runCtx)
	_ = notify.Stopping()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (e *cliEnv) getenv(key string) string {
	for _, kv := range e.environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
