package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTwoValidatorsOneKey: two `arena run` processes with one key and two
// data dirs against the devnet. Once the second runs, at least one sees
// the other (its account's nonce or last_update moved without it) and
// stops setting weights with one error line; it exits 1 when the other
// keeps sending, or, when both stopped, after three weights windows.
func TestTwoValidatorsOneKey(t *testing.T) {
	if testing.Short() {
		t.Skip("starts validator processes")
	}
	a := startChainOnly(t)
	extra := "race: {floor: 0, ratio_start: 0, ratio_floor: 0}\n"
	var ps []*validatorProcess
	for i := range 2 {
		dir := t.TempDir()
		cfg := writeRunConfig(t, a, dir, filepath.Join(dir, "data"), extra)
		p := startValidator(t, cfg)
		if i == 0 {
			// The first has set weights; the second starts against a key
			// already in use (its own first transaction may well revert on
			// the rate limit the first tripped).
			p.waitFor(t, "weights set", 3*time.Minute, nil)
		}
		ps = append(ps, p)
	}
	type line struct {
		m    map[string]any
		exit error // set on the process's last message
		done bool
	}
	merged := make(chan line)
	for _, p := range ps {
		go func() {
			for m := range p.lines {
				merged <- line{m: m}
			}
			merged <- line{exit: <-p.done, done: true}
		}()
	}
	detected := false
	deadline := time.After(3 * time.Minute)
	for {
		select {
		case l := <-merged:
			if l.done {
				var ee *exec.ExitError
				if !errors.As(l.exit, &ee) || ee.ExitCode() != 1 || !detected {
					t.Fatalf("a validator exited with %v (the other signer detected: %v)", l.exit, detected)
				}
				return // one that saw the other signer stopped
			}
			msg, _ := l.m["message"].(string)
			if strings.HasPrefix(msg, "another process signs with this validator's key") {
				detected = true
				t.Logf("%v", l.m)
			}
		case <-deadline:
			t.Fatalf("no validator exited within 3 minutes (the other signer detected: %v)", detected)
		}
	}
}
