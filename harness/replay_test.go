package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type traceHit struct {
	Offset  time.Duration
	Payload string
}

func drain(s Schedule, max int) []traceHit {
	var out []traceHit
	for range max {
		off, p, ok := s.Next()
		if !ok {
			break
		}
		out = append(out, traceHit{off, string(p)})
	}
	return out
}

func TestLoadTrace(t *testing.T) {
	body := `{"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}]}`
	tests := []struct {
		name  string
		speed float64
		loop  bool
		want  []traceHit
	}{
		{"speed 1", 1, false, []traceHit{{0, ""}, {12500 * time.Microsecond, body}, {12500 * time.Microsecond, `"Say \"hi\""`}, {40 * time.Millisecond, ""}}},
		// Speed 2 halves every offset.
		{"speed 2", 2, false, []traceHit{{0, ""}, {6250 * time.Microsecond, body}, {6250 * time.Microsecond, `"Say \"hi\""`}, {20 * time.Millisecond, ""}}},
		// Zero speed is the documented default, 1.
		{"speed 0", 0, false, []traceHit{{0, ""}, {12500 * time.Microsecond, body}, {12500 * time.Microsecond, `"Say \"hi\""`}, {40 * time.Millisecond, ""}}},
		// Looping: span 40 ms, 4 lines, period 40×4/3 = 53.333 ms.
		{"loop", 1, true, []traceHit{{0, ""}, {12500 * time.Microsecond, body}, {12500 * time.Microsecond, `"Say \"hi\""`}, {40 * time.Millisecond, ""},
			{53333333, ""}, {65833333, body}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := LoadTrace(filepath.Join("testdata", "trace", "ok.jsonl"), tt.speed)
			if err != nil {
				t.Fatal(err)
			}
			s.Loop = tt.loop
			got := drain(s, 6)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("schedule (-want +got):\n%s", d)
			}
		})
	}
}

func TestTraceMeta(t *testing.T) {
	s, err := LoadTrace(filepath.Join("testdata", "trace", "ok.jsonl"), 4)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 4 || s.Duration() != 10*time.Millisecond {
		t.Errorf("Len, Duration = %d, %v; want 4, 10ms", s.Len(), s.Duration())
	}
}

func TestLoadTraceErrors(t *testing.T) {
	tests := []struct {
		name, content string
		speed         float64
		want          string
	}{
		{"bad json", "{\"offset_ms\": 0}\n{\"offset_ms\": \n", 1, "trace.jsonl:2: "},
		{"decreasing", "{\"offset_ms\": 5}\n\n{\"offset_ms\": 3}\n", 1, "trace.jsonl:3: offset_ms 3 is before the previous line's 5"},
		{"negative", "{\"offset_ms\": -1}\n", 1, "trace.jsonl:1: offset_ms -1 must be a finite number ≥ 0"},
		{"missing offset", "{\"prompt\": \"x\"}\n", 1, "trace.jsonl:1: no offset_ms"},
		{"unknown key", "{\"offset_ms\": 1, \"promt\": \"x\"}\n", 1, `trace.jsonl:1: json: unknown field "promt"`},
		{"body and prompt", "{\"offset_ms\": 1, \"prompt\": \"x\", \"body\": {}}\n", 1, "trace.jsonl:1: both body and prompt"},
		{"offset as string", "{\"offset_ms\": \"1\"}\n", 1, "trace.jsonl:1: json: cannot unmarshal string"},
		{"two values", "{\"offset_ms\": 1} {\"offset_ms\": 2}\n", 1, "trace.jsonl:1: more than one JSON value"},
		{"empty", "\n\n", 1, "no requests"},
		{"negative speed", "{\"offset_ms\": 1}\n", -2, "speed -2 must be a positive number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "trace.jsonl")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadTrace(path, tt.speed)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadTrace = %v, want error containing %q", err, tt.want)
			}
		})
	}
	if _, err := LoadTrace(filepath.Join(t.TempDir(), "missing.jsonl"), 1); err == nil {
		t.Error("LoadTrace of a missing file succeeded")
	}
}

func TestPromptFromPayload(t *testing.T) {
	tests := []struct {
		name, in string
		want     string
		ok       bool
	}{
		{"prompt", `"hello \"you\""`, `hello "you"`, true},
		{"body", `{"inputs":[]}`, "", false},
		{"empty", ``, "", false},
		{"broken string", `"abc`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := PromptFromPayload([]byte(tt.in))
			if got != tt.want || ok != tt.ok {
				t.Errorf("PromptFromPayload(%s) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}
