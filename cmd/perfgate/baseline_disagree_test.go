package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// baseline update with two runs that disagree beyond their noise (the
// second 60% slower, each run's processes within 1% of each other) refuses
// with exit 2, naming the scenario, the metric and both runs' values, and
// writes nothing; --force stores them; two runs that agree are stored.
func TestBaselineUpdateRunsDisagree(t *testing.T) {
	tests := []struct {
		name     string
		scale    float64 // the second run's latency scale
		force    bool
		wantCode int
		wantErr  []string
	}{
		{"agree", 1.0, false, exitPass, nil},
		{"disagree", 1.6, false, exitUsage, []string{"the runs disagree beyond their noise", "scenario api", "p99_ms", "--force"}},
		{"disagree, forced", 1.6, true, exitPass, []string{"storing anyway (--force)", "scenario api", "p99_ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			a, b, to := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "bl")
			writeRunDir(t, a, 1, 1)
			writeRunDir(t, b, tt.scale, 2)
			args := []string{"baseline", "update", "--from", a, "--from", b, "--to", to}
			if tt.force {
				args = append(args, "--force")
			}
			code, _, stderr := runCLI(t, args...)
			t.Logf("stderr: %s", stderr)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tt.wantCode, stderr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
			_, err := os.Stat(filepath.Join(to, "api.json"))
			if stored := err == nil; stored != (tt.wantCode == exitPass) {
				t.Errorf("baseline stored: %v, want %v", stored, tt.wantCode == exitPass)
			}
		})
	}
}
