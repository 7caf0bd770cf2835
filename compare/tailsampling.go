package compare

import (
	"math"
	"slices"

	"github.com/perfgate/perfgate/result"
)

// The sampling floor of a quantile. A unit's P99 is read from its few
// slowest requests, so two units of one unchanged server differ by
// sampling alone; no quieter runner narrows that, only more requests a
// unit (or more units) do. The estimate is distribution-free: the rank of
// the true q-quantile among n independent requests is binomial, with
// standard deviation √(n·q·(1−q)), and half the log distance between the
// values one such deviation either side of rank n·q is the quantile's
// standard error in log terms. It is an estimate, not a bound: requests
// within a unit are not quite independent (a stall delays several), and
// on a skewed tail the two neighbouring values sit unevenly about the
// quantile. Where sampling is the only noise it reads about the units'
// spread (TestTailSpread; the project's A/A runs:
// bench/duet-2026-12-07-s11.txt).

// quantileLogSE is the standard error of ln(the q-quantile) read from the
// trials' histograms (hist gives a trial's, encoded) merged, and the
// requests behind it; ok is false without a histogram to read.
func quantileLogSE(trials []result.Trial, hist func(t *result.Trial) string, q float64) (se float64, n int64, ok bool) {
	h := result.NewHistogram()
	for i := range trials {
		enc := hist(&trials[i])
		if enc == "" {
			return 0, 0, false
		}
		th, err := result.DecodeHistogram(enc)
		if err != nil || result.Merge(h, th) != nil {
			return 0, 0, false
		}
	}
	n = h.TotalCount()
	if n < 2 {
		return 0, n, false
	}
	dev := math.Sqrt(float64(n) * q * (1 - q))
	at := func(rank float64) float64 {
		p := 100 * min(max(rank, 1), float64(n)) / float64(n)
		return float64(h.ValueAtQuantile(p))
	}
	lo, hi := at(float64(n)*q-dev), at(float64(n)*q+dev)
	if lo <= 0 || hi <= 0 {
		return 0, n, false
	}
	return (math.Log(hi) - math.Log(lo)) / 2, n, true
}

// tailSpread is what spreads a quantile's paired log ratios: their
// standard deviation (observed) and the part sampling alone gives a
// unit's two sides (sampling: √(mean over units of se_base² + se_head²)),
// with the median requests a unit a side.
type tailSpread struct {
	observed, sampling float64
	requests           int64
}

// tailSpreadOf is the spread of d, the log ratios of the units, against
// the sampling floor of sp's quantile over those units' trials; ok is
// false with fewer than three units or a unit without histograms.
func tailSpreadOf(units []pairedUnit, sp pairedSpec, d []float64) (tailSpread, bool) {
	if len(units) < 3 || len(d) != len(units) {
		return tailSpread{}, false
	}
	var sum float64
	var reqs []int64
	for _, u := range units {
		sb, nb, okb := quantileLogSE(u.base, sp.hist, sp.q)
		sh, nh, okh := quantileLogSE(u.head, sp.hist, sp.q)
		if !okb || !okh {
			return tailSpread{}, false
		}
		sum += sb*sb + sh*sh
		reqs = append(reqs, nb, nh)
	}
	slices.Sort(reqs)
	_, v := meanVar(d)
	return tailSpread{observed: math.Sqrt(v), sampling: math.Sqrt(sum / float64(len(units))), requests: reqs[len(reqs)/2]}, true
}

// TailSampling notes, on a paired comparison sc of the pairs p under s
// left undecided, each gated quantile metric still inconclusive with its
// units' spread beside its sampling floor (NoteTailSampling): whether a
// quieter runner or only more requests would narrow it. It reads every
// unit's histograms, so a caller runs it once, where the measuring
// stopped, not at every look.
func TailSampling(sc *ScenarioComparison, p Pairs, s Settings) {
	units := pairedUnits(p, int64(RequestsForQuantile(99)))
	for _, sp := range pairedSpecs(s) {
		if sp.q == 0 {
			continue
		}
		i := slices.IndexFunc(sc.Metrics, func(m Metric) bool { return m.Metric == sp.name })
		if i < 0 || !sc.Metrics[i].Gated || sc.Metrics[i].Verdict != Inconclusive {
			continue
		}
		d := make([]float64, 0, len(units))
		for _, u := range units {
			b, okb := unitValue(sp, u.base)
			h, okh := unitValue(sp, u.head)
			if !okb || !okh {
				break
			}
			d = append(d, math.Log(h/b))
		}
		if ts, ok := tailSpreadOf(units, sp, d); ok {
			sc.Notes = append(sc.Notes, Note{Code: NoteTailSampling, Metric: sp.name, Need: int(ts.requests),
				Pct: 100 * ts.observed, FloorPct: 100 * ts.sampling})
		}
	}
}
