package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
	"github.com/perfgate/perfgate/sizing/sizingtest"
)

// updating reports whether the tests run with -update (the flag of
// internal/golden, which this package's tests share).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// sample builds a deterministic comparison that exercises every part of
// the output: a regression with a knee, an improvement with a lagging
// trial, a streaming scenario, a scenario without baseline, an allowed
// environment mismatch and a ladder.
func sampleComparison(t *testing.T) *compare.Comparison {
	t.Helper()
	rng := rand.New(rand.NewPCG(2026, 11))
	mk := func(sp comparetest.Spec, scale float64, qps [2]float64) *result.Result {
		sp.Scale, sp.Trials, sp.Requests, sp.Noise, sp.GPU = scale, 5, 4000, 0.02, "NVIDIA H200"
		if qps[0] > 0 {
			sp.MaxQPS, sp.Bracket = qps[0], qps
		}
		return comparetest.Result(sp, rng)
	}
	int8 := comparetest.Spec{Scenario: "kserve-int8", Layer: "model", MedianMs: 4}
	batch := comparetest.Spec{Scenario: "batching", Layer: "service", MedianMs: 6}
	llm := comparetest.Spec{Scenario: "llm-stream", Layer: "service", MedianMs: 30, Streaming: true}
	base := []*result.Result{mk(int8, 1, [2]float64{1200, 1250}), mk(batch, 1, [2]float64{}), mk(llm, 1, [2]float64{})}
	candBatch := mk(batch, 0.8, [2]float64{})
	candBatch.Trials[2].Valid = false
	candBatch.Trials[2].Invalid = []string{"the generator was saturated: it used 1.9 of 2 cores"}
	candBatch.Trials[2].GeneratorLimited = true
	fresh := mk(comparetest.Spec{Scenario: "grpc-new", Layer: "system", MedianMs: 2}, 1, [2]float64{})
	cand := []*result.Result{mk(int8, 1.2, [2]float64{900, 950}), candBatch, mk(llm, 1, [2]float64{}), fresh}
	for _, r := range cand {
		r.Environment.GPUs[0].Driver = "560.35"
	}
	// The batching server reports its own compute time (Triton's
	// counters): server_compute_ms is compared there, 20% lower as its
	// latency.
	for _, x := range []struct {
		r  *result.Result
		ms float64
	}{{base[1], 2}, {candBatch, 1.6}} {
		for i := range x.r.Trials {
			x.r.Trials[i].Telemetry = &result.Telemetry{ServerMs: &result.ServerMs{Queue: 0.2, Compute: x.ms * (1 + 0.01*float64(i%3-1)), Source: "triton"}}
		}
	}
	s := compare.DefaultSettings()
	s.AllowEnvMismatch = true
	c, err := compare.Compare(base, cand, s)
	if err != nil {
		t.Fatal(err)
	}
	rung := func(r *result.Result, name string) *result.Result {
		cp := *r
		cp.Scenario = name
		return &cp
	}
	c.Ladder, err = compare.Ladder([]*result.Result{rung(base[0], "fp16"), rung(cand[0], "int8"), rung(candBatch, "int8-batched")}, s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestComparisonGolden(t *testing.T) {
	c := sampleComparison(t)
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := RenderComparison(&buf, c, Format(format)); err != nil {
				t.Fatalf("Render(%s): %v", format, err)
			}
			path := filepath.Join("testdata", "compare-sample."+format+".golden")
			if updating() {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if format == "json" {
				// Floats in full precision may differ in the last digit
				// across platforms (fused multiply-add): compare decoded.
				var w, g compare.Comparison
				if err := json.Unmarshal(want, &w); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if err := json.Unmarshal(buf.Bytes(), &g); err != nil {
					t.Fatalf("Render(json) output: %v", err)
				}
				if d := cmp.Diff(w, g, cmpopts.EquateApprox(1e-9, 1e-12)); d != "" {
					t.Errorf("Render(json) differs from %s (-want +got):\n%s", path, d)
				}
				return
			}
			if d := cmp.Diff(string(want), buf.String()); d != "" {
				t.Errorf("Render(%s) differs from %s (-want +got):\n%s", format, path, d)
			}
		})
	}
}

func TestComparisonEveryWarningShown(t *testing.T) {
	c := sampleComparison(t)
	var all []string
	all = append(all, comparisonWarnings(c)...)
	for i := range c.Scenarios {
		all = append(all, scenarioWarnings(&c.Scenarios[i])...)
	}
	if len(all) < 3 {
		t.Fatalf("sample has %d warnings, want several", len(all))
	}
	for _, format := range []string{"text", "markdown"} {
		var buf bytes.Buffer
		if err := RenderComparison(&buf, c, Format(format)); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if format == "markdown" {
			// Undo esc: backslash escapes, entities, the joiner after '@' and '#'.
			out = regexp.MustCompile(`\\(.)`).ReplaceAllString(out, "$1")
			out = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&amp;", "&", "\u200d", "").Replace(out)
		}
		for _, w := range all {
			if !strings.Contains(out, w) {
				t.Errorf("%s output lacks warning %q", format, w)
			}
		}
	}
}

func TestComparisonJSONRoundTrip(t *testing.T) {
	c := sampleComparison(t)
	var buf bytes.Buffer
	if err := ComparisonJSON(&buf, c); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeComparison(&buf)
	if err != nil {
		t.Fatalf("decoding the JSON: %v", err)
	}
	if d := cmp.Diff(c, back); d != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", d)
	}
	if back.Schema != compare.Schema {
		t.Errorf("schema = %q, want %q", back.Schema, compare.Schema)
	}
}

func TestRenderComparisonUnknownFormat(t *testing.T) {
	if err := RenderComparison(&bytes.Buffer{}, &compare.Comparison{}, "html"); err == nil || !strings.Contains(err.Error(), `"html"`) {
		t.Errorf("Render(html) = %v, want an error naming the format", err)
	}
}

// A name from perfgate.yaml cannot drive the terminal through the text
// renderings of a comparison or a plan: control characters become '?'.
func TestTextNamesArePlain(t *testing.T) {
	evil := "api\x1b]0;pwned\a\x1b[2J"
	c := &compare.Comparison{Schema: compare.Schema, Verdict: compare.Fail, Reason: evil, Warnings: []string{evil},
		Scenarios: []compare.ScenarioComparison{{Scenario: evil, Layer: evil, Verdict: compare.Regressed, Reason: evil, Warnings: []string{evil}}}}
	s, err := sizing.Plan(sizingtest.Sweep(1000, 1100, 8), sizing.Input{PeakQPS: 5000})
	if err != nil {
		t.Fatal(err)
	}
	s.Scenario, s.Warnings = evil, []string{evil}
	var cmpText, sizeText bytes.Buffer
	if err := ComparisonText(&cmpText, c); err != nil {
		t.Fatal(err)
	}
	if err := SizingText(&sizeText, s); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"comparison": cmpText.String(), "sizing": sizeText.String()} {
		if strings.ContainsAny(out, "\x1b\a") {
			t.Errorf("%s text carries a control character:\n%q", name, out)
		}
		if !strings.Contains(out, "api?]0;pwned??[2J") {
			t.Errorf("%s text lacks the name made plain:\n%q", name, out)
		}
	}
}
