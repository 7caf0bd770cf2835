// Package changepoint finds the points where a series of run-level values
// shifts: E-Divisive means (Matteson and James, 2014, as MongoDB's CI and
// Hunter use it; Daly et al., ICPE 2020) with a permutation test for
// significance. It does no I/O.
//
// The statistic. For a segment z[0:n) split at τ into X = z[0:τ) (m
// values) and Y = z[τ:n) (k values), the energy distance with exponent 1 is
//
//	E(τ) = 2/(mk)·Σ|x−y| − 1/C(m,2)·Σ|x−x'| − 1/C(k,2)·Σ|y−y'|
//
// and the divergence is Q(τ) = mk/(m+k)·E(τ): zero in expectation when X
// and Y come from one distribution, growing with a shift in location (or
// spread). The candidate change of a segment is the τ of largest Q, each
// side at least MinSize long. Q for every τ is computed in O(n²) by moving
// one value at a time from Y to X.
//
// Significance. The candidate's Q is compared with the largest Q of
// Permutations random reorderings of the same segment (which destroy any
// change, keeping the values): p = (1 + #{Q_perm ≥ Q}) / (1 + Permutations).
// A change is accepted when p < Alpha.
//
// Hierarchy. Starting from the whole series, the most divergent candidate
// over all current segments is tested; if significant it splits its
// segment and the search repeats; the first non-significant candidate ends
// it. The permutations are seeded, so a result is reproducible.
//
// Values are compared as given; callers pass logarithms of latencies and
// rates so that a change is relative (a 10% shift is one size at any
// level).
package changepoint
