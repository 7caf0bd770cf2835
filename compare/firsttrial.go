package compare

import (
	"math"

	"github.com/perfgate/perfgate/result"
)

// FirstTrialEffect is how much slower a target process's first trial ran
// than the same process's later trials, at P50, over one side's processes
// that served two or more: 100·(exp(θ) − 1), θ the mean over processes of
// ln(first) − the mean of ln(later), with Student's interval. A warm-up
// that ends before the target is steady (a server still warming under
// load) shows here. In ABBA order it lands on the
// first-measured side of a block's first pair only, so the paired estimate
// cancels it as it does the order effect, but it widens the interval.
type FirstTrialEffect struct {
	Processes int
	Pct       float64
	CIPct     [2]float64
}

// MinFirstTrialProcesses is the fewest processes FirstTrial estimates
// from: with two the t quantile leaves any interval wide open.
const MinFirstTrialProcesses = 3

// FirstTrial estimates the first-trial effect of one side's trials, in the
// order measured, grouped by result.Trial.Process (trials with no process
// or no P50 left out). ok is false with fewer than
// MinFirstTrialProcesses processes of two or more trials.
func FirstTrial(trials []result.Trial, conf float64) (FirstTrialEffect, bool) {
	type proc struct {
		first, later float64 // ln P50 of the first; the sum over the later
		n            int     // trials
	}
	var order []int
	by := map[int]*proc{}
	for _, t := range trials {
		if t.Process <= 0 || !(t.Latency.P50 > 0) {
			continue
		}
		l := math.Log(t.Latency.P50)
		p := by[t.Process]
		if p == nil {
			by[t.Process] = &proc{first: l, n: 1}
			order = append(order, t.Process)
			continue
		}
		p.later += l
		p.n++
	}
	var d []float64
	for _, k := range order {
		if p := by[k]; p.n >= 2 {
			d = append(d, p.first-p.later/float64(p.n-1))
		}
	}
	if len(d) < MinFirstTrialProcesses {
		return FirstTrialEffect{}, false
	}
	pct := func(x float64) float64 { return 100 * (math.Exp(x) - 1) }
	t := pairedT(d, conf)
	return FirstTrialEffect{Processes: len(d), Pct: pct(t.mid), CIPct: [2]float64{pct(t.lo), pct(t.hi)}}, true
}

// FirstTrialNotes notes, on an A/B scenario's comparison sc of the pairs
// p, each side whose processes' first trials ran slower than their later
// ones at confidence conf (NoteFirstTrial): the warm-up to lengthen.
func FirstTrialNotes(sc *ScenarioComparison, p Pairs, conf float64) {
	n := p.Len()
	for i, side := range [][]result.Trial{p.Base[:n], p.Head[:n]} {
		e, ok := FirstTrial(side, conf)
		if !ok || !(e.CIPct[0] > 0) {
			continue
		}
		ci := e.CIPct
		sc.Notes = append(sc.Notes, Note{Code: NoteFirstTrial, Metric: MetricP50, Side: [2]string{"base", "head"}[i], Count: e.Processes, Pct: e.Pct, CIPct: &ci})
	}
}
