package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/perfgate/perfgate/result"
)

// sparkCells is the width of a spectrum sparkline, in characters.
const sparkCells = 24

// sparkBlocks are the eight heights of a sparkline cell.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws h's percentile spectrum on one line: cell i is the
// latency at x = i/(cells−1) · log10(n), x = log10(1/(1−q)) (HdrHistogram's
// percentile axis: 0%, 90%, 99%, 99.9% … evenly spaced, up to what n
// values resolve), its height the latency on a log scale from the minimum to
// the maximum (at least a factor 2), so the body and the tail both show. It returns the line and
// the last percentile it reaches; "" for an empty histogram.
func Sparkline(h *hdrhistogram.Histogram, cells int) (line string, lastPct float64) {
	if h == nil || h.TotalCount() == 0 || cells < 2 {
		return "", 0
	}
	maxX := math.Min(math.Log10(float64(h.TotalCount())), 6)
	// A spread under 2× is drawn on a 2× scale, so that the histogram's
	// bucket rounding on a flat distribution does not fill the line.
	lo, hi := math.Log(float64(max(h.Min(), 1))), math.Log(float64(max(h.Max(), 1)))
	hi = math.Max(hi, lo+math.Ln2)
	var b strings.Builder
	for i := range cells {
		x := maxX * float64(i) / float64(cells-1)
		q := 100 * (1 - math.Pow(10, -x))
		v := math.Log(float64(max(h.ValueAtQuantile(q), 1)))
		k := int(math.Round((v - lo) / (hi - lo) * float64(len(sparkBlocks)-1)))
		b.WriteRune(sparkBlocks[min(max(k, 0), len(sparkBlocks)-1)])
	}
	return b.String(), 100 * (1 - math.Pow(10, -maxX))
}

// Spectrum writes one line per result: the scenario, a sparkline of its
// merged latency spectrum and its percentiles, for a person at a terminal
// to read at a glance. Results without histograms are skipped.
func Spectrum(w io.Writer, rs []*result.Result) error {
	width := 0
	for _, r := range rs {
		if r != nil {
			width = max(width, len([]rune(plain(r.Scenario))))
		}
	}
	header := false
	for _, r := range rs {
		if r == nil || len(r.Trials) == 0 {
			continue
		}
		h, err := result.MergeTrials(r.Trials)
		if err != nil || h.TotalCount() == 0 {
			continue
		}
		line, last := Sparkline(h, sparkCells)
		if !header {
			if _, err := fmt.Fprintf(w, "latency spectrum (0%% → %s, log latency; ms):\n", num(last)+"%"); err != nil {
				return err
			}
			header = true
		}
		l := result.LatencyOf(h)
		name := plain(r.Scenario)
		if _, err := fmt.Fprintf(w, "  %s%s  %s  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n", name, strings.Repeat(" ", width-len([]rune(name))),
			line, ms(l.P50), ms(l.P90), ms(l.P99), ms(l.P999), ms(l.Max)); err != nil {
			return err
		}
	}
	return nil
}
