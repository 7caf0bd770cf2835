package changepoint

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
)

// Settings are the detector's knobs.
type Settings struct {
	// Alpha is the significance level of each accepted change (0.05).
	Alpha float64
	// Permutations is the number of reorderings of the permutation test
	// (199: a p-value down to 0.005).
	Permutations int
	// MinSize is the fewest values on each side of a change (3).
	MinSize int
	// Seed seeds the permutations (1).
	Seed uint64
}

// DefaultSettings returns α 0.05, 199 permutations, segments of at least 3
// values, seed 1.
func DefaultSettings() Settings {
	return Settings{Alpha: 0.05, Permutations: 199, MinSize: 3, Seed: 1}
}

// Validate reports settings out of range.
func (s Settings) Validate() error {
	var errs []error
	if !(s.Alpha > 0 && s.Alpha < 1) {
		errs = append(errs, errors.New("alpha: want a level in (0, 1)"))
	}
	if s.Permutations < 19 {
		errs = append(errs, errors.New("permutations: want at least 19"))
	}
	if s.MinSize < 2 {
		errs = append(errs, errors.New("min size: want at least 2"))
	}
	return errors.Join(errs...)
}

// Change is one accepted change point.
type Change struct {
	// Index is the first value after the change: z[Index] begins the new
	// level.
	Index int
	// Q is the divergence of the split; P its permutation p-value.
	Q, P float64
	// Before and After are the means of the segments either side (between
	// the neighbouring changes), in the series' units.
	Before, After float64
}

// Detect returns the significant change points of z, in index order.
func Detect(z []float64, s Settings) ([]Change, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
	bounds := []int{0, len(z)}
	var found []Change
	for {
		best, bestQ := -1, 0.0
		var seg [2]int
		for i := 0; i+1 < len(bounds); i++ {
			a, b := bounds[i], bounds[i+1]
			tau, q := split(z[a:b], s.MinSize)
			if tau > 0 && q > bestQ {
				best, bestQ, seg = a+tau, q, [2]int{a, b}
			}
		}
		if best < 0 {
			break
		}
		p := permutationP(z[seg[0]:seg[1]], bestQ, s, rng)
		if p >= s.Alpha {
			break
		}
		found = append(found, Change{Index: best, Q: bestQ, P: p})
		bounds = append(bounds, best)
		sort.Ints(bounds)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Index < found[j].Index })
	for i := range found {
		lo := 0
		if i > 0 {
			lo = found[i-1].Index
		}
		hi := len(z)
		if i+1 < len(found) {
			hi = found[i+1].Index
		}
		found[i].Before = meanOf(z[lo:found[i].Index])
		found[i].After = meanOf(z[found[i].Index:hi])
	}
	return found, nil
}

// split returns the τ in [minSize, n−minSize] of largest Q over z, and Q;
// τ is 0 when the segment is too short to split.
func split(z []float64, minSize int) (int, float64) {
	n := len(z)
	if n < 2*minSize {
		return 0, 0
	}
	// within[0] is Σ_{i<j<τ}|z_i−z_j|, within[1] Σ_{τ≤i<j}|z_i−z_j|,
	// cross Σ_{i<τ≤j}|z_i−z_j|; τ starts at 0 with everything in Y.
	var wx, wy, cross float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			wy += math.Abs(z[i] - z[j])
		}
	}
	bestT, bestQ := 0, math.Inf(-1)
	for t := 0; t < n-minSize; t++ {
		// Move z[t] from Y to X.
		var toX, toY float64
		for i := 0; i < t; i++ {
			toX += math.Abs(z[i] - z[t])
		}
		for j := t + 1; j < n; j++ {
			toY += math.Abs(z[t] - z[j])
		}
		wx += toX
		wy -= toY
		cross += toY - toX
		tau := t + 1
		if tau < minSize {
			continue
		}
		m, k := float64(tau), float64(n-tau)
		e := 2*cross/(m*k) - wx/(m*(m-1)/2) - wy/(k*(k-1)/2)
		q := m * k / (m + k) * e
		if q > bestQ {
			bestT, bestQ = tau, q
		}
	}
	return bestT, bestQ
}

// permutationP is the p-value of observed Q against the best Q of shuffled
// copies of z.
func permutationP(z []float64, q float64, s Settings, rng *rand.Rand) float64 {
	buf := append([]float64(nil), z...)
	ge := 0
	for i := 0; i < s.Permutations; i++ {
		rng.Shuffle(len(buf), func(a, b int) { buf[a], buf[b] = buf[b], buf[a] })
		if _, pq := split(buf, s.MinSize); pq >= q {
			ge++
		}
	}
	return float64(1+ge) / float64(1+s.Permutations)
}

func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
