package main

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/urfave/cli/v3"

	"arena/chain"
	"arena/config"
	"arena/episode"
	"arena/miner"
)

// llmAPIKeyEnv is where the llm agent's key comes from (config key
// llm.api_key, settable only from the environment).
const llmAPIKeyEnv = "ARENA_LLM_API_KEY"

// minerFlags maps the miner's flags to config keys.
var minerFlags = configFlags{
	"keystore": "keystore.dir", "password-file": "keystore.password_file", "address": "keystore.address",
	"llm-base-url": "llm.base_url", "llm-model": "llm.model", "llm-timeout": "llm.timeout",
}

// newMinerCommand runs the reference miner.
func newMinerCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "miner",
		Usage:     "serve a reference shopping agent to validators (episode protocol " + episode.Path + ")",
		UsageText: "arena miner --keystore DIR [--address ADDR] [--password-file FILE] --listen 127.0.0.1:8091 --agent heuristic|llm [--skill 0..1] [--llm-base-url URL --llm-model NAME]",
		Description: "Serves the arena episode protocol on --listen: validators dial ws://LISTEN" + episode.Path + ",\n" +
			"prove their address, and run shopping episodes whose tool calls they execute themselves.\n" +
			"The key's mirror account blake2b_256(\"evm:\" ‖ address) must be the hotkey the miner is\n" +
			"registered with, or validators end every episode with identity_mismatch.\n\n" +
			"Agents:\n" +
			"  heuristic  rule-based; --skill 0..1 degrades it (fewer pages, skipped checks, random picks).\n" +
			"  llm        any OpenAI-compatible chat endpoint with function calling (--llm-base-url,\n" +
			"             --llm-model); the API key comes from " + llmAPIKeyEnv + " only. A validator that\n" +
			"             relays inference (protocol version 2) is always asked through its relay, so its\n" +
			"             steps verify; without --llm-base-url the agent plays only for such validators.\n" +
			"The keystore password comes from --password-file or " + chain.PasswordEnv + ".\n\n" +
			"Examples:\n" +
			"  arena miner --keystore ~/.arena/miner-keys --password-file ~/.arena/miner.pass --listen 0.0.0.0:8091 --agent heuristic --skill 1\n" +
			"  " + llmAPIKeyEnv + "=sk-... arena miner --keystore ~/.arena/miner-keys --password-file ~/.arena/miner.pass --agent llm \\\n" +
			"      --llm-base-url https://openrouter.ai/api/v1 --llm-model qwen/qwen3-32b",
		Commands: []*cli.Command{newMinerServeAxonCommand(env), newMinerCheckCommand(env)},
		Flags: []cli.Flag{
			keystoreDirFlag(), passwordFileFlag(), keyAddressFlag(),
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:8091", Usage: "`HOST:PORT` to serve on (the axon announced on chain)"},
			&cli.StringFlag{Name: "agent", Value: miner.AgentHeuristic, Usage: "agent `KIND`: heuristic or llm"},
			&cli.FloatFlag{Name: "skill", Value: 1, Usage: "heuristic agent strength, 0..1"},
			&cli.StringFlag{Name: "llm-base-url", Usage: "llm agent: OpenAI-compatible endpoint `URL`, e.g. http://127.0.0.1:11434/v1, or stand-in for the offline stand-in (a script, not a model: no validator credits it) (llm.base_url)"},
			&cli.StringFlag{Name: "llm-model", Usage: "llm agent: model `NAME` (llm.model)"},
			&cli.DurationFlag{Name: "llm-timeout", Value: config.Default().LLM.Timeout.Duration, Usage: "llm agent: bound on one chat request (llm.timeout)"},
			&cli.IntFlag{Name: "max-episodes", Value: 16, Usage: "episodes served at once, across all validators"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, minerFlags)
			if err != nil {
				return err
			}
			agent, err := miner.NewAgent(miner.AgentOptions{
				Kind:       cmd.String("agent"),
				Skill:      cmd.Float("skill"),
				LLMBaseURL: cfg.LLM.BaseURL,
				LLMModel:   cfg.LLM.Model,
				LLMAPIKey:  cfg.LLM.APIKey.Reveal(),
				LLMTimeout: cfg.LLM.Timeout.Duration,
			}, log)
			if err != nil {
				return err
			}
			signer, err := unlockMinerKey(cfg)
			if err != nil {
				return err
			}
			episodes := miner.NewEpisodeLog(miner.EpisodeLogOptions{}, log)
			srv, err := episode.NewServer(episode.ServerOptions{
				Signer:                signer,
				Agent:                 agent,
				Listen:                cmd.String("listen"),
				MaxConcurrentEpisodes: int(cmd.Int("max-episodes")),
				OnEpisodeEnd:          episodes.Record,
			}, log, prometheus.NewRegistry())
			if err != nil {
				return err
			}
			banner := log.Info().Str("version", versionString()).Str("listen", cmd.String("listen")).Str("path", episode.Path).
				Str("address", signer.Address.Hex()).Str("hotkey", signer.Hotkey().SS58()).Str("agent", cmd.String("agent"))
			if strings.EqualFold(cmd.String("agent"), miner.AgentLLM) {
				banner = banner.Str("model", cfg.LLM.Model).Str("llm", cfg.Redacted().LLM.BaseURL)
			} else {
				banner = banner.Float64("skill", cmd.Float("skill"))
			}
			banner.Msg("arena miner starting")
			return episodes.Run(ctx, srv.Run)
		},
	}
}

// unlockMinerKey opens the configured keystore and unlocks its key.
func unlockMinerKey(cfg *config.Config) (*chain.Signer, error) {
	ks, err := chain.OpenKeystore(cfg.Keystore.Dir, chain.ScryptStandard)
	if err != nil {
		return nil, err
	}
	password, err := keystorePassword(cfg)
	if err != nil {
		return nil, err
	}
	return ks.Unlock(cfg.Keystore.Address, password)
}

// newMinerServeAxonCommand announces the miner's endpoint on chain.
func newMinerServeAxonCommand(env *cliEnv) *cli.Command {
	flags := configFlags{"chain": "chain.url", "netuid": "chain.netuid", "chain-id": "chain.chain_id"}
	for k, v := range keystoreFlags {
		flags[k] = v
	}
	def := config.Default().Chain
	return &cli.Command{
		Name:      "serve-axon",
		Usage:     "announce the miner's ip:port on chain through the Neuron precompile (serveAxon)",
		UsageText: "arena miner serve-axon --chain URL --netuid N --axon IP:PORT --keystore DIR [--address ADDR]",
		Description: "Validators dial the axon the metagraph lists for a uid. The transaction is signed by the\n" +
			"miner's key, so it updates the neuron whose hotkey is that key's mirror account.\n\n" +
			"Example:\n" +
			"  arena miner serve-axon --chain ws://127.0.0.1:9944 --netuid 15 --axon 203.0.113.7:8091 --keystore ./miner-keys",
		Flags: []cli.Flag{
			keystoreDirFlag(), passwordFileFlag(), keyAddressFlag(),
			&cli.StringFlag{Name: "chain", Value: def.URL, Usage: "subtensor EVM JSON-RPC `URL` (chain.url)"},
			&cli.Uint16Flag{Name: "netuid", Value: def.Netuid, Usage: "subnet `ID` (chain.netuid)"},
			&cli.Uint64Flag{Name: "chain-id", Value: def.ChainID, Usage: "expected chain `ID`: 964 finney, 945 testnet, 0 any (chain.chain_id)"},
			&cli.StringFlag{Name: "axon", Required: true, Usage: "public `IP:PORT` validators should dial"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, flags)
			if err != nil {
				return err
			}
			ap, err := netip.ParseAddrPort(cmd.String("axon"))
			if err != nil || !ap.Addr().IsValid() || ap.Addr().IsUnspecified() || ap.Port() == 0 {
				return fmt.Errorf("--axon %q: want a concrete IP:PORT such as 203.0.113.7:8091", cmd.String("axon"))
			}
			signer, err := unlockMinerKey(cfg)
			if err != nil {
				return err
			}
			c, err := dialChain(ctx, cfg, log)
			if err != nil {
				return err
			}
			defer c.Close()
			res, err := c.ServeAxon(ctx, signer, cfg.Chain.Netuid, chain.Axon{IP: ap.Addr(), Port: ap.Port(), Version: episode.Version})
			if err != nil {
				return fmt.Errorf("serve axon: %w", err)
			}
			fmt.Fprintf(env.stdout, "axon %s announced for hotkey %s on netuid %d: tx %s in block %d\n", ap, signer.Hotkey().SS58(), cfg.Chain.Netuid, res.Hash, res.Block)
			return nil
		},
	}
}
