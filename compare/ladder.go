package compare

import (
	"fmt"
	"math"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/perfgate/perfgate/result"
)

// Ladder attributes the end-to-end change across rungs, ordered results
// from the baseline variant to the candidate variant measured in one run,
// each rung changing one layer (say fp16 → int8, then batching on, then
// protobuf). Step i is the change in P99 (and max QPS, when every rung ran
// a sweep) from rung i−1 to rung i, credited to rung i's layer.
//
// Steps are ratios: P99(rung i)/P99(rung i−1). Ratios compound, so their
// logarithms add: Σ log step = log whole, exactly, for the point values,
// and a layer's share of the whole is its log ratio over the whole's.
// Nothing is left over to call an "interaction": measuring one needs a
// factorial set of rungs (each change alone and together), not a ladder.
//
// Each step is tested as a scenario's P99 is (the same test). When every
// rung's trials came from two or more target processes, over processes:
// each rung's point is the geometric mean of its processes' P99s (so the
// steps still compound exactly), and each step is the pooled t-test on
// their logarithms with its t-interval, decided by the point-and-test
// rule (MethodProcesses). Otherwise over trials: the Mann-Whitney U test
// of the two rungs' per-trial P99s and a bootstrap interval of the ratio,
// decided by the interval rule; that bootstrap is joint: each replicate
// resamples every rung's trials once and computes all steps and the whole
// from the same resampled rungs. The error is for fewer than
// two rungs, invalid settings or a rung without usable histograms.
func Ladder(rungs []*result.Result, s Settings) (*LadderAttribution, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("comparison settings: %w", err)
	}
	if len(rungs) < 2 {
		return nil, fmt.Errorf("ladder needs at least two rungs, got %d", len(rungs))
	}
	la := &LadderAttribution{}
	var hists []*hdrhistogram.Histogram
	var procs []int
	offs := make([]int, len(rungs)+1)
	var names []string
	for i, r := range rungs {
		la.Rungs = append(la.Rungs, r.Scenario)
		names = append(names, r.Scenario)
		sd := prepare(r, "rung", r.Scenario)
		if sd.broken != "" {
			return nil, fmt.Errorf("ladder: %s", sd.broken)
		}
		if len(sd.lat) == 0 {
			return nil, fmt.Errorf("ladder: rung %q has no valid trial with latencies", r.Scenario)
		}
		la.Notes = append(la.Notes, sd.notes...)
		if r.Interrupted || !r.Valid {
			la.Notes = append(la.Notes, Note{Code: NoteRungInvalid, Scenario: r.Scenario})
		}
		if i > 0 && r.Layer == "" {
			la.Notes = append(la.Notes, Note{Code: NoteRungNoLayer, Scenario: r.Scenario})
		}
		hists = append(hists, sd.lat...)
		procs = append(procs, sd.latProc...)
		offs[i+1] = offs[i] + len(sd.lat)
	}
	qs := newQuantSet(hists)
	k := len(rungs)
	ws := make([][]int, k)
	for i := range ws {
		ws[i] = make([]int, offs[k])
		for j := offs[i]; j < offs[i+1]; j++ {
			ws[i][j] = 1
		}
	}
	p99 := func() []float64 {
		q := make([]float64, k)
		for i := range q {
			q[i] = qs.quantile(ws[i], 99)
		}
		return q
	}
	// Each rung's per-trial P99s, for the test.
	perTrial := make([][]float64, k)
	one := make([]int, offs[k])
	for i := range k {
		for j := offs[i]; j < offs[i+1]; j++ {
			clear(one)
			one[j] = 1
			perTrial[i] = append(perTrial[i], qs.quantile(one, 99))
		}
	}
	point := p99()
	// Each rung's per-process P99s, when every rung has two processes or
	// more: the test over processes.
	perProc := make([][]float64, k)
	byProcess := true
	for i := range k {
		for _, g := range groupsOf(procs[offs[i]:offs[i+1]], offs[i]) {
			clear(one)
			for _, j := range g {
				one[j] = 1
			}
			perProc[i] = append(perProc[i], qs.quantile(one, 99))
		}
		byProcess = byProcess && len(perProc[i]) >= 2
	}
	if byProcess {
		for i := range k {
			point[i] = GeoMean(perProc[i])
		}
	}
	stepReps := make([][]float64, k-1)
	var wholeReps []float64
	rs := newResampler(s.Seed, "ladder:"+strings.Join(names, ">"))
	for range s.Resamples {
		for i := range ws {
			rs.draw(ws[i], offs[i], offs[i+1]-offs[i])
		}
		q := p99()
		for i := 1; i < k; i++ {
			stepReps[i-1] = append(stepReps[i-1], 100*(q[i]/q[i-1]-1))
		}
		wholeReps = append(wholeReps, 100*(q[k-1]/q[0]-1))
	}
	thr, margin := 100*s.P99Regression, s.TailMargin(MetricP99)
	change := func(from, to int, reps []float64) Change {
		ratio := point[to] / point[from]
		eq := percentileInterval(reps, equivConf(s.Confidence))
		c := Change{DeltaPct: 100 * (ratio - 1), CIPct: percentileInterval(reps, s.Confidence),
			EquivCIPct: &eq, Ratio: ratio, LogRatio: math.Log(ratio)}
		if byProcess {
			if t, ok := processTest(perProc[from], perProc[to], s.Confidence, 0); ok { // rungs of one run: no run-to-run term
				eq, _ := processTest(perProc[from], perProc[to], equivConf(s.Confidence), 0)
				c.CIPct, c.EquivCIPct = t.ci, &eq.ci
				decideChange(&c, thr, margin, LowerIsBetter, t.p, s.alpha())
				return c
			}
		}
		decideChange(&c, thr, margin, LowerIsBetter, mannWhitney(perTrial[from], perTrial[to]), s.alpha())
		return c
	}
	allQPS := true
	for _, r := range rungs {
		allQPS = allQPS && r.Capacity != nil && r.Capacity.Found
	}
	for i := 1; i < k; i++ {
		st := LadderStep{From: rungs[i-1].Scenario, To: rungs[i].Scenario, Layer: rungs[i].Layer,
			P99: change(i-1, i, stepReps[i-1])}
		if allQPS {
			st.MaxQPS = qpsStep(rungs[i-1].Capacity, rungs[i].Capacity, s)
		}
		la.Steps = append(la.Steps, st)
	}
	la.Whole = LadderStep{From: rungs[0].Scenario, To: rungs[k-1].Scenario, P99: change(0, k-1, wholeReps)}
	if allQPS {
		la.Whole.MaxQPS = qpsStep(rungs[0].Capacity, rungs[k-1].Capacity, s)
	} else {
		la.Notes = append(la.Notes, Note{Code: NoteLadderNoQPS})
	}
	if !s.IgnoreHostLoad {
		for i := range la.Steps {
			la.Notes = append(la.Notes, ladderHostBusy(&la.Steps[i], rungs[i], rungs[i+1])...)
		}
		la.Notes = append(la.Notes, ladderHostBusy(&la.Whole, rungs[0], rungs[k-1])...)
	}
	return la, nil
}

// ladderHostBusy makes a step's regressed or improved inconclusive when
// either rung was measured while the host was busy with other work, as a
// scenario's verdict is (hostBusy): the neighbour, not the layer, may
// explain it. It returns the notes saying so.
func ladderHostBusy(st *LadderStep, a, b *result.Result) []Note {
	busy := func(r *result.Result, probes bool) (n, of int) {
		for _, t := range r.Trials {
			of++
			if t.Host != nil && t.Host.Busy {
				n++
			}
		}
		if probes && r.Capacity != nil {
			for _, p := range r.Capacity.Points {
				of++
				if p.Host != nil && p.Host.Busy {
					n++
				}
			}
		}
		return n, of
	}
	var out []Note
	for _, ch := range []struct {
		c      *Change
		metric string
		probes bool
	}{{&st.P99, MetricP99, false}, {st.MaxQPS, MetricMaxQPS, true}} {
		if ch.c == nil {
			continue
		}
		na, oa := busy(a, ch.probes)
		nb, ob := busy(b, ch.probes)
		if from := holdChange(ch.c, na+nb); from != "" {
			out = append(out, Note{Code: NoteLadderBusy, From: st.From, To: st.To, Metric: ch.metric, Verdict: from, Count: na + nb, Total: oa + ob})
		}
	}
	return out
}

// qpsStep is the max QPS change between two knees, tested as a scenario's
// max QPS is (knee estimates, or brackets when there are none), as a ratio.
func qpsStep(a, b *result.Capacity, s Settings) *Change {
	k := maxQPS(a, b, s, 0, math.Inf(1)) // rungs of one run
	m, ratio := k.m, k.ratio
	if m == nil {
		return nil
	}
	c := &Change{DeltaPct: m.DeltaPct, CIPct: m.CIPct, EquivCIPct: m.EquivCIPct, CIOpenHigh: m.CIOpenHigh, Ratio: ratio[0]}
	if ratio[0] > 0 {
		c.LogRatio = math.Log(ratio[0])
	}
	p := math.NaN()
	if m.PValue != nil {
		p = *m.PValue
	}
	decideMetric(m, p, s.alpha())
	describeChange(c, m)
	return c
}
