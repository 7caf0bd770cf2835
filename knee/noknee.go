package knee

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/result"
)

// NoKneeWarning says, for a search in which no rate met the P99 SLO
// (c.Found false), what P99 each rate tried reached, and the tightest
// SLO that would have been met: the lowest P99 among the probes that
// failed on their P99 alone, rounded up, at its rate; and the SLO that
// every such probe would have met, up to the highest rate tried. It is ""
// when a knee was found, no probe was recorded, or o has no P99 SLO.
//
// A newcomer who asks for an SLO the service can never meet otherwise
// learns only that none passed; the figures say how far off it was and
// what to ask for instead.
func NoKneeWarning(c *result.Capacity, o Options) string {
	if c == nil || c.Found || len(c.Points) == 0 || o.SLOP99 <= 0 {
		return ""
	}
	// The lowest P99 at each rate tried (a rate may be probed twice).
	type rateP99 struct {
		rate, p99 float64
		onlyP99   bool // it failed on its P99 alone
	}
	var rates []rateP99
	for _, p := range c.Points {
		noP99 := o
		noP99.SLOP99 = 0
		pass, _ := judgePoint(p, noP99)
		i := slices.IndexFunc(rates, func(r rateP99) bool { return r.rate == p.OfferedRPS })
		if i < 0 {
			rates = append(rates, rateP99{p.OfferedRPS, p.Latency.P99, pass})
			continue
		}
		if p.Latency.P99 < rates[i].p99 {
			rates[i] = rateP99{p.OfferedRPS, p.Latency.P99, pass}
		}
	}
	slices.SortFunc(rates, func(a, b rateP99) int { return cmpFloat(a.rate, b.rate) })
	reached := make([]string, len(rates))
	var best, all *rateP99
	worst := 0.0
	for i := range rates {
		r := &rates[i]
		reached[i] = fmt.Sprintf("%s ms at %s req/s", fmtMs(r.p99), fmtRate(r.rate))
		if !r.onlyP99 {
			reached[i] += " (it failed on more than its P99)"
			continue
		}
		if best == nil || r.p99 < best.p99 {
			best = r
		}
		worst = math.Max(worst, r.p99)
		all = r // the highest rate that failed on its P99 alone
	}
	var b strings.Builder
	fmt.Fprintf(&b, "no rate met P99 ≤ %s ms; the P99 reached at each rate tried: %s", fmtMs(durMs(o.SLOP99)), strings.Join(reached, ", "))
	switch {
	case best == nil:
		b.WriteString("; no P99 SLO would have been met: every rate failed on more than its P99")
	case best == all:
		fmt.Fprintf(&b, "; an SLO of %s ms would have been met at %s req/s", fmtMs(ceil2(best.p99)), fmtRate(best.rate))
	default:
		fmt.Fprintf(&b, "; an SLO of %s ms would have been met at %s req/s, one of %s ms up to %s req/s",
			fmtMs(ceil2(best.p99)), fmtRate(best.rate), fmtMs(ceil2(worst)), fmtRate(all.rate))
	}
	return b.String()
}

// ceil2 rounds a latency up to two significant figures, so that the SLO
// it names is met (a P99 of 3.21 ms meets 3.3 ms, not 3.2).
func ceil2(ms float64) float64 {
	if ms <= 0 {
		return 0
	}
	unit := math.Pow(10, math.Floor(math.Log10(ms))-1)
	return math.Ceil(ms/unit-1e-9) * unit
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
