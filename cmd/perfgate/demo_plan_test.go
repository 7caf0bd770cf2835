package main

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/refserver"
	"github.com/perfgate/perfgate/suite"
)

// demoPlanLimit is the most the full demo may plan: clearly under three
// minutes on a quiet 2-core machine, leaving room for the comparisons,
// the report and a slower start than planned.
const demoPlanLimit = 150 * time.Second

// TestDemoPlan checks the full demo's planned time (windows, warm-ups,
// target starts, knee budgets and confirmations) against demoPlanLimit,
// and that its statistics stay at what the gate accepts: trials that can
// reach the confidence, at least MinKneeEstimates knee estimates, and
// every fixed-load trial in its own process.
func TestDemoPlan(t *testing.T) {
	cfg, err := config.Parse("refserver/perfgate.yaml (embedded)", refserver.DemoConfig())
	if err != nil {
		t.Fatal(err)
	}
	total := demoPlanned(cfg, nil)
	for _, s := range cfg.Scenarios {
		t.Logf("%-22s %v", s.Name, suite.PlannedDuration(s, demoStartCost))
		if s.Load.Mode != "sweep" && s.Restarts < s.Load.Trials {
			t.Errorf("%s: %d trials over %d processes, want one process per trial", s.Name, s.Load.Trials, s.Restarts)
		}
	}
	if err := gate.CheckPower(cfg, nil); err != nil {
		t.Errorf("the gate refuses the demo's config: %v", err)
	}
	quick, err := config.Parse("refserver/perfgate.yaml (embedded)", refserver.DemoConfig())
	if err != nil {
		t.Fatal(err)
	}
	shrink(quick)
	if err := gate.CheckPower(quick, nil); err != nil {
		t.Errorf("the gate refuses the quick demo's config: %v", err)
	}
	t.Logf("quick: planned %v", demoPlanned(quick, nil))
	t.Logf("planned: %v (limit %v)", total, demoPlanLimit)
	if total > demoPlanLimit {
		t.Errorf("the full demo plans %v, want at most %v", total, demoPlanLimit)
	}
}
