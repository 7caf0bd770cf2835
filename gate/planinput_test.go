package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/result"
)

func sweepResult(name string, maxQPS float64, part *result.Partition) *result.Result {
	return &result.Result{Schema: result.Schema, Scenario: name, Valid: true, Partition: part,
		Capacity: &result.Capacity{SLOP99Ms: 50, MaxQPS: maxQPS, Bracket: [2]float64{maxQPS, 1.05 * maxQPS}, Found: true,
			Points: []result.Point{{OfferedRPS: maxQPS, AchievedRPS: maxQPS, Pass: true, Latency: result.Latency{Mean: 5}}}}}
}

// With capacity.traffic, each plan carries the schedule and its cost per
// day, and the baseline → PR diff the daily delta; a partition scenario is
// compared with the whole-device sweep of the same model in the run.
func TestPlansTrafficAndPartition(t *testing.T) {
	dir := t.TempDir()
	// Four-hour points: 1000 rps until 08:00, 4000 until 20:00, 1000 to midnight.
	curve := "timestamp,qps\n2026-11-30T00:00:00Z,1000\n2026-11-30T04:00:00Z,1000\n2026-11-30T08:00:00Z,4000\n" +
		"2026-11-30T12:00:00Z,4000\n2026-11-30T16:00:00Z,4000\n2026-11-30T20:00:00Z,1000\n"
	if err := os.WriteFile(filepath.Join(dir, "day.csv"), []byte(curve), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "perfgate.yaml")
	if err := os.WriteFile(path, []byte(`version: 1
slo: {p99: 50ms}
capacity: {headroom: 1, cost_per_instance_hour: 2, traffic: day.csv, lead_time: 0s, scale_in_after: 0s}
scenarios:
  - {name: whole, layer: service, url: "http://127.0.0.1:1/", protocol: kserve-http, model: m, load: {mode: sweep}}
  - {name: slice, layer: service, url: "http://127.0.0.1:1/", protocol: kserve-http, model: m, load: {mode: sweep},
     partition: {name: 1g.10gb, per_device: 7}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	part := &result.Partition{Name: "1g.10gb", PerDevice: 7}
	base := []*result.Result{sweepResult("whole", 1000, nil), sweepResult("slice", 200, part)}
	cand := []*result.Result{sweepResult("whole", 800, nil), sweepResult("slice", 200, part)}
	plans, warns := Plans(c, base, cand, nil)
	if len(warns) > 0 || len(plans) != 2 {
		t.Fatalf("plans %d, warnings %q", len(plans), warns)
	}
	// whole: 1000 rps → 1, 4, 1 instances over 8, 12, 4 h = 60 instance-hours
	// ($120/day); at 800 rps → 2, 5, 2 = 16 + 60 + 8 = 84 ($168/day).
	w := plans[0]
	if *w.Baseline.CostPerDay != 120 || *w.Candidate.CostPerDay != 168 || *w.Diff.CostPerDayDelta != 48 || *w.Candidate.FlatCostPerDay != 240 {
		t.Errorf("whole: cost per day %v → %v (Δ %v), flat %v; want 120 → 168 (+48), flat 240",
			*w.Baseline.CostPerDay, *w.Candidate.CostPerDay, *w.Diff.CostPerDayDelta, *w.Candidate.FlatCostPerDay)
	}
	// slice: 200 × 7 = 1400 rps a device → ceil(4000 / 1400) = 3 devices,
	// against ceil(4000 / 800) = 5 whole devices.
	p := plans[1].Candidate.Partition
	if p == nil || p.DevicesPartitioned != 3 || p.DevicesWhole != 5 || p.Recommend != "partitioned" {
		t.Errorf("slice: partition plan %+v; want 3 partitioned vs 5 whole devices", p)
	}
	if bp := plans[1].Baseline.Partition; bp == nil || bp.DevicesWhole != 4 {
		t.Errorf("slice baseline: partition plan %+v; want the baseline's whole device (4 devices)", bp)
	}

	// A curve that cannot be read is a warning, not a plan from nothing.
	if err := os.WriteFile(filepath.Join(dir, "day.csv"), []byte("nonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if plans, warns := Plans(c, base, cand, nil); plans != nil || len(warns) != 1 || !strings.Contains(warns[0], "capacity.traffic") {
		t.Errorf("bad curve: %d plans, warnings %q", len(plans), warns)
	}
}
