package compare

import (
	"math/rand/v2"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"
)

func TestNonEmptyBarsMatchDistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		lowest, highest int64
		sigFigs         int
	}{
		{1, 60_000_000, 3}, // the layout perfgate records latencies in
		{1, 3_600_000_000, 2},
		{1000, 60_000_000_000, 3},
		{7, 1 << 30, 4},
		{1, 100, 1},
	} {
		for trial := 0; trial < 8; trial++ {
			h := hdrhistogram.New(c.lowest, c.highest, c.sigFigs)
			n := 1 + rng.IntN(2000)
			for range n {
				// log-uniform values over the whole trackable range
				v := int64(float64(c.highest) * rng.Float64() * rng.Float64() * rng.Float64())
				if err := h.RecordValue(v); err != nil {
					t.Fatal(err)
				}
			}
			var want []bar
			for _, b := range h.Distribution() {
				if b.Count > 0 {
					want = append(want, bar{to: b.To, count: b.Count})
				}
			}
			if diff := cmp.Diff(want, nonEmptyBars(h), cmp.AllowUnexported(bar{})); diff != "" {
				t.Fatalf("New(%d, %d, %d) with %d values: nonEmptyBars differs from Distribution (-want +got):\n%s", c.lowest, c.highest, c.sigFigs, n, diff)
			}
		}
	}
}
