package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v3"

	"arena/chain"
	"arena/config"
)

var keystoreFlags = configFlags{"keystore": "keystore.dir", "password-file": "keystore.password_file", "address": "keystore.address"}

func keystoreDirFlag() cli.Flag {
	return &cli.StringFlag{Name: "keystore", Value: config.Default().Keystore.Dir, Usage: "keystore `DIR` (keystore.dir)"}
}

func passwordFileFlag() cli.Flag {
	return &cli.StringFlag{Name: "password-file", Usage: "`FILE` holding the key password; otherwise " + chain.PasswordEnv + " is used"}
}

func keyAddressFlag() cli.Flag {
	return &cli.StringFlag{Name: "address", Usage: "0x `ADDRESS` of the key (keystore.address); default: the only key"}
}

func newKeysCommand(env *cliEnv) *cli.Command {
	lightKDF := &cli.BoolFlag{Name: "light-kdf", Usage: "weak, fast scrypt: only for throwaway test keys"}
	return &cli.Command{
		Name:  "keys",
		Usage: "manage the validator's secp256k1 keys (go-ethereum keystore)",
		Description: "Keys are encrypted JSON files (mode 0600) in the keystore directory. The chain sees a key's\n" +
			"address as its mirror account blake2b_256(\"evm:\" ‖ address): that SS58 account is the hotkey the\n" +
			"validator must be registered with. Passwords come from --password-file or " + chain.PasswordEnv + ",\n" +
			"never from a flag value.",
		Commands: []*cli.Command{
			{
				Name:  "new",
				Usage: "create a new key and print its address and mirror hotkey",
				Flags: []cli.Flag{keystoreDirFlag(), passwordFileFlag(), lightKDF},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					ks, password, err := env.openKeystore(cmd, true)
					if err != nil {
						return err
					}
					acct, err := ks.New(password)
					if err != nil {
						return err
					}
					printKey(env.stdout, acct.Address, acct.URL.Path)
					return nil
				},
			},
			{
				Name:      "import",
				Usage:     "import a hex private key from FILE (or - for standard input)",
				ArgsUsage: "FILE",
				Flags:     []cli.Flag{keystoreDirFlag(), passwordFileFlag(), lightKDF},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					if cmd.Args().Len() != 1 {
						return errors.New("keys import: give exactly one FILE holding the hex private key (- for stdin)")
					}
					hexKey, err := readSecretArg(cmd.Args().First())
					if err != nil {
						return err
					}
					ks, password, err := env.openKeystore(cmd, true)
					if err != nil {
						return err
					}
					acct, err := ks.ImportHex(hexKey, password)
					if err != nil {
						return err
					}
					printKey(env.stdout, acct.Address, acct.URL.Path)
					return nil
				},
			},
			{
				Name:  "list",
				Usage: "list the keys in the keystore with their mirror hotkeys",
				Flags: []cli.Flag{keystoreDirFlag()},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					ks, _, err := env.openKeystore(cmd, false)
					if err != nil {
						return err
					}
					accts := ks.List()
					if len(accts) == 0 {
						fmt.Fprintf(env.stdout, "no keys in %s (create one with `arena keys new`)\n", ks.Dir())
						return nil
					}
					tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "ADDRESS\tHOTKEY (SS58, mirror)\tFILE")
					for _, a := range accts {
						fmt.Fprintf(tw, "%s\t%s\t%s\n", a.Address, chain.Mirror(a.Address).SS58(), a.URL.Path)
					}
					return tw.Flush()
				},
			},
			{
				Name:  "unlock",
				Usage: "check that the password unlocks the configured key (what the daemon will do at start)",
				Flags: []cli.Flag{keystoreDirFlag(), keyAddressFlag(), passwordFileFlag()},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					ks, password, err := env.openKeystore(cmd, true)
					if err != nil {
						return err
					}
					cfg, _, err := env.load(cmd, keystoreFlags)
					if err != nil {
						return err
					}
					signer, err := ks.Unlock(cfg.Keystore.Address, password)
					if err != nil {
						return err
					}
					fmt.Fprintf(env.stdout, "unlocked %s (hotkey %s)\n", signer.Address, signer.Hotkey().SS58())
					return nil
				},
			},
			{
				Name:      "show",
				Usage:     "print an address's mirror hotkey (hex and SS58); with no argument, the configured key",
				ArgsUsage: "[ADDRESS]",
				Flags:     []cli.Flag{keystoreDirFlag(), keyAddressFlag()},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					if arg := cmd.Args().First(); arg != "" {
						if !common.IsHexAddress(arg) {
							return fmt.Errorf("keys show: %q is not a 0x-hex address", arg)
						}
						printKey(env.stdout, common.HexToAddress(arg), "")
						return nil
					}
					ks, _, err := env.openKeystore(cmd, false)
					if err != nil {
						return err
					}
					cfg, _, err := env.load(cmd, keystoreFlags)
					if err != nil {
						return err
					}
					acct, err := ks.Find(cfg.Keystore.Address)
					if err != nil {
						return err
					}
					printKey(env.stdout, acct.Address, acct.URL.Path)
					return nil
				},
			},
		},
	}
}

// openKeystore loads the config and opens its keystore; with needPassword
// it also reads the password (file, then env).
func (e *cliEnv) openKeystore(cmd *cli.Command, needPassword bool) (*chain.Keystore, string, error) {
	cfg, _, err := e.load(cmd, keystoreFlags)
	if err != nil {
		return nil, "", err
	}
	strength := chain.ScryptStandard
	if cmd.Bool("light-kdf") {
		strength = chain.ScryptLight
	}
	ks, err := chain.OpenKeystore(cfg.Keystore.Dir, strength)
	if err != nil {
		return nil, "", err
	}
	if !needPassword {
		return ks, "", nil
	}
	password, err := keystorePassword(cfg)
	return ks, password, err
}

func keystorePassword(cfg *config.Config) (string, error) {
	return chain.ReadPassword(cfg.Keystore.PasswordFile, cfg.Keystore.Password.Reveal())
}

func printKey(w io.Writer, addr common.Address, file string) {
	mirror := chain.Mirror(addr)
	fmt.Fprintf(w, "address:       %s\n", addr)
	fmt.Fprintf(w, "hotkey (ss58): %s\n", mirror.SS58())
	fmt.Fprintf(w, "hotkey (hex):  %s\n", mirror.Hex())
	if file != "" {
		fmt.Fprintf(w, "file:          %s\n", file)
	}
}

// readSecretArg reads a secret from a file path or "-" (stdin), so it never
// appears in argv.
func readSecretArg(path string) (string, error) {
	var raw []byte
	var err error
	if path == "-" {
		raw, err = io.ReadAll(io.LimitReader(os.Stdin, 1<<16))
	} else {
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		return "", fmt.Errorf("read key: %w", err)
	}
	return strings.TrimSpace(string(raw)), nil
}
