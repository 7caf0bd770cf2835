package compare

import (
	"testing"

	"github.com/perfgate/perfgate/result"
)

// failing is a knee search that met the SLO at none of rates.
func failing(rates ...float64) *result.Capacity {
	c := &result.Capacity{SLOP99Ms: 50}
	for _, r := range rates {
		c.Points = append(c.Points, result.Point{OfferedRPS: r, Pass: false, Why: "p99 above the SLO"})
	}
	if len(rates) > 0 {
		c.Bracket = [2]float64{0, rates[len(rates)-1]}
	}
	return c
}

// TestCensoredKnee checks max QPS when one side's knee search met the SLO
// at no rate it tried (MethodCensoredKnee): against a baseline measured in
// one run (15% run-to-run noise assumed), a candidate that failed down to
// a few rps is regressed, its lowest failing rate the bound; one whose
// lowest failing rate is within the noise is not; two failing probes are
// not enough; and a baseline that met the SLO nowhere against a candidate
// that does is improved, its interval open above.
func TestCensoredKnee(t *testing.T) {
	est := []float64{340, 352, 361, 346, 355}
	found := &result.Capacity{SLOP99Ms: 50, Found: true, MaxQPS: 352, Bracket: [2]float64{352, 370}, Estimates: est}
	tests := []struct {
		name           string
		b, c           *result.Capacity
		wantMethod     string
		wantVerdict    Verdict
		wantDelta      float64 // percent, ±0.5
		wantCensored   string
		wantOpenHigh   bool
		wantTopVerdict Verdict
	}{
		{"candidate fails down to 5 rps", found, failing(100, 40, 16, 6.4, 5), MethodCensoredKnee, Regressed, 100*(5/GeoMean(est)) - 100, "candidate", false, Fail},
		{"candidate fails only near the knee", found, failing(400, 345, 335), MethodCensoredKnee, Inconclusive, 100*(335/GeoMean(est)) - 100, "candidate", false, Undecided},
		{"two failing probes are no bound", found, failing(100, 40), MethodBracket, Inconclusive, -100, "", false, Undecided},
		{"baseline fails, candidate meets the SLO", failing(100, 40, 16, 6.4, 5), found, MethodCensoredKnee, Improved, 100*(GeoMean(est)/5) - 100, "baseline", true, Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, c := pair(t, 9, 1, nil)
			b.Capacity, c.Capacity = tt.b, tt.c
			got := mustCompare(t, one(b), one(c), DefaultSettings())
			m := metric(t, got, MetricMaxQPS)
			if m.Method != tt.wantMethod || m.Verdict != tt.wantVerdict || m.Censored != tt.wantCensored || m.CIOpenHigh != tt.wantOpenHigh {
				t.Errorf("max_qps = %s %s %+.1f%% %v p %v censored %q open %v, want %s %s censored %q open %v",
					m.Method, m.Verdict, m.DeltaPct, m.CIPct, m.PValue, m.Censored, m.CIOpenHigh, tt.wantMethod, tt.wantVerdict, tt.wantCensored, tt.wantOpenHigh)
			}
			if d := m.DeltaPct - tt.wantDelta; d > 0.5 || d < -0.5 {
				t.Errorf("delta %+.2f%%, want %+.2f%%", m.DeltaPct, tt.wantDelta)
			}
			if got.Verdict != tt.wantTopVerdict {
				t.Errorf("verdict %s (%s), want %s", got.Verdict, got.Reason, tt.wantTopVerdict)
			}
			// The scenario's layer says its max QPS is the same bound.
			if l := got.Layers; len(l) != 1 || l[0].MaxQPS == nil || l[0].MaxQPS.Censored != tt.wantCensored || l[0].MaxQPS.Verdict != m.Verdict {
				t.Errorf("layers %+v: want one whose max QPS is censored %q, %s", l, tt.wantCensored, m.Verdict)
			}
			if m.Method == MethodCensoredKnee && (m.EquivCIPct == nil || m.PValue == nil || m.MDEPct != nil) {
				t.Errorf("censored metric: equivalence %v, p %v, mde %v: want an equivalence interval, a p-value and no MDE", m.EquivCIPct, m.PValue, m.MDEPct)
			}
		})
	}
}

// TestCensoredKneeNeverUnchanged: a bound is no estimate: however close
// the censored side's lowest failing rate is to the other's knee, the
// interval reaches −100%, so the change is never called unchanged.
func TestCensoredKneeNeverUnchanged(t *testing.T) {
	est := []float64{350, 351, 349, 350, 350}
	b := &result.Capacity{SLOP99Ms: 50, Found: true, MaxQPS: 350, Bracket: [2]float64{350, 360}, Estimates: est}
	m := maxQPS(b, failing(400, 360, 351), withinRun(), 0, 1).m
	if m == nil || m.Method != MethodCensoredKnee {
		t.Fatalf("metric %+v, want the censored test", m)
	}
	if v := Decide(m.evidence(*m.PValue, 0.05)); v == Unchanged {
		t.Errorf("verdict %s for %+.1f%% %v: a bound is never unchanged", v, m.DeltaPct, m.CIPct)
	}
}
