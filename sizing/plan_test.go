package sizing

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing/sizingtest"
)

// sweep is sizingtest.Sweep, shared with the renderers' tests.
func sweep(maxQPS, lowestFail, meanMs float64) *result.Result {
	return sizingtest.Sweep(maxQPS, lowestFail, meanMs)
}

// Concurrency at peak and the queue-depth target use the latency at the
// operating rate, max QPS / headroom, interpolated between the sweep's
// passing probes (the knee's mean m at max QPS, 0.9m at half of it), not
// the knee's: for the design example W = 8.03 ms at 949.6 rps, so 5000 ×
// 8.03 ms = 40.2 in flight, not 42.1. With headroom 1 the operating rate
// is the knee and nothing changes ("wide bracket").
func TestPlan(t *testing.T) {
	tests := []struct {
		name      string
		res       *result.Result
		in        Input
		instances int
		rng       [2]int
		conc      float64
		target    float64
		depth     float64
		cost      *float64
		warn      string // a substring of some warning; "" means no warnings
	}{
		{
			name: "design example", res: sweep(1234.5, 1260, 8.42),
			in:        Input{PeakQPS: 5000, Headroom: 1.3, CostPerInstanceHour: 2.5},
			instances: 6, rng: [2]int{6, 6}, conc: 40.2, target: 949.6, depth: 7.6,
			cost: ptr(6 * 2.5 * 730.0),
		},
		{
			name: "default headroom", res: sweep(1000, 1100, 10),
			in:        Input{PeakQPS: 5000},
			instances: 7, rng: [2]int{6, 7}, conc: 47.7, target: 769.2, depth: 7.3,
		},
		{
			// 5000 × 1.3 / 1300 is 5.000000000000001 in floating point: still 5.
			name: "exact multiple", res: sweep(1300, 1400, 4),
			in:        Input{PeakQPS: 5000, Headroom: 1.3},
			instances: 5, rng: [2]int{5, 5}, conc: 19.1, target: 1000, depth: 3.8,
		},
		{
			// A wide bracket makes a wide range: the uncertainty shows.
			name: "wide bracket", res: sweep(500, 1000, 2),
			in:        Input{PeakQPS: 5000, Headroom: 1},
			instances: 10, rng: [2]int{5, 10}, conc: 10, target: 500, depth: 1,
		},
		{
			name: "tiny peak still needs one", res: sweep(1000, 1030, 5),
			in:        Input{PeakQPS: 1, Headroom: 1.3},
			instances: 1, rng: [2]int{1, 1}, conc: 0, target: 769.2, depth: 3.7,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Plan(tt.res, tt.in)
			if err != nil {
				t.Fatalf("Plan() error: %v", err)
			}
			got := []any{s.Instances, s.InstancesRange, s.ConcurrencyAtPeak, s.Autoscaler.TargetQPSPerInstance, s.Autoscaler.QueueDepthPerInstance, s.CostPerMonth}
			want := []any{tt.instances, tt.rng, tt.conc, tt.target, tt.depth, tt.cost}
			if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 0.051)); d != "" {
				t.Errorf("Plan() [instances range concurrency target depth cost] (-want +got):\n%s", d)
			}
			if s.Schema != Schema {
				t.Errorf("Schema = %q, want %q", s.Schema, Schema)
			}
			if !strings.Contains(s.Formula, "= ") || !strings.HasSuffix(s.Formula, "= "+strconv.Itoa(tt.instances)) {
				t.Errorf("Formula = %q, want it to end in = %d", s.Formula, tt.instances)
			}
			ws := strings.Join(s.Warnings, "\n")
			if tt.warn == "" && ws != "" {
				t.Errorf("Warnings = %q, want none", ws)
			}
			if tt.warn != "" && !strings.Contains(ws, tt.warn) {
				t.Errorf("Warnings = %q, want one containing %q", ws, tt.warn)
			}
		})
	}
}

func TestPlanDesignFormula(t *testing.T) {
	s, err := Plan(sweep(1234.5, 1260, 8.42), Input{PeakQPS: 5000, Headroom: 1.3})
	if err != nil {
		t.Fatal(err)
	}
	if want := "instances = ceil(5000 × 1.3 / 1234.5) = 6"; s.Formula != want {
		t.Errorf("Formula = %q, want %q", s.Formula, want)
	}
	if s.CostPerMonth != nil {
		t.Errorf("CostPerMonth = %v without a price, want nil", *s.CostPerMonth)
	}
	if s.LatencyBasis != "mean" {
		t.Errorf("LatencyBasis = %q, want mean", s.LatencyBasis)
	}
}

func TestPlanErrors(t *testing.T) {
	noPass := sweep(0, 200, 5)
	noPass.Capacity.Found = false
	noPass.Capacity.Bracket = [2]float64{0, 100}
	noPass.Capacity.Points = []result.Point{
		{OfferedRPS: 200, Latency: result.Latency{P99: 90}, Why: "p99"},
		{OfferedRPS: 100, Latency: result.Latency{P99: 62.25}, Why: "p99"},
	}
	errorsOnly := sweep(0, 100, 5)
	errorsOnly.Capacity.Found = false
	errorsOnly.Capacity.Points = []result.Point{{OfferedRPS: 100, Latency: result.Latency{P99: 3}, ErrorRate: 0.5, Why: "error rate 50% > 0.1%"}}
	noCap := sweep(1000, 1100, 5)
	noCap.Capacity = nil

	tests := []struct {
		name    string
		res     *result.Result
		in      Input
		noCap   bool   // the error wraps ErrNoCapacity
		message string // a substring of the error
	}{
		{"no capacity section", noCap, Input{PeakQPS: 100}, true, "has no capacity section"},
		{"no passing probe", noPass, Input{PeakQPS: 100}, true,
			"no probe met the SLO: the lowest rate tried, 100 rps, already had P99 62.25 ms > SLO 50 ms"},
		{"failed on errors", errorsOnly, Input{PeakQPS: 100}, true, "already failed: error rate 50% > 0.1%"},
		{"zero peak", sweep(1000, 1100, 5), Input{}, false, "peak_qps is 0"},
		{"negative headroom", sweep(1000, 1100, 5), Input{PeakQPS: 1, Headroom: -2}, false, "headroom is -2"},
		{"headroom below one", sweep(1000, 1100, 5), Input{PeakQPS: 1, Headroom: 0.5}, false, "headroom is 0.5"},
		{"negative price", sweep(1000, 1100, 5), Input{PeakQPS: 1, CostPerInstanceHour: -1}, false, "cost_per_instance_hour is -1"},
		{"long lead time", sweep(1000, 1100, 5), Input{PeakQPS: 1, LeadTime: 25 * time.Hour}, false, "lead_time is 25h0m0s, want 0 to 24h0m0s"},
		{"negative window", sweep(1000, 1100, 5), Input{PeakQPS: 1, ScaleInAfter: -time.Hour}, false, "scale_in_after is -1h0m0s"},
		{"hit rate of one", sweep(1000, 1100, 5), Input{PeakQPS: 1, HitRate: ptr(1)}, false, "hit_rate is 1, want 0 to 1 (exclusive)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Plan(tt.res, tt.in)
			if err == nil {
				t.Fatalf("Plan() = %+v, want an error", s)
			}
			if got := errors.Is(err, ErrNoCapacity); got != tt.noCap {
				t.Errorf("errors.Is(%v, ErrNoCapacity) = %v, want %v", err, got, tt.noCap)
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("Plan() error = %q, want it to contain %q", err, tt.message)
			}
			// An input error names the field, for a front end to spell.
			var ie *InputError
			if isInput := errors.As(err, &ie); isInput == tt.noCap || (isInput && !strings.HasPrefix(tt.message, ie.Field+" is ")) {
				t.Errorf("Plan() error %q: an *InputError %v (field %+v), want one exactly for bad input", err, isInput, ie)
			}
		})
	}
}

// TestPlanMonotone checks, over seeded random inputs, that more peak or
// more headroom never means fewer instances, a faster instance never means
// more, and the range always holds the plan.
func TestPlanMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		knee := 1 + rng.Float64()*5000
		res := sweep(knee, knee*(1+rng.Float64()*0.2), 1+rng.Float64()*50)
		peak := rng.Float64() * 1e5
		h := 1 + rng.Float64()
		base, err := Plan(res, Input{PeakQPS: peak + 0.001, Headroom: h})
		if err != nil {
			t.Fatal(err)
		}
		morePeak, _ := Plan(res, Input{PeakQPS: peak + 0.001 + rng.Float64()*1000, Headroom: h})
		moreHead, _ := Plan(res, Input{PeakQPS: peak + 0.001, Headroom: h + rng.Float64()})
		fk := knee * (1 + rng.Float64())
		faster, _ := Plan(sweep(fk, fk*1.1, 5), Input{PeakQPS: peak + 0.001, Headroom: h})
		if morePeak.Instances < base.Instances || moreHead.Instances < base.Instances {
			t.Fatalf("case %d: more load gave fewer instances: base %d, more peak %d, more headroom %d",
				i, base.Instances, morePeak.Instances, moreHead.Instances)
		}
		if faster.Instances > base.Instances {
			t.Fatalf("case %d: a faster instance needs more: %d > %d", i, faster.Instances, base.Instances)
		}
		if r := base.InstancesRange; r[0] > base.Instances || r[1] != base.Instances || r[0] < 1 {
			t.Fatalf("case %d: range %v does not end at the plan %d", i, r, base.Instances)
		}
		// The plan must actually cover the load: instances × knee >= peak × headroom.
		if float64(base.Instances)*knee < (peak+0.001)*h*(1-1e-9) {
			t.Fatalf("case %d: %d × %v < %v × %v", i, base.Instances, knee, peak, h)
		}
	}
}

func TestLittlesLaw(t *testing.T) {
	tests := []struct {
		name    string
		sum     result.Summary
		window  float64 // the trial window, s (0: unknown)
		want    LittleCheck
		wantErr string
	}{
		// Issue 29: a 5 s window of ~0.5 s requests showed −11.3% with
		// nothing wrong: edges, not timing. Not checked, and said so.
		{"window too short", result.Summary{InFlightMean: 4, AchievedRPS: 6.8, Latency: result.Latency{Mean: 520}}, 5,
			LittleCheck{}, "the 5s window is 9.6 mean latencies (520 ms) long, under 20"},
		{"window long enough", result.Summary{InFlightMean: 16, AchievedRPS: 2000, Latency: result.Latency{Mean: 8}}, 5,
			LittleCheck{MeasuredInFlight: 16, PredictedInFlight: 16, RelGap: 0, OK: true}, ""},
		{"holds", result.Summary{InFlightMean: 16, AchievedRPS: 2000, Latency: result.Latency{Mean: 8}}, 0,
			LittleCheck{MeasuredInFlight: 16, PredictedInFlight: 16, RelGap: 0, OK: true}, ""},
		{"generator queues outside the timer", result.Summary{InFlightMean: 32, AchievedRPS: 2000, Latency: result.Latency{Mean: 8}}, 0,
			LittleCheck{MeasuredInFlight: 32, PredictedInFlight: 16, RelGap: 1, OK: false}, ""},
		// Under one request in flight a 10% gap is a fraction of a request:
		// agreement (issue 21: 0.9 against 1.0 was called a timing error).
		{"small L within the slack", result.Summary{InFlightMean: 0.9, AchievedRPS: 100, Latency: result.Latency{Mean: 10}}, 0,
			LittleCheck{MeasuredInFlight: 0.9, PredictedInFlight: 1, RelGap: -0.1, OK: true}, ""},
		{"small L far off", result.Summary{InFlightMean: 0.5, AchievedRPS: 100, Latency: result.Latency{Mean: 10}}, 0,
			LittleCheck{MeasuredInFlight: 0.5, PredictedInFlight: 1, RelGap: -0.5, OK: false}, ""},
		{"large L: the relative test decides", result.Summary{InFlightMean: 17.9, AchievedRPS: 2000, Latency: result.Latency{Mean: 8}}, 0,
			LittleCheck{MeasuredInFlight: 17.9, PredictedInFlight: 16, RelGap: 0.11875, OK: false}, ""},
		{"not measured", result.Summary{AchievedRPS: 2000, Latency: result.Latency{Mean: 8}}, 0, LittleCheck{}, "in_flight_mean is 0"},
		{"no requests", result.Summary{InFlightMean: 4}, 0, LittleCheck{}, "achieved_rps is 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LittlesLaw(&result.Result{Scenario: "s", Summary: tt.sum, Load: result.Load{DurationS: tt.window}})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("LittlesLaw() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
				t.Errorf("LittlesLaw() (-want +got):\n%s", d)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	in := Input{PeakQPS: 5000, Headroom: 1.3, CostPerInstanceHour: 2.5}
	base, err := Plan(sweep(600, 620, 8), in)
	if err != nil {
		t.Fatal(err)
	}
	cand, err := Plan(sweep(470, 485, 10), in)
	if err != nil {
		t.Fatal(err)
	}
	d := Compare(base, cand)
	if d.BaselineInstances != 11 || d.CandidateInstances != 14 || d.InstancesDelta != 3 {
		t.Errorf("Compare() instances = %d → %d (%+d), want 11 → 14 (+3)", d.BaselineInstances, d.CandidateInstances, d.InstancesDelta)
	}
	if d.CostPerMonthDelta == nil || *d.CostPerMonthDelta != 3*2.5*730 {
		t.Errorf("Compare() cost delta = %v, want %v", d.CostPerMonthDelta, 3*2.5*730)
	}
	if d.BaselineMaxQPS != 600 || d.CandidateMaxQPS != 470 || d.MaxQPSDeltaPct != -21.7 {
		t.Errorf("Compare() max QPS = %v → %v (%+.1f%%), want 600 → 470 (-21.7%%)", d.BaselineMaxQPS, d.CandidateMaxQPS, d.MaxQPSDeltaPct)
	}
	if d.Overlap || len(d.Warnings) != 0 {
		t.Errorf("Compare() overlap %v warnings %q, want none", d.Overlap, d.Warnings)
	}
	noPrice, _ := Plan(sweep(470, 485, 10), Input{PeakQPS: 5000, Headroom: 1.5})
	if d := Compare(base, noPrice); d.CostPerMonthDelta != nil || len(d.Warnings) == 0 {
		t.Errorf("Compare(priced, unpriced) cost delta %v warnings %q, want nil and a warning on headroom", d.CostPerMonthDelta, d.Warnings)
	}
}

func ptr(x float64) *float64 { return &x }

// A knee search that ended without a bracket (no probe failed) is never
// sized: the capacity is only known to be above the last passing rate,
// and a plan from it would read as a measured figure (issue 27: a base
// side whose search spent its budget at the start rate was sized at 20
// rps, 130 instances).
func TestPlanRefusesNoBracket(t *testing.T) {
	_, err := Plan(sweep(800, 0, 5), Input{PeakQPS: 4000, Headroom: 1.3})
	if !errors.Is(err, ErrNoCapacity) || !strings.Contains(err.Error(), "without a bracket") {
		t.Fatalf("Plan(no failing probe) error = %v, want ErrNoCapacity saying there is no bracket", err)
	}
	gb := sweep(800, 900, 5)
	gb.Capacity.GeneratorBound = true
	if _, err := Plan(gb, Input{PeakQPS: 4000}); !errors.Is(err, ErrNoCapacity) || !strings.Contains(err.Error(), "generator_bound") {
		t.Fatalf("Plan(generator-bound) error = %v, want ErrNoCapacity naming generator_bound", err)
	}
}

// A search that passed at its max rate and stopped there sizes from the
// bound it found: the capacity is at least the max rate, so the instance
// count is at most the plan (CapacityAtLeast) and a warning says fewer may
// do. A search that stopped without a failing probe for another reason
// (its budget spent) is still refused above.
func TestPlanFromMaxRateBound(t *testing.T) {
	res := sweep(2000, 0, 5)
	res.Capacity.ReachedMaxRate = true
	res.Capacity.Stopped = "reached the max rate 2000 rps without a failing probe: the knee is higher"
	s, err := Plan(res, Input{PeakQPS: 5000, Headroom: 1.3})
	if err != nil {
		t.Fatalf("Plan(search at its max rate) error = %v, want a plan from the bound", err)
	}
	if !s.CapacityAtLeast || s.Instances != 4 || s.PerInstanceMaxQPS != 2000 {
		t.Errorf("Plan(search at its max rate) = at least %v, %d instances from %v rps, want at least true, 4 from 2000",
			s.CapacityAtLeast, s.Instances, s.PerInstanceMaxQPS)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "fewer instances may do") {
		t.Errorf("Plan(search at its max rate) warnings %q, want one saying fewer instances may do", s.Warnings)
	}
}

// With knee estimates the plan sizes from their geometric mean, the
// figure the gate tests as max QPS, and its range comes from their
// interval, not from the search's bracket.
func TestPlanFromEstimates(t *testing.T) {
	res := sweep(1000, 1100, 10)
	res.Capacity.Estimates = []float64{1180, 1220, 1200, 1210, 1190}
	s, err := Plan(res, Input{PeakQPS: 11000, Headroom: 1.3})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.PerInstanceMaxQPS-1199.9) > 0.2 || s.PerInstanceMaxQPSInterval == nil || !strings.Contains(s.PerInstanceMaxQPSBasis, "5 knee estimates") {
		t.Fatalf("capacity %v interval %v basis %q, want the estimates' geometric mean 1199.9 with an interval", s.PerInstanceMaxQPS, s.PerInstanceMaxQPSInterval, s.PerInstanceMaxQPSBasis)
	}
	iv := *s.PerInstanceMaxQPSInterval
	if !(iv[0] < 1199.9 && iv[1] > 1199.9 && iv[1]-iv[0] < 60) {
		t.Errorf("interval %v: want a narrow interval around 1199.9", iv)
	}
	if s.Instances != 12 || s.InstancesRange[0] > 12 || s.InstancesRange[1] < 12 {
		t.Errorf("instances %d range %v, want 12 = ceil(11000 × 1.3 / 1199.9) inside the range", s.Instances, s.InstancesRange)
	}
}

// The plan sizes from the figure the gate tests as max QPS: with two or
// more valid knee estimates its capacity is compare.KneeQPS of the same
// capacity (rounded to 0.1), so a plan and a gate never disagree about
// one run's knee.
func TestPlanCapacityIsGateKnee(t *testing.T) {
	for _, est := range [][]float64{
		{1180, 1220, 1200, 1210, 1190},
		{800, 1250},
		{90.5, 91.25, 130},
	} {
		res := sweep(1000, 1100, 10)
		res.Capacity.Estimates = est
		s, err := Plan(res, Input{PeakQPS: 11000, Headroom: 1.3})
		if err != nil {
			t.Fatal(err)
		}
		if want := math.Round(compare.KneeQPS(res.Capacity)*10) / 10; s.PerInstanceMaxQPS != want {
			t.Errorf("Plan(estimates %v).PerInstanceMaxQPS = %v, want compare.KneeQPS %v", est, s.PerInstanceMaxQPS, want)
		}
	}
}
