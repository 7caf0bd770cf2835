package config

import (
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// warmup: auto and duration: auto parse to Auto with their bounds, keep
// their defaults otherwise, and write back as "auto".
func TestParseAuto(t *testing.T) {
	const src = `version: 1
generator_cpus: "0"
targets:
  server:
    command: [./server, --port, "{port}"]
    ready: http://127.0.0.1:{port}/ready
    cpus: "1"
scenarios:
  - name: a
    layer: model
    target: server
    load: {mode: rate, rate: 10, warmup: auto, warmup_max: 30s, duration: auto}
`
	c, err := Parse("perfgate.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	l := c.Scenarios[0].Load
	if l.Warmup != Auto || l.Duration != Auto {
		t.Errorf("warmup, duration = %v, %v, want Auto, Auto", l.Warmup, l.Duration)
	}
	if l.WarmupMax.D() != 30*time.Second || l.DurationMax != 0 {
		t.Errorf("warmup_max, duration_max = %v, %v, want 30s, 0 (the default)", l.WarmupMax.D(), l.DurationMax.D())
	}
	if c.GeneratorCPUs != "0" || c.Targets["server"].CPUs != "1" {
		t.Errorf("generator_cpus, cpus = %q, %q, want \"0\", \"1\"", c.GeneratorCPUs, c.Targets["server"].CPUs)
	}
	out, err := yaml.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "warmup: auto") || !strings.Contains(string(out), "duration: auto") {
		t.Errorf("marshalled load = %s, want warmup: auto and duration: auto", out)
	}
}
