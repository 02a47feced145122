package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSimulateCommand runs the command form and checks the JSON
// fields others depend on, then the text report and bad flags.
func TestSimulateCommand(t *testing.T) {
	code, stdout, stderr := runCLI(t, nil, "simulate", "--validators", "8", "--leader-success", "0.50",
		"--challenger-success", "0.60", "--days", "1", "--runs", "40", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, stdout)
	}
	for _, k := range []string{"runs", "crowned_share", "all_agree_share", "checkpoints", "seed", "time_to_crown_hours", "best_incentive", "mean_vtrust"} {
		if _, ok := res[k]; !ok {
			t.Errorf("JSON has no %q: %s", k, stdout)
		}
	}
	if res["runs"] != float64(40) {
		t.Errorf("runs = %v, want 40", res["runs"])
	}
	if c, _ := res["crowned_share"].(float64); c < 0.9 || c > 1 {
		t.Errorf("crowned_share %v: a 10-point better challenger should be crowned by most validators in a day", c)
	}

	code, stdout, stderr = runCLI(t, nil, "simulate", "--validators", "3", "--miners", "5", "--no-incumbent",
		"--leader-success", "product=0.6,shop=0.4,voucher=0.5", "--days", "2", "--runs", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"5 runs × 3 validators, 5 miners", "judged scores", "day", "time to crown", "cost per validator", "the best miner's incentive"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}

	// Copies of the challenger: the earliest registered (uid 2) is the
	// intended winner, and validators lead with it, not with a copy.
	code, stdout, stderr = runCLI(t, nil, "simulate", "--validators", "4", "--leader-success", "0.5", "--challenger-success", "0.6",
		"--clones", "3", "--scores", "binary", "--types", "product:0.5,shop:0.5", "--days", "1", "--runs", "20", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	res = nil
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res["miners"] != float64(5) || res["best_uid"] != float64(2) {
		t.Errorf("miners %v best %v: want 5 miners (leader, challenger, 3 copies) and uid 2 the intended winner", res["miners"], res["best_uid"])
	}
	if bi, _ := res["best_incentive"].(float64); bi < 0.8 {
		t.Errorf("best_incentive %v: the copies split the incentive", bi)
	}

	bad := []struct {
		args []string
		want string
	}{
		{[]string{"--validators", "0"}, "validators 0"},
		{[]string{"--miners", "1"}, "--miners 1"},
		{[]string{"--leader-success", "fast"}, "--leader-success"},
		{[]string{"--challenger-success", "product=0.6"}, "no rate for type shop"},
		{[]string{"--field-success", "0.5"}, "--field-success"},
		{[]string{"--checkpoints", "x"}, "--checkpoints"},
		{[]string{"--correlation", "1.5"}, "correlation"},
		{[]string{"--confidence", "1"}, "race.confidence"},
		{[]string{"--days", "0"}, "days"},
		{[]string{"--miners", "3", "--clones", "2"}, "3 miners cannot hold a leader, a challenger and 2 copies"},
		{[]string{"--scores", "exact"}, `scores "exact"`},
		{[]string{"--quality", "0.5,0.5"}, "--quality"},
		{[]string{"--types", "product:0"}, "--types"},
		{[]string{"--void-share", "1"}, "void share"},
	}
	for _, tt := range bad {
		code, _, stderr := runCLI(t, nil, append([]string{"simulate", "--runs", "1"}, tt.args...)...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code == 0 || len(lines) != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("simulate %v: exit %d, stderr %q; want one line containing %q", tt.args, code, stderr, tt.want)
		}
	}
}
