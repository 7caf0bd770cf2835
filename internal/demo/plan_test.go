package demo

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/suite"
)

// planLimit is the most the full demo may plan: three minutes on a quiet
// 2-core machine, its layer pairs, ladder rungs and planted regression
// each decided at the first look.
const planLimit = 180 * time.Second

// quickPlanLimit is the most the quick demo may plan: about two and a half minutes,
// as --quick's help says.
const quickPlanLimit = 150 * time.Second

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
				// The stored gate's unit is a process: it must hold the
				// requests a P99 needs.
				if s.Load.Mode != "sweep" && s.Load.Mode != "concurrency" {
					perProc := s.Load.Rate * s.Load.Duration.D().Seconds() * float64(s.Load.Trials) / float64(max(s.Restarts, 1))
					if perProc < float64(compare.RequestsForQuantile(99)) {
						t.Errorf("%s: %.0f requests a process, want at least %d", s.Name, perProc, compare.RequestsForQuantile(99))
					}
				}
			}
			if err := gate.CheckPower(cfg, nil); err != nil {
				t.Errorf("the gate refuses the %s demo's config: %v", tt.name, err)
			}
			total := Planned(cfg, tt.quick, nil)
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
		{"one in a pair", []string{one.Name}, PairPlanned(cfg, one)},
		{"unknown", []string{"no-such-scenario"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Planned(cfg, false, tt.only); got != tt.want {
				t.Errorf("Planned(%v) = %v, want %v", tt.only, got, tt.want)
			}
		})
	}
}

// Shrink leaves each scenario as few trials as the gate accepts and
// short windows.
func TestShrink(t *testing.T) {
	full, err := Config(false)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Config(true)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Ladder) != 0 || len(cfg.Pairs) != len(full.Pairs)-(len(full.Ladder)-1) {
		t.Errorf("quick: ladder %v, %d pairs; want no ladder and the %d pairs of the layers", cfg.Ladder, len(cfg.Pairs), len(full.Pairs)-(len(full.Ladder)-1))
	}
	for _, s := range cfg.Scenarios {
		f := full.ScenarioNamed(s.Name)
		want := f.Load.Duration
		if s.Load.Mode == "sweep" {
			want = config.Duration(300 * time.Millisecond)
		}
		if s.Load.Duration != want {
			t.Errorf("%s: window %v, want %v", s.Name, s.Load.Duration.D(), want.D())
		}
	}
}

// TestPairTrialsAreUnits: every trial of an open-loop layer pair holds the
// requests a P99 needs, so that each pair is a unit of the paired test and
// the first look rests on as many units as pairs (a trial of fewer merges
// pairs into units: the LLM pairs' 42 requests a trial left five units
// after twelve pairs, and they stopped undecided). A seeded Poisson
// schedule sends the same requests every trial: they are counted here.
func TestPairTrialsAreUnits(t *testing.T) {
	cfg, err := Config(false)
	if err != nil {
		t.Fatal(err)
	}
	pc, _, err := Planted(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	need := compare.RequestsForQuantile(99)
	for _, p := range append(slices.Clone(cfg.Pairs), pc.Pairs...) {
		s := pc.ScenarioNamed(p.Base)
		if s == nil {
			s = cfg.ScenarioNamed(p.Base)
		}
		l := s.Load
		if l.Mode != "rate" {
			continue
		}
		sent := int(l.Rate * l.Duration.D().Seconds())
		if l.Arrival == "poisson" {
			sched, n := harness.NewPoissonSchedule(l.Rate, l.Seed), 0
			for off, _, _ := sched.Next(); off < l.Duration.D(); off, _, _ = sched.Next() {
				n++
			}
			sent = n
		}
		if sent < need {
			t.Errorf("pair %s: a %v trial at %v/s (%s) sends %d requests, want at least %d", p.Name, l.Duration.D(), l.Rate, cmp.Or(l.Arrival, "constant"), sent, need)
		}
	}
}

// SecondLook is the longest selected fixed-load pair's first look, and
// nothing for knee pairs alone: their later rounds are not planned.
func TestSecondLook(t *testing.T) {
	cfg, err := Config(false)
	if err != nil {
		t.Fatal(err)
	}
	llm := PairPlanned(cfg, cfg.ScenarioNamed("llm-fp32"))
	if got := SecondLook(cfg, false, []string{"llm-fp32"}); got != llm {
		t.Errorf("SecondLook of the LLM model pair = %v, want its plan %v", got, llm)
	}
	if got := SecondLook(cfg, false, []string{"service-batch32"}); got != 0 {
		t.Errorf("SecondLook of the knee pairs alone = %v, want 0", got)
	}
	full := SecondLook(cfg, false, nil)
	if full < llm || full >= Planned(cfg, false, nil)/2 {
		t.Errorf("SecondLook of the full demo = %v, want at least the LLM model pair's %v and well under the plan", full, llm)
	}
	t.Logf("a second look adds up to %v", full)
}
