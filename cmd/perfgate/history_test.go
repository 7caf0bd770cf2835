package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/result"
)

// writeRunDir writes one complete run of scenario api at a latency scale
// (a result file and its manifest), as perfgate run leaves it.
func writeRunDir(t *testing.T, dir string, scale float64, seed uint64) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "api.json")
	writeResult(t, p, comparetest.Spec{Scenario: "api", Layer: "service", Trials: 5, Requests: 500, MedianMs: 10, Noise: 0.01, Scale: scale}, seed)
	m := result.NewManifest(fmt.Sprint("run", seed), time.Now())
	if err := m.Add("api", p); err != nil {
		t.Fatal(err)
	}
	m.Complete = true
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryFromBaselines: twelve baseline updates with --history, the
// last four 30% slower; history show prints the twelve runs and history
// changes finds the regression at the ninth.
func TestHistoryFromBaselines(t *testing.T) {
	dir := t.TempDir()
	hist, bl := filepath.Join(dir, "hist"), filepath.Join(dir, "bl")
	for i := range 12 {
		scale := 1.0
		if i >= 8 {
			scale = 1.3
		}
		from := filepath.Join(dir, fmt.Sprint("run", i))
		writeRunDir(t, from, scale, uint64(i+1))
		sha := fmt.Sprintf("%040x", i+1)
		if code, _, stderr := runCLI(t, "baseline", "update", "--from", from, "--to", bl, "--history", hist, "--git-sha", sha); code != exitPass {
			t.Fatalf("baseline update %d: exit %d\n%s", i, code, stderr)
		}
	}
	code, stdout, stderr := runCLI(t, "history", "show", "--history", hist, "--metric", "p99_ms")
	if code != exitPass {
		t.Fatalf("history show: exit %d\n%s", code, stderr)
	}
	if n := strings.Count(stdout, "baseline\n"); n != 12 {
		t.Errorf("history show printed %d baseline runs, want 12:\n%s", n, stdout)
	}
	code, stdout, stderr = runCLI(t, "history", "changes", "--history", hist, "--metric", "p99_ms", "--format", "json")
	if code != exitPass {
		t.Fatalf("history changes: exit %d\n%s", code, stderr)
	}
	var cs []history.Change
	if err := json.Unmarshal([]byte(stdout), &cs); err != nil {
		t.Fatalf("history changes --format json: %v\n%s", err, stdout)
	}
	if len(cs) != 1 || cs[0].Index != 8 || !cs[0].Regression || cs[0].After.Commit != fmt.Sprintf("%040x", 9) {
		t.Fatalf("changes = %+v, want one regression at the ninth run (commit 9)", cs)
	}
	code, stdout, _ = runCLI(t, "history", "changes", "--history", hist, "--metric", "p99_ms")
	if code != exitPass || !strings.Contains(stdout, "api p99_ms") || !strings.Contains(stdout, "regression +") {
		t.Errorf("history changes (text): exit %d\n%s", code, stdout)
	}
}

func TestHistoryUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no subcommand", []string{"history"}, "want a subcommand"},
		{"unknown", []string{"history", "frob"}, `unknown subcommand "frob"`},
		{"add without from", []string{"history", "add"}, "--from DIR is required"},
		{"missing source", []string{"history", "show", "--history", "nope-not-here"}, "neither a folder nor a git revision"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("perfgate %v: exit %d, stderr %q; want exit %d with %q", tt.args, code, stderr, exitUsage, tt.want)
			}
		})
	}
}

func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	writeRunDir(t, dir, 1, 1)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "bmf"}, `"p99_ms": {`},
		{[]string{"--format", "github-action-benchmark", "--tool", "customBiggerIsBetter"}, `"name": "api achieved_rps"`},
		{[]string{"--format", "openmetrics"}, "# EOF\n"},
	} {
		code, stdout, stderr := runCLI(t, append(append([]string{"export"}, tt.args...), dir)...)
		if code != exitPass || !strings.Contains(stdout, tt.want) {
			t.Errorf("export %v: exit %d, stdout lacks %q:\n%s%s", tt.args, code, tt.want, stdout, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "export", "--format", "csv", dir); code != exitUsage || !strings.Contains(stderr, `format "csv"`) {
		t.Errorf("export --format csv: exit %d, %s", code, stderr)
	}
}
