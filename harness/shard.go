package harness

import "time"

var _ Schedule = (*ShardSchedule)(nil)

// ShardSchedule is one generator's share of a schedule that Count
// generators send together: the hits of Inner numbered Index, Index+Count,
// Index+2·Count, … (0-based Index). The shares of generators 0…Count−1 are
// disjoint and their union is Inner's schedule exactly, hit for hit: for a
// constant rate R this is rate R/Count phase-shifted by Index/R; for
// Poisson arrivals (or a trace) every generator draws the same seeded
// schedule and keeps its every Count-th hit, so the target sees the one
// Poisson process, not Count independent ones.
type ShardSchedule struct {
	Inner        Schedule
	Index, Count int
	n            int // hits taken from Inner so far
}

// Next implements Schedule.
func (s *ShardSchedule) Next() (time.Duration, []byte, bool) {
	for {
		off, payload, ok := s.Inner.Next()
		if !ok {
			return 0, nil, false
		}
		i := s.n
		s.n++
		if i%s.Count == s.Index {
			return off, payload, true
		}
	}
}
