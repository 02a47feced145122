package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v3"

	"arena/chain"
	"arena/config"
)

var chainFlags = configFlags{"url": "chain.url", "netuid": "chain.netuid", "chain-id": "chain.chain_id"}

func chainFlagDefs() []cli.Flag {
	def := config.Default().Chain
	return []cli.Flag{
		&cli.StringFlag{Name: "url", Value: def.URL, Usage: "subtensor EVM JSON-RPC `URL`, ws(s):// or http(s):// (chain.url)"},
		&cli.Uint16Flag{Name: "netuid", Value: def.Netuid, Usage: "subnet `ID` (chain.netuid)"},
		&cli.Uint64Flag{Name: "chain-id", Value: def.ChainID, Usage: "expected chain `ID`: 964 finney, 945 testnet, 0 any (chain.chain_id)"},
		&cli.BoolFlag{Name: "json", Usage: "print JSON instead of a table"},
	}
}

// dialChain builds a client from the effective config.
func dialChain(ctx context.Context, cfg *config.Config, log zerolog.Logger) (*chain.Client, error) {
	return chain.Dial(ctx, chain.Options{
		URL:             cfg.Chain.URL,
		ExpectedChainID: cfg.Chain.ChainID,
		DialTimeout:     cfg.Chain.DialTimeout.Duration,
		CallTimeout:     cfg.Chain.CallTimeout.Duration,
		ReceiptTimeout:  cfg.Chain.ReceiptTimeout.Duration,
	}, log)
}

func newChainCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:  "chain",
		Usage: "inspect a subnet on subtensor (or the devnet) through its EVM JSON-RPC",
		Commands: []*cli.Command{
			{
				Name:  "metagraph",
				Usage: "print every uid of a subnet: keys, stake, permit, activity, axon, consensus results and registration block",
				Flags: chainFlagDefs(),
				Action: env.withChain(func(ctx context.Context, cmd *cli.Command, cfg *config.Config, c *chain.Client) error {
					mg, err := c.Metagraph(ctx, cfg.Chain.Netuid)
					if err != nil {
						return err
					}
					if cmd.Bool("json") {
						return writeJSON(env.stdout, mg)
					}
					st, err := subnetState(ctx, c, cfg.Chain.Netuid, mg.Block)
					if err != nil {
						return err
					}
					return printMetagraph(env.stdout, mg, epochLine(st, cfg.Chain.Tempo))
				}),
			},
			{
				Name:  "hyperparams",
				Usage: "print the subnet settings that govern weight setting",
				Flags: chainFlagDefs(),
				Action: env.withChain(func(ctx context.Context, cmd *cli.Command, cfg *config.Config, c *chain.Client) error {
					head, err := c.HeadNumber(ctx)
					if err != nil {
						return err
					}
					hp, err := c.HyperparamsAt(ctx, cfg.Chain.Netuid, head)
					if err != nil {
						return err
					}
					st, err := subnetState(ctx, c, cfg.Chain.Netuid, head)
					if err != nil {
						return err
					}
					if cmd.Bool("json") {
						return writeJSON(env.stdout, struct {
							Netuid uint16 `json:"netuid"`
							Block  uint64 `json:"block"`
							*chain.Hyperparams
							// Chain is nil when the node has no StorageQuery precompile.
							Chain *chain.SubnetState `json:"chain"`
							// TempoFromConfig is chain.tempo, given only when Chain is nil.
							TempoFromConfig uint64 `json:"tempo_from_config,omitempty"`
						}{cfg.Chain.Netuid, head, hp, st, tempoIfUnknown(st, cfg.Chain.Tempo)})
					}
					return printHyperparams(env.stdout, cfg, head, hp, st)
				}),
			},
		},
	}
}

// withChain wraps a chain command's action: load the config with the chain
// flags, dial, run, close.
func (e *cliEnv) withChain(action func(context.Context, *cli.Command, *config.Config, *chain.Client) error) cli.ActionFunc {
	return func(ctx context.Context, cmd *cli.Command) error {
		cfg, log, err := e.load(cmd, chainFlags)
		if err != nil {
			return err
		}
		c, err := dialChain(ctx, cfg, log)
		if err != nil {
			return err
		}
		defer c.Close()
		return action(ctx, cmd, cfg, c)
	}
}

// subnetState reads what the chain holds about the subnet's epochs at block, nil when the node
// has no StorageQuery precompile (then only chain.tempo from the config is known).
func subnetState(ctx context.Context, c *chain.Client, netuid uint16, block uint64) (*chain.SubnetState, error) {
	st, err := c.SubnetState(ctx, netuid, block)
	switch {
	case errors.Is(err, chain.ErrNoStorageQuery):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &st, nil
}

func tempoIfUnknown(st *chain.SubnetState, tempo uint64) uint64 {
	if st != nil {
		return 0
	}
	return tempo
}

const noStorageQuery = "the node has no StorageQuery precompile (0x807)"

func printHyperparams(w io.Writer, cfg *config.Config, head uint64, hp *chain.Hyperparams, st *chain.SubnetState) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "netuid\t%d\n", cfg.Chain.Netuid)
	fmt.Fprintf(tw, "block\t%d\n", head)
	fmt.Fprintf(tw, "weights_version_key\t%d\n", hp.WeightsVersionKey)
	fmt.Fprintf(tw, "weights_set_rate_limit\t%d blocks\n", hp.WeightsSetRateLimit)
	fmt.Fprintf(tw, "min_allowed_weights\t%d\n", hp.MinAllowedWeights)
	fmt.Fprintf(tw, "max_weight_limit\t%d (%.4f)\n", hp.MaxWeightLimit, chain.U16ToFloat(hp.MaxWeightLimit))
	fmt.Fprintf(tw, "commit_reveal_enabled\t%v\n", hp.CommitRevealEnabled)
	fmt.Fprintf(tw, "commit_reveal_interval\t%d epochs\n", hp.CommitRevealInterval)
	fmt.Fprintf(tw, "immunity_period\t%d blocks\n", hp.ImmunityPeriod)
	fmt.Fprintf(tw, "activity_cutoff\t%d blocks\n", hp.ActivityCutoff)
	if st == nil {
		fmt.Fprintf(tw, "tempo (from config: %s)\t%d blocks\n", noStorageQuery, cfg.Chain.Tempo)
		return tw.Flush()
	}
	fmt.Fprintf(tw, "tempo\t%d blocks\n", st.Tempo)
	fmt.Fprintf(tw, "epoch_index\t%d\n", st.EpochIndex)
	fmt.Fprintf(tw, "last_epoch_block\t%d\n", st.LastEpochBlock)
	if st.PendingEpochAt > 0 {
		fmt.Fprintf(tw, "pending_epoch_at\t%d\n", st.PendingEpochAt)
	} else {
		fmt.Fprintf(tw, "pending_epoch_at\tnone\n")
	}
	if next, ok := st.NextEpoch(); ok {
		fmt.Fprintf(tw, "next_epoch\t%d\n", next)
	}
	fmt.Fprintf(tw, "reveal_period\t%d epochs\n", st.RevealPeriodEpochs)
	fmt.Fprintf(tw, "commit_reveal_version\t%d\n", st.CommitRevealVersion)
	fmt.Fprintf(tw, "mechanisms\t%d\n", st.Mechanisms)
	fmt.Fprintf(tw, "miner_burned\t%.4f\n", st.MinerBurned)
	return tw.Flush()
}

// epochLine is the metagraph's second header line: the subnet's epochs as the chain holds
// them, or chain.tempo from the config when the node cannot tell.
func epochLine(st *chain.SubnetState, tempo uint64) string {
	if st == nil {
		return fmt.Sprintf("epochs unknown: %s; tempo %d blocks from config", noStorageQuery, tempo)
	}
	line := fmt.Sprintf("tempo %d blocks, epoch index %d, last epoch at block %d", st.Tempo, st.EpochIndex, st.LastEpochBlock)
	if next, ok := st.NextEpoch(); ok {
		line += fmt.Sprintf(", next at block %d", next)
	}
	return line
}

func printMetagraph(w io.Writer, mg *chain.Metagraph, epochs string) error {
	fmt.Fprintf(w, "netuid %d at block %d: %d uids\n", mg.Netuid, mg.Block, len(mg.Neurons))
	fmt.Fprintln(w, epochs)
	if !mg.RegistrationKnown {
		fmt.Fprintln(w, "registration blocks unknown: "+noStorageQuery)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "UID\tHOTKEY\tSTAKE(τ)\tVPERMIT\tACTIVE\tUPDATED\tINCENTIVE\tCONSENSUS\tDIVIDENDS\tEMISSION(τ)\tAXON\tREGISTERED")
	for _, n := range mg.Neurons {
		axon := "-"
		if n.Axon.Served() {
			axon = n.Axon.HostPort()
		}
		registered := "-"
		if mg.RegistrationKnown {
			registered = strconv.FormatUint(n.RegisteredAt, 10)
		}
		fmt.Fprintf(tw, "%d\t%s\t%.4f\t%s\t%s\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%s\t%s\n",
			n.UID, n.Hotkey.SS58(), float64(n.Stake)/1e9, yesNo(n.ValidatorPermit), yesNo(n.Active), n.LastUpdate,
			chain.U16ToFloat(n.Incentive), chain.U16ToFloat(n.Consensus), chain.U16ToFloat(n.Dividends),
			float64(n.Emission)/1e9, axon, registered)
	}
	return tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
