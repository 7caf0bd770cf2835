package harness

import (
	"math"
	"math/rand/v2"
	"time"
)

// Schedule yields, in order, the offsets from the start of the run at which
// requests are due. It is called from one goroutine only.
type Schedule interface {
	// Next returns the next offset and payload; ok is false when the
	// schedule has no more hits.
	Next() (offset time.Duration, payload []byte, ok bool)
}

var (
	_ Schedule = (*ConstantSchedule)(nil)
	_ Schedule = (*PoissonSchedule)(nil)
)

// ConstantSchedule sends at a fixed rate: hit i is due at i/Rate.
type ConstantSchedule struct {
	Rate float64 // requests per second, > 0
	i    int64
}

// Next implements Schedule.
func (s *ConstantSchedule) Next() (time.Duration, []byte, bool) {
	off := time.Duration(float64(s.i) / s.Rate * float64(time.Second))
	s.i++
	return off, nil, true
}

// PoissonSchedule sends with exponentially distributed gaps of mean 1/Rate
// (a Poisson process), from a seeded generator so runs are reproducible.
type PoissonSchedule struct {
	Rate float64
	rng  *rand.Rand
	t    float64 // seconds
}

// NewPoissonSchedule returns a Poisson schedule seeded with seed.
func NewPoissonSchedule(rate float64, seed int64) *PoissonSchedule {
	return &PoissonSchedule{Rate: rate, rng: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))}
}

// Next implements Schedule.
func (s *PoissonSchedule) Next() (time.Duration, []byte, bool) {
	off := time.Duration(s.t * float64(time.Second))
	// Inverse transform: −ln(U)/λ with U in (0, 1].
	s.t += -math.Log(1-s.rng.Float64()) / s.Rate
	return off, nil, true
}
