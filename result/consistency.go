package result

import (
	"errors"
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// checkConsistency checks that a result agrees with itself, so that a
// forged or corrupted file can never be compared, let alone pass:
//
//   - no count is negative, and no sum of counts overflows int64;
//   - a trial's errors are at most its requests, and its latency
//     histogram holds exactly its successful requests (requests − errors:
//     the recorder records every success, clamped to the histogram's
//     range, and no error);
//   - every histogram count is ≥ 0 and their total does not overflow;
//   - every latency figure is a finite number ≥ 0, inside its
//     histogram's range (between the lowest equivalent value of its
//     minimum and the highest equivalent value of its maximum), and zero
//     when the histogram is empty;
//   - the summary's requests and errors are the trials' sums, its error
//     rate is errors / requests (so in [0, 1]), and its latencies lie in
//     the range of the trials' histograms.
//
// hist decodes trial i's latency histogram (trialHistogram, one at a
// time). Errors name the field, as "trial 2: field \"latency_ms.p99\"".
func (r *Result) checkConsistency(hist func(i int) (*hdrhistogram.Histogram, error)) error {
	var reqs, errs int64
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, t := range r.Trials {
		where := fmt.Sprintf("trial %d", i+1)
		if err := checkCounts(where, t.Requests, t.Errors, t.ErrorsBy); err != nil {
			return err
		}
		if err := checkRates(where, t.AchievedRPS, t.OfferedRPS, t.DurationS, t.InFlightMean); err != nil {
			return err
		}
		var ok bool
		if reqs, ok = addCount(reqs, t.Requests); !ok {
			return fmt.Errorf("%s: field \"requests\": the trials' sum overflows int64", where)
		}
		if errs, ok = addCount(errs, t.Errors); !ok {
			return fmt.Errorf("%s: field \"errors\": the trials' sum overflows int64", where)
		}
		h, err := hist(i)
		if err != nil {
			return err
		}
		n, err := histogramCount(h)
		if err != nil {
			return fmt.Errorf("%s: field \"histogram\": %w", where, err)
		}
		if ok := t.Requests - t.Errors; n != ok {
			return fmt.Errorf("%s: field \"histogram\" holds %d latencies, but requests − errors is %d − %d = %d: the result contradicts itself",
				where, n, t.Requests, t.Errors, ok)
		}
		tlo, thi := histRange(h)
		if err := checkLatency(where, "latency_ms", t.Latency, tlo, thi); err != nil {
			return err
		}
		if n > 0 {
			lo, hi = min(lo, tlo), max(hi, thi)
		}
	}
	if len(r.Trials) == 0 {
		return nil // a knee search that kept no probe: its capacity says so
	}
	s := r.Summary
	if err := checkCounts("summary", s.Requests, s.Errors, s.ErrorsBy); err != nil {
		return err
	}
	if err := checkRates("summary", s.AchievedRPS, s.OfferedRPS, 0, s.InFlightMean); err != nil {
		return err
	}
	if s.Requests != reqs || s.Errors != errs {
		return fmt.Errorf("summary: fields \"requests\" and \"errors\" are %d and %d, but the trials sum to %d and %d: the result contradicts itself",
			s.Requests, s.Errors, reqs, errs)
	}
	want := 0.0
	if s.Requests > 0 {
		want = float64(s.Errors) / float64(s.Requests)
	}
	if !(s.ErrorRate >= 0 && s.ErrorRate <= 1) || math.Abs(s.ErrorRate-want) > 1e-9 {
		return fmt.Errorf("summary: field \"error_rate\" is %v, but errors / requests is %d / %d = %v (a rate is in [0, 1])",
			s.ErrorRate, s.Errors, s.Requests, want)
	}
	if lo > hi { // no trial recorded a latency
		lo, hi = 0, 0
	}
	return checkLatency("summary", "latency_ms", s.Latency, lo, hi)
}

// checkCounts checks a trial's (or the summary's) request and error
// counts.
func checkCounts(where string, requests, errs int64, by map[string]int64) error {
	switch {
	case requests < 0:
		return fmt.Errorf("%s: field \"requests\" is %d: a count is never negative", where, requests)
	case errs < 0:
		return fmt.Errorf("%s: field \"errors\" is %d: a count is never negative", where, errs)
	case errs > requests:
		return fmt.Errorf("%s: field \"errors\" is %d, more than its %d requests: the result contradicts itself", where, errs, requests)
	}
	var sum int64
	for class, n := range by {
		var ok bool
		if sum, ok = addCount(sum, n); n < 0 || !ok || sum > errs {
			return fmt.Errorf("%s: field \"errors_by_class.%s\" is %d: a count is never negative, and the classes never add up to more than the %d errors",
				where, class, n, errs)
		}
	}
	return nil
}

// checkRates checks that rates and durations are finite and ≥ 0.
func checkRates(where string, achieved, offered, duration, inflight float64) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"achieved_rps", achieved}, {"offered_rps", offered}, {"duration_s", duration}, {"in_flight_mean", inflight}} {
		if !finiteNonNeg(f.v) {
			return fmt.Errorf("%s: field %q is %v: want a finite number ≥ 0", where, f.name, f.v)
		}
	}
	return nil
}

// checkLatency checks a latency summary against its histogram's range
// [lo, hi] in milliseconds (both 0 for an empty histogram).
func checkLatency(where, field string, l Latency, lo, hi float64) error {
	for _, q := range []struct {
		name string
		v    float64
	}{{"p50", l.P50}, {"p90", l.P90}, {"p99", l.P99}, {"p999", l.P999}, {"max", l.Max}, {"mean", l.Mean}} {
		if !finiteNonNeg(q.v) {
			return fmt.Errorf("%s: field \"%s.%s\" is %v: want a finite number ≥ 0", where, field, q.name, q.v)
		}
		// Figures are rounded to the microsecond when written: allow that.
		const slack = 0.001
		if q.v < lo-slack || q.v > hi+slack {
			if lo == 0 && hi == 0 {
				return fmt.Errorf("%s: field \"%s.%s\" is %v ms, but its histogram is empty: the result contradicts itself", where, field, q.name, q.v)
			}
			return fmt.Errorf("%s: field \"%s.%s\" is %v ms, outside its histogram's range [%v, %v] ms: the result contradicts itself",
				where, field, q.name, q.v, lo, hi)
		}
	}
	return nil
}

// histogramCount returns h's total count from its buckets, refusing a
// total that overflows int64 (hdrhistogram-go sums them unchecked) and,
// in depth, a negative bucket (the V2 encoding reads a negative number
// as a run of empty buckets, so none should decode).
func histogramCount(h *hdrhistogram.Histogram) (int64, error) {
	var n int64
	for i, c := range h.Export().Counts {
		var ok bool
		if n, ok = addCount(n, c); c < 0 || !ok {
			if c < 0 {
				return 0, fmt.Errorf("bucket %d holds %d values: a count is never negative", i, c)
			}
			return 0, errors.New("its counts overflow int64")
		}
	}
	return n, nil
}

// histRange is the range, in milliseconds, that h's values may stand for:
// from the lowest equivalent value of its minimum to the highest
// equivalent value of its maximum; 0, 0 when it is empty.
func histRange(h *hdrhistogram.Histogram) (lo, hi float64) {
	if h.TotalCount() == 0 {
		return 0, 0
	}
	// Min and Max are already the lowest and highest equivalent values.
	return float64(h.Min()) / 1000, float64(h.Max()) / 1000
}

// addCount adds two counts ≥ 0, reporting overflow.
func addCount(a, b int64) (int64, bool) {
	if b > 0 && a > math.MaxInt64-b {
		return 0, false
	}
	return a + b, true
}

func finiteNonNeg(v float64) bool { return v >= 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }
