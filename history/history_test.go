package history

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/changepoint"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
)

// run is a synthetic run of scenario at a latency scale, on day i.
func run(t testing.TB, scenario string, scale float64, i int, rng *rand.Rand) Record {
	t.Helper()
	r := comparetest.Result(comparetest.Spec{Scenario: scenario, Trials: 4, Requests: 400, MedianMs: 10,
		Scale: scale, Noise: 0.01, MaxQPS: 900 * (2 - scale), Bracket: [2]float64{850, 950}}, rng)
	for k := range r.Trials {
		r.Trials[k].Process = 1 + k/2
	}
	r.Restarts = 2
	rec, err := FromResult(r, Meta{Commit: "c" + strings.Repeat("0", 3) + string(rune('a'+i%26)),
		Date: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour), Baseline: true})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestFromResult(t *testing.T) {
	rec := run(t, "chat", 1, 0, rand.New(rand.NewPCG(1, 1)))
	for _, m := range []string{MetricP50, MetricP99, MetricP999, MetricRPS, MetricErrorRate, MetricMaxQPS} {
		if _, ok := rec.Metrics[m]; !ok {
			t.Errorf("FromResult: no %s in %v", m, rec.Metrics)
		}
	}
	p99 := rec.Metrics[MetricP99]
	if len(p99.PerProcess) != 2 || len(p99.PerTrial) != 4 {
		t.Errorf("p99: %d per-process and %d per-trial values, want 2 and 4", len(p99.PerProcess), len(p99.PerTrial))
	}
	if !(p99.Lo < p99.Value && p99.Value < p99.Hi) {
		t.Errorf("p99 interval [%v, %v] does not hold its value %v", p99.Lo, p99.Hi, p99.Value)
	}
	if len(rec.Histograms) != 2 {
		t.Fatalf("%d histograms, want one per process (2)", len(rec.Histograms))
	}
	h, err := result.DecodeHistogram(rec.Histograms[0])
	if err != nil || h.TotalCount() != 800 {
		t.Errorf("process 1 histogram: %v values (err %v), want 800", h.TotalCount(), err)
	}
	if rec.Runner == "" || len(rec.Runner) != 12 {
		t.Errorf("runner id %q, want 12 hex digits", rec.Runner)
	}
	bad := comparetest.Result(comparetest.Spec{Scenario: "x", Trials: 1, Requests: 10, MedianMs: 1}, rand.New(rand.NewPCG(1, 1)))
	bad.Valid = false
	if _, err := FromResult(bad, Meta{}); err == nil {
		t.Error("FromResult(invalid run): no error, want one")
	}
}

func TestDirRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	dir := Dir(filepath.Join(t.TempDir(), "h"))
	var want []Record
	for i := range 3 {
		recs := []Record{run(t, "chat", 1, i, rng), run(t, "embed/v2", 1, i, rng)}
		if err := dir.Append(recs); err != nil {
			t.Fatal(err)
		}
		want = append(want, recs...)
	}
	got, err := dir.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d records, want %d", len(got), len(want))
	}
	if _, err := os.Stat(filepath.Join(string(dir), "embed_v2.jsonl")); err != nil {
		t.Errorf("scenario file: %v", err)
	}
	if d := cmp.Diff(want[0], got[0]); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"bad json", "{\"schema\":", "h.jsonl:1:"},
		{"wrong schema", `{"schema":"perfgate.result/v1","scenario":"a"}`, `h.jsonl:1: schema is "perfgate.result/v1"`},
		{"no scenario", "\n" + `{"schema":"perfgate.history/v1"}`, "h.jsonl:2: record without a scenario"},
		{"trailing", `{"schema":"perfgate.history/v1","scenario":"a"} {}`, "h.jsonl:1: trailing data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tt.in), "h.jsonl")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode(%q) = %v, want an error with %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestRetention(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var recs []Record
	for i := range 10 {
		recs = append(recs, run(t, "chat", 1, i, rng))
	}
	got := Retention{Keep: 6, KeepHistograms: 2}.Apply(recs)
	if len(got) != 6 {
		t.Fatalf("kept %d, want 6", len(got))
	}
	if got[0].Date != recs[4].Date {
		t.Errorf("oldest kept is %v, want %v (the newest 6 kept)", got[0].Date, recs[4].Date)
	}
	withH := 0
	for _, r := range got {
		if len(r.Histograms) > 0 {
			withH++
		}
	}
	if withH != 2 || len(got[5].Histograms) == 0 {
		t.Errorf("%d records keep histograms, want the newest 2", withH)
	}
}

// TestChangesAndNoise: a series of 30 runs whose P99 steps up 25% at run
// 20 has one change point there, and the noise is learned from the 10 runs
// after it.
func TestChangesAndNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var recs []Record
	for i := range 30 {
		scale := 1.0
		if i >= 20 {
			scale = 1.25
		}
		recs = append(recs, run(t, "chat", scale, i, rng))
	}
	ss := AllSeries(recs, "chat", MetricP99)
	if len(ss) != 1 || len(ss[0].Points) != 30 {
		t.Fatalf("AllSeries: %d series, want 1 of 30 points", len(ss))
	}
	cs, err := ss[0].Changes(changepoint.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Index != 20 || !cs[0].Regression || math.Abs(cs[0].SizePct-25) > 5 {
		t.Fatalf("Changes = %+v, want one regression of about +25%% at run 20", cs)
	}
	n, err := LearnNoise(recs, "chat", recs[0].Runner, changepoint.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if !n.Learned || n.Runs != 10 || n.Fraction <= 0 || n.Fraction > 0.05 {
		t.Errorf("LearnNoise = %+v, want learned from 10 runs, a few percent", n)
	}
	if n.Source() != "history (10 runs)" {
		t.Errorf("Source() = %q", n.Source())
	}
	// The medians' noise is learned from their own series, apart from
	// the tail's: P50 is a metric of its own, never the noise metrics'.
	if m := n.Median; m == nil || !m.Learned || m.Metric != MetricP50 || m.Runs < MinNoiseRuns || m.Fraction <= 0 || m.Fraction > 0.05 {
		t.Errorf("LearnNoise's medians = %+v, want learned from P50's own runs, a few percent", m)
	}
	few, _ := LearnNoise(recs[:5], "chat", recs[0].Runner, changepoint.DefaultSettings())
	if few.Learned || few.Median == nil || few.Median.Learned {
		t.Errorf("LearnNoise over 5 runs = %+v, want neither learned (fewer than %d)", few, MinNoiseRuns)
	}
}

// gitT runs git in dir for a test.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestPushTwoWriters: two clones push to one bare repository at once;
// every record of both ends up on the branch.
func TestPushTwoWriters(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	bare := filepath.Join(root, "remote.git")
	gitT(t, root, "init", "-q", "--bare", bare)
	const perWriter = 6
	var clones []string
	for _, name := range []string{"a", "b"} {
		c := filepath.Join(root, name)
		gitT(t, root, "clone", "-q", bare, c)
		clones = append(clones, c)
	}
	var wg sync.WaitGroup
	attempts := make([]int, 2)
	errs := make([]error, 2)
	for w, c := range clones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 5))
			p := Pusher{Repo: c, Remote: "origin", Branch: DefaultBranch, Attempts: 20}
			for i := range perWriter {
				rec := run(t, "chat", 1, w*100+i, rng)
				rec.Commit = []string{"writer-a", "writer-b"}[w]
				_, n, err := p.Push(context.Background(), []Record{rec})
				attempts[w] += n
				if err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	reader := filepath.Join(root, "reader")
	gitT(t, root, "clone", "-q", "--branch", DefaultBranch, bare, reader)
	src, err := Open(context.Background(), "origin/"+DefaultBranch, reader)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("two writers, %d records each: %d on the branch, %d push attempts", perWriter, len(recs), attempts[0]+attempts[1])
	if len(recs) != 2*perWriter {
		t.Fatalf("%d records on the branch, want %d (none lost)", len(recs), 2*perWriter)
	}
	count := map[string]int{}
	for _, r := range recs {
		count[r.Commit]++
	}
	if count["writer-a"] != perWriter || count["writer-b"] != perWriter {
		t.Errorf("records by writer %v, want %d each", count, perWriter)
	}
	// The work trees were never touched.
	if out := gitT(t, clones[0], "status", "--porcelain"); out != "" {
		t.Errorf("writer's work tree changed: %q", out)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	src, err := Open(context.Background(), dir, "/")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := src.(Dir); !ok {
		t.Errorf("Open(folder) = %T, want Dir", src)
	}
	_, err = Open(context.Background(), "no-such-ref-xyz", dir)
	if err == nil || !strings.Contains(err.Error(), "neither a folder nor a git revision") {
		t.Errorf("Open(bad) = %v, want an error saying what it is not", err)
	}
}

// TestSizePer100Runs writes 100 records of a scenario (4 trials of 400
// requests over 2 processes) and prints the file's size with and without
// histograms; the bounds are what docs/history.md promises.
func TestSizePer100Runs(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	dir := Dir(t.TempDir())
	var recs []Record
	for i := range 100 {
		recs = append(recs, run(t, "chat", 1, i, rng))
	}
	if err := dir.Append(recs); err != nil {
		t.Fatal(err)
	}
	size := func() int64 {
		st, err := os.Stat(filepath.Join(string(dir), "chat.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	with := size()
	if _, err := dir.Compact(context.Background(), Retention{KeepHistograms: 1}); err != nil {
		t.Fatal(err)
	}
	without := size()
	t.Logf("100 runs of one scenario: %d bytes with histograms (%d a run), %d without (%d a run)", with, with/100, without, without/100)
	if with > 2<<20 || without > 300<<10 {
		t.Errorf("100 runs take %d bytes (%d without histograms): want under 2 MiB (300 KiB)", with, without)
	}
	if without >= with {
		t.Errorf("compaction kept the histograms: %d bytes before, %d after", with, without)
	}
}
