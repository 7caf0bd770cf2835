package harness

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/perfgate/perfgate/result"
)

// llmSample builds a streaming sample from offsets (ms) from t0.
func llmSample(t0 time.Time, intended, start, first, end float64, tokens int, itl ...float64) Sample {
	at := func(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }
	st := &Stream{FirstToken: at(first), OutputTokens: tokens}
	for _, g := range itl {
		st.ITL = append(st.ITL, time.Duration(g*float64(time.Millisecond)))
	}
	return Sample{Hit: Hit{Intended: at(intended)}, Start: at(start), End: at(end), Stream: st}
}

func tenOf(v float64) []float64 {
	out := make([]float64, 10)
	for i := range out {
		out[i] = v
	}
	return out
}

// The three samples every row records, with their figures by hand:
//
//	A: sent at 0, first token 30, end 130, 11 tokens: TTFT 30, E2E 130, TPOT (130−30)/10 = 10
//	B: due at 0, sent late at 5, first token 55, end 255, 5 tokens:
//	   TTFT 55 (from the intended time), E2E 255, TPOT (255−55)/4 = 50
//	C: first token 20, end 20, 1 token: TTFT 20, E2E 20, no TPOT
//
// plus a failed sample and one without a stream, both ignored.
func llmSamples(t0 time.Time) []Sample {
	a := llmSample(t0, 0, 0, 30, 130, 11, tenOf(10)...)
	b := llmSample(t0, 0, 5, 55, 255, 5, 50, 50, 50, 50)
	c := llmSample(t0, 0, 0, 20, 20, 1)
	failed := llmSample(t0, 0, 0, 1, 2, 100)
	failed.Class = ErrTimeout
	plain := Sample{Start: t0, End: t0.Add(time.Millisecond)}
	return []Sample{a, b, c, failed, plain}
}

func TestLLMRecorder(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name             string
		sloTTFT, sloTPOT time.Duration
		window           time.Duration
		wantGoodput      float64
	}{
		// A and C meet both; B misses both.
		{"both slos", 40 * time.Millisecond, 20 * time.Millisecond, 2 * time.Second, 2.0 / 2},
		// Zero SLOs are no limit: all three are good.
		{"no slos", 0, 0, 2 * time.Second, 3.0 / 2},
		// B's TTFT (55) misses; C has no TPOT and passes the TPOT limit.
		{"ttft only", 40 * time.Millisecond, 0, 2 * time.Second, 2.0 / 2},
		// TPOT ≤ 10 ms: A exactly on the limit passes, B does not.
		{"tpot boundary", 0, 10 * time.Millisecond, 4 * time.Second, 2.0 / 4},
		// B's TTFT from its actual send would be 50 and pass; from the
		// intended time it is 55 and fails.
		{"ttft from intended", 50 * time.Millisecond, 0, 1 * time.Second, 2.0 / 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewLLMRecorder(tt.sloTTFT, tt.sloTPOT)
			for _, s := range llmSamples(t0) {
				r.Add(&s)
			}
			got := r.Result(tt.window)
			secs := tt.window.Seconds()
			want := &result.LLM{
				TTFT:             result.Latency{P50: 30, P90: 55, P99: 55, P999: 55, Max: 55, Mean: (20 + 30 + 55) / 3.0},
				TPOT:             &result.Latency{P50: 10, P90: 50, P99: 50, P999: 50, Max: 50, Mean: 30},
				ITL:              &result.Latency{P50: 10, P90: 50, P99: 50, P999: 50, Max: 50, Mean: (10*10 + 4*50) / 14.0},
				E2E:              &result.Latency{P50: 130, P90: 255, P99: 255, P999: 255, Max: 255, Mean: (20 + 130 + 255) / 3.0},
				OutputTokensPerS: (11 + 5 + 1) / secs,
				OutputTokensMean: 17.0 / 3,
				GoodputRPS:       tt.wantGoodput,
				SLOTTFTMs:        float64(tt.sloTTFT) / 1e6,
				SLOTPOTMs:        float64(tt.sloTPOT) / 1e6,
				Requests:         3,
			}
			// HDR keeps 3 significant digits: quantiles are within 0.1%.
			opts := []cmp.Option{cmpopts.EquateApprox(0.001, 0),
				cmpopts.IgnoreFields(result.LLM{}, "TTFTHistogram", "TPOTHistogram", "ITLHistogram", "E2EHistogram")}
			if d := cmp.Diff(want, got, opts...); d != "" {
				t.Errorf("Result(%v) (-want +got):\n%s", tt.window, d)
			}
			for name, h := range map[string]string{"ttft": got.TTFTHistogram, "tpot": got.TPOTHistogram,
				"itl": got.ITLHistogram, "e2e": got.E2EHistogram} {
				if !strings.HasPrefix(h, "HISTF") {
					t.Errorf("%s histogram = %.20q, want V2 compressed base64", name, h)
				}
			}
		})
	}
}

func TestLLMRecorderEmpty(t *testing.T) {
	got := NewLLMRecorder(0, 0).Result(time.Second)
	if got.Requests != 0 || got.OutputTokensPerS != 0 || got.GoodputRPS != 0 || got.TTFT != (result.Latency{}) {
		t.Errorf("Result of an empty recorder = %+v, want zero figures", got)
	}
	if got := NewLLMRecorder(0, 0).Result(0); got.OutputTokensPerS != 0 {
		t.Errorf("Result(0).OutputTokensPerS = %v, want 0 (no division by a zero window)", got.OutputTokensPerS)
	}
}

func TestMergeLLM(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	samples := llmSamples(t0)
	one, two, all := NewLLMRecorder(40*time.Millisecond, 20*time.Millisecond),
		NewLLMRecorder(40*time.Millisecond, 20*time.Millisecond), NewLLMRecorder(40*time.Millisecond, 20*time.Millisecond)
	for i := range samples {
		if i < 2 {
			one.Add(&samples[i])
		} else {
			two.Add(&samples[i])
		}
		all.Add(&samples[i])
	}
	w := time.Second
	got, err := MergeLLM([]*result.LLM{one.Result(w), two.Result(w)})
	if err != nil {
		t.Fatal(err)
	}
	want := all.Result(2 * w)
	want.TTFTHistogram, want.TPOTHistogram, want.ITLHistogram, want.E2EHistogram = "", "", "", ""
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(1e-9, 0)); d != "" {
		t.Errorf("MergeLLM (-one recorder +merged):\n%s", d)
	}

	bad := one.Result(w)
	bad.TPOTHistogram = "not a histogram"
	if _, err := MergeLLM([]*result.LLM{one.Result(w), bad}); err == nil || !strings.Contains(err.Error(), "trial 2") {
		t.Errorf("MergeLLM with a corrupt trial = %v, want an error naming trial 2", err)
	}
	if _, err := MergeLLM(nil); err == nil {
		t.Error("MergeLLM(nil) succeeded")
	}
}

// One-token answers have no TPOT and no ITL: both are absent (nil, so the
// file omits them), never a zero a gate would compare.
func TestLLMRecorderOneToken(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	r := NewLLMRecorder(0, 20*time.Millisecond)
	for range 3 {
		s := llmSample(t0, 0, 0, 20, 20, 1)
		r.Add(&s)
	}
	got := r.Result(time.Second)
	if got.TPOT != nil || got.ITL != nil {
		t.Errorf("one-token answers: TPOT = %+v, ITL = %+v, want both nil", got.TPOT, got.ITL)
	}
	if got.Requests != 3 || got.GoodputRPS != 3 || math.Abs(got.TTFT.P50-20) > 0.05 {
		t.Errorf("one-token answers: requests %d, goodput %v, TTFT p50 %v; want 3, 3, 20", got.Requests, got.GoodputRPS, got.TTFT.P50)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"tpot_ms"`, `"itl_ms"`} {
		if strings.Contains(string(b), key) {
			t.Errorf("JSON of a one-token result has %s: %s", key, b)
		}
	}
	m, err := MergeLLM([]*result.LLM{got, got})
	if err != nil {
		t.Fatal(err)
	}
	if m.TPOT != nil || m.ITL != nil {
		t.Errorf("MergeLLM of one-token trials: TPOT = %+v, ITL = %+v, want both nil", m.TPOT, m.ITL)
	}
}

// The coalesced share counts the gaps the client could not observe, and
// past MaxITLCoalescedShare marks ITL untrusted, in a trial and in a merge.
func TestLLMRecorderCoalesced(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name          string
		gaps, unobs   int
		wantShare     float64
		wantUntrusted bool
	}{
		{"all observed", 10, 0, 0, false},
		{"at the bound", 100, 5, 0.05, false},
		// One more unobserved gap in a hundred crosses the bound.
		{"past the bound", 100, 6, 0.06, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewLLMRecorder(0, 0)
			s := llmSample(t0, 0, 0, 20, 20+float64(tt.gaps), tt.gaps+1)
			s.Stream.Gaps, s.Stream.Unobserved = tt.gaps, tt.unobs
			s.Stream.PromptTokens, s.Stream.PromptWords = 460, 128
			r.Add(&s)
			got := r.Result(time.Second)
			if got.ITLGaps != int64(tt.gaps) || got.ITLUnobserved != int64(tt.unobs) ||
				math.Abs(got.ITLCoalescedShare-tt.wantShare) > 1e-12 || got.ITLUntrusted != tt.wantUntrusted {
				t.Errorf("gaps %d/%d, share %v, untrusted %v; want %d/%d, %v, %v", got.ITLUnobserved, got.ITLGaps,
					got.ITLCoalescedShare, got.ITLUntrusted, tt.unobs, tt.gaps, tt.wantShare, tt.wantUntrusted)
			}
			if got.PromptTokensMean != 460 || got.PromptWordsMean != 128 {
				t.Errorf("prompt %v tokens / %v words, want 460 / 128", got.PromptTokensMean, got.PromptWordsMean)
			}
			m, err := MergeLLM([]*result.LLM{got, got})
			if err != nil {
				t.Fatal(err)
			}
			if m.ITLGaps != 2*int64(tt.gaps) || m.ITLUntrusted != tt.wantUntrusted || m.PromptTokensMean != 460 {
				t.Errorf("MergeLLM: gaps %d, untrusted %v, prompt tokens %v; want %d, %v, 460", m.ITLGaps, m.ITLUntrusted, m.PromptTokensMean, 2*tt.gaps, tt.wantUntrusted)
			}
		})
	}
}
