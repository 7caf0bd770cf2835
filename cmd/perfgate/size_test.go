package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
	"sigs.k8s.io/yaml"
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
		{"negative peak", []string{"--result", good, "--peak-qps", "-5"}, exitUsage, "", "--peak-qps: -5 is out of range"},
		{"small headroom", []string{"--result", good, "--peak-qps", "5", "--headroom", "0.8"}, exitUsage, "", "--headroom: 0.8 is out of range"},
		{"zero headroom", []string{"--result", good, "--peak-qps", "5", "--headroom", "0"}, exitUsage, "", "--headroom: 0 is out of range"},
		{"bad format", []string{"--result", good, "--peak-qps", "5", "--format", "xml"}, exitUsage, "", `--format "xml": want text, markdown or json`},
		// In the flag's range (0 to 1) but not the plan's: sizing.Input's
		// error, spelt as the flag.
		{"hit rate of one", []string{"--result", good, "--peak-qps", "5", "--hit-rate", "1"}, exitUsage, "", "--hit-rate is 1, want 0 to 1 (exclusive)"},
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
			if !errors.As(err, &ee) || ee.Code != tt.code {
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

// size --traffic plans a schedule and --emit prints manifests that decode
// strictly; bad curves and flags are usage errors naming what is wrong.
func TestCmdSizeTraffic(t *testing.T) {
	dir := t.TempDir()
	good := writeSweep(t, dir, &result.Capacity{SLOP99Ms: 50, MaxQPS: 1000, Bracket: [2]float64{1000, 1030}, Found: true,
		Points: []result.Point{{OfferedRPS: 1000, AchievedRPS: 1000, Pass: true, Latency: result.Latency{Mean: 10}}}})
	curve := filepath.Join(dir, "curve.csv")
	var b strings.Builder
	b.WriteString("timestamp,qps\n")
	for h := range 24 {
		q := 500
		if h >= 9 && h < 18 {
			q = 3500
		}
		fmt.Fprintf(&b, "2026-11-30T%02d:00:00Z,%d\n", h, q)
	}
	if err := os.WriteFile(curve, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "perfgate.yaml")
	if err := os.WriteFile(conf, []byte(`version: 1
slo: {p99: 50ms}
capacity: {headroom: 1, cost_per_instance_hour: 2, traffic: curve.csv, lead_time: 0s}
scenarios:
  - {name: svc, layer: service, url: "http://127.0.0.1:1/", load: {mode: sweep}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("timestamp,qps\n2026-11-30T00:00:00Z,fast\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		code    int
		out     string
		message string
	}{
		// 1 instance 00–08, 4 from 08 (an hour ahead of 09) to 19 (an hour
		// after 18), 1 until midnight: 8 + 44 + 5 = 57 instance-hours × $2.
		{"schedule", []string{"--result", good, "--traffic", curve, "--headroom", "1", "--cost-per-hour", "2"}, 0,
			"$114.00 per day scheduled vs $192.00 flat (-$78.00)", ""},
		{"json", []string{"--result", good, "--traffic", curve, "--headroom", "1", "--cost-per-hour", "2", "--format", "json"}, 0, `"cost_per_day": 114`, ""},
		// The config's curve, no lead time: 1 × 9 h + 4 × 10 h (09–19) + 1 × 5 h = 54 × $2.
		{"config", []string{"--config", conf, "--result", good}, 0, "$108.00 per day scheduled vs $192.00 flat", ""},
		{"keda", []string{"--result", good, "--traffic", curve, "--emit", "keda", "--headroom", "1"}, 0, "kind: ScaledObject", ""},
		{"hpa", []string{"--result", good, "--peak-qps", "100", "--emit", "hpa"}, 0, "kind: HorizontalPodAutoscaler", ""},
		// The plan names the manifests' flag and prints none (see below).
		{"plan without manifest", []string{"--result", good, "--peak-qps", "100"}, 0, "add --emit hpa", ""},
		{"keda without curve", []string{"--result", good, "--peak-qps", "100", "--emit", "keda"}, exitUsage, "", "--emit keda needs --traffic"},
		{"bad emit", []string{"--result", good, "--peak-qps", "100", "--emit", "yaml"}, exitUsage, "", `--emit is "yaml"`},
		{"bad curve", []string{"--result", good, "--traffic", bad}, exitUsage, "", `bad.csv:2: bad traffic curve: qps "fast"`},
		{"no curve", []string{"--result", good, "--traffic", filepath.Join(dir, "none.csv")}, exitUsage, "", "--traffic"},
		{"lead too long", []string{"--result", good, "--traffic", curve, "--lead-time", "48h"}, exitUsage, "", "--lead-time: 48h is out of range"},
		{"bad zone", []string{"--result", good, "--traffic", curve, "--timezone", "Mars/Olympus"}, exitUsage, "", `--timezone "Mars/Olympus"`},
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
				// JSON is data: it carries the manifest as a field.
				if m := "apiVersion:"; !slices.Contains(tt.args, "--emit") && !slices.Contains(tt.args, "json") && strings.Contains(out.String(), m) {
					t.Errorf("size %v printed a manifest (%q) without --emit:\n%s", tt.args, m, out.String())
				}
				if tt.name == "keda" {
					var so sizing.ScaledObject
					if err := yaml.UnmarshalStrict(out.Bytes(), &so); err != nil || len(so.Spec.Triggers) != 2 {
						t.Errorf("--emit keda: %v, %d triggers (want one cron, one prometheus):\n%s", err, len(so.Spec.Triggers), out.String())
					}
				}
				return
			}
			var ee *exitError
			if !errors.As(err, &ee) || ee.Code != tt.code {
				t.Fatalf("size %v error = %v, want exit code %d", tt.args, err, tt.code)
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("size %v error = %q, want it to contain %q", tt.args, err, tt.message)
			}
		})
	}
}
