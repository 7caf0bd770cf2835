package demo

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/suite"
)

// planLimit is the most the full demo may plan: clearly under three
// minutes on a quiet 2-core machine, leaving room for the comparisons,
// the report and a slower start than planned.
const planLimit = 150 * time.Second

// quickPlanLimit is the most the quick demo may plan: about a minute and a
// half, as --quick's help says.
const quickPlanLimit = 100 * time.Second

// TestPlan checks the full and the quick demo's planned time (windows,
// warm-ups, target starts, knee budgets and confirmations) against their
// limits, and that their statistics stay at what the gate accepts: trials
// that can reach the confidence, at least MinKneeEstimates knee
// estimates, and every fixed-load trial of the full demo in its own
// process.
func TestPlan(t *testing.T) {
	tests := []struct {
		name  string
		quick bool
		limit time.Duration
	}{
		{"full", false, planLimit},
		{"quick", true, quickPlanLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Config(tt.quick)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range cfg.Scenarios {
				t.Logf("%-22s %v", s.Name, suite.PlannedDuration(s, StartCost))
				if !tt.quick && s.Load.Mode != "sweep" && s.Restarts < s.Load.Trials {
					t.Errorf("%s: %d trials over %d processes, want one process per trial", s.Name, s.Load.Trials, s.Restarts)
				}
			}
			if err := gate.CheckPower(cfg, nil); err != nil {
				t.Errorf("the gate refuses the %s demo's config: %v", tt.name, err)
			}
			total := Planned(cfg, nil)
			t.Logf("planned: %v (limit %v)", total, tt.limit)
			if total > tt.limit {
				t.Errorf("the %s demo plans %v, want at most %v", tt.name, total, tt.limit)
			}
		})
	}
}

// Planned sums only the scenarios named, when any are.
func TestPlannedOnly(t *testing.T) {
	cfg, err := Config(true)
	if err != nil {
		t.Fatal(err)
	}
	one := cfg.Scenarios[0]
	tests := []struct {
		name string
		only []string
		want time.Duration
	}{
		{"one", []string{one.Name}, suite.PlannedDuration(one, StartCost)},
		{"unknown", []string{"no-such-scenario"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Planned(cfg, tt.only); got != tt.want {
				t.Errorf("Planned(%v) = %v, want %v", tt.only, got, tt.want)
			}
		})
	}
}

// Shrink leaves each scenario as few trials as the gate accepts and
// short windows.
func TestShrink(t *testing.T) {
	cfg, err := Config(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cfg.Scenarios {
		want := config.Duration(500 * time.Millisecond)
		if s.Load.Mode == "sweep" {
			want = config.Duration(600 * time.Millisecond)
		}
		if s.Load.Duration != want {
			t.Errorf("%s: window %v, want %v", s.Name, s.Load.Duration.D(), want.D())
		}
	}
}
