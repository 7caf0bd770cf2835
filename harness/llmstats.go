package harness

// NOTE(lead): first version written by the lead to unblock the engine;
// the protocols work owns this file and may extend it, keeping
// NewLLMRecorder, Add and Result.

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/perfgate/perfgate/result"
)

// LLMRecorder aggregates streaming samples into result.LLM. It has a single
// writer (the engine's recorder).
//
//	TTFT = FirstToken − Start (send to first content token)
//	ITL  = gaps between successive content chunks
//	TPOT = (End − Start − TTFT) / (OutputTokens − 1), for ≥ 2 tokens
//	output_tokens_per_s = Σ OutputTokens / window
//	goodput_rps = requests with TTFT ≤ SLOTTFT and TPOT ≤ SLOTPOT / window
//
// A zero SLO is no limit. A request with one token has no TPOT and meets the
// TPOT SLO trivially.
type LLMRecorder struct {
	sloTTFT, sloTPOT     time.Duration
	ttft, tpot, itl, e2e *hdrhistogram.Histogram
	tokens               int64
	n, good              int64
}

// NewLLMRecorder returns an empty recorder judging goodput by the SLOs.
func NewLLMRecorder(sloTTFT, sloTPOT time.Duration) *LLMRecorder {
	return &LLMRecorder{sloTTFT: sloTTFT, sloTPOT: sloTPOT,
		ttft: result.NewHistogram(), tpot: result.NewHistogram(),
		itl: result.NewHistogram(), e2e: result.NewHistogram()}
}

// Add records one successful streaming sample; others are ignored.
func (r *LLMRecorder) Add(s *Sample) {
	if s.Stream == nil || !s.OK() || s.Stream.FirstToken.IsZero() {
		return
	}
	r.n++
	ttft := s.Stream.FirstToken.Sub(s.Start)
	e2e := s.End.Sub(s.Start)
	result.RecordDuration(r.ttft, ttft)
	result.RecordDuration(r.e2e, e2e)
	for _, g := range s.Stream.ITL {
		result.RecordDuration(r.itl, g)
	}
	r.tokens += int64(s.Stream.OutputTokens)
	meets := r.sloTTFT <= 0 || ttft <= r.sloTTFT
	if s.Stream.OutputTokens >= 2 {
		tpot := (e2e - ttft) / time.Duration(s.Stream.OutputTokens-1)
		result.RecordDuration(r.tpot, tpot)
		meets = meets && (r.sloTPOT <= 0 || tpot <= r.sloTPOT)
	}
	if meets {
		r.good++
	}
}

// Result summarizes what was recorded over a window of the given length.
func (r *LLMRecorder) Result(window time.Duration) *result.LLM {
	secs := window.Seconds()
	e2e := result.LatencyOf(r.e2e)
	out := &result.LLM{
		TTFT: result.LatencyOf(r.ttft), TPOT: result.LatencyOf(r.tpot), ITL: result.LatencyOf(r.itl),
		E2E:       &e2e,
		SLOTTFTMs: float64(r.sloTTFT) / float64(time.Millisecond),
		SLOTPOTMs: float64(r.sloTPOT) / float64(time.Millisecond),
	}
	if secs > 0 {
		out.OutputTokensPerS = float64(r.tokens) / secs
		out.GoodputRPS = float64(r.good) / secs
	}
	if r.n > 0 {
		out.OutputTokensMean = float64(r.tokens) / float64(r.n)
	}
	out.TTFTHistogram, _ = result.EncodeHistogram(r.ttft)
	out.TPOTHistogram, _ = result.EncodeHistogram(r.tpot)
	return out
}
