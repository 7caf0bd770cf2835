package stat

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Mean is the arithmetic mean of x; 0 when x is empty (an empty series
// has nothing to centre, and callers treat 0 as "no figure").
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// StdDev is the sample standard deviation of x with Bessel's correction,
// √(Σ(x−m)²/(n−1)); 0 below two values, where no spread is observed.
func StdDev(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	m := Mean(x)
	var s float64
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return math.Sqrt(s / float64(len(x)-1))
}

// GeoMean is the geometric mean of positive values: exp of the mean of
// their logarithms, the centre of figures whose changes are ratios
// (latencies, rates, knee estimates). A value ≤ 0 gives 0; no values give
// NaN.
func GeoMean(x []float64) float64 {
	var s float64
	for _, v := range x {
		if v <= 0 {
			return 0
		}
		s += math.Log(v)
	}
	return math.Exp(s / float64(len(x)))
}

// TQuantile is the p quantile of Student's t distribution with df degrees
// of freedom (TQuantile(0.975, df) is the half-width factor of a
// two-sided 95% interval).
func TQuantile(p, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

// LogHalfWidth is the half-width, on the log scale, of the two-sided
// t-interval at confidence level (0.95 for 95%) around the mean of logs:
// t_{(1+level)/2, n−1} · sd(logs) / √n. A figure g whose logs these are
// has the interval [g·e^−h, g·e^h]. It is 0 below two values.
func LogHalfWidth(logs []float64, level float64) float64 {
	n := len(logs)
	if n < 2 {
		return 0
	}
	return TQuantile((1+level)/2, float64(n-1)) * StdDev(logs) / math.Sqrt(float64(n))
}

// GeoMeanInterval is the geometric mean of the positive, finite values of
// x and its two-sided t-interval at confidence level on the log scale:
// exp(m ± h) for m the mean of the logs and h = LogHalfWidth. Values ≤ 0,
// infinite or NaN are left out; n is how many were used. With fewer than
// two the interval is the point itself (lo = hi = gm), and with none all
// three are 0.
func GeoMeanInterval(x []float64, level float64) (gm, lo, hi float64, n int) {
	logs := make([]float64, 0, len(x))
	for _, v := range x {
		if v > 0 && !math.IsInf(v, 0) {
			logs = append(logs, math.Log(v))
		}
	}
	if len(logs) == 0 {
		return 0, 0, 0, 0
	}
	m := Mean(logs)
	h := LogHalfWidth(logs, level)
	return math.Exp(m), math.Exp(m - h), math.Exp(m + h), len(logs)
}

// MannKendallZ is the Mann-Kendall trend statistic of the series x:
// S = Σ_{i<j} sign(x_j − x_i), the number of rising pairs less the
// falling ones, normalised to Z = (S − sign(S)) / √Var(S), with
// Var(S) = [n(n−1)(2n+5) − Σ_t t(t−1)(2t+5)] / 18 over the groups of t
// tied values (the continuity correction and tie correction of Kendall,
// 1975). Without a trend Z is about standard normal (n ≥ 5 or so); a
// series falling as a server warms up gives a large negative Z. It is 0
// for fewer than 3 values or a constant series. Being rank-based, one
// slow second moves it no more than any other out-of-order value.
func MannKendallZ(x []float64) float64 {
	n := len(x)
	if n < 3 {
		return 0
	}
	s := 0
	for i := range n {
		for j := i + 1; j < n; j++ {
			switch {
			case x[j] > x[i]:
				s++
			case x[j] < x[i]:
				s--
			}
		}
	}
	ties := map[float64]int{}
	for _, v := range x {
		ties[v]++
	}
	fn := float64(n)
	v := fn * (fn - 1) * (2*fn + 5)
	for _, t := range ties {
		ft := float64(t)
		v -= ft * (ft - 1) * (2*ft + 5)
	}
	v /= 18
	if v <= 0 || s == 0 {
		return 0
	}
	fs := float64(s)
	if s > 0 {
		fs--
	} else {
		fs++
	}
	return fs / math.Sqrt(v)
}
