package minercheck

import (
	"testing"

	"arena/episode"
)

// TestCharge: the frame that ended an episode or a connection is charged
// to the clause it breaks.
func TestCharge(t *testing.T) {
	tests := []struct {
		name  string
		cause episode.WireCause
		want  Clause
	}{
		{"no frame: the reason's own clause", episode.WireCause{}, ""},
		{"a bad tool call", episode.WireCause{Frame: &episode.DecodeError{Type: episode.TypeStep, Field: "tool_calls[0].parameters"}}, ToolCalls},
		{"a bad step field", episode.WireCause{Frame: &episode.DecodeError{Type: episode.TypeStep, Field: "think"}}, ""},
		{"a bad infer", episode.WireCause{Frame: &episode.DecodeError{Type: episode.TypeInfer, Field: "body"}}, Infer},
		{"an infer on version 1", episode.WireCause{Type: episode.TypeInfer}, Infer},
		{"a validator's message", episode.WireCause{Type: episode.TypeEpisodeEnd}, Messages},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := charge(tt.cause); got != tt.want {
				t.Errorf("charge = %q, want %q", got, tt.want)
			}
		})
	}
}
