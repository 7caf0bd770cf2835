package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare"
)

// The whole gate end to end against a real server: store baselines from a
// run, then gate a run of the same server (pass), and one where the server
// got twice as slow (fail, exit 1), with the comparison and the report
// written.
func TestGateEndToEnd(t *testing.T) {
	t.Parallel() // light, and robust beside another: see runCLI
	var delay atomic.Int64
	delay.Store(int64(2 * time.Millisecond))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Duration(delay.Load()))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "perfgate.yaml")
	os.WriteFile(cfg, []byte(`version: 1
gate: {p99_regression: 10%, confidence: 0.95, ignore_host_load: true}
baselines: baselines
scenarios:
  - name: api
    layer: service
    url: "`+srv.URL+`"
    load: {mode: concurrency, concurrency: 2, duration: 400ms, warmup: 100ms, trials: 5}
`), 0o644)

	// No baselines folder yet: an error naming it (issue 43: a mistyped
	// folder passed as a first run), unless the user says first run;
	// then the gate passes, naming the folder and the command that
	// stores the run there.
	bl := filepath.Join(dir, "baselines")
	code, _, stderr := runCLI(t, "gate", "--config", cfg, "--out", filepath.Join(dir, "o0"))
	if want := `baselines folder "` + bl + `" does not exist`; code != exitUsage || !strings.Contains(stderr, want) {
		t.Fatalf("gate without baselines: exit %d, want 2 with %q; stderr:\n%s", code, want, stderr)
	}
	code, _, stderr = runCLI(t, "gate", "--config", cfg, "--out", filepath.Join(dir, "o1"), "--first-run")
	want := "no baseline in " + bl + " to compare with (a first run): the gate passes; store this run as the baselines with `perfgate baseline update --from " +
		filepath.Join(dir, "o1", "results") + " --to " + bl + "`"
	if code != exitPass || !strings.Contains(stderr, want) {
		t.Fatalf("first gate: exit %d, want 0 with %q; stderr:\n%s", code, want, stderr)
	}
	code, _, stderr = runCLI(t, "baseline", "update", "--from", filepath.Join(dir, "o1", "results"), "--to", filepath.Join(dir, "baselines"))
	if code != exitPass {
		t.Fatalf("baseline update: exit %d:\n%s", code, stderr)
	}

	// 25×: on a shared machine the baseline's P99 can be several times its 2 ms.
	delay.Store(int64(50 * time.Millisecond))
	out := filepath.Join(dir, "o3")
	code, stdout, stderr := runCLI(t, "gate", "--config", cfg, "--out", out)
	if code != exitRegression {
		t.Fatalf("gate after a 25x slowdown: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitRegression, stdout, stderr)
	}
	f, err := os.Open(filepath.Join(out, "comparison.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var c compare.Comparison
	if err := jsonDecode(f, &c); err != nil {
		t.Fatal(err)
	}
	if c.Verdict != compare.Fail || len(c.Scenarios) != 1 || c.Scenarios[0].Verdict != compare.Regressed {
		t.Errorf("comparison verdict %q, scenarios %+v; want fail with api regressed", c.Verdict, c.Scenarios)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(md), "api") {
		t.Errorf("report.md missing or without the scenario: %v", err)
	}
	// The HTML report beside it, with the real run's per-second timeline;
	// and `perfgate report` renders the same results again.
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatalf("report.html: %v", err)
	}
	for _, want := range []string{`data-kind="spectrum"`, `data-kind="trials"`, `data-kind="timeline-rate"`, `data-kind="timeline-p99"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	again := filepath.Join(dir, "again.html")
	code, _, stderr = runCLI(t, "report", "--html", again, "--baseline", filepath.Join(dir, "baselines"), filepath.Join(out, "results"))
	if code != exitPass {
		t.Fatalf("perfgate report: exit %d:\n%s", code, stderr)
	}
	if page, err := os.ReadFile(again); err != nil || !strings.Contains(string(page), "regressed") {
		t.Errorf("perfgate report --html wrote no page with the regression: %v", err)
	}
}

func jsonDecode(r interface{ Read([]byte) (int, error) }, v any) error {
	return json.NewDecoder(r).Decode(v)
}
