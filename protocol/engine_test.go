package protocol

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/harness"
)

// TestOpenAIUnderEngine runs the streaming client under the harness engine
// (open loop, Poisson arrivals) and checks the llm part of the result
// against the server's known TTFT (30 ms) and per-token delay (10 ms).
func TestOpenAIUnderEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs load for about 1.5 s")
	}
	url := startSSE(t, &sseServer{ttft: 30 * time.Millisecond, tokenDelay: 10 * time.Millisecond, tokens: 6, usage: true})
	c := newClient(t, Options{Protocol: OpenAI, URL: url, Model: "tiny-llm", PromptTokens: 16})
	overshoot := watchOvershoot(10 * time.Millisecond)
	res, err := harness.Run(context.Background(), harness.Options{Client: c, Mode: harness.ModeRate,
		Rate: 20, Arrival: harness.ArrivalPoisson, Seed: 3, Warmup: 300 * time.Millisecond,
		Duration: time.Second, Trials: 1, MaxRequests: 200,
		SLOTTFT: time.Second, SLOTPOT: time.Second})
	over := overshoot()
	if err != nil {
		t.Fatal(err)
	}
	llm := res.LLM
	if llm == nil {
		t.Fatal("result has no llm part")
	}
	if llm.TTFT.P50 < 15 || llm.TPOT.P50 < 5 {
		t.Errorf("TTFT p50 %.1f ms, TPOT p50 %.1f ms; want about 30 and 10 (sleeps never wake early)", llm.TTFT.P50, llm.TPOT.P50)
	}
	// The upper bounds (and the rates below) need a host that runs the
	// server's sleeps on time: the overshoot of sleeps beside, measured in
	// the same run, says whether it did.
	if llm.TTFT.P50 > 60+over || llm.TPOT.P50 > 20+over {
		if over > noisyOvershootMs {
			t.Skipf("host too busy for the upper bounds: TTFT p50 %.1f ms, TPOT p50 %.1f ms with sleeps beside overshooting %.2f ms on average", llm.TTFT.P50, llm.TPOT.P50, over)
		}
		t.Errorf("TTFT p50 %.1f ms, TPOT p50 %.1f ms; want about 30 and 10 (sleeps beside overshot %.2f ms)", llm.TTFT.P50, llm.TPOT.P50, over)
	}
	if llm.OutputTokensMean != 6 {
		t.Errorf("output tokens mean = %v, want 6", llm.OutputTokensMean)
	}
	// About 20 requests a second, all within the loose SLOs, 6 tokens each.
	if llm.GoodputRPS < 10 || llm.GoodputRPS > 30 || llm.OutputTokensPerS < 60 || llm.OutputTokensPerS > 180 {
		t.Errorf("goodput %.1f rps, %.1f tokens/s; want about 20 and 120", llm.GoodputRPS, llm.OutputTokensPerS)
	}
}

// TestReplayTraceUnderEngine replays a looping trace of prompts through
// the engine and checks that every prompt of the trace was sent.
func TestReplayTraceUnderEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs load for about 1 s")
	}
	srv := &sseServer{tokens: 2, usage: true}
	url := startSSE(t, srv)
	var lines []string
	want := map[string]bool{}
	for i := range 10 {
		p := fmt.Sprintf("trace prompt %d", i)
		want[p] = true
		lines = append(lines, fmt.Sprintf(`{"offset_ms": %d, "prompt": %q}`, 10*i, p))
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	sched, err := harness.LoadTrace(path, 1)
	if err != nil {
		t.Fatal(err)
	}
	sched.Loop = true
	c := newClient(t, Options{Protocol: OpenAI, URL: url, Model: "tiny-llm"})
	res, err := harness.Run(context.Background(), harness.Options{Client: c, Mode: harness.ModeReplay,
		Schedule: sched, Duration: 500 * time.Millisecond, Trials: 1, MaxRequests: 200})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Errors != 0 {
		t.Errorf("replay had %d errors", res.Summary.Errors)
	}
	srv.mu.Lock()
	got := srv.prompts
	srv.mu.Unlock()
	seen := map[string]bool{}
	for _, p := range got {
		if !want[p] {
			t.Errorf("prompt %q is not in the trace", p)
		}
		seen[p] = true
	}
	if len(seen) != len(want) {
		keys := make([]string, 0, len(seen))
		for k := range seen {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t.Errorf("saw %d distinct trace prompts %v, want all %d (the trace loops)", len(seen), keys, len(want))
	}
}
