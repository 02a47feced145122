package validator

import (
	"reflect"
	"testing"

	"arena/episode"
	"arena/scoring/race"
	"arena/validator/records"
)

// TestPlanRacers: who races in a window, from the rule's output and the
// miners on record.
func TestPlanRacers(t *testing.T) {
	miners := map[uint16]records.Miner{
		1: {UID: 1, Hotkey: "h1", Endpoint: "a:1"},
		2: {UID: 2, Hotkey: "h2", Endpoint: "a:2"},
		3: {UID: 3, Hotkey: "h3", Endpoint: "a:3"},
		4: {UID: 4, Hotkey: "h4"},
	}
	q := func(uid uint16) race.Qualifying { return race.Qualifying{UID: uid} }
	tests := []struct {
		name   string
		leader *race.Leader
		out    race.Output
		want   []records.Racer
	}{
		{"nobody qualified", nil, race.Output{}, nil},
		{"a leader alone does not race", &race.Leader{UID: 1, Hotkey: "h1"}, race.Output{}, nil},
		{"challengers without a leader", nil, race.Output{Qualifiers: []race.Qualifying{q(2), q(3)}},
			[]records.Racer{{UID: 2, Hotkey: "h2", Endpoint: "a:2"}, {UID: 3, Hotkey: "h3", Endpoint: "a:3"}}},
		{"the incumbent first, even without an axon", &race.Leader{UID: 4, Hotkey: "h4"}, race.Output{Qualifiers: []race.Qualifying{q(2)}},
			[]records.Racer{{UID: 4, Hotkey: "h4", Incumbent: true}, {UID: 2, Hotkey: "h2", Endpoint: "a:2"}}},
		{"a leader whose uid changed hands does not race", &race.Leader{UID: 1, Hotkey: "old"}, race.Output{Qualifiers: []race.Qualifying{q(2)}},
			[]records.Racer{{UID: 2, Hotkey: "h2", Endpoint: "a:2"}}},
		{"the reference races last", &race.Leader{UID: 1, Hotkey: "h1"}, race.Output{Qualifiers: []race.Qualifying{q(2)}, Reference: &race.Qualifying{UID: 3}},
			[]records.Racer{{UID: 1, Hotkey: "h1", Endpoint: "a:1", Incumbent: true}, {UID: 2, Hotkey: "h2", Endpoint: "a:2"}, {UID: 3, Hotkey: "h3", Endpoint: "a:3"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := planRacers(tt.leader, tt.out, miners); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("planRacers =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

// TestBuildHeat: every racer not voided gets a score on every problem in
// problem order, zero where its episode is missing.
func TestBuildHeat(t *testing.T) {
	ep := func(uid uint16, problem string) records.Episode {
		return records.Episode{Trajectory: episode.Trajectory{MinerUID: uid, ProblemID: problem}}
	}
	rc := records.Race{ID: 9, StartedBlock: 120, Problems: []string{"p1", "p2"},
		Racers: []records.Racer{{UID: 5, Hotkey: "h5"}, {UID: 2, Hotkey: "h2"}, {UID: 7, Hotkey: "h7"}}}
	tests := []struct {
		name        string
		eps         []records.Episode
		finals      []float64
		voided      map[uint16]bool
		wantRacers  []race.HeatRacer
		wantResults []race.RaceResult
	}{
		{"all present", []records.Episode{ep(5, "p2"), ep(5, "p1"), ep(2, "p1"), ep(2, "p2"), ep(7, "p1"), ep(7, "p2")},
			[]float64{0.5, 1, 0, 0.25, 1, 1}, nil,
			[]race.HeatRacer{{UID: 5, Hotkey: "h5", Scores: []float64{1, 0.5}}, {UID: 2, Hotkey: "h2", Scores: []float64{0, 0.25}}, {UID: 7, Hotkey: "h7", Scores: []float64{1, 1}}},
			[]race.RaceResult{{UID: 2, Score: 0.125}, {UID: 5, Score: 0.75}, {UID: 7, Score: 1}}},
		{"a missing episode scores zero", []records.Episode{ep(5, "p1"), ep(2, "p2")}, []float64{1, 0.5}, nil,
			[]race.HeatRacer{{UID: 5, Hotkey: "h5", Scores: []float64{1, 0}}, {UID: 2, Hotkey: "h2", Scores: []float64{0, 0.5}}, {UID: 7, Hotkey: "h7", Scores: []float64{0, 0}}},
			[]race.RaceResult{{UID: 2, Score: 0.25}, {UID: 5, Score: 0.5}, {UID: 7, Score: 0}}},
		{"a voided racer leaves the heat", []records.Episode{ep(5, "p1"), ep(2, "p1")}, []float64{1, 1}, map[uint16]bool{5: true},
			[]race.HeatRacer{{UID: 2, Hotkey: "h2", Scores: []float64{1, 0}}, {UID: 7, Hotkey: "h7", Scores: []float64{0, 0}}},
			[]race.RaceResult{{UID: 2, Score: 0.5}, {UID: 7, Score: 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jr := &judgedRace{rc: rc, eps: tt.eps}
			for i, f := range tt.finals {
				id := string(rune('a' + i))
				jr.ids = append(jr.ids, id)
				jr.vds = append(jr.vds, records.Verdict{EpisodeID: id, Final: f})
			}
			heat, results, finals := buildHeat(jr, tt.voided)
			if heat.Race != 9 || heat.Block != 120 || heat.Problems != 2 {
				t.Errorf("heat header = race %d block %d problems %d, want 9, 120, 2", heat.Race, heat.Block, heat.Problems)
			}
			if !reflect.DeepEqual(heat.Racers, tt.wantRacers) {
				t.Errorf("heat racers =\n %+v\nwant\n %+v", heat.Racers, tt.wantRacers)
			}
			if !reflect.DeepEqual(results, tt.wantResults) {
				t.Errorf("results = %+v, want %+v", results, tt.wantResults)
			}
			for i, id := range jr.ids {
				if finals[id] != tt.finals[i] {
					t.Errorf("finals[%s] = %v, want %v", id, finals[id], tt.finals[i])
				}
			}
		})
	}
}

// TestRelayVoided: a racer is void when any of its episodes saw the
// relay's provider fail.
func TestRelayVoided(t *testing.T) {
	ep := func(uid uint16, fault bool) records.Episode {
		return records.Episode{Trajectory: episode.Trajectory{MinerUID: uid, RelayFault: fault}}
	}
	tests := []struct {
		name string
		eps  []records.Episode
		want map[uint16]bool
	}{
		{"none", []records.Episode{ep(1, false), ep(2, false)}, map[uint16]bool{}},
		{"one episode of one racer", []records.Episode{ep(1, false), ep(1, true), ep(2, false)}, map[uint16]bool{1: true}},
		{"two racers", []records.Episode{ep(1, true), ep(2, true)}, map[uint16]bool{1: true, 2: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := relayVoided(tt.eps); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("relayVoided = %v, want %v", got, tt.want)
			}
		})
	}
}
