package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/rs/zerolog"
	"github.com/urfave/cli/v3"

	"arena/internal/sdnotify"
	"arena/validator"
)

// runFlags map `arena run`'s flags to config keys.
var runFlags = configFlags{"data": "data_dir", "listen": "metrics.listen", "chain": "chain.url"}

func newRunCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run the validator daemon",
		UsageText: "arena run --config FILE [--data DIR] [--listen HOST:PORT] [--chain URL]",
		Description: "Follows the chain, qualifies miners on the public problem set, races the qualifiers and the\n" +
			"incumbent on fresh hidden problems at every race window, judges every trajectory, stores\n" +
			"everything in the data dir and sets weights on chain (commit-reveal when the subnet requires it).\n\n" +
			"Every setting is checked before anything starts; see `arena config keys` and\n" +
			"scripts/arena.example.yaml. The keystore password comes from keystore.password_file or\n" +
			"ARENA_KEYSTORE_PASSWORD. Metrics, /livez, /readyz and the JSON API listen on metrics.listen.\n" +
			"SIGTERM or Ctrl-C stops it gracefully: episodes in flight end \"aborted\", state is flushed,\n" +
			"and the exit code is 0. Under systemd (Type=notify) it reports READY=1, STOPPING=1 and\n" +
			"watchdog keep-alives. See docs/operations.md.",
		Flags: []cli.Flag{
			storeDataFlag("database `DIR`"),
			&cli.StringFlag{Name: "listen", Usage: "operator `HOST:PORT` for /metrics, health and the API (metrics.listen)"},
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
			stack, err := validator.OpenStack(ctx, validator.StackOptions{Config: *cfg, Signer: signer, Registry: reg}, log)
			if err != nil {
				return err
			}
			defer stack.Close()
			return serveWithSystemd(ctx, env, log, stack)
		},
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
	defer cancel()
	go func() {
		// A malformed WATCHDOG_USEC would get the daemon killed later by
		// systemd; say so now.
		if err := notify.Run(runCtx); err != nil {
			log.Error().Err(err).Msg("systemd watchdog disabled")
		}
	}()
	go func() {
		select {
		case <-stack.Validator.ReadyC():
			if err := notify.Ready(); err != nil {
				log.Warn().Err(err).Msg("systemd: READY=1")
			}
			_ = notify.Status("following the chain")
		case <-runCtx.Done():
		}
	}()
	err := stack.Run(runCtx)
	if ctx.Err() != nil {
		_ = notify.Stopping()
		log.Info().Msg("shut down cleanly")
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
