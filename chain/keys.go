package chain

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"arena/internal/secretfile"
)

// Scrypt strengths for keystore encryption. Standard is go-ethereum's
// production default (≈1 s, 256 MiB per unlock); Light is for throwaway
// devnet and test keys only.
const (
	ScryptStandard = iota
	ScryptLight
)

// PasswordEnv is the environment variable a keystore password may come from.
const PasswordEnv = "ARENA_KEYSTORE_PASSWORD"

// Keystore is a directory of go-ethereum encrypted JSON key files (mode 0600).
type Keystore struct {
	dir string
	ks  *keystore.KeyStore
}

// OpenKeystore opens (creating with mode 0700 if needed) a keystore dir.
// A dir that grants group or world any access is refused; so are key and
// password files that do (see Unlock and ReadPassword).
func OpenKeystore(dir string, strength int) (*Keystore, error) {
	if dir == "" {
		return nil, errors.New("keystore: no directory given")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("keystore %s: %w", dir, err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("keystore %s: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("keystore %s: not a directory", dir)
	}
	if err := secretfile.CheckMode("keystore dir", dir, info.Mode(), 0o700); err != nil {
		return nil, err
	}
	n, p := keystore.StandardScryptN, keystore.StandardScryptP
	if strength == ScryptLight {
		n, p = keystore.LightScryptN, keystore.LightScryptP
	}
	return &Keystore{dir: dir, ks: keystore.NewKeyStore(dir, n, p)}, nil
}

// Dir is the keystore directory.
func (k *Keystore) Dir() string { return k.dir }

// New creates and stores a fresh key.
func (k *Keystore) New(password string) (accounts.Account, error) {
	if password == "" {
		return accounts.Account{}, errors.New("keystore: refusing an empty password")
	}
	acct, err := k.ks.NewAccount(password)
	if err != nil {
		return accounts.Account{}, fmt.Errorf("keystore %s: %w", k.dir, err)
	}
	return acct, nil
}

// ImportHex stores a raw secp256k1 private key given as hex.
func (k *Keystore) ImportHex(hexKey, password string) (accounts.Account, error) {
	key, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(hexKey), "0x"))
	if err != nil {
		return accounts.Account{}, fmt.Errorf("import: not a hex secp256k1 private key: %w", err)
	}
	return k.ImportKey(key, password)
}

// ImportKey stores key encrypted with password.
func (k *Keystore) ImportKey(key *ecdsa.PrivateKey, password string) (accounts.Account, error) {
	if password == "" {
		return accounts.Account{}, errors.New("keystore: refusing an empty password")
	}
	acct, err := k.ks.ImportECDSA(key, password)
	if errors.Is(err, keystore.ErrAccountAlreadyExists) {
		return acct, fmt.Errorf("import: %s is already in %s", crypto.PubkeyToAddress(key.PublicKey), k.dir)
	}
	if err != nil {
		return acct, fmt.Errorf("keystore %s: %w", k.dir, err)
	}
	return acct, nil
}

// List returns the stored accounts, sorted by URL.
func (k *Keystore) List() []accounts.Account { return k.ks.Accounts() }

// Find resolves addr, or the only key when addr is empty.
func (k *Keystore) Find(addr string) (accounts.Account, error) {
	all := k.List()
	if addr == "" {
		switch len(all) {
		case 0:
			return accounts.Account{}, fmt.Errorf("keystore %s holds no keys (create one with `arena keys new`)", k.dir)
		case 1:
			return all[0], nil
		default:
			return accounts.Account{}, fmt.Errorf("keystore %s holds %d keys: choose one with keystore.address", k.dir, len(all))
		}
	}
	if !common.IsHexAddress(addr) {
		return accounts.Account{}, fmt.Errorf("keystore: %q is not a 0x-hex address", addr)
	}
	acct, err := k.ks.Find(accounts.Account{Address: common.HexToAddress(addr)})
	if err != nil {
		return accounts.Account{}, fmt.Errorf("keystore %s: no key for %s", k.dir, addr)
	}
	return acct, nil
}

// Unlock decrypts the key for addr ("" = the only key). A key file that
// grants group or world any access is refused before it is read.
func (k *Keystore) Unlock(addr, password string) (*Signer, error) {
	acct, err := k.Find(addr)
	if err != nil {
		return nil, err
	}
	blob, err := secretfile.Read("keystore file", acct.URL.Path, 1<<20)
	if err != nil {
		return nil, err
	}
	key, err := keystore.DecryptKey(blob, password)
	if errors.Is(err, keystore.ErrDecrypt) {
		return nil, fmt.Errorf("keystore: wrong password for %s", acct.Address)
	}
	if err != nil {
		return nil, fmt.Errorf("keystore %s: %w", acct.URL.Path, err)
	}
	return NewSigner(key.PrivateKey), nil
}

// ReadPassword returns the keystore password from file (trailing newline
// trimmed; the file must grant group and world nothing) or, when file is
// empty, from envValue. Passwords are never taken
// from flags, which leak into shell history and `ps`.
func ReadPassword(file, envValue string) (string, error) {
	if file != "" {
		return secretfile.ReadLine("password file", file)
	}
	if envValue != "" {
		return envValue, nil
	}
	return "", fmt.Errorf("no keystore password: set keystore.password_file or %s", PasswordEnv)
}
