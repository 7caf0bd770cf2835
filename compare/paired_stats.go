package compare

import (
	"math"
	"sort"
)

// signedRankExactMax is the largest number of non-zero differences for
// which the signed-rank p-value is computed exactly (a dynamic programme
// over rank sums, cheap far beyond this; the normal approximation is
// excellent above it).
const signedRankExactMax = 60

// signedRank returns the two-sided p-value of Wilcoxon's signed-rank test
// that the differences d are symmetric about zero.
//
// Zero differences are dropped (Wilcoxon's convention). The absolute values
// of the rest are ranked with midranks for ties, and W⁺, the sum of the
// ranks of the positive differences, is compared with its distribution when
// each sign is + or − with probability ½ independently: exactly for up to
// signedRankExactMax differences, by counting the 2ⁿ sign assignments per
// rank sum (midranks are multiples of ½, so the doubled ranks are integers
// and the count is a knapsack over them), else by the normal approximation
//
//	z = (|W⁺ − n(n+1)/4| − ½) / σ,  σ² = n(n+1)(2n+1)/24 − Σ(t³−t)/48
//
// with t the sizes of the tie groups. The p-value is P(|W⁺ − E W⁺| ≥
// |w − E W⁺|). It is 1 when no difference is non-zero.
func signedRank(d []float64) float64 {
	var nz []float64
	for _, v := range d {
		if v != 0 && !math.IsNaN(v) {
			nz = append(nz, v)
		}
	}
	n := len(nz)
	if n == 0 {
		return 1
	}
	sort.Slice(nz, func(i, j int) bool { return math.Abs(nz[i]) < math.Abs(nz[j]) })
	ranks2 := make([]int, n) // doubled midranks
	var tieSum float64
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(nz[j+1]) == math.Abs(nz[i]) {
			j++
		}
		for k := i; k <= j; k++ {
			ranks2[k] = i + j + 2 // 2·((i+1 + j+1)/2)
		}
		t := float64(j - i + 1)
		tieSum += t*t*t - t
		i = j + 1
	}
	w2 := 0 // doubled W⁺
	for i, v := range nz {
		if v > 0 {
			w2 += ranks2[i]
		}
	}
	total2 := n * (n + 1) // doubled n(n+1)/2
	mean2 := float64(total2) / 2
	dev := math.Abs(float64(w2) - mean2)
	if n <= signedRankExactMax {
		// count[s] = number of sign assignments whose doubled W⁺ is s.
		count := make([]float64, total2+1)
		count[0] = 1
		hi := 0
		for _, r := range ranks2 {
			for s := hi; s >= 0; s-- {
				if count[s] != 0 {
					count[s+r] += count[s]
				}
			}
			hi += r
		}
		var hit, all float64
		for s, c := range count {
			all += c
			if math.Abs(float64(s)-mean2) >= dev-1e-9 {
				hit += c
			}
		}
		return math.Min(1, hit/all)
	}
	nf := float64(n)
	sigma := math.Sqrt(nf*(nf+1)*(2*nf+1)/24 - tieSum/48)
	if sigma == 0 {
		return 1
	}
	z := (dev/2 - 0.5) / sigma
	if z < 0 {
		return 1
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// signedRankMinP is the smallest two-sided p-value the exact signed-rank
// test can give with n untied non-zero differences: every sign the same,
// 2/2ⁿ.
func signedRankMinP(n int) float64 {
	if n <= 0 {
		return 1
	}
	return math.Min(1, 2/math.Pow(2, float64(n)))
}
