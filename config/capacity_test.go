package config

import (
	"strings"
	"testing"
	"time"
)

const planBase = `version: 1
slo: {p99: 50ms}
scenarios:
  - {name: whole, layer: service, url: 'http://127.0.0.1:1/', protocol: kserve-http, model: m, load: {mode: sweep}}
`

func TestCapacityPlanKeys(t *testing.T) {
	good := `version: 1
slo: {p99: 50ms}
capacity: {peak_qps: 100, traffic: curve.csv, lead_time: 30m, scale_in_after: 0s}
scenarios:
  - {name: whole, layer: service, url: 'http://127.0.0.1:1/', protocol: kserve-http, model: m, load: {mode: sweep}}
  - {name: slice, layer: service, url: 'http://127.0.0.1:1/', protocol: kserve-http, model: m, repeat: 30%,
     partition: {name: 1g.10gb, per_device: 7}, load: {mode: sweep}}
`
	c, err := Parse("dir/p.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if c.Capacity.LeadTime.D() != 30*time.Minute || c.Capacity.ScaleInAfter == nil || c.Capacity.ScaleInAfter.D() != 0 {
		t.Errorf("lead_time %v, scale_in_after %v", c.Capacity.LeadTime, c.Capacity.ScaleInAfter)
	}
	s := c.Scenarios[1]
	if float64(s.Repeat) != 0.3 || s.Partition.Name != "1g.10gb" || s.Partition.PerDevice != 7 {
		t.Errorf("repeat %v, partition %+v", s.Repeat, s.Partition)
	}
	if w, err := c.WholeDevice(s); err != nil || w != "whole" {
		t.Errorf("WholeDevice = %q, %v; want whole", w, err)
	}
	if got := c.TrafficPath(); !strings.HasSuffix(got, "dir/curve.csv") {
		t.Errorf("TrafficPath = %q", got)
	}

	for _, tt := range []struct{ name, scenario, want string }{
		{"repeat over 100%", "repeat: 150%, load: {mode: sweep}", "scenarios[1].repeat: 150% is out of range"},
		{"per_device zero", "partition: {name: x, per_device: 0}, load: {mode: sweep}", "scenarios[1].partition.per_device: 0 is out of range"},
		{"partition without name", "partition: {per_device: 2}, load: {mode: sweep}", "scenarios[1].partition.name: missing"},
		{"partition not a sweep", "partition: {name: x, per_device: 2}, load: {mode: rate, rate: 5}", "does not sweep"},
		{"unknown whole", "partition: {name: x, per_device: 2, whole: nope}, load: {mode: sweep}", `no scenario is named "nope"`},
		{"repeat with a body", "repeat: 10%, body: b.json, load: {mode: sweep}", "sends one body file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			y := planBase + "  - {name: p, layer: service, url: 'http://127.0.0.1:1/', protocol: kserve-http, model: m, " + tt.scenario + "}\n"
			_, err := Parse("p.yaml", []byte(y))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	for _, tt := range []struct{ name, yaml, want string }{
		{"lead too long", "capacity: {traffic: c.csv, lead_time: 25h}\n", "capacity.lead_time: 25h0m0s is out of range"},
		{"window without curve", "capacity: {scale_in_after: 5m}\n", "capacity.traffic: missing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("p.yaml", []byte(strings.Replace(planBase, "slo: {p99: 50ms}\n", "slo: {p99: 50ms}\n"+tt.yaml, 1)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
