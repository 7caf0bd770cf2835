package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
)

// writeSweep writes a result file with a knee at maxQPS and returns its path.
func writeSweep(t *testing.T, dir string, c *result.Capacity) string {
	t.Helper()
	r := &result.Result{Schema: result.Schema, Scenario: "svc", Protocol: "http", Valid: true, Capacity: c}
	p := filepath.Join(dir, "r.json")
	if err := r.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCmdSize(t *testing.T) {
	dir := t.TempDir()
	good := writeSweep(t, dir, &result.Capacity{SLOP99Ms: 50, MaxQPS: 1234.5, Bracket: [2]float64{1234.5, 1260}, Found: true, Windows: 6,
		Points: []result.Point{{OfferedRPS: 1234.5, AchievedRPS: 1234, Pass: true, Latency: result.Latency{P50: 8, P99: 40, Mean: 8.42}}}})
	bad := filepath.Join(dir, "bad")
	if err := writeSweepTo(bad, &result.Capacity{SLOP99Ms: 50, Bracket: [2]float64{0, 100},
		Points: []result.Point{{OfferedRPS: 100, Latency: result.Latency{P99: 75}, Why: "p99"}}}); err != nil {
		t.Fatal(err)
	}
	noCap := filepath.Join(dir, "nocap")
	if err := writeSweepTo(noCap, nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		code    int    // exit code; 0 means success
		out     string // substring of stdout
		message string // substring of the error
	}{
		{"text", []string{"--result", good, "--peak-qps", "5000"}, 0, "instances = ceil(5000 × 1.3 / 1234.5) = 6", ""},
		{"markdown with cost", []string{"--result", good, "--peak-qps", "5000", "--cost-per-hour", "2.5", "--format", "markdown"}, 0, "$10,950.00 per month", ""},
		{"json", []string{"--result", good, "--peak-qps=5000", "--headroom=2", "--format=json"}, 0, `"instances": 9`, ""},
		{"missing peak", []string{"--result", good}, exitUsage, "", "--peak-qps is required"},
		{"missing result", []string{"--peak-qps", "1"}, exitUsage, "", "--result is required"},
		{"negative peak", []string{"--result", good, "--peak-qps", "-5"}, exitUsage, "", "peak-qps is -5"},
		{"small headroom", []string{"--result", good, "--peak-qps", "5", "--headroom", "0.8"}, exitUsage, "", "headroom is 0.8"},
		{"zero headroom", []string{"--result", good, "--peak-qps", "5", "--headroom", "0"}, exitUsage, "", "headroom is 0"},
		{"bad format", []string{"--result", good, "--peak-qps", "5", "--format", "xml"}, exitUsage, "", `--format is "xml"`},
		{"no such file", []string{"--result", filepath.Join(dir, "none.json"), "--peak-qps", "5"}, exitUsage, "", "none.json"},
		{"no passing probe", []string{"--result", bad, "--peak-qps", "5"}, exitUsage, "",
			"no probe met the SLO: the lowest rate tried, 100 rps, already had P99 75 ms > SLO 50 ms"},
		{"no sweep", []string{"--result", noCap, "--peak-qps", "5"}, exitUsage, "", "no capacity section"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			e := &env{getenv: func(string) string { return "" }, stdout: &out, stderr: &errb, workdir: dir}
			err := run(context.Background(), append([]string{"size"}, tt.args...), e)
			if tt.code == 0 {
				if err != nil {
					t.Fatalf("size %v: %v", tt.args, err)
				}
				if !strings.Contains(out.String(), tt.out) {
					t.Errorf("size %v output:\n%s\nwant it to contain %q", tt.args, out.String(), tt.out)
				}
				if strings.Contains(strings.Join(tt.args, " "), "--format=json") {
					var s sizing.Sizing
					if err := json.Unmarshal(out.Bytes(), &s); err != nil || s.Schema != sizing.Schema {
						t.Errorf("size --format json: %v, schema %q", err, s.Schema)
					}
				}
				return
			}
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != tt.code {
				t.Fatalf("size %v error = %v, want exit code %d", tt.args, err, tt.code)
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("size %v error = %q, want it to contain %q", tt.args, err, tt.message)
			}
		})
	}
}

func writeSweepTo(path string, c *result.Capacity) error {
	r := &result.Result{Schema: result.Schema, Scenario: "svc", Protocol: "http", Valid: true, Capacity: c}
	return r.WriteFile(path)
}
