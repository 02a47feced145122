package logx

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		wantErr  string
		wantJSON bool
		logged   bool
	}{
		{name: "defaults to json info off a tty", opts: Options{}, wantJSON: true, logged: true},
		{name: "explicit json", opts: Options{Level: "debug", Format: "json"}, wantJSON: true, logged: true},
		{name: "console", opts: Options{Format: "console"}, logged: true},
		{name: "level filters", opts: Options{Level: "error", Format: "json"}, logged: false},
		{name: "bad level", opts: Options{Level: "loud"}, wantErr: "log level \"loud\""},
		{name: "bad format", opts: Options{Format: "xml"}, wantErr: "log format \"xml\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			log, err := New(&buf, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			log.Info().Str("component", "test").Msg("hello")
			if got := buf.Len() > 0; got != tt.logged {
				t.Fatalf("logged = %v, want %v (%q)", got, tt.logged, buf.String())
			}
			if !tt.logged {
				return
			}
			var m map[string]any
			isJSON := json.Unmarshal(buf.Bytes(), &m) == nil
			if isJSON != tt.wantJSON {
				t.Fatalf("json = %v, want %v: %q", isJSON, tt.wantJSON, buf.String())
			}
			if !strings.Contains(buf.String(), "hello") {
				t.Fatalf("message missing: %q", buf.String())
			}
		})
	}
}
