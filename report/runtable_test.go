package report

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// The run table says what it did not check and what it does not trust:
// a Little's Law check on a window too short for it, TPOT and ITL that no
// request had, an ITL with too many unobserved gaps.
func TestRunTableCaveats(t *testing.T) {
	tests := []struct {
		name      string
		res       result.Result
		want, not []string
	}{
		{
			name: "short window",
			res: result.Result{Scenario: "s", Valid: true, Load: result.Load{Mode: "concurrency", Concurrency: 4, DurationS: 5, Trials: 1},
				Summary: result.Summary{Requests: 40, InFlightMean: 4, AchievedRPS: 6.8, Latency: result.Latency{Mean: 520}}},
			want: []string{"s: Little's Law: not checked: window too short: the 5s window is 9.6 mean latencies (520 ms) long, under 20"},
			not:  []string{"λ·W ="},
		},
		{
			name: "one token, untrusted ITL",
			res: result.Result{Scenario: "s", Valid: true, Load: result.Load{Mode: "rate", Rate: 5, Trials: 1},
				LLM: &result.LLM{TTFT: result.Latency{P50: 30, P99: 40}, ITL: &result.Latency{P99: 2},
					ITLGaps: 100, ITLUnobserved: 30, ITLCoalescedShare: 0.3, ITLUntrusted: true,
					PromptTokensMean: 460, PromptWordsMean: 128}},
			want: []string{"TPOT n/a", "ITL p99 2.00 ms (UNTRUSTED: 30.0% of gaps unobserved)",
				"ITL is untrusted: 30 of 100 inter-token gaps", "prompt length: 460.0 tokens (server's usage) · 128.0 words sent"},
			not: []string{"TPOT p50 0.00"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := RunTable(&b, []RunRow{{Scenario: "s", Result: &tt.res}}); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("RunTable does not say %q:\n%s", w, b.String())
				}
			}
			for _, n := range tt.not {
				if strings.Contains(b.String(), n) {
					t.Errorf("RunTable says %q:\n%s", n, b.String())
				}
			}
		})
	}
}
