package result

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// manyTrials is a well-formed result of n trials, each of 200 requests
// spread over 1 µs to 1 s (so that each decoded histogram spans the
// counts a real one does).
func manyTrials(t testing.TB, n int) []byte {
	t.Helper()
	h := NewHistogram()
	for i := range 200 {
		RecordDuration(h, time.Duration(1+i*i*25)*time.Microsecond)
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	r := &Result{Schema: Schema, Scenario: "api", Layer: "service", Valid: true, Load: Load{Mode: "rate", Rate: 200, Trials: n}}
	for range n {
		r.Trials = append(r.Trials, Trial{Requests: 200, Histogram: enc, Latency: LatencyOf(h), AchievedRPS: 200, OfferedRPS: 200, DurationS: 1})
	}
	if r.Summary, err = SummaryOf(r.Trials, Summary{OfferedRPS: 200}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A result holds at most MaxTrials trials (issue 43: 10,000 trials, a
// 3.9 MB file, decoded into 3.5 GB): one more is refused by Parse, with
// the field, before any histogram is decoded.
func TestParseRefusesTooManyTrials(t *testing.T) {
	for _, tt := range []struct {
		n       int
		wantErr string
	}{
		{MaxTrials, ""},
		{MaxTrials + 1, fmt.Sprintf(`field "trials": %d trials, more than the %d a result may hold`, MaxTrials+1, MaxTrials)},
	} {
		r, err := Parse(manyTrials(t, tt.n))
		if err == nil {
			err = r.Check()
		}
		if (tt.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Parse+Check(%d trials) = %v, want %q", tt.n, err, tt.wantErr)
		}
	}
}

// checkMemEnv names the result file the child process of
// TestCheckMemoryBounded checks.
const checkMemEnv = "PERFGATE_TEST_CHECK_MEM"

// Checking a result at the trial cap holds one decoded histogram at a
// time, not one per trial: the child process that reads and checks it
// stays under 48 MiB at its peak (kernel-measured, ru_maxrss), where
// decoding every trial's histogram first held 256 × 340 KB.
func TestCheckMemoryBounded(t *testing.T) {
	if p := os.Getenv(checkMemEnv); p != "" {
		r, err := ReadFile(p)
		if err == nil {
			err = r.Check()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(path, manyTrials(t, MaxTrials), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestCheckMemoryBounded$")
	cmd.Env = append(os.Environ(), checkMemEnv+"="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage on this system")
	}
	const limit = 48 << 10 // KiB, as Linux reports ru_maxrss
	t.Logf("checking %d trials: peak RSS %d MiB", MaxTrials, ru.Maxrss>>10)
	if ru.Maxrss > limit {
		t.Errorf("checking %d trials: peak RSS %d MiB, want under %d MiB", MaxTrials, ru.Maxrss>>10, limit>>10)
	}
}
