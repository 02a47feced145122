package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadConfig runs Load on an arbitrary config file and ARENA_* environment
// (one KEY=VALUE per line of env), with both secrets (keystore.password and
// llm.api_key) set from the environment. Seeds live in testdata/fuzz/FuzzLoadConfig;
// scripts/fuzz.sh runs the target for a while.
//
// Invariants: no panic; Load returns exactly one of a config and an error;
// Validate on a loaded config gives the same answer every time; and no
// secret value reaches any error or printed form. The last is checked
// differentially: the whole run is repeated with other secret values, and
// every error text, String, GoString, JSON and YAML rendering must come out
// byte for byte the same.
func FuzzLoadConfig(f *testing.F) {
	f.Add("chain:\n  url: ws://127.0.0.1:9944\n", "ARENA_DATA_DIR=/tmp/x", "hunter2")
	f.Fuzz(func(t *testing.T, file, env, secret string) {
		path := filepath.Join(t.TempDir(), "arena.yaml")
		if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
		var environ []string
		if env != "" {
			environ = strings.Split(env, "\n")
		}
		run := func(secret string) []string {
			envs := append(environ[:len(environ):len(environ)],
				"ARENA_KEYSTORE_PASSWORD="+secret, "ARENA_LLM_API_KEY="+secret, "ARENA_SUITE_PARAPHRASE_API_KEY="+secret)
			cfg, err := Load(LoadOptions{Path: path, Environ: envs})
			if (cfg == nil) == (err == nil) {
				t.Fatalf("Load returned config %v and error %v", cfg != nil, err)
			}
			if err != nil {
				msg := err.Error()
				if strings.TrimSpace(msg) == "" {
					t.Fatal("Load failed with an empty error")
				}
				return []string{"error", msg}
			}
			verr := cfg.Validate()
			again := cfg.Validate()
			if (verr == nil) != (again == nil) || (verr != nil && verr.Error() != again.Error()) {
				t.Fatalf("Validate is not deterministic:\n%v\n%v", verr, again)
			}
			out := []string{"ok", cfg.String(), cfg.GoString()}
			if verr != nil {
				out = append(out, verr.Error())
			}
			j, err := cfg.MarshalJSON()
			if err != nil {
				t.Fatalf("MarshalJSON: %v", err)
			}
			y, err := cfg.MarshalYAMLText()
			if err != nil {
				t.Fatalf("MarshalYAMLText: %v", err)
			}
			return append(out, string(j), string(y))
		}
		s1 := "sekrit:" + secret
		s2 := strings.Repeat("#", len(s1))
		a, b := run(s1), run(s2)
		for i := range max(len(a), len(b)) {
			if i >= len(a) || i >= len(b) || a[i] != b[i] {
				t.Fatalf("output depends on the secret's value (part %d):\n%q\n%q", i, a, b)
			}
		}
		// Equal outputs also mean s1 appears only where the inputs spell it:
		// the second run never had it.
	})
}
