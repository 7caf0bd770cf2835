package changepoint

import (
	"math"
	"math/rand/v2"
	"testing"
)

// series returns n values of log-normal noise sd around 0 with a relative
// shift of size at each index of at.
func series(rng *rand.Rand, n int, sd float64, at []int, size float64) []float64 {
	z := make([]float64, n)
	level := 0.0
	next := 0
	for i := range z {
		if next < len(at) && i == at[next] {
			level += math.Log1p(size)
			next++
		}
		z[i] = level + sd*rng.NormFloat64()
	}
	return z
}

func TestDetectKnown(t *testing.T) {
	tests := []struct {
		name string
		z    []float64
		want []int
	}{
		{"flat", []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, nil},
		{"one step", []float64{1, 1.01, 0.99, 1, 1.02, 0.98, 2, 2.01, 1.99, 2, 2.02, 1.98}, []int{6}},
		{"two steps", []float64{1, 1.01, 0.99, 1, 2, 2.01, 1.99, 2.02, 3, 3.01, 2.99, 3.02}, []int{4, 8}},
		// Too short to split with three values a side: nothing, never a
		// panic.
		{"short", []float64{1, 5, 1, 5}, nil},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Detect(tt.z, DefaultSettings())
			if err != nil {
				t.Fatal(err)
			}
			var idx []int
			for _, c := range got {
				idx = append(idx, c.Index)
			}
			if len(idx) != len(tt.want) {
				t.Fatalf("Detect(%v) = %v, want %v", tt.z, idx, tt.want)
			}
			for i := range idx {
				if idx[i] != tt.want[i] {
					t.Errorf("Detect(%v) = %v, want %v", tt.z, idx, tt.want)
				}
			}
		})
	}
}

// rates detects over seeds series of n values (noise sd on the log scale)
// with one shift of size at a random index (size 0: none), and returns the
// recall (a change found within tol of the truth) and the false positives
// per series (changes found away from the truth).
func rates(seeds, n int, sd, size float64, tol int) (recall, fpPerSeries float64) {
	hits, fps := 0, 0
	for seed := 0; seed < seeds; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		at := -1
		var cps []int
		if size != 0 {
			at = 10 + rng.IntN(n-20)
			cps = []int{at}
		}
		z := series(rng, n, sd, cps, size)
		s := DefaultSettings()
		s.Seed = uint64(seed) + 1
		got, _ := Detect(z, s)
		hit := false
		for _, c := range got {
			if at >= 0 && abs(c.Index-at) <= tol && !hit {
				hit = true
				continue
			}
			fps++
		}
		if hit {
			hits++
		}
	}
	return float64(hits) / float64(seeds), float64(fps) / float64(seeds)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestSeededRates checks recall and false positives over many seeded
// series of 60 runs with 3% run-to-run noise, and prints them.
func TestSeededRates(t *testing.T) {
	seeds := 100
	if testing.Short() {
		seeds = 30
	}
	tests := []struct {
		name                string
		size                float64
		minRecall, maxFPPer float64
	}{
		// No change at all: every change found is a false positive; α is
		// 0.05 per test, so about 0.05 a series.
		{"none", 0, 0, 0.12},
		// A shift of 3 noise sds (10%): found nearly always.
		{"10% shift", 0.10, 0.9, 0.15},
		// 2 sds (6%): most; a change placed more than 2 runs off the truth
		// counts as a false positive, and small shifts are placed less
		// exactly.
		{"6% shift", 0.06, 0.7, 0.2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recall, fp := rates(seeds, 60, 0.03, tt.size, 2)
			t.Logf("seeded E-Divisive, 60 runs, noise 3%%, shift %.0f%%, %d seeds: recall %.2f, false positives %.3f a series", tt.size*100, seeds, recall, fp)
			if recall < tt.minRecall {
				t.Errorf("recall %.2f, want at least %.2f", recall, tt.minRecall)
			}
			if fp > tt.maxFPPer {
				t.Errorf("false positives %.3f a series, want at most %.2f", fp, tt.maxFPPer)
			}
		})
	}
}

func TestTwoChanges(t *testing.T) {
	found := 0
	const seeds = 30
	for seed := 0; seed < seeds; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 9))
		z := series(rng, 80, 0.03, []int{25, 55}, 0.15)
		got, err := Detect(z, DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		ok := 0
		for _, c := range got {
			if abs(c.Index-25) <= 2 || abs(c.Index-55) <= 2 {
				ok++
			}
		}
		if ok == 2 {
			found++
		}
	}
	t.Logf("two 15%% shifts in 80 runs at 3%% noise: both found in %d/%d seeds", found, seeds)
	if found < seeds*9/10 {
		t.Errorf("both changes found in %d/%d seeds, want at least 90%%", found, seeds)
	}
}

func TestDetectSettings(t *testing.T) {
	if _, err := Detect([]float64{1, 2, 3}, Settings{}); err == nil {
		t.Error("Detect with zero settings: no error, want one naming alpha")
	}
}

func BenchmarkDetect200(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	z := series(rng, 200, 0.03, []int{120}, 0.1)
	for b.Loop() {
		if _, err := Detect(z, DefaultSettings()); err != nil {
			b.Fatal(err)
		}
	}
}
