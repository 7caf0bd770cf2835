package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/refserver"
	"github.com/perfgate/perfgate/result"
)

// demoResult is a valid result of scenario name, as the demo measures it.
func demoResult(name string, seed uint64) *result.Result {
	return comparetest.Result(comparetest.Spec{Scenario: name, Layer: "model", Trials: 5, Requests: 200,
		MedianMs: 3, Noise: 0.02}, rand.New(rand.NewPCG(seed, 2)))
}

// On a busy host some results cannot be a baseline: the demo stores the
// others, prints the gate command, and says in one line which were left
// out, why, and the command that measures them again. With nothing
// storable, or when interrupted, it says so in one line with what to run.
func TestDemoStoresWhatItCan(t *testing.T) {
	cfg, err := config.Parse("refserver/perfgate.yaml (embedded)", refserver.DemoConfig())
	if err != nil {
		t.Fatal(err)
	}
	noKnee := demoResult("service-batch1", 2)
	noKnee.Load.Mode, noKnee.Trials = "sweep", nil
	noKnee.Capacity = &result.Capacity{SLOP99Ms: 60, Windows: 5,
		Points: []result.Point{{OfferedRPS: 100, Host: &result.HostLoad{Busy: true, Why: "other work"}}}}
	invalid := demoResult("llm-fp32", 3)
	invalid.Valid = false
	tests := []struct {
		name        string
		rs          []*result.Result
		interrupted bool
		want        []string
	}{
		{"some stored", []*result.Result{demoResult("model-fp32", 1), noKnee, invalid}, false, []string{
			"stored 1 baselines in ",
			"perfgate gate --config ",
			"not stored, so not gated until measured again: service-batch1 (no knee: no probe met the SLO, host busy), llm-fp32 (invalid run); measure them again, on a quieter machine, with: perfgate demo --out ",
			" --scenario service-batch1 --scenario llm-fp32\n"}},
		{"none storable", []*result.Result{noKnee}, false, []string{
			"baselines not stored: no result of this run can be a baseline (service-batch1 (no knee: no probe met the SLO, host busy)); run instead, on a quieter machine: perfgate demo --out "}},
		{"interrupted", []*result.Result{demoResult("model-fp32", 1)}, true, []string{
			"baselines not stored: the demo was interrupted before every scenario ran; run it again to store them: perfgate demo --out "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			results := filepath.Join(out, "results")
			byName := comparetest.WriteRun(t, results, tt.rs...)
			ctx, cancel := context.WithCancel(context.Background())
			if tt.interrupted {
				cancel()
			}
			defer cancel()
			var stdout bytes.Buffer
			c := *cfg
			storeDemoBaselines(ctx, &env{stdout: &stdout}, &c, out, results, "/usr/local/bin/perfgate", byName)
			for _, w := range tt.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("demo printed:\n%s\nwant it to contain %q", stdout.String(), w)
				}
			}
			if n := strings.Count(strings.TrimSpace(stdout.String()), "\n"); tt.name != "some stored" && n != 0 {
				t.Errorf("demo printed %d lines, want one:\n%s", n+1, stdout.String())
			}
		})
	}
}
