package chain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeystore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	ks, err := OpenKeystore(dir, ScryptLight)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("keystore dir mode %v, %v; want 0700", info.Mode().Perm(), err)
	}
	if _, err := ks.Find(""); err == nil || !strings.Contains(err.Error(), "holds no keys") {
		t.Fatalf("empty keystore Find: %v", err)
	}
	created, err := ks.New("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	imported, err := ks.ImportHex("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318", "battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if want := "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"; imported.Address.Hex() != want {
		t.Fatalf("imported address %s, want %s", imported.Address.Hex(), want)
	}
	for _, acct := range []string{created.URL.Path, imported.URL.Path} {
		info, err := os.Stat(acct)
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("key file %s mode %v, %v; want 0600", acct, info.Mode().Perm(), err)
		}
	}
	tests := []struct {
		name, addr, password, wantErr string
	}{
		{"unlock created", created.Address.Hex(), "correct horse", ""},
		{"unlock imported", imported.Address.Hex(), "battery staple", ""},
		{"wrong password", created.Address.Hex(), "tr0ub4dor", "wrong password"},
		{"unknown address", "0x000000000000000000000000000000000000dead", "x", "no key for"},
		{"ambiguous", "", "x", "holds 2 keys"},
		{"not an address", "bob", "x", "not a 0x-hex address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ks.Unlock(tt.addr, tt.password)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), tt.password) && tt.password != "x" {
					t.Fatalf("error leaks the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Address.Hex() != tt.addr || s.Hotkey() != Mirror(s.Address) {
				t.Fatalf("signer %s, want %s", s.Address.Hex(), tt.addr)
			}
		})
	}
	if _, err := ks.ImportHex("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318", "again"); err == nil {
		t.Fatal("importing the same key twice succeeded")
	}
	if _, err := ks.ImportHex("zz", "p"); err == nil {
		t.Fatal("garbage key imported")
	}
	if _, err := ks.New(""); err == nil {
		t.Fatal("empty password accepted")
	}
}

func TestReadPassword(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pw")
	if err := os.WriteFile(file, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, env, want, wantErr string
	}{
		{"file wins", file, "fromenv", "s3cret", ""},
		{"env", "", "fromenv", "fromenv", ""},
		{"neither", "", "", "", "no keystore password"},
		{"missing file", filepath.Join(dir, "nope"), "", "", "password file"},
		{"empty file", empty, "", "", "is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadPassword(tt.file, tt.env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
