package sizing

import (
	"bytes"
	"encoding/json"
	goldenfile "github.com/perfgate/perfgate/internal/golden"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/result"
)

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) { t.Helper(); goldenfile.Check(t, name, got) }

func TestRenderGolden(t *testing.T) {
	closed := sweep(1234.5, 1260, 8.42)
	closed.Capacity.Points[1].InFlightMean = 10.4
	closed.Capacity.Points[1].AchievedRPS = 1234.5
	noFail := sweep(800, 0, 5)
	noFail.Simulated = true
	noFail.Capacity.Stopped = "time budget 2m0s spent"
	tests := []struct {
		name string
		res  *result.Result
		in   Input
	}{
		{"design", closed, Input{PeakQPS: 5000, Headroom: 1.3, CostPerInstanceHour: 2.5}},
		{"wide-bracket", sweep(500, 1000, 2), Input{PeakQPS: 5000, Headroom: 1}},
		{"no-fail-simulated", noFail, Input{PeakQPS: 4000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Plan(tt.res, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			var txt, md, js bytes.Buffer
			if err := s.WriteText(&txt); err != nil {
				t.Fatal(err)
			}
			if err := s.WriteMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			if err := s.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name+".txt", txt.Bytes())
			golden(t, tt.name+".md", md.Bytes())
			golden(t, tt.name+".json", js.Bytes())
			var back Sizing
			if err := json.Unmarshal(js.Bytes(), &back); err != nil {
				t.Fatalf("decoding WriteJSON output: %v", err)
			}
			if d := cmp.Diff(*s, back); d != "" {
				t.Errorf("JSON round trip (-want +got):\n%s", d)
			}
		})
	}
}

func TestJSONFields(t *testing.T) {
	// The keys docs/formats.md fixes for perfgate.sizing/v1.
	s, err := Plan(sweep(1234.5, 1260, 8.42), Input{PeakQPS: 5000, CostPerInstanceHour: 2.5})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "scenario", "slo_p99_ms", "per_instance_max_qps", "per_instance_max_qps_bracket",
		"peak_qps", "headroom", "instances", "instances_range", "concurrency_at_peak", "autoscaler", "cost_per_month"} {
		if _, ok := m[k]; !ok {
			t.Errorf("sizing JSON lacks %q", k)
		}
	}
	if a, _ := m["autoscaler"].(map[string]any); a["target_qps_per_instance"] == nil {
		t.Errorf("autoscaler lacks target_qps_per_instance: %v", a)
	}
	s.CostPerMonth = nil
	buf.Reset()
	_ = s.WriteJSON(&buf)
	if bytes.Contains(buf.Bytes(), []byte("cost_per_month")) {
		t.Errorf("cost_per_month present without a price:\n%s", buf.String())
	}
}

func TestDNSLabel(t *testing.T) {
	tests := []struct{ in, want string }{
		{"kserve-int8-batched", "kserve-int8-batched"},
		{"ResNet 50 / FP16", "resnet-50-fp16"},
		{"--", "inference"},
		{string(bytes.Repeat([]byte("a"), 70)), string(bytes.Repeat([]byte("a"), 63))},
	}
	for _, tt := range tests {
		if got := dnsLabel(tt.in); got != tt.want {
			t.Errorf("dnsLabel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
