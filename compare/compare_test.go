package compare

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
)

// pair makes a baseline and a candidate of one scenario, the candidate's
// latencies scaled by scale.
func pair(t *testing.T, seed uint64, scale float64, mod func(sp *comparetest.Spec)) (*result.Result, *result.Result) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	sp := comparetest.Spec{Scenario: "s", Layer: "service", Trials: 5, Requests: 20000, MedianMs: 4, Noise: 0.01}
	if mod != nil {
		mod(&sp)
	}
	b := comparetest.Result(sp, rng)
	sp.Scale = scale
	c := comparetest.Result(sp, rng)
	return b, c
}

func mustCompare(t *testing.T, base, cand []*result.Result, s Settings) *Comparison {
	t.Helper()
	c, err := Compare(base, cand, s)
	if err != nil {
		t.Fatalf("Compare: %v", err)
	}
	if _, err := json.Marshal(c); err != nil {
		t.Fatalf("comparison does not encode as JSON: %v", err)
	}
	return c
}

func one(r *result.Result) []*result.Result { return []*result.Result{r} }

// hasNote reports whether ns holds a note of want's code whose fields
// match each field set in want (Text as a substring).
func hasNote(ns []Note, want Note) bool {
	for _, n := range ns {
		if n.Code == want.Code && (want.Scenario == "" || n.Scenario == want.Scenario) &&
			(want.Metric == "" || n.Metric == want.Metric) && (want.Side == "" || n.Side == want.Side) &&
			(want.Trial == 0 || n.Trial == want.Trial) && strings.Contains(n.Text, want.Text) &&
			(want.Verdict == "" || n.Verdict == want.Verdict) && (want.Count == 0 || n.Count == want.Count) &&
			(want.Total == 0 || n.Total == want.Total) && (want.Need == 0 || n.Need == want.Need) &&
			(want.Cand == 0 || n.Cand == want.Cand) && (want.Pct == 0 || n.Pct == want.Pct) &&
			(want.FloorPct == 0 || n.FloorPct == want.FloorPct) {
			return true
		}
	}
	return false
}

func TestCompareVerdicts(t *testing.T) {
	tests := []struct {
		name     string
		scale    float64
		mod      func(sp *comparetest.Spec)
		edit     func(b, c *result.Result)
		s        func(s *Settings)
		want     Verdict
		wantScen Verdict
		wantNote Note
		// floorOnly: undecided only because the noise floor raised the
		// regression threshold; no count of trials would decide it.
		floorOnly bool
	}{
		{name: "regression", scale: 1.3, want: Fail, wantScen: Regressed},
		{name: "improvement", scale: 0.7, want: Pass, wantScen: Improved},
		{name: "same", scale: 1, want: Pass},
		// 3 trials a side cannot reach p < 0.05: a change beyond the
		// threshold is undecided, never a pass.
		{name: "too few trials", scale: 1.3, want: Undecided, wantScen: Inconclusive,
			mod: func(sp *comparetest.Spec) { sp.Trials = 3 }, wantNote: Note{Code: NoteTrialPower, Need: 5}},
		// Inside the threshold, too few trials to call a regression can
		// still show the change inside it.
		{name: "too few trials, no change", scale: 1, want: Pass,
			mod: func(sp *comparetest.Spec) { sp.Trials = 3 }},
		{name: "invalid candidate never fails", scale: 1.3, want: Undecided, wantScen: Inconclusive,
			edit: func(b, c *result.Result) { c.Valid = false }, wantNote: Note{Code: NoteInvalidResults}},
		{name: "interrupted candidate", scale: 1.3, want: Undecided, wantScen: Inconclusive,
			edit: func(b, c *result.Result) { c.Interrupted = true }, wantNote: Note{Code: NoteInvalidResults}},
		{name: "generator-limited trial left out", scale: 1, want: Pass,
			edit: func(b, c *result.Result) {
				c.Trials[2].Valid = false
				c.Trials[2].GeneratorLimited = true
				c.Trials[2].Invalid = []string{"the generator was saturated: it used 1.95 of 2 cores"}
			}, wantNote: Note{Code: NoteTrialLeftOut, Side: "candidate", Trial: 3, Text: "the generator was saturated"}},
		// A target that fell behind is what the gate must see: the flagged
		// trial stays in, and the regression it carries is found.
		{name: "overloaded target trial kept", scale: 1.3, want: Fail, wantScen: Regressed,
			edit: func(b, c *result.Result) {
				c.Trials[2].Valid = false
				c.Trials[2].Invalid = []string{"achieved 900.0 rps, under 95% of the offered 1000.0 rps"}
			}, wantNote: Note{Code: NoteTrialFlagged, Side: "candidate", Trial: 3}},
		{name: "simulated flagged", scale: 1, want: Pass,
			edit: func(b, c *result.Result) { c.Simulated = true }, wantNote: Note{Code: NoteSimulated, Side: "candidate"}},
		{name: "other GPU", scale: 1, want: Incomparable,
			mod:  func(sp *comparetest.Spec) { sp.GPU = "NVIDIA H200" },
			edit: func(b, c *result.Result) { c.Environment.GPUs[0].Name = "NVIDIA A100" }},
		{name: "other GPU allowed", scale: 1, want: Pass,
			mod:  func(sp *comparetest.Spec) { sp.GPU = "NVIDIA H200" },
			edit: func(b, c *result.Result) { c.Environment.GPUs[0].Driver = "560.1" },
			s:    func(s *Settings) { s.AllowEnvMismatch = true }, wantNote: Note{Code: NoteEnvMismatchAllowed}},
		{name: "damaged candidate histogram", scale: 1.3, want: Undecided, wantScen: Inconclusive,
			edit: func(b, c *result.Result) { c.Trials[1].Histogram = "HISTFAAAAB" }, wantNote: Note{Code: NoteInvalidResults}},
		{name: "other load", scale: 1, want: Pass,
			edit: func(b, c *result.Result) { c.Load.Rate = 2000 }, wantNote: Note{Code: NoteOfferedRates, Cand: 2000}},
		// A regression resting on trials from a busy host is not blamed
		// on the change.
		{name: "host busy", scale: 1.3, want: Undecided, wantScen: Inconclusive,
			edit: func(b, c *result.Result) {
				c.Trials[1].Host = &result.HostLoad{OtherCPUCores: 1.2, Busy: true, Why: "other processes used 1.20 cores"}
			}},
		// A busy baseline looks slower than it is: an improvement over it
		// is not credited to the change; a busy candidate only hides one.
		{name: "improvement over a busy baseline", scale: 0.7, want: Undecided, wantScen: Inconclusive,
			edit: func(b, c *result.Result) {
				b.Trials[1].Host = &result.HostLoad{OtherCPUCores: 1.2, Busy: true, Why: "other processes used 1.20 cores"}
			}},
		{name: "improvement, busy candidate", scale: 0.7, want: Pass, wantScen: Improved,
			edit: func(b, c *result.Result) {
				c.Trials[1].Host = &result.HostLoad{OtherCPUCores: 1.2, Busy: true, Why: "other processes used 1.20 cores"}
			}},
		{name: "host busy, nothing regressed", scale: 1, want: Pass,
			edit: func(b, c *result.Result) {
				c.Trials[1].Host = &result.HostLoad{OtherCPUCores: 1.2, Busy: true, Why: "other processes used 1.20 cores"}
			}},
		// The baseline's measured run-to-run noise raises the bar for a
		// regression: a 30% change inside a 40% floor is not one; nor is
		// it unchanged, which still means within the configured 5% (it
		// once passed).
		{name: "inside the noise floor", scale: 1.3, want: Undecided, wantScen: Inconclusive, floorOnly: true,
			edit: func(b, c *result.Result) { b.NoiseFloorPct = map[string]float64{MetricP50: 40, MetricP99: 40} }, wantNote: Note{Code: NoteNoiseFloorRaised, Pct: 5, FloorPct: 40}},
		{name: "no change, noise floor", scale: 1, want: Pass, wantScen: Unchanged,
			edit: func(b, c *result.Result) { b.NoiseFloorPct = map[string]float64{MetricP99: 40} }},
		{name: "error rate up", scale: 1, want: Fail, wantScen: Regressed,
			edit: func(b, c *result.Result) {
				for i := range c.Trials {
					c.Trials[i].Errors = 250 // 5% of 5000
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, c := pair(t, 11, tt.scale, tt.mod)
			if tt.edit != nil {
				tt.edit(b, c)
			}
			s := DefaultSettings()
			if tt.s != nil {
				tt.s(&s)
			}
			got := mustCompare(t, one(b), one(c), s)
			if got.Verdict != tt.want {
				t.Errorf("verdict = %s (%s), want %s", got.Verdict, got.Reason, tt.want)
			}
			if tt.wantScen != "" && got.Scenarios[0].Verdict != tt.wantScen {
				t.Errorf("scenario verdict = %s (%s), want %s", got.Scenarios[0].Verdict, got.Scenarios[0].Reason, tt.wantScen)
			}
			all := append(append([]Note{}, got.Notes...), got.Scenarios[0].Notes...)
			if tt.wantNote.Code != "" && !hasNote(all, tt.wantNote) {
				t.Errorf("notes %+v lack %+v", all, tt.wantNote)
			}
			if tt.want == Undecided && !tt.floorOnly && got.Scenarios[0].TrialsNeeded == 0 && !got.Scenarios[0].HostBusy && !got.Scenarios[0].Invalid {
				t.Errorf("undecided scenario says no trials needed: %+v", got.Scenarios[0])
			}
			if (got.Verdict == Fail) != errors.Is(got.Err(), ErrRegression) {
				t.Errorf("Err() = %v for verdict %s", got.Err(), got.Verdict)
			}
		})
	}
}

func TestCompareNoBaselineAndMissing(t *testing.T) {
	b, c := pair(t, 5, 1, nil)
	c.Scenario = "new"
	got := mustCompare(t, one(b), one(c), DefaultSettings())
	if got.Verdict != NoBaseline || got.Scenarios[0].Verdict != NoBaseline {
		t.Errorf("verdicts = %s, %s; want %s for both", got.Verdict, got.Scenarios[0].Verdict, NoBaseline)
	}
	if !hasNote(got.Notes, Note{Code: NoteNotMeasured, Scenario: "s"}) {
		t.Errorf("notes %+v lack the unmeasured baseline", got.Notes)
	}
	if got.Err() != nil {
		t.Errorf("Err() = %v, want nil: no baseline passes", got.Err())
	}
}

// Max QPS from one knee a side (brackets only) can say unchanged, never
// regressed or improved: a bracket is search resolution, not noise.
func TestCompareMaxQPSBrackets(t *testing.T) {
	tests := []struct {
		name         string
		base, cand   [2]float64
		candQPS      float64
		want         Verdict
		wantOpenHigh bool
	}{
		{"disjoint brackets, far below", [2]float64{1000, 1100}, [2]float64{800, 900}, 800, Inconclusive, false},
		// The candidate's top 990 is only 1% under the baseline's bottom.
		{"close brackets", [2]float64{1000, 1100}, [2]float64{900, 990}, 900, Inconclusive, false},
		{"same bracket", [2]float64{1000, 1020}, [2]float64{1000, 1020}, 1000, Unchanged, false},
		{"much higher", [2]float64{1000, 1100}, [2]float64{1500, 1600}, 1500, Inconclusive, false},
		{"candidate never failed", [2]float64{1000, 1100}, [2]float64{1500, 0}, 1500, Inconclusive, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, c := pair(t, 9, 1, nil)
			b.Capacity = &result.Capacity{SLOP99Ms: 50, MaxQPS: tt.base[0], Bracket: tt.base, Found: true}
			c.Capacity = &result.Capacity{SLOP99Ms: 50, MaxQPS: tt.candQPS, Bracket: tt.cand, Found: true}
			got := mustCompare(t, one(b), one(c), withinRun())
			m := metric(t, got, MetricMaxQPS)
			if m.Verdict != tt.want || m.CIOpenHigh != tt.wantOpenHigh || m.PValue != nil {
				t.Errorf("max_qps = %s %v open %v p %v, want %s open %v no p", m.Verdict, m.CIPct, m.CIOpenHigh, m.PValue, tt.want, tt.wantOpenHigh)
			}
			if !hasNote(got.Scenarios[0].Notes, Note{Code: NoteKneeBracket, Side: "either", Need: MinKneeEstimates}) && !tt.wantOpenHigh {
				t.Errorf("notes %+v do not say max_qps has no test", got.Scenarios[0].Notes)
			}
		})
	}
}

// Max QPS with knee estimates is tested: a clear loss regresses, noise
// inside the threshold does not.
func TestCompareMaxQPSEstimates(t *testing.T) {
	tests := []struct {
		name       string
		base, cand []float64
		want       Verdict
		wantTop    Verdict
	}{
		{"clear loss", []float64{1000, 1020, 990, 1010}, []float64{800, 820, 790, 805}, Regressed, Fail},
		{"same", []float64{1000, 1010, 995, 1005}, []float64{1002, 998, 1008, 1001}, Unchanged, Pass},
		{"noisy loss beyond the threshold", []float64{1000, 1300, 800, 1100}, []float64{900, 1200, 700, 950}, Inconclusive, Undecided},
		{"clear gain", []float64{1000, 1020, 990, 1010}, []float64{1300, 1320, 1290, 1310}, Improved, Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, c := pair(t, 9, 1, nil)
			b.Capacity = &result.Capacity{SLOP99Ms: 50, MaxQPS: tt.base[0], Bracket: [2]float64{tt.base[0], tt.base[0] * 1.03}, Found: true, Estimates: tt.base}
			c.Capacity = &result.Capacity{SLOP99Ms: 50, MaxQPS: tt.cand[0], Bracket: [2]float64{tt.cand[0], tt.cand[0] * 1.03}, Found: true, Estimates: tt.cand}
			got := mustCompare(t, one(b), one(c), withinRun())
			m := metric(t, got, MetricMaxQPS)
			if m.Verdict != tt.want || m.PValue == nil || m.Method != MethodKneeEstimates || m.NBase != len(tt.base) {
				t.Errorf("max_qps = %s %+.1f%% %v p %v method %s n %d, want %s with a p-value", m.Verdict, m.DeltaPct, m.CIPct, m.PValue, m.Method, m.NBase, tt.want)
			}
			if got.Verdict != tt.wantTop {
				t.Errorf("verdict = %s (%s), want %s", got.Verdict, got.Reason, tt.wantTop)
			}
		})
	}
}

// withinRun is DefaultSettings for two sides whose model has no run-level
// noise (the same run, or a simulation of per-process noise only): no
// run-to-run variance is assumed (Settings.RunToRun 0).
func withinRun() Settings {
	s := DefaultSettings()
	s.RunToRun = 0
	return s
}

func metric(t *testing.T, c *Comparison, name string) *Metric {
	t.Helper()
	for i := range c.Scenarios[0].Metrics {
		if c.Scenarios[0].Metrics[i].Metric == name {
			return &c.Scenarios[0].Metrics[i]
		}
	}
	t.Fatalf("no %s metric in %+v", name, c.Scenarios[0].Metrics)
	return nil
}

func TestCompareStreamingMetrics(t *testing.T) {
	b, c := pair(t, 3, 1.3, func(sp *comparetest.Spec) { sp.Streaming = true })
	got := mustCompare(t, one(b), one(c), DefaultSettings())
	want := []string{MetricP50, MetricP99, MetricP999, MetricErrorRate, MetricTTFTP50, MetricTTFTP99, MetricTPOTP50, MetricTPOTP99, MetricTokensPerS, MetricGoodput}
	var names []string
	for _, m := range got.Scenarios[0].Metrics {
		names = append(names, m.Metric)
	}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("metrics = %v, want %v", names, want)
	}
	for _, m := range got.Scenarios[0].Metrics {
		if m.Metric == MetricTokensPerS && m.Verdict != Regressed {
			t.Errorf("tokens/s down 23%%: verdict %s %v, want %s", m.Verdict, m.CIPct, Regressed)
		}
	}
	if got.Verdict != Fail {
		t.Errorf("verdict = %s, want %s", got.Verdict, Fail)
	}
}

// A two-run baseline's floor is in the test over processes as P99's and
// max QPS's run-to-run variance (runFloorVar); TTFT's and TPOT's own
// floors, which P99's need not hold, still raise their thresholds.
func TestStreamingFloorsRaiseTheirThresholds(t *testing.T) {
	b, c := pair(t, 4, 1, func(sp *comparetest.Spec) { sp.Streaming = true })
	for _, r := range []*result.Result{b, c} {
		for i := range r.Trials {
			r.Trials[i].Process = i + 1 // one process a trial: the test over processes
		}
	}
	b.NoiseFloorPct = map[string]float64{MetricP99: 0.1, MetricTTFTP99: 40, MetricTPOTP99: 30}
	got := mustCompare(t, one(b), one(c), DefaultSettings())
	want := map[string]float64{MetricP99: 5, MetricTTFTP99: 40, MetricTPOTP99: 30}
	for _, m := range got.Scenarios[0].Metrics {
		thr, ok := want[m.Metric]
		if !ok {
			continue
		}
		if m.Method != MethodProcesses || m.ThresholdPct != thr {
			t.Errorf("%s: %s, threshold %v%%, want %s and %v%%", m.Metric, m.Method, m.ThresholdPct, MethodProcesses, thr)
		}
	}
}

func TestCompareLayersAndSeed(t *testing.T) {
	b1, c1 := pair(t, 21, 1.3, func(sp *comparetest.Spec) { sp.Scenario, sp.Layer = "a", "model" })
	b2, c2 := pair(t, 22, 1.0, func(sp *comparetest.Spec) { sp.Scenario, sp.Layer = "b", "system" })
	base, cand := []*result.Result{b1, b2}, []*result.Result{c1, c2}
	got := mustCompare(t, base, cand, DefaultSettings())
	if len(got.Layers) != 2 || got.Layers[0].Layer != "model" || got.Layers[1].Layer != "system" {
		t.Fatalf("layers = %+v, want model then system", got.Layers)
	}
	if p := got.Layers[0].P99; p == nil || p.Verdict != Regressed || p.DeltaPct < 20 {
		t.Errorf("model layer P99 = %+v, want regressed by about 30%%", p)
	}
	if p := got.Layers[1].P99; p == nil || p.Verdict == Regressed {
		t.Errorf("system layer P99 = %+v, want not regressed", p)
	}
	again := mustCompare(t, base, cand, DefaultSettings())
	a, _ := json.Marshal(got)
	z, _ := json.Marshal(again)
	if string(a) != string(z) {
		t.Errorf("the same inputs and seed gave different comparisons")
	}
}

func TestSettingsValidate(t *testing.T) {
	if err := DefaultSettings().Validate(); err != nil {
		t.Errorf("DefaultSettings().Validate() = %v", err)
	}
	bad := DefaultSettings()
	bad.Confidence = 1.5
	bad.Resamples = 3
	if _, err := Compare(nil, nil, bad); err == nil || !strings.Contains(err.Error(), "confidence 1.5") || !strings.Contains(err.Error(), "resamples 3") {
		t.Errorf("Compare with bad settings: err = %v, want both problems named", err)
	}
}

// TestLayerOpenTop checks that a knee without upper bound keeps the
// layer's max QPS interval open instead of calling it unchanged.
func TestLayerOpenTop(t *testing.T) {
	b, c := pair(t, 9, 1, nil)
	b.Capacity = &result.Capacity{SLOP99Ms: 50, MaxQPS: 1000, Bracket: [2]float64{1000, 1050}, Found: true}
	c.Capacity = &result.Capacity{SLOP99Ms: 50, MaxQPS: 1000, Bracket: [2]float64{1000, 0}, Found: true}
	got := mustCompare(t, one(b), one(c), DefaultSettings())
	q := got.Layers[0].MaxQPS
	if q == nil || !q.CIOpenHigh || q.Verdict != Inconclusive {
		t.Errorf("layer max QPS = %+v, want an open top and inconclusive", q)
	}
}

// After a sweep, TTFT and TPOT were measured at each side's knee: shown,
// never gated, however much they moved.
func TestSweepStreamingNotGated(t *testing.T) {
	b, c := pair(t, 3, 1.5, func(sp *comparetest.Spec) { sp.Streaming = true })
	for _, r := range []*result.Result{b, c} {
		r.Load.Mode = "sweep"
	}
	got := mustCompare(t, one(b), one(c), DefaultSettings())
	for _, m := range got.Scenarios[0].Metrics {
		if (m.Metric == MetricTTFTP99 || m.Metric == MetricTPOTP99 || m.Metric == MetricP99) && m.Gated {
			t.Errorf("%s is gated after a sweep", m.Metric)
		}
	}
	if got.Verdict == Fail {
		t.Errorf("verdict = fail (%s): a sweep's latencies must not fail the gate", got.Reason)
	}
}

// A max-QPS regression whose knee probes ran while the host was busy with
// other work is inconclusive (host busy), as a latency regression on busy
// trials is; on a quiet host the same loss regresses. (Issue 11: an A/A
// gate of the demo on a shared machine failed on max QPS −50%.)
func TestCompareMaxQPSOnBusyHost(t *testing.T) {
	for _, tt := range []struct {
		name   string
		busy   bool
		ignore bool
		want   Verdict
	}{
		{"quiet host", false, false, Regressed},
		{"busy probes", true, false, Inconclusive},
		{"busy probes, ignore_host_load", true, true, Regressed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, c := pair(t, 9, 1, nil)
			b.Capacity = &result.Capacity{SLOP99Ms: 50, MaxQPS: 1000, Bracket: [2]float64{1000, 1030}, Found: true, Estimates: []float64{1000, 1020, 990, 1010}}
			c.Capacity = &result.Capacity{SLOP99Ms: 50, MaxQPS: 800, Bracket: [2]float64{800, 824}, Found: true, Estimates: []float64{800, 820, 790, 805},
				Points: []result.Point{{OfferedRPS: 800, Pass: true}, {OfferedRPS: 824, Host: &result.HostLoad{Busy: tt.busy, Why: "other processes used 1.4 cores"}}}}
			s := withinRun()
			s.IgnoreHostLoad = tt.ignore
			got := mustCompare(t, one(b), one(c), s)
			sc := got.Scenarios[0]
			if sc.Verdict != tt.want {
				t.Errorf("verdict %s (%s), want %s", sc.Verdict, sc.Reason, tt.want)
			}
			if tt.want == Inconclusive && (sc.Guard != ReasonHostBusy || len(sc.Downgrades) == 0 || !countsBusy(sc.Downgrades[len(sc.Downgrades)-1], "knee probes")) {
				t.Errorf("guard %q, downgrades %+v: the reason does not name the busy knee probes", sc.Guard, sc.Downgrades)
			}
		})
	}
}

// countsBusy reports whether d counts busy measurements of what
// ("trials", "knee probes").
func countsBusy(d Downgrade, what string) bool {
	for _, b := range d.Busy {
		if b.Of == what && b.Busy > 0 {
			return true
		}
	}
	return false
}
