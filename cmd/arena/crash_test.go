package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/config"
	"arena/devarena"
	"arena/episode"
	"arena/internal/testseed"
	"arena/store"
	"arena/suite"
	"arena/validator"
	"arena/validator/records"
)

// childEnv makes the test binary act as the arena binary (see TestMain).
// It must not start with ARENA_: config rejects unknown ARENA_ variables.
const childEnv = "ARENATEST_RUN_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(runProcess(append([]string{"arena"}, os.Args[1:]...), os.Stdout, os.Stderr, os.Environ(), os.Exit))
	}
	os.Exit(m.Run())
}

// slowAgent delays each step so a race is reliably mid-episode when the
// validator is killed.
type slowAgent struct {
	inner episode.Agent
	delay time.Duration
}

func (s slowAgent) Step(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return episode.Action{}, ctx.Err()
	}
	return s.inner.Step(ctx, v)
}

// validatorProcess is an arena command (`arena run` here) as a real
// child process, its output lines (JSON log lines decoded, others as
// {"message": line, "raw": true}) delivered on lines.
type validatorProcess struct {
	cmd   *exec.Cmd
	lines chan map[string]any
	done  chan error
}

func startValidator(t *testing.T, configPath string) *validatorProcess {
	t.Helper()
	return startArena(t, "", "--config", configPath, "run")
}

// startArena runs `arena args...` in dir as a child process (this test
// binary in CLI mode), stdout and stderr read as lines. It is killed when
// the test ends.
func startArena(t *testing.T, dir string, args ...string) *validatorProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), childEnv+"=1")
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &validatorProcess{cmd: cmd, lines: make(chan map[string]any, 4096), done: make(chan error, 1)}
	go func() {
		err := cmd.Wait()
		pw.Close()
		p.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				m = map[string]any{"message": sc.Text(), "raw": true}
			}
			select {
			case p.lines <- m:
			default:
			}
		}
		_, _ = io.Copy(io.Discard, pr)
		close(p.lines)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		for range p.lines {
		}
	})
	return p
}

// waitFor returns the first log line with message msg that match accepts.
func (p *validatorProcess) waitFor(t *testing.T, msg string, timeout time.Duration, match func(map[string]any) bool) map[string]any {
	t.Helper()
	return p.waitLine(t, fmt.Sprintf("%q", msg), timeout, func(m map[string]any) bool {
		return m["message"] == msg && (match == nil || match(m))
	})
}

// waitLine returns the first line match accepts (what describes it in
// the failure).
func (p *validatorProcess) waitLine(t *testing.T, what string, timeout time.Duration, match func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				t.Fatalf("%v exited while waiting for %s: %v", p.cmd.Args[1:], what, <-p.done)
			}
			if lvl, _ := m["level"].(string); lvl == "error" || lvl == "warn" || m["raw"] == true {
				t.Logf("%s %s: %v", p.cmd.Args[len(p.cmd.Args)-1], lvl, m)
			}
			if match(m) {
				return m
			}
		case <-deadline:
			t.Fatalf("no %s line from %v within %v", what, p.cmd.Args[1:], timeout)
		}
	}
}

func (p *validatorProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for range p.lines {
	}
	<-p.done
}

func num(m map[string]any, key string) uint64 {
	f, _ := m[key].(float64)
	return uint64(f)
}

// TestCrashRestart kills a real `arena run` process with SIGKILL at four
// chosen points — mid-race with episodes in flight, after a race is decided
// but before its weights, after a weights commit before its reveal, with a
// commit broadcast but its receipt not recorded — then once the restart has
// settled that commit, and six times at random points (seeded: replay with
// ARENATEST_SEED), restarting it on the same data dir each time. After each
// chosen kill a copy of the data dir shows the state the kill left; a kill
// that landed past its state is retried, and the test fails if it never
// lands. Afterwards: the interrupted race was aborted and re-run on fresh
// problems, no episode is stored twice, each weights window has one
// submission, the pending reveal was revealed, the commit in flight was
// settled, commits and reveals on chain match the records one for one, a
// SIGTERM exits 0, and `arena store check` is clean.
func TestCrashRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts validator processes")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base := config.Default()
	// Epochs of 20 s (tempo 200 at 100 ms blocks): a commit's reveal epoch
	// must outlast a kill, a look at the data dir and a restart.
	a, err := devarena.Start(ctx, devarena.Options{Config: base, Miners: 3, BlockTime: 100 * time.Millisecond, CommitReveal: true,
		Tempo: 200, ChainOnly: true, WrapAgent: func(ag episode.Agent) episode.Agent { return slowAgent{ag, 40 * time.Millisecond} }}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	runDone := make(chan error, 1)
	go func() { runDone <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-runDone
		a.Close()
	})

	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	// Every miner qualifies, so every window races whatever the leader's
	// score: the last start below must see a race decided.
	cfgPath := writeRunConfig(t, a, dir, data, "race: {floor: 0, ratio_start: 0, ratio_floor: 0}\n")
	val := a.Devnet.ByRole("validator")[0]

	// 1. Mid-race: episodes in flight.
	var firstRace uint64
	crashAt(t, "mid-race, episodes in flight", func(int) (bool, string) {
		p := startValidator(t, cfgPath)
		firstRace = num(p.waitFor(t, "race started", 3*time.Minute, nil), "race")
		p.kill(t)
		var (
			rc  records.Race
			eps []string
		)
		killedState(t, data, func(rec *records.Records, txn *badger.Txn) (err error) {
			if rc, _, err = rec.GetRace(txn, firstRace); err != nil {
				return err
			}
			eps, err = rec.RaceEpisodes(txn, firstRace)
			return err
		})
		return rc.Phase == records.PhaseRunning, fmt.Sprintf("race %d %s, %d of %d episodes stored", firstRace, rc.Phase, len(eps), len(rc.Racers)*len(rc.Problems))
	})

	// 2. Race decided, weights not yet sent since.
	var decided, decidedAt uint64
	crashAt(t, "race decided, weights not sent since", func(attempt int) (bool, string) {
		p := startValidator(t, cfgPath)
		if attempt == 1 {
			p.waitFor(t, "race interrupted mid-episodes: aborted; a new race will be drawn", time.Minute, nil)
		}
		decided = num(p.waitFor(t, "race done", 3*time.Minute, nil), "race")
		p.kill(t)
		if decided == firstRace {
			t.Fatalf("race %d finished after being interrupted mid-episodes; it should have been aborted", decided)
		}
		var (
			rc   records.Race
			subs []records.Submission
		)
		killedState(t, data, func(rec *records.Records, txn *badger.Txn) (err error) {
			if rc, _, err = rec.GetRace(txn, decided); err != nil {
				return err
			}
			subs, err = rec.ListSubmissions(txn)
			return err
		})
		decidedAt = rc.FinishedBlock
		sent := slices.ContainsFunc(subs, func(s records.Submission) bool { return s.CreatedBlock >= decidedAt })
		return rc.Phase == records.PhaseDone && !sent, fmt.Sprintf("race %d %s at block %d, weights sent since: %v", decided, rc.Phase, decidedAt, sent)
	})

	// 3. Weights committed after that race, reveal pending. (The weights
	// follow the race state's ranking, which a race may leave as it was.)
	var window uint64
	crashAt(t, "weights committed, reveal pending", func(int) (bool, string) {
		p := startValidator(t, cfgPath)
		api, _ := p.waitFor(t, "operator endpoints: /api/v1", time.Minute, nil)["listen"].(string)
		committed := p.waitFor(t, "weights committed", 2*time.Minute, func(m map[string]any) bool { return num(m, "block") > decidedAt })
		window = num(committed, "window")
		// The line comes just before the commit is recorded: the kill
		// waits until the operator API shows the record.
		waitLastWeights(t, api, window, records.StatusCommitted)
		p.kill(t)
		var sub records.Submission
		killedState(t, data, func(rec *records.Records, txn *badger.Txn) (err error) {
			sub, _, err = rec.GetSubmission(txn, 0, window)
			return err
		})
		return sub.Status == records.StatusCommitted && sub.Block > 0 && sub.RevealBlock == 0,
			fmt.Sprintf("window %d %s (commit block %d, reveal block %d)", window, sub.Status, sub.Block, sub.RevealBlock)
	})

	// The pending reveal is revealed after the restart.
	p := startValidator(t, cfgPath)
	p.waitFor(t, "weights revealed", 2*time.Minute, func(m map[string]any) bool { return num(m, "window") == window })

	// 4. A commit broadcast, its receipt not yet recorded: the restart
	// settles it from the stored signed transaction, without a second
	// commit (counted on chain below).
	var inFlight string
	crashAt(t, "commit broadcast, receipt not recorded", func(attempt int) (bool, string) {
		if attempt > 1 {
			p = startValidator(t, cfgPath)
		}
		sent := p.waitFor(t, "transaction sent", 2*time.Minute, func(m map[string]any) bool { return m["op"] == "commitWeights" })
		p.kill(t)
		inFlight, _ = sent["tx"].(string)
		var sub *records.Submission
		killedState(t, data, func(rec *records.Records, txn *badger.Txn) error {
			subs, err := rec.ListSubmissions(txn)
			for i := range subs {
				if subs[i].TxHash == inFlight {
					sub = &subs[i]
				}
			}
			return err
		})
		if sub == nil {
			return false, fmt.Sprintf("no submission holds tx %s", inFlight)
		}
		return sub.Status == records.StatusPending && sub.RawTx != "",
			fmt.Sprintf("window %d %s with tx %s (signed transaction kept: %v)", sub.Window, sub.Status, inFlight, sub.RawTx != "")
	})
	p = startValidator(t, cfgPath)
	settled := p.waitFor(t, "pending weights transaction settled from the chain", 2*time.Minute, func(m map[string]any) bool { return m["tx"] == inFlight })
	// The settled commit is revealed before the random kills below, which
	// could otherwise keep the validator down through its reveal epoch: a
	// reveal missed while the validator is not running is not what this
	// part tests.
	p.waitFor(t, "weights revealed", 2*time.Minute, func(m map[string]any) bool { return m["window"] == settled["window"] })
	p.kill(t)
	t.Logf("the restart settled commit %s from the chain and revealed it; killed again", inFlight)

	// Six more kills at random points across qualifying, races, judging
	// and weights: 0.2–4 s after the validator is ready.
	r := rand.New(rand.NewPCG(testSeed(t), 3))
	for i := 0; i < 6; i++ {
		p = startValidator(t, cfgPath)
		p.waitFor(t, "first sync done; ready", time.Minute, nil)
		wait := time.Duration(200+r.IntN(3800)) * time.Millisecond
		timer := time.NewTimer(wait)
	drain:
		for {
			select {
			case m, ok := <-p.lines:
				if !ok {
					t.Fatalf("validator exited on its own: %v", <-p.done)
				}
				if m["message"] == "pending weights transaction settled from the chain" {
					t.Logf("restart %d: window %v settled from the chain (tx %v)", i+1, m["window"], m["tx"])
				}
			case <-timer.C:
				break drain
			}
		}
		p.kill(t)
		t.Logf("random kill %d after %v", i+1, wait)
	}

	// A last start makes progress, then stops gracefully.
	p = startValidator(t, cfgPath)
	p.waitFor(t, "race done", 3*time.Minute, nil)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for range p.lines {
	}
	if err := <-p.done; err != nil {
		t.Fatalf("SIGTERM: validator exited with %v, want 0", err)
	}

	code, stdout, stderr := runCLI(t, nil, "store", "check", "--data", data)
	if code != 0 {
		t.Fatalf("store check: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Log(strings.TrimSpace(stdout))

	st, err := store.Open(store.Options{Dir: data, ReadOnly: true}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := records.New()
	ledger, err := suite.NewLedger(suite.LedgerOptions{Store: st}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	revealedSubs, committedSubs := 0, 0
	err = st.View(func(txn *badger.Txn) error {
		// Each raced cluster was exposed exactly once, at its race's start.
		races, err := rec.ListRaces(txn, 0)
		if err != nil {
			return err
		}
		for _, rc := range races {
			for _, cid := range rc.Clusters {
				c, ok, err := ledger.ClusterRecord(cid)
				if err != nil || !ok {
					t.Fatalf("cluster %s: ok=%v err=%v", cid, ok, err)
				}
				if len(c.Exposures) != 1 || c.Exposures[0].Block != rc.StartedBlock {
					t.Errorf("race %d cluster %s: exposures %+v, want one at block %d", rc.ID, cid, c.Exposures, rc.StartedBlock)
				}
			}
		}
		t.Logf("%d races after the kills", len(races))
		first, ok, err := rec.GetRace(txn, firstRace)
		if err != nil || !ok {
			t.Fatalf("race %d: ok=%v err=%v", firstRace, ok, err)
		}
		if first.Phase != records.PhaseAborted {
			t.Errorf("race %d is %s, want aborted", firstRace, first.Phase)
		}
		subs, err := rec.ListSubmissions(txn)
		if err != nil {
			return err
		}
		seen := map[uint64]bool{}
		revealed := false
		for _, s := range subs {
			if seen[s.Window] {
				t.Errorf("window %d submitted twice", s.Window)
			}
			seen[s.Window] = true
			if s.Status == records.StatusPending {
				t.Errorf("window %d still pending", s.Window)
			}
			if s.Window == window && s.Status == records.StatusRevealed {
				revealed = true
			}
			if s.Status == records.StatusRevealed {
				revealedSubs++
			}
			if s.Op == "commit" && s.Block > 0 {
				committedSubs++
			}
			if s.TxHash == inFlight && (s.Block == 0 || s.Status == records.StatusFailed) {
				t.Errorf("window %d: the commit in flight at the kill (%s) was not settled: %+v", s.Window, inFlight, s)
			}
		}
		if !revealed {
			t.Errorf("window %d was not revealed: %+v", window, subs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Weights were set once per revealed window: one WeightsRevealed event
	// on chain from our uid for each submission recorded as revealed.
	got, err := a.Devnet.Weights(ctx, val.UID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatal("no weights on chain after the reveal")
	}
	events, err := a.Devnet.WeightEvents(ctx, val.UID)
	if err != nil {
		t.Fatal(err)
	}
	if events.Revealed != revealedSubs {
		t.Errorf("%d reveals on chain from uid %d, %d submissions recorded as revealed", events.Revealed, val.UID, revealedSubs)
	}
	// Each commit on chain is one recorded submission: none was sent
	// twice across the kills, none was lost.
	if events.Committed != committedSubs {
		t.Errorf("%d commits on chain from uid %d, %d submissions recorded as committed", events.Committed, val.UID, committedSubs)
	}
}

// crashAt runs one chosen crash scenario: try starts (or keeps) the
// validator, kills it at the scenario's trigger and reports from the data
// dir whether the kill landed in the scenario's state, and what it found
// there. The trigger is a log line, so the process may move on before the
// kill arrives; such an attempt is retried, three at most, and the test
// fails if none lands.
func crashAt(t *testing.T, scenario string, try func(attempt int) (landed bool, found string)) {
	t.Helper()
	const attempts = 3
	for attempt := 1; ; attempt++ {
		landed, found := try(attempt)
		if landed {
			t.Logf("killed %s: %s", scenario, found)
			return
		}
		if attempt == attempts {
			t.Fatalf("%d kills meant for %q all missed it; the last found %s", attempts, scenario, found)
		}
		t.Logf("kill meant for %q missed it (%s); trying again", scenario, found)
	}
}

// waitLastWeights waits until the validator's operator API at addr shows
// the submission for window with status want as its last weights.
func waitLastWeights(t *testing.T, addr string, window uint64, want records.SubmissionStatus) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	var last *records.Submission
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err := client.Get("http://" + addr + "/api/v1/status")
		if err != nil {
			t.Fatal(err)
		}
		var st validator.Status
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("status from %s: %v", addr, err)
		}
		if last = st.LastWeights; last != nil && last.Window == window && last.Status == want {
			return
		}
	}
	t.Fatalf("the operator API did not show window %d %s within 30 s; last weights %+v", window, want, last)
}

// killedState shows fn the data dir as a kill left it, through a copy: the
// copy is recovered and read, the original is left for the next start to
// recover by itself.
func killedState(t *testing.T, data string, fn func(rec *records.Records, txn *badger.Txn) error) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	// Badger's files are sparse; cp keeps them so.
	if out, err := exec.Command("cp", "-r", "--sparse=always", data, dir).CombinedOutput(); err != nil {
		t.Fatalf("copy the data dir: %v: %s", err, out)
	}
	st, err := store.Open(store.Options{Dir: dir}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := records.New()
	if err := st.View(func(txn *badger.Txn) error { return fn(rec, txn) }); err != nil {
		t.Fatal(err)
	}
}

// testSeed is the seed of a random test (testseed.Seed: ARENATEST_SEED
// replays one).
func testSeed(t *testing.T) uint64 {
	t.Helper()
	return testseed.Seed(t)
}

// writeRunConfig writes dir/arena.yaml for an `arena run` child validating
// on the dev arena a (started with ChainOnly): its keys in dir/keys, its data
// in data, listeners on free ports, the arena's timings, and small
// free-space limits (the disk-fault tests set their own in extra). extra
// YAML is appended; a key there must not repeat one above.
func writeRunConfig(t *testing.T, a *devarena.Arena, dir, data, extra string) string {
	t.Helper()
	keys := filepath.Join(dir, "keys")
	if _, err := writeDevKeys(keys, a.Devnet); err != nil {
		t.Fatal(err)
	}
	val := a.Devnet.ByRole("validator")[0]
	cfg := a.Config
	cfgPath := filepath.Join(dir, "arena.yaml")
	yaml := fmt.Sprintf(`data_dir: %q
log: {level: info, format: json}
chain: {url: %q, chain_id: %d, netuid: %d, tempo: %d}
keystore: {dir: %q, address: %q, password_file: %q}
metrics: {listen: "127.0.0.1:0"}
api: {listen: "127.0.0.1:0"}
validator: {sync_every_blocks: %d, race_every_blocks: %d, weights_every_blocks: %d, qualifying_problems: %d,
  race_problems: %d, public_problems: %d, hidden_min_clusters: %d, allow_private_axons: true}
catalog: {products: %d}
episode: {step_timeout: 10s, episode_timeout: 60s}
`, data, cfg.Chain.URL, cfg.Chain.ChainID, cfg.Chain.Netuid, cfg.Chain.Tempo, keys, val.Address.Hex(), filepath.Join(keys, "password"),
		cfg.Validator.SyncEveryBlocks, cfg.Validator.RaceEveryBlocks, cfg.Validator.WeightsEveryBlocks, cfg.Validator.QualifyingProblems,
		cfg.Validator.RaceProblems, cfg.Validator.PublicProblems, cfg.Validator.HiddenMinClusters, cfg.Catalog.Products)
	if !strings.Contains(extra, "store:") {
		yaml += "store: {min_free_soft: 256MiB, min_free_soft_percent: 0, min_free_hard: 64MiB, min_free_hard_percent: 0, reserve: 32MiB}\n"
	}
	if err := os.WriteFile(cfgPath, []byte(yaml+extra), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfgPath
}
