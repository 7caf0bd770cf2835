package harness

import (
	"errors"
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/perfgate/perfgate/result"
)

// LLMRecorder aggregates successful streaming samples into result.LLM. It
// has a single writer (the engine's recorder) and is not safe for
// concurrent use. For each request, with t0 its intended send time
// (Hit.Intended; the actual send, Start, when there is none or it is later):
//
//	TTFT = FirstToken − t0                 (send to first content token)
//	E2E  = End − t0                        (send to the end of the stream)
//	ITL  = each gap between successive content chunks (Stream.ITL)
//	TPOT = (E2E − TTFT) / (OutputTokens − 1) = (End − FirstToken) / (OutputTokens − 1),
//	       for requests with ≥ 2 output tokens only
//
// Counting from the intended time, as latency_ms does, keeps a stall that
// queued requests in the generator visible in TTFT; TPOT does not depend on
// t0. Over a window of length W:
//
//	output_tokens_per_s = Σ OutputTokens / W
//	output_tokens_mean  = Σ OutputTokens / requests
//	goodput_rps         = requests with TTFT ≤ SLO_TTFT and TPOT ≤ SLO_TPOT / W
//
// A zero SLO is no limit; a request with one token has no TPOT and meets
// the TPOT SLO. TPOT and ITL are absent (nil) when no request had two
// tokens. Distributions are HDR histograms in microseconds (see
// result.NewHistogram), reported in milliseconds.
//
// ITL holds only the gaps the client observed (Stream.ITL); the others
// are counted: itl_coalesced_share = Σ Unobserved / Σ Gaps, and past
// MaxITLCoalescedShare the ITL is marked untrusted.
type LLMRecorder struct {
	sloTTFT, sloTPOT     time.Duration
	ttft, tpot, itl, e2e *hdrhistogram.Histogram
	tokens               int64
	n, good              int64
	gaps, unobserved     int64
	promptTokens, nUsage int64 // Σ usage.prompt_tokens over nUsage requests
	promptWords, nWords  int64
}

// MaxITLCoalescedShare is the share of inter-token gaps that may go
// unobserved (two content chunks completed by one read) before ITL is
// untrusted: past 5% the observed gaps are a biased sample (the reader
// was late, or the server wrote tokens together), so ITL is flagged in
// every report and never compared.
const MaxITLCoalescedShare = 0.05

// NewLLMRecorder returns an empty recorder judging goodput by the SLOs.
func NewLLMRecorder(sloTTFT, sloTPOT time.Duration) *LLMRecorder {
	return &LLMRecorder{sloTTFT: sloTTFT, sloTPOT: sloTPOT,
		ttft: result.NewHistogram(), tpot: result.NewHistogram(),
		itl: result.NewHistogram(), e2e: result.NewHistogram()}
}

// Add records one sample. Failed samples, samples without a stream and
// streams without a first token are ignored: errors are counted by the
// engine, never as latencies.
func (r *LLMRecorder) Add(s *Sample) {
	if s.Stream == nil || !s.OK() || s.Stream.FirstToken.IsZero() {
		return
	}
	t0 := s.Start
	if !s.Hit.Intended.IsZero() && s.Hit.Intended.Before(t0) {
		t0 = s.Hit.Intended
	}
	ttft := s.Stream.FirstToken.Sub(t0)
	e2e := s.End.Sub(t0)
	r.n++
	result.RecordDuration(r.ttft, ttft)
	result.RecordDuration(r.e2e, e2e)
	for _, g := range s.Stream.ITL {
		result.RecordDuration(r.itl, g)
	}
	r.gaps += int64(s.Stream.Gaps)
	r.unobserved += int64(s.Stream.Unobserved)
	if s.Stream.PromptTokens > 0 {
		r.promptTokens += int64(s.Stream.PromptTokens)
		r.nUsage++
	}
	if s.Stream.PromptWords > 0 {
		r.promptWords += int64(s.Stream.PromptWords)
		r.nWords++
	}
	r.tokens += int64(s.Stream.OutputTokens)
	meets := r.sloTTFT <= 0 || ttft <= r.sloTTFT
	if s.Stream.OutputTokens >= 2 {
		tpot := s.End.Sub(s.Stream.FirstToken) / time.Duration(s.Stream.OutputTokens-1)
		result.RecordDuration(r.tpot, tpot)
		meets = meets && (r.sloTPOT <= 0 || tpot <= r.sloTPOT)
	}
	if meets {
		r.good++
	}
}

// Requests returns how many samples were recorded.
func (r *LLMRecorder) Requests() int64 { return r.n }

// Result summarizes what was recorded over a window of length window, with
// the four histograms encoded so trials merge without loss (MergeLLM).
func (r *LLMRecorder) Result(window time.Duration) *result.LLM {
	e2e := result.LatencyOf(r.e2e)
	out := &result.LLM{
		TTFT: result.LatencyOf(r.ttft), TPOT: latencyIfAny(r.tpot), ITL: latencyIfAny(r.itl),
		E2E:       &e2e,
		SLOTTFTMs: llmMs(r.sloTTFT),
		SLOTPOTMs: llmMs(r.sloTPOT),
		Requests:  r.n,
	}
	if secs := window.Seconds(); secs > 0 {
		out.OutputTokensPerS = float64(r.tokens) / secs
		out.GoodputRPS = float64(r.good) / secs
	}
	if r.n > 0 {
		out.OutputTokensMean = float64(r.tokens) / float64(r.n)
	}
	if r.nUsage > 0 {
		out.PromptTokensMean = float64(r.promptTokens) / float64(r.nUsage)
	}
	if r.nWords > 0 {
		out.PromptWordsMean = float64(r.promptWords) / float64(r.nWords)
	}
	out.ITLGaps, out.ITLUnobserved = r.gaps, r.unobserved
	setCoalesced(out)
	// Encoding an in-memory histogram cannot fail short of running out of
	// memory; an empty string would then make MergeLLM report the trial.
	out.TTFTHistogram, _ = result.EncodeHistogram(r.ttft)
	out.TPOTHistogram, _ = result.EncodeHistogram(r.tpot)
	out.ITLHistogram, _ = result.EncodeHistogram(r.itl)
	out.E2EHistogram, _ = result.EncodeHistogram(r.e2e)
	return out
}

// latencyIfAny is h's distribution, or nil when h holds nothing: a
// quantity no request had is absent, not zero.
func latencyIfAny(h *hdrhistogram.Histogram) *result.Latency {
	if h.TotalCount() == 0 {
		return nil
	}
	l := result.LatencyOf(h)
	return &l
}

// setCoalesced derives the coalesced share from l's gap counts and marks
// ITL untrusted past MaxITLCoalescedShare.
func setCoalesced(l *result.LLM) {
	l.ITLCoalescedShare, l.ITLUntrusted = 0, false
	if l.ITLGaps > 0 {
		l.ITLCoalescedShare = float64(l.ITLUnobserved) / float64(l.ITLGaps)
		l.ITLUntrusted = l.ITLCoalescedShare > MaxITLCoalescedShare
	}
}

func llmMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// MergeLLM combines per-trial LLM figures into a summary, as if one
// recorder had seen every trial. Trials have windows of equal length (the
// engine makes them so), so the rates are the trials' means:
//
//	output_tokens_per_s = Σ_i tokens_i / (n·W) = mean_i output_tokens_per_s_i
//	goodput_rps         = mean_i goodput_rps_i
//	output_tokens_mean  = Σ_i mean_i·requests_i / Σ_i requests_i
//	prompt_*_mean       = the same weighting (exact when every request
//	                      reported its usage)
//	itl_gaps, itl_unobserved: sums; the coalesced share from them
//
// and the distributions come from the merged histograms. The summary keeps
// no histograms. A trial without histograms, or a merge that drops values,
// is an error naming the trial (1-based).
func MergeLLM(trials []*result.LLM) (*result.LLM, error) {
	if len(trials) == 0 {
		return nil, errors.New("merging LLM figures: no trials")
	}
	all := [4]*hdrhistogram.Histogram{result.NewHistogram(), result.NewHistogram(), result.NewHistogram(), result.NewHistogram()}
	out := &result.LLM{SLOTTFTMs: trials[0].SLOTTFTMs, SLOTPOTMs: trials[0].SLOTPOTMs}
	var tokens, ptok, pwords float64
	var nTok, nWords int64
	for i, t := range trials {
		for j, enc := range [4]string{t.TTFTHistogram, t.TPOTHistogram, t.ITLHistogram, t.E2EHistogram} {
			if enc == "" && j >= 2 && t.ITLHistogram == "" && t.E2EHistogram == "" {
				continue // a file from before ITL and E2E histograms were kept
			}
			h, err := result.DecodeHistogram(enc)
			if err != nil {
				return nil, fmt.Errorf("merging LLM figures: trial %d: %w", i+1, err)
			}
			if err := result.Merge(all[j], h); err != nil {
				return nil, fmt.Errorf("merging LLM figures: trial %d: %w", i+1, err)
			}
		}
		out.OutputTokensPerS += t.OutputTokensPerS / float64(len(trials))
		out.GoodputRPS += t.GoodputRPS / float64(len(trials))
		out.Requests += t.Requests
		tokens += t.OutputTokensMean * float64(t.Requests)
		if t.PromptTokensMean > 0 {
			ptok += t.PromptTokensMean * float64(t.Requests)
			nTok += t.Requests
		}
		if t.PromptWordsMean > 0 {
			pwords += t.PromptWordsMean * float64(t.Requests)
			nWords += t.Requests
		}
		out.ITLGaps += t.ITLGaps
		out.ITLUnobserved += t.ITLUnobserved
	}
	out.TTFT, out.TPOT, out.ITL = result.LatencyOf(all[0]), latencyIfAny(all[1]), latencyIfAny(all[2])
	setCoalesced(out)
	if nTok > 0 {
		out.PromptTokensMean = ptok / float64(nTok)
	}
	if nWords > 0 {
		out.PromptWordsMean = pwords / float64(nWords)
	}
	if all[3].TotalCount() > 0 {
		e2e := result.LatencyOf(all[3])
		out.E2E = &e2e
	}
	if out.Requests > 0 {
		out.OutputTokensMean = tokens / float64(out.Requests)
	}
	return out, nil
}
