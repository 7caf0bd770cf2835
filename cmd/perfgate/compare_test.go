package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
)

func writeResult(t *testing.T, path string, sp comparetest.Spec, seed uint64) {
	t.Helper()
	if sp.Trials == 0 {
		sp.Trials, sp.Requests, sp.MedianMs, sp.Noise = 5, 2000, 10, 0.02
	}
	r := comparetest.Result(sp, rand.New(rand.NewPCG(seed, 7)))
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
}

func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	base, same, slow := filepath.Join(dir, "base.json"), filepath.Join(dir, "same.json"), filepath.Join(dir, "slow.json")
	writeResult(t, base, comparetest.Spec{Scenario: "api", Layer: "service"}, 1)
	writeResult(t, same, comparetest.Spec{Scenario: "api", Layer: "service"}, 2)
	writeResult(t, slow, comparetest.Spec{Scenario: "api", Layer: "service", Scale: 1.3}, 3)
	broken := filepath.Join(dir, "broken.json")
	b, _ := os.ReadFile(base)
	os.WriteFile(broken, b[:len(b)/2], 0o644) // truncated

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"no change passes", []string{"compare", "--baseline", base, "--candidate", same}, exitPass, "PASS · 1 unchanged of 1 scenario", ""},
		{"--verbose shows every metric", []string{"compare", "--verbose", "--baseline", base, "--candidate", same}, exitPass, "api (service): UNCHANGED", ""},
		{"30% slower fails", []string{"compare", "--baseline", base, "--candidate", slow}, exitRegression, "regressed", ""},
		{"json format", []string{"compare", "--baseline", base, "--candidate", slow, "--format", "json"}, exitRegression, `"schema": "perfgate.comparison/v1"`, ""},
		{"truncated baseline names the file", []string{"compare", "--baseline", broken, "--candidate", same}, exitUsage, "", "broken.json"},
		{"missing candidate", []string{"compare", "--baseline", base, "--candidate", filepath.Join(dir, "nope.json")}, exitUsage, "", "nope.json"},
		{"bad format", []string{"compare", "--baseline", base, "--candidate", same, "--format", "xml"}, exitUsage, "", "xml"},
		// Two positional results, as benchstat old new.
		{"positional: 30% slower fails", []string{"compare", base, slow}, exitRegression, "regressed", ""},
		{"positional after flags", []string{"compare", "--format", "json", base, same}, exitPass, `"schema": "perfgate.comparison/v1"`, ""},
		{"a flag after the results is named", []string{"compare", base, slow, "--format", "json"}, exitUsage, "", "flags first"},
		{"one positional", []string{"compare", base}, exitUsage, "", "BASELINE CANDIDATE"},
		{"positional beside --baseline", []string{"compare", "--baseline", base, same, slow}, exitUsage, "", "unexpected argument"},
		{"a P99 margin narrower than the threshold", []string{"compare", "--p99-equivalence", "3%", base, same}, exitUsage, "", "--p99-equivalence 3%: must be at least the latency threshold (5%)"},
		{"a P99 margin", []string{"compare", "--verbose", "--p99-equivalence", "10%", base, same}, exitPass, "latency 5% (P99 unchanged within ±10%; P50 5%)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantStdout, stdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantStderr, stderr)
			}
		})
	}
}

// compare --config takes the config's gate as perfgate gate does, the
// run-to-run noise it assumes included: a runner declared to have none
// (gate.run_to_run: 0%) compares with none.
func TestCompareConfigRunToRun(t *testing.T) {
	dir := t.TempDir()
	base, cand := filepath.Join(dir, "base.json"), filepath.Join(dir, "cand.json")
	writeResult(t, base, comparetest.Spec{Scenario: "api", Layer: "service"}, 1)
	writeResult(t, cand, comparetest.Spec{Scenario: "api", Layer: "service"}, 2)
	for _, tt := range []struct {
		gate string
		want float64
	}{
		{"{run_to_run: 0%}", 0},
		{"{run_to_run: 20%}", 0.2},
	} {
		cfg := filepath.Join(dir, "perfgate.yaml")
		os.WriteFile(cfg, []byte("version: 1\ngate: "+tt.gate+"\nscenarios:\n  - name: api\n    layer: service\n    url: \"http://127.0.0.1:9\"\n    load: {mode: rate, rate: 10}\n"), 0o644)
		code, stdout, stderr := runCLI(t, "compare", "--config", cfg, "--format", "json", base, cand)
		var got struct {
			Settings struct {
				RunToRun *float64 `json:"run_to_run"`
			} `json:"settings"`
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil || code == exitUsage {
			t.Fatalf("gate %s: exit %d, %v\nstderr:\n%s", tt.gate, code, err, stderr)
		}
		if got.Settings.RunToRun == nil || *got.Settings.RunToRun != tt.want {
			t.Errorf("gate %s: settings.run_to_run %v, want %v", tt.gate, got.Settings.RunToRun, tt.want)
		}
	}
	// The config's P99 margin of unchanged, as the gate's.
	cfg := filepath.Join(dir, "perfgate.yaml")
	os.WriteFile(cfg, []byte("version: 1\ngate: {p99_equivalence: 10%}\nscenarios:\n  - name: api\n    layer: service\n    url: \"http://127.0.0.1:9\"\n    load: {mode: rate, rate: 10}\n"), 0o644)
	code, stdout, stderr := runCLI(t, "compare", "--config", cfg, "--format", "json", base, cand)
	var got struct {
		Settings struct {
			P99Equivalence float64 `json:"p99_equivalence"`
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || got.Settings.P99Equivalence != 0.10 {
		t.Errorf("gate {p99_equivalence: 10%%}: exit %d, settings.p99_equivalence %v (%v), want 0.1\nstderr:\n%s", code, got.Settings.P99Equivalence, err, stderr)
	}
}

// baseline update refuses an invalid run and writes nothing.
func TestBaselineUpdateRefusesInvalid(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "run"), filepath.Join(dir, "baselines")
	os.MkdirAll(from, 0o755)
	p := filepath.Join(from, "api.json")
	writeResult(t, p, comparetest.Spec{Scenario: "api", Layer: "service"}, 4)
	r, _ := result.ReadFile(p)
	r.Valid = false
	r.WriteFile(p)
	code, _, stderr := runCLI(t, "baseline", "update", "--from", from, "--to", to)
	if code == exitPass {
		t.Fatalf("baseline update of an invalid run passed:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(to, "api.json")); err == nil {
		t.Error("an invalid run was written as a baseline")
	}
}

// baseline update --from A --from B stores the combined runs and leaves
// both runs' folders as they were measured (it once rewrote A's results
// with the combined ones, so A could no longer be gated or stored alone).
func TestBaselineUpdateKeepsRuns(t *testing.T) {
	dir := t.TempDir()
	var runs []string
	for i, name := range []string{"a", "b"} {
		d := filepath.Join(dir, name)
		os.MkdirAll(d, 0o755)
		p := filepath.Join(d, "api.json")
		writeResult(t, p, comparetest.Spec{Scenario: "api", Layer: "service"}, uint64(10+i))
		m := result.NewManifest("run-"+name, time.Now())
		if err := m.Add("api", p); err != nil {
			t.Fatal(err)
		}
		m.Complete = true
		if err := m.Write(d); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, d)
	}
	before, _ := os.ReadFile(filepath.Join(runs[0], "api.json"))
	to := filepath.Join(dir, "baselines")
	if code, _, stderr := runCLI(t, "baseline", "update", "--from", runs[0], "--from", runs[1], "--to", to); code != exitPass {
		t.Fatalf("baseline update: exit %d\n%s", code, stderr)
	}
	after, _ := os.ReadFile(filepath.Join(runs[0], "api.json"))
	if !bytes.Equal(before, after) {
		t.Error("the first run's result was rewritten by baseline update")
	}
	stored, err := result.ReadFile(filepath.Join(to, "api.json"))
	if err != nil {
		t.Fatal(err)
	}
	one, _ := result.ReadFile(filepath.Join(runs[0], "api.json"))
	if len(stored.Trials) != 2*len(one.Trials) || stored.NoiseFloorPct == nil {
		t.Errorf("stored baseline: %d trials, floor %v; want %d trials and a noise floor", len(stored.Trials), stored.NoiseFloorPct, 2*len(one.Trials))
	}
}

// compare --baseline on a folder that does not exist is an error naming
// it (issue 43: it passed as a first run, so a typo switched the gate
// off); --first-run reads it as none and says where it looked and how
// to store baselines there; an existing empty folder is a first run.
func TestCompareMissingBaselines(t *testing.T) {
	dir := t.TempDir()
	cand := filepath.Join(dir, "run")
	os.MkdirAll(cand, 0o755)
	writeResult(t, filepath.Join(cand, "api.json"), comparetest.Spec{Scenario: "api", Layer: "service"}, 4)
	missing := filepath.Join(dir, "perfgate", "baseline")
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"missing folder", []string{"--baseline", missing}, exitUsage, `baselines folder "` + missing + `" does not exist`},
		{"missing folder, first run", []string{"--baseline", missing, "--first-run"}, exitPass,
			"no baseline in " + missing + " to compare with (a first run)"},
		{"empty folder", []string{"--baseline", empty}, exitPass,
			"`perfgate baseline update --from " + cand + " --to " + empty + "`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append([]string{"compare", "--candidate", cand}, tt.args...)...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.want) {
				t.Errorf("compare %v: exit %d, stderr %q; want exit %d with %q", tt.args, code, stderr, tt.wantCode, tt.want)
			}
		})
	}
}
