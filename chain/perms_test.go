package chain

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestSecretPermissions proves that keystore dirs, key files and password
// files granting any group or world access are refused with a message that
// names the file, its mode and the chmod that fixes it, and that 0600/0700
// are accepted.
func TestSecretPermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX mode bits")
	}
	// One key, created once (scrypt is the slow part), copied per case.
	src := filepath.Join(t.TempDir(), "src")
	ks, err := OpenKeystore(src, ScryptLight)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := ks.New("pw")
	if err != nil {
		t.Fatal(err)
	}
	blob, err := os.ReadFile(acct.URL.Path)
	if err != nil {
		t.Fatal(err)
	}
	keyName := filepath.Base(acct.URL.Path)

	tests := []struct {
		name              string
		dirMode, keyMode  os.FileMode
		pwMode            os.FileMode
		wantErr, wantPath string // wantPath: "dir", "key" or "pw"
		wantMode          string
	}{
		{name: "0600 ok", dirMode: 0o700, keyMode: 0o600, pwMode: 0o600},
		{name: "0400 ok", dirMode: 0o700, keyMode: 0o400, pwMode: 0o400},
		{name: "key 0640 refused", dirMode: 0o700, keyMode: 0o640, pwMode: 0o600, wantPath: "key", wantMode: "0640", wantErr: "group/world readable"},
		{name: "key 0604 refused", dirMode: 0o700, keyMode: 0o604, pwMode: 0o600, wantPath: "key", wantMode: "0604", wantErr: "group/world readable"},
		{name: "key 0644 refused", dirMode: 0o700, keyMode: 0o644, pwMode: 0o600, wantPath: "key", wantMode: "0644", wantErr: "group/world readable"},
		{name: "key 0620 refused", dirMode: 0o700, keyMode: 0o620, pwMode: 0o600, wantPath: "key", wantMode: "0620", wantErr: "group/world writable"},
		{name: "dir 0755 refused", dirMode: 0o755, keyMode: 0o600, pwMode: 0o600, wantPath: "dir", wantMode: "0755", wantErr: "group/world readable"},
		{name: "dir 0711 refused", dirMode: 0o711, keyMode: 0o600, pwMode: 0o600, wantPath: "dir", wantMode: "0711", wantErr: "group/world accessible"},
		{name: "password 0644 refused", dirMode: 0o700, keyMode: 0o600, pwMode: 0o644, wantPath: "pw", wantMode: "0644", wantErr: "group/world readable"},
		{name: "password 0660 refused", dirMode: 0o700, keyMode: 0o600, pwMode: 0o660, wantPath: "pw", wantMode: "0660", wantErr: "group/world readable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "keys")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			key := filepath.Join(dir, keyName)
			if err := os.WriteFile(key, blob, 0o600); err != nil {
				t.Fatal(err)
			}
			pw := filepath.Join(base, "password")
			if err := os.WriteFile(pw, []byte("pw\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			// Chmod explicitly: WriteFile/Mkdir modes are filtered by umask.
			for path, mode := range map[string]os.FileMode{dir: tt.dirMode, key: tt.keyMode, pw: tt.pwMode} {
				if err := os.Chmod(path, mode); err != nil {
					t.Fatal(err)
				}
			}
			t.Cleanup(func() { os.Chmod(dir, 0o700) })

			err := func() error {
				password, err := ReadPassword(pw, "")
				if err != nil {
					return err
				}
				ks, err := OpenKeystore(dir, ScryptLight)
				if err != nil {
					return err
				}
				_, err = ks.Unlock("", password)
				return err
			}()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted; want refusal")
			}
			path, kind, chmod := dir, "keystore dir", "chmod 700 "
			switch tt.wantPath {
			case "key":
				path, kind, chmod = key, "keystore file", "chmod 600 "
			case "pw":
				path, kind, chmod = pw, "password file", "chmod 600 "
			}
			for _, want := range []string{kind + " " + path, "permissions " + tt.wantMode + " are too open", tt.wantErr, chmod + path} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

// TestSecretPermissionsEnvPassword: a password from the environment needs no
// file, so no mode check stands in its way; the key file check still applies.
func TestSecretPermissionsEnvPassword(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX mode bits")
	}
	dir := filepath.Join(t.TempDir(), "keys")
	ks, err := OpenKeystore(dir, ScryptLight)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := ks.New("envpw")
	if err != nil {
		t.Fatal(err)
	}
	pw, err := ReadPassword("", "envpw")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ks.Unlock("", pw); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(acct.URL.Path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ks.Unlock("", pw); err == nil || !strings.Contains(err.Error(), "too open") {
		t.Fatalf("0644 key unlocked: %v", err)
	}
}

// TestKeystoreDirNotADir: a keystore path that is a regular file is refused.
func TestKeystoreDirNotADir(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenKeystore(f, ScryptLight); err == nil {
		t.Fatal("a regular file accepted as keystore dir")
	}
}
