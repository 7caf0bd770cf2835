package merge

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/result"
)

// ErrMismatch marks pieces that cannot be merged: different
// configurations, loads, trial counts or scenarios, or an incomplete set
// of shards.
var ErrMismatch = errors.New("cannot merge")

// DefaultMaxSkew bounds the start skew of generator shards: far below a
// warm-up, and far above what clocks kept by NTP and a timer wake-up add.
const DefaultMaxSkew = 100 * time.Millisecond

// Options control merging.
type Options struct {
	// MaxSkew bounds the start skew of generator shards (zero:
	// DefaultMaxSkew). The bound applied is the smaller of MaxSkew and the
	// warm-up, so that every generator is loading before the first trial
	// opens; beyond it the merged result is invalid.
	MaxSkew time.Duration
}

func (o Options) maxSkew(warmup time.Duration) time.Duration {
	b := o.MaxSkew
	if b <= 0 {
		b = DefaultMaxSkew
	}
	if warmup > 0 && warmup < b {
		b = warmup
	}
	return b
}

// mismatch returns an error wrapping ErrMismatch.
func mismatch(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrMismatch, fmt.Sprintf(format, a...))
}

// Shards merges the generator shards of one scenario (results with
// Generator set, one per index 1…N, in any order) into one result. See the
// package doc for what is added and what is refused.
func Shards(shards []*result.Result, o Options) (*result.Result, error) {
	if len(shards) == 0 {
		return nil, mismatch("no shards")
	}
	if err := check(shards); err != nil {
		return nil, err
	}
	ss := slices.Clone(shards)
	slices.SortFunc(ss, func(a, b *result.Result) int { return a.Generator.Index - b.Generator.Index })
	first := ss[0]
	out := *first
	out.Generator, out.Part, out.Provenance = nil, nil, nil
	out.Warnings = nil
	out.Trials = make([]result.Trial, len(first.Trials))
	for j := range first.Trials {
		ts := make([]result.Trial, len(ss))
		for k, s := range ss {
			ts[k] = s.Trials[j]
		}
		t, err := mergeTrial(ts, ss)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: trial %d: %w", first.Scenario, j+1, err)
		}
		out.Trials[j] = t
	}
	if err := summarize(&out, ss); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", first.Scenario, err)
	}

	// Validity and the start skew.
	out.Valid, out.Interrupted, out.Simulated = true, false, false
	m := &result.Merged{Generators: len(ss)}
	earliest, latest := ss[0].Generator.StartedAt, ss[0].Generator.StartedAt
	for _, s := range ss {
		out.Valid = out.Valid && s.Valid
		out.Interrupted = out.Interrupted || s.Interrupted
		out.Simulated = out.Simulated || s.Simulated
		for _, w := range s.Warnings {
			out.Warnings = append(out.Warnings, fmt.Sprintf("generator %d/%d: %s", s.Generator.Index, s.Generator.Count, w))
		}
		m.Shards = append(m.Shards, *s.Generator)
		if t := s.Generator.StartedAt; t.Before(earliest) {
			earliest = t
		} else if t.After(latest) {
			latest = t
		}
		if s.Telemetry != nil && out.Telemetry == nil {
			out.Telemetry = s.Telemetry
		}
	}
	skew := latest.Sub(earliest)
	bound := o.maxSkew(time.Duration(first.Load.WarmupS * float64(time.Second)))
	m.StartSkewMs = ms(skew)
	m.MaxStartSkewMs = ms(bound)
	if skew > bound {
		out.Valid = false
		out.Warnings = append(out.Warnings, fmt.Sprintf("the generators started %.1f ms apart, more than the %.1f ms allowed: their windows do not line up; start them with one --start-at instant", m.StartSkewMs, m.MaxStartSkewMs))
	}
	out.StartedAt = earliest
	out.Merged = m
	return &out, nil
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/float64(time.Microsecond)) / 1000 }

// check refuses shards that do not add up to one run of one scenario.
func check(shards []*result.Result) error {
	first := shards[0]
	name := first.Scenario
	for _, s := range shards {
		if s.Generator == nil {
			return mismatch("scenario %s: a result without a generator record cannot be merged with generator shards", name)
		}
	}
	n := first.Generator.Count
	seen := map[int]bool{}
	for _, s := range shards {
		g := s.Generator
		switch {
		case s.Scenario != name:
			return mismatch("shards of different scenarios: %q and %q", name, s.Scenario)
		case g.Count != n:
			return mismatch("scenario %s: shards of %d and of %d generators", name, n, g.Count)
		case g.Index < 1 || g.Index > n:
			return mismatch("scenario %s: generator %d/%d is out of range", name, g.Index, g.Count)
		case seen[g.Index]:
			return mismatch("scenario %s: generator %d/%d appears twice", name, g.Index, n)
		case g.ConfigHash != first.Generator.ConfigHash:
			return mismatch("scenario %s: generators %d and %d ran different configurations (%s, %s)", name, first.Generator.Index, g.Index, first.Generator.ConfigHash, g.ConfigHash)
		case s.Protocol != first.Protocol || s.Layer != first.Layer:
			return mismatch("scenario %s: generators %d and %d differ in protocol or layer", name, first.Generator.Index, g.Index)
		case s.Load != first.Load:
			return mismatch("scenario %s: generators %d and %d applied different loads (%+v, %+v)", name, first.Generator.Index, g.Index, first.Load, s.Load)
		case len(s.Trials) != len(first.Trials):
			return mismatch("scenario %s: generator %d has %d trials, generator %d has %d", name, first.Generator.Index, len(first.Trials), g.Index, len(s.Trials))
		case s.Capacity != nil:
			return mismatch("scenario %s: a knee search cannot be merged from generators", name)
		}
		seen[g.Index] = true
	}
	for i := 1; i <= n; i++ {
		if !seen[i] {
			return mismatch("scenario %s: generator %d/%d is missing: merge all %d shards", name, i, n, n)
		}
	}
	for j := range first.Trials {
		for _, s := range shards {
			if d, d0 := s.Trials[j].DurationS, first.Trials[j].DurationS; math.Abs(d-d0) > 1e-9*math.Max(1, d0) {
				return mismatch("scenario %s: trial %d lasted %gs on generator %d and %gs on generator %d", name, j+1, d0, first.Generator.Index, d, s.Generator.Index)
			}
		}
	}
	return nil
}

// mergeTrial adds the shards' trial j (ts[k] from shards[k]).
func mergeTrial(ts []result.Trial, shards []*result.Result) (result.Trial, error) {
	out := result.Trial{DurationS: ts[0].DurationS, Valid: true}
	lat, svc := result.NewHistogram(), result.NewHistogram()
	haveSvc := true
	for k, t := range ts {
		if err := addEncoded(lat, t.Histogram); err != nil {
			return out, fmt.Errorf("generator %d: latency: %w", shards[k].Generator.Index, err)
		}
		if t.ServiceHistogram == "" {
			haveSvc = false
		} else if err := addEncoded(svc, t.ServiceHistogram); err != nil {
			return out, fmt.Errorf("generator %d: service time: %w", shards[k].Generator.Index, err)
		}
		out.Requests += t.Requests
		out.Errors += t.Errors
		out.OfferedRPS += t.OfferedRPS
		out.AchievedRPS += t.AchievedRPS
		out.GeneratorCPU += t.GeneratorCPU
		out.InFlightMean += t.InFlightMean
		// The lag histograms are not kept: the worst shard's P99 bounds
		// the merged one from above.
		out.LagP99Ms = math.Max(out.LagP99Ms, t.LagP99Ms)
		// So do the worst shard's connection wait and scheduling delay.
		out.ConnWaitP99Ms = math.Max(out.ConnWaitP99Ms, t.ConnWaitP99Ms)
		out.ConnWaitShare = math.Max(out.ConnWaitShare, t.ConnWaitShare)
		out.GeneratorSchedP99Ms = math.Max(out.GeneratorSchedP99Ms, t.GeneratorSchedP99Ms)
		out.GeneratorRunQueueMs = math.Max(out.GeneratorRunQueueMs, t.GeneratorRunQueueMs)
		out.ErrorsBy = addCounts(out.ErrorsBy, t.ErrorsBy)
		out.Valid = out.Valid && t.Valid
		out.GeneratorLimited = out.GeneratorLimited || t.GeneratorLimited
		g := shards[k].Generator
		for _, why := range t.Invalid {
			out.Invalid = append(out.Invalid, fmt.Sprintf("generator %d/%d: %s", g.Index, g.Count, why))
		}
		if out.Telemetry == nil {
			out.Telemetry = t.Telemetry
		}
	}
	var err error
	out.Latency = result.LatencyOf(lat)
	if out.Histogram, err = result.EncodeHistogram(lat); err != nil {
		return out, err
	}
	if haveSvc {
		s := result.LatencyOf(svc)
		out.Service = &s
		if out.ServiceHistogram, err = result.EncodeHistogram(svc); err != nil {
			return out, err
		}
	}
	if out.LLM, err = mergeLLM(ts); err != nil {
		return out, err
	}
	return out, nil
}

// addEncoded decodes enc and adds it to dst.
func addEncoded(dst *hdrhistogram.Histogram, enc string) error {
	h, err := result.DecodeHistogram(enc)
	if err != nil {
		return err
	}
	return result.Merge(dst, h)
}

func addCounts(dst, src map[string]int64) map[string]int64 {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]int64{}
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

// mergeLLM adds the shards' streaming figures of one trial: histograms
// bucket by bucket, rates (tokens/s, goodput) summed since the windows
// coincide, the mean output length weighted by requests.
func mergeLLM(ts []result.Trial) (*result.LLM, error) {
	var out *result.LLM
	hs := [4]*hdrhistogram.Histogram{}
	var tokens float64
	for _, t := range ts {
		l := t.LLM
		if l == nil {
			continue
		}
		if out == nil {
			out = &result.LLM{SLOTTFTMs: l.SLOTTFTMs, SLOTPOTMs: l.SLOTPOTMs}
		}
		for j, enc := range [4]string{l.TTFTHistogram, l.TPOTHistogram, l.ITLHistogram, l.E2EHistogram} {
			if enc == "" {
				continue
			}
			if hs[j] == nil {
				hs[j] = result.NewHistogram()
			}
			if err := addEncoded(hs[j], enc); err != nil {
				return nil, fmt.Errorf("streaming figures: %w", err)
			}
		}
		out.OutputTokensPerS += l.OutputTokensPerS
		out.GoodputRPS += l.GoodputRPS
		out.Requests += l.Requests
		tokens += l.OutputTokensMean * float64(l.Requests)
		out.ITLGaps += l.ITLGaps
		out.ITLUnobserved += l.ITLUnobserved
	}
	if out == nil {
		return nil, nil
	}
	if hs[0] == nil || hs[1] == nil {
		return nil, errors.New("streaming figures: a shard kept no TTFT or TPOT histogram, so its percentiles cannot be merged exactly")
	}
	encs := [4]*string{&out.TTFTHistogram, &out.TPOTHistogram, &out.ITLHistogram, &out.E2EHistogram}
	for j, h := range hs {
		if h == nil {
			continue
		}
		var err error
		if *encs[j], err = result.EncodeHistogram(h); err != nil {
			return nil, err
		}
		// TPOT and ITL no request had are absent, never zero.
		if h.TotalCount() == 0 && j > 0 {
			continue
		}
		l := result.LatencyOf(h)
		switch j {
		case 0:
			out.TTFT = l
		case 1:
			out.TPOT = &l
		case 2:
			out.ITL = &l
		default:
			out.E2E = &l
		}
	}
	if out.ITLGaps > 0 {
		out.ITLCoalescedShare = float64(out.ITLUnobserved) / float64(out.ITLGaps)
		out.ITLUntrusted = out.ITLCoalescedShare > harness.MaxITLCoalescedShare
	}
	if out.Requests > 0 {
		out.OutputTokensMean = tokens / float64(out.Requests)
	}
	return out, nil
}

// summarize fills out's summary from its merged trials and the shards'
// summaries: counts and distributions from the trials (exact), rates and
// in-flight means summed over the shards, the lag's P99 bounded by the
// worst shard's.
func summarize(out *result.Result, shards []*result.Result) error {
	sum := result.Summary{}
	lat, svc := result.NewHistogram(), result.NewHistogram()
	haveSvc := true
	var llms []*result.LLM
	for j, t := range out.Trials {
		if err := addEncoded(lat, t.Histogram); err != nil {
			return fmt.Errorf("trial %d: %w", j+1, err)
		}
		if t.ServiceHistogram == "" {
			haveSvc = false
		} else if err := addEncoded(svc, t.ServiceHistogram); err != nil {
			return fmt.Errorf("trial %d: %w", j+1, err)
		}
		sum.Requests += t.Requests
		sum.Errors += t.Errors
		sum.ErrorsBy = addCounts(sum.ErrorsBy, t.ErrorsBy)
		if t.LLM != nil {
			llms = append(llms, t.LLM)
		}
	}
	if sum.Requests > 0 {
		sum.ErrorRate = float64(sum.Errors) / float64(sum.Requests)
	}
	for _, s := range shards {
		sum.OfferedRPS += s.Summary.OfferedRPS
		sum.AchievedRPS += s.Summary.AchievedRPS
		sum.GeneratorCPU += s.Summary.GeneratorCPU
		sum.InFlightMean += s.Summary.InFlightMean
		sum.LagP99Ms = math.Max(sum.LagP99Ms, s.Summary.LagP99Ms)
		sum.ConnWaitP99Ms = math.Max(sum.ConnWaitP99Ms, s.Summary.ConnWaitP99Ms)
		sum.ConnWaitShare = math.Max(sum.ConnWaitShare, s.Summary.ConnWaitShare)
		sum.GeneratorSchedP99Ms = math.Max(sum.GeneratorSchedP99Ms, s.Summary.GeneratorSchedP99Ms)
		sum.GeneratorRunQueueMs = math.Max(sum.GeneratorRunQueueMs, s.Summary.GeneratorRunQueueMs)
	}
	sum.Latency = result.LatencyOf(lat)
	if haveSvc && len(out.Trials) > 0 {
		s := result.LatencyOf(svc)
		sum.Service = &s
	}
	out.Summary = sum
	out.LLM = nil
	if len(llms) == len(out.Trials) && len(llms) > 0 {
		l, err := harness.MergeLLM(llms)
		if err != nil {
			return err
		}
		out.LLM = l
	}
	return nil
}
