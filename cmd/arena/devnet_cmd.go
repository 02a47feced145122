package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"arena/chain"
	"arena/chain/devnet"
	"arena/config"
)

// devnetPassword protects the devnet's throwaway keys; it is written next to
// them so `arena keys` and `arena run` can unlock them.
const devnetPassword = "arena-devnet"

var devnetFlags = configFlags{
	"listen": "devnet.listen", "block-time": "devnet.block_time", "netuid": "devnet.netuid", "tempo": "devnet.tempo",
	"validators": "devnet.validators", "miners": "devnet.miners", "keystore": "devnet.keystore",
}

func newDevnetCommand(env *cliEnv) *cli.Command {
	def := config.Default().Devnet
	return &cli.Command{
		Name:  "devnet",
		Usage: "run a local chain that speaks subtensor's EVM precompile ABIs (for development and tests)",
		Description: "Starts an in-process go-ethereum chain whose genesis emulates subtensor's Metagraph, Subnet,\n" +
			"Neuron and UidLookup precompiles, creates a subnet, registers validators and miners with funded\n" +
			"deterministic dev keys, writes those keys to --keystore and serves JSON-RPC over websocket and\n" +
			"HTTP until interrupted. Point `arena chain metagraph --url ws://...` at it.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: def.Listen, Usage: "`HOST:PORT` to serve ws and http JSON-RPC on (devnet.listen)"},
			&cli.DurationFlag{Name: "block-time", Value: def.BlockTime.Duration, Usage: "time between blocks, e.g. 1s or 200ms (devnet.block_time)"},
			&cli.Uint16Flag{Name: "netuid", Value: def.Netuid, Usage: "subnet `ID` to create (devnet.netuid)"},
			&cli.Uint64Flag{Name: "tempo", Value: def.Tempo, Usage: "epoch length in `BLOCKS` (devnet.tempo)"},
			&cli.IntFlag{Name: "validators", Value: def.Validators, Usage: "validators to register, with stake and permit (devnet.validators)"},
			&cli.IntFlag{Name: "miners", Value: def.Miners, Usage: "miners to register (devnet.miners)"},
			&cli.StringFlag{Name: "keystore", Value: def.Keystore, Usage: "`DIR` to write the dev keys to (devnet.keystore)"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed of the deterministic dev keys"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			cfg, log, err := env.load(cmd, devnetFlags)
			if err != nil {
				return err
			}
			dc := cfg.Devnet
			dn, err := devnet.New(devnet.Options{
				Listen: dc.Listen, BlockTime: dc.BlockTime.Duration, Netuid: dc.Netuid, Tempo: dc.Tempo,
				Validators: dc.Validators, Miners: dc.Miners, Seed: cmd.Uint64("seed"),
			}, log, nil)
			if err != nil {
				return err
			}
			defer dn.Close()
			if err := dn.Start(); err != nil {
				return err
			}
			files, err := writeDevKeys(dc.Keystore, dn)
			if err != nil {
				return err
			}
			printDevnet(env, dn, dc.Keystore, files)
			return dn.Run(ctx)
		},
	}
}

// writeDevKeys stores every dev key (admin included) in dir with the devnet
// password, plus the password file itself. Keys already there are kept.
func writeDevKeys(dir string, dn *devnet.Devnet) (map[string]string, error) {
	ks, err := chain.OpenKeystore(dir, chain.ScryptLight)
	if err != nil {
		return nil, err
	}
	pwFile := filepath.Join(dir, "password")
	if err := os.WriteFile(pwFile, []byte(devnetPassword+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("devnet password file: %w", err)
	}
	files := map[string]string{}
	for _, a := range append([]devnet.Account{dn.Admin()}, dn.Accounts()...) {
		if acct, err := ks.Find(a.Address.Hex()); err == nil {
			files[a.Address.Hex()] = acct.URL.Path
			continue
		}
		acct, err := ks.ImportKey(a.Key, devnetPassword)
		if err != nil {
			return nil, err
		}
		files[a.Address.Hex()] = acct.URL.Path
	}
	return files, nil
}

func printDevnet(env *cliEnv, dn *devnet.Devnet, dir string, files map[string]string) {
	w := env.stdout
	fmt.Fprintf(w, "devnet ready (chain id %d, netuid %d, tempo %d)\n", devnet.ChainID, dn.Netuid(), dn.Tempo())
	fmt.Fprintf(w, "  websocket: %s\n  http:      %s\n", dn.URL(), dn.HTTPURL())
	fmt.Fprintf(w, "  keys:      %s (password in %s)\n\n", dir, filepath.Join(dir, "password"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ROLE\tUID\tADDRESS\tHOTKEY (SS58)\tKEY FILE")
	admin := dn.Admin()
	fmt.Fprintf(tw, "admin/owner\t-\t%s\t%s\t%s\n", admin.Address, admin.Hotkey.SS58(), files[admin.Address.Hex()])
	for _, a := range dn.Accounts() {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", a.Role, a.UID, a.Address, a.Hotkey.SS58(), files[a.Address.Hex()])
	}
	tw.Flush()
	fmt.Fprintf(w, "\ntry: arena chain metagraph --url %s --netuid %d\n", dn.URL(), dn.Netuid())
}
