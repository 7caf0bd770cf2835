package knee

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/result"
)

// LightLoadFraction is how close to the P99 SLO the service's P99 at
// light load may come before a knee is said to rest on the tail's noise
// rather than on the load (LightLoadWarning).
const LightLoadFraction = 0.5

// LightLoadWarning says when a found knee's SLO sits near the service's
// own P99 at light load: the least P99 among the probes at half the knee
// or below (or, with none there, at the lowest rate tried) is
// LightLoadFraction of the SLO or more. Such a knee is where the tail's
// noise happens to cross the SLO, not where queueing begins, and it moves
// far between runs (a generator starved of CPU can put it far below the
// service's: bench/RESULTS-rules.md#kneelightloadwarning). Empty when the
// knee was not found,
// the SLO is not a P99 one, or the light-load P99 is well below it.
func LightLoadWarning(c *result.Capacity) string {
	if c == nil || !c.Found || !(c.SLOP99Ms > 0) || len(c.Points) == 0 {
		return ""
	}
	lowest := math.Inf(1)
	for _, p := range c.Points {
		if p.OfferedRPS > 0 && !p.GeneratorBound {
			lowest = math.Min(lowest, p.OfferedRPS)
		}
	}
	light := math.Max(c.MaxQPS/2, lowest)
	best, at := math.Inf(1), 0.0
	for _, p := range c.Points {
		if p.GeneratorBound || p.OfferedRPS > light || !(p.Latency.P99 > 0) {
			continue
		}
		if p.Latency.P99 < best {
			best, at = p.Latency.P99, p.OfferedRPS
		}
	}
	if math.IsInf(best, 1) || best < LightLoadFraction*c.SLOP99Ms {
		return ""
	}
	return fmt.Sprintf("the P99 SLO (%g ms) is close to the service's P99 at light load (%.3g ms at %.3g rps, %.0f%% of it): the knee is where the tail's noise crosses the SLO more than where the load does, and it can move far between runs; set the SLO well above the light-load P99 (perfgate run --rate at a low rate shows it)",
		c.SLOP99Ms, best, at, 100*best/c.SLOP99Ms)
}
