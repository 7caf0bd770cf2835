package compare

import (
	"math"

	"github.com/perfgate/perfgate/result"
)

// RunnerShiftPct is the smallest change of the runner's own speed (its
// compute probe, result.RunnerSpeed) taken as a different machine state:
// below it the two runs count as equally fast even when the difference is
// significant. On this project's 2-core runner the compute loop's samples
// spread by 0.9% (sd of the log) inside one perfgate process and its
// per-process means by 0.7% across ten processes.
const RunnerShiftPct = 10.0

// runnerMove is how far the runner's own speed (its compute probe,
// result.RunnerSpeed) moved between a baseline run and a candidate run.
type runnerMove struct {
	// pct is the change of the candidate's time per step in percent
	// (positive: the candidate's runner was slower).
	pct float64
	// measured is false when either side carries fewer than two samples.
	measured bool
	// moved is true when the change is significant and at least
	// RunnerShiftPct.
	moved bool
	// shown is the figure the scenario records: pct when it moved, else
	// 0; nil when not measured.
	shown *float64
}

// runnerShift compares the runner's compute probes of a baseline run b and
// a candidate run c with Welch's t-test on the logs; moved is decided at
// s's level (runnerMove, without shown).
//
// The memory probe is recorded but not tested: on the same idle runner its
// per-process medians ranged from 181 to 281 ns a step across ten fresh
// processes (sd of the log 0.14 between processes, 0.10 within one), so a
// pointer chase through a fresh process's 32 MiB mostly measures where
// that process's pages landed, not how fast the machine is.
func runnerShift(b, c *result.Result, s Settings) runnerMove {
	if b.Runner == nil || c.Runner == nil || len(b.Runner.Samples) < 2 || len(c.Runner.Samples) < 2 {
		return runnerMove{}
	}
	x, y := computeNs(b.Runner.Samples), computeNs(c.Runner.Samples)
	t, tested := welchLog(x, y, s.Confidence, 0)
	p := t.p
	if !tested {
		return runnerMove{}
	}
	pct := 100 * (GeoMean(y)/GeoMean(x) - 1)
	return runnerMove{pct: pct, measured: true, moved: p < s.alpha() && math.Abs(pct) >= RunnerShiftPct}
}

func computeNs(ss []result.SpeedSample) []float64 {
	out := make([]float64, 0, len(ss))
	for _, x := range ss {
		out = append(out, x.ComputeNs)
	}
	return out
}

// RunnerAmplification bounds what a runner's shift can explain: a change
// of a latency or throughput metric of at most RunnerAmplification times
// the runner's shift (on the log scale). A CPU-bound service slows in
// proportion to its CPU, and queueing near saturation amplifies that
// (at 60% utilisation a 10% slower CPU adds about 28% to the time in
// system); a regression whose interval lies wholly beyond three times the
// runner's shift is not the machine's doing and stands.
const RunnerAmplification = 3.0

// runnerSpeed measures how far the runner's own speed moved between the
// two runs (runnerShift), with the figure the scenario records.
// runnerShiftGuard decides what it excuses.
func runnerSpeed(b, c *result.Result, s Settings) runnerMove {
	r := runnerShift(b, c, s)
	if !r.measured {
		return runnerMove{}
	}
	v := 0.0
	if r.moved {
		v = r.pct
	}
	r.shown = &v
	return r
}

// leastChange is the smallest move of m in its verdict's direction that
// its interval allows, as an absolute log ratio: the interval's near end.
func leastChange(m Metric) float64 {
	near := m.CIPct[0]
	if m.DeltaPct < 0 {
		near = m.CIPct[1]
	}
	if math.IsNaN(near) || near <= -100 {
		return math.Inf(1)
	}
	return math.Abs(math.Log1p(near / 100))
}
