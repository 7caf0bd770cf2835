package history

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// stddev is the sample standard deviation of xs (n−1); 0 below two values.
func stddev(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := mean(xs)
	s := 0.0
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(xs)-1))
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// geomean is the geometric mean of positive xs.
func geomean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

// tQuantile975 is Student's t 97.5% quantile with df degrees of freedom.
func tQuantile975(df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
}

func round4(x float64) float64 {
	if x == 0 {
		return 0
	}
	p := math.Pow(10, 4-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}
