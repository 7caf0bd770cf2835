package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
)

// TestWarningsOnce checks that one caveat reported by the candidate's
// result, repeated by the comparison ("candidate: …") and by the capacity
// plan ("the knee search stopped early: …"), is shown once.
func TestWarningsOnce(t *testing.T) {
	const stopped = "knee search stopped early: time budget 16s spent after 3 windows (12s)"
	r := &Report{
		Comparison: &compare.Comparison{Scenarios: []compare.ScenarioComparison{
			{Scenario: "svc", Warnings: []string{"candidate: " + stopped, "max_qps: tested"}},
		}},
		Plans:     []Plan{{Scenario: "svc", Candidate: &sizing.Sizing{Warnings: []string{"the " + stopped}}}},
		Candidate: []*result.Result{{Scenario: "svc", Warnings: []string{stopped}}},
	}
	want := []string{"svc: candidate: " + stopped, "svc: max_qps: tested"}
	if diff := cmp.Diff(want, r.warnings()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
