package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// walkthrough returns the commands of a docs block marked
// <!-- walkthrough:NAME --> ... <!-- /walkthrough:NAME -->, one per line.
func walkthrough(t *testing.T, doc, name string) [][]string {
	t.Helper()
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds [][]string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "<!-- walkthrough:"+name+" -->":
			in = true
		case line == "<!-- /walkthrough:"+name+" -->":
			return cmds
		case !in || line == "" || strings.HasPrefix(line, "```"):
		case strings.ContainsAny(line, `"'$\|;&<>`+"`"):
			t.Fatalf("%s: %q: the walkthrough's commands must be plain words, without shell syntax", doc, line)
		default:
			args := strings.Fields(line)
			if args[0] != "arena" {
				t.Fatalf("%s: %q is not an arena command", doc, line)
			}
			cmds = append(cmds, args[1:])
		}
	}
	t.Fatalf("%s: no complete walkthrough:%s block", doc, name)
	return nil
}

// TestDevnetWalkthrough runs docs/operations.md's devnet walkthrough as
// written, each command a separate process in a fresh directory holding
// only scripts/devnet-validator.yaml: the devnet, two miners, their
// serve-axon transactions, `arena run`, then `arena status` until both
// miners have raced, a race is decided and weights have landed. It uses
// the walkthrough's fixed ports (9944, 9100, 8091, 8092).
func TestDevnetWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a devnet, two miners and a validator for about a minute")
	}
	cmds := walkthrough(t, filepath.Join("..", "..", "docs", "operations.md"), "devnet")
	dir := t.TempDir()
	cfg, err := os.ReadFile(filepath.Join("..", "..", "scripts", "devnet-validator.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scripts", "devnet-validator.yaml"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}

	var status []string
	var procs []*validatorProcess // the long-running commands
	for _, args := range cmds {
		switch {
		case slices.Contains(args, "devnet"):
			p := startArena(t, dir, args...)
			procs = append(procs, p)
			p.waitLine(t, "devnet ready", time.Minute, func(m map[string]any) bool {
				s, _ := m["message"].(string)
				return strings.HasPrefix(s, "devnet ready")
			})
		case slices.Contains(args, "miner") && !slices.Contains(args, "serve-axon"):
			p := startArena(t, dir, args...)
			procs = append(procs, p)
			p.waitFor(t, "miner serving", time.Minute, nil)
		case slices.Contains(args, "run"):
			procs = append(procs, startArena(t, dir, args...))
		case slices.Contains(args, "status"):
			status = args
		default:
			cmd := exec.Command(os.Args[0], args...)
			cmd.Dir, cmd.Env = dir, append(os.Environ(), childEnv+"=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("arena %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	}
	if status == nil {
		t.Fatal("the walkthrough never runs arena status")
	}

	var last []byte
	deadline := time.Now().Add(3 * time.Minute)
	for {
		for _, p := range procs {
			select {
			case err := <-p.done:
				t.Fatalf("arena %s exited: %v", strings.Join(p.cmd.Args[1:], " "), err)
			default:
			}
		}
		cmd := exec.Command(os.Args[0], append(slices.Clone(status), "--json")...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), childEnv+"=1")
		out, err := cmd.Output()
		if err == nil {
			last = out
			var st struct {
				Races    uint64 `json:"races"`
				LastRace *struct {
					Phase  string `json:"phase"`
					Racers []struct {
						UID uint16 `json:"uid"`
					} `json:"racers"`
				} `json:"last_race"`
				LastWeights *struct {
					Block uint64 `json:"block"`
				} `json:"last_weights"`
			}
			if err := json.Unmarshal(out, &st); err != nil {
				t.Fatalf("arena status --json: %v\n%s", err, out)
			}
			if st.LastRace != nil && st.LastRace.Phase == "done" && len(st.LastRace.Racers) == 2 && st.LastWeights != nil {
				t.Logf("after %d race(s): last race done with uids %v; weights %+v", st.Races, st.LastRace.Racers, *st.LastWeights)
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no decided race with both miners and weights within 3 minutes; last status:\n%s", last)
		}
		time.Sleep(2 * time.Second) // polling a separate process's API; nothing to wait on
	}
	// The human-readable status, as the walkthrough runs it.
	cmd := exec.Command(os.Args[0], status...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "qualif") {
		t.Fatalf("arena %s: %v\n%s", strings.Join(status, " "), err, out)
	}
}
