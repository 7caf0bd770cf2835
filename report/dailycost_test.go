package report

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/sizing"
)

// With a traffic curve configured, the capacity table shows the daily
// cost of the schedule, base → PR with the change, and the flat fleet.
func TestCapacityDailyCost(t *testing.T) {
	r := sampleReport(t)
	curve, err := sizing.ReadTraffic("curve.csv", strings.NewReader(
		"2026-11-30T00:00:00Z,1000\n2026-11-30T12:00:00Z,5000\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	in := sizing.Input{Headroom: 1.3, CostPerInstanceHour: 2.5, Traffic: curve}
	p := &r.Plans[0]
	if p.Candidate, err = sizing.Plan(find(r.Candidate, p.Scenario), in); err != nil {
		t.Fatal(err)
	}
	if p.Baseline, err = sizing.Plan(find(r.Baseline, p.Scenario), in); err != nil {
		t.Fatal(err)
	}
	d := sizing.Compare(p.Baseline, p.Candidate)
	p.Diff = &d
	head, rows := r.mdCapacity()
	if !strings.Contains(head, "scheduled cost per day base → PR (flat)") {
		t.Fatalf("capacity header lacks the daily cost:\n%s", head)
	}
	want := costOf(d.BaselineCostPerDay) + " → " + costOf(d.CandidateCostPerDay)
	if row := rows[p.Scenario]; !strings.Contains(row, want) || !strings.Contains(row, "(flat "+costOf(p.Candidate.FlatCostPerDay)+")") {
		t.Errorf("row %q lacks %q and the flat cost", row, want)
	}
}
