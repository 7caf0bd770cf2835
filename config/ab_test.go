package config

import (
	"strings"
	"testing"
	"time"
)

// abBase is a valid config whose ab section and build argv the rows vary.
const abBase = `version: 1
targets:
  svc:
    command: ["./server", "{port}"]
    ready: "http://127.0.0.1:{port}/"
    build: BUILD
scenarios:
  - {name: api, layer: service, target: svc, load: {mode: rate, rate: 10}}
AB
`

func TestParseAB(t *testing.T) {
	tests := []struct {
		name, build, ab string
		want            string // error text; "" for valid
		check           func(t *testing.T, c *Config)
	}{
		{name: "defaults", build: `["make"]`, ab: "", check: func(t *testing.T, c *Config) {
			if c.AB.ABResident() != "both" || c.AB.ABMaxTrials() != DefaultABMaxTrials || c.AB.Budget != 0 {
				t.Errorf("ab defaults = %s, %d, %v", c.AB.ABResident(), c.AB.ABMaxTrials(), c.AB.Budget.D())
			}
			if got := c.Targets["svc"].Build; len(got) != 1 || got[0] != "make" {
				t.Errorf("build = %q, want [make]", got)
			}
		}},
		{name: "set", build: `["make", "server"]`, ab: "ab: {resident: one, max_trials: 40, budget: 20m}", check: func(t *testing.T, c *Config) {
			if c.AB.ABResident() != "one" || c.AB.ABMaxTrials() != 40 || c.AB.Budget.D() != 20*time.Minute {
				t.Errorf("ab = %+v", c.AB)
			}
		}},
		{name: "design concurrent", build: `["make"]`, ab: "ab: {design: concurrent}", check: func(t *testing.T, c *Config) {
			if c.AB.Design != DesignConcurrent {
				t.Errorf("ab.design = %q, want concurrent", c.AB.Design)
			}
		}},
		{name: "bad design", build: `["make"]`, ab: "ab: {design: duet}", want: `ab.design: "duet": want interleaved`},
		{name: "concurrent with resident one", build: `["make"]`, ab: "ab: {design: concurrent, resident: one}", want: `ab.design: concurrent runs both sides' targets at once`},
		{name: "bad resident", build: `["make"]`, ab: "ab: {resident: two}", want: `ab.resident: "two": want both`},
		{name: "max_trials too few", build: `["make"]`, ab: "ab: {max_trials: 1}", want: "ab.max_trials: 1 is out of range: want a whole number from 2 to 200 pairs"},
		{name: "max_trials too many", build: `["make"]`, ab: "ab: {max_trials: 5000}", want: "ab.max_trials: 5000 is out of range"},
		{name: "budget too short", build: `["make"]`, ab: "ab: {budget: 10ms}", want: "ab.budget: 10ms is out of range: want from 1s to 24h"},
		{name: "empty build program", build: `[""]`, ab: "", want: "targets.svc.build: the program is empty"},
		{name: "unknown ab key", build: `["make"]`, ab: "ab: {trials: 3}", want: "trials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.NewReplacer("BUILD", tt.build, "AB", tt.ab).Replace(abBase)
			c, err := Parse("perfgate.yaml", []byte(src))
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Parse error %v, want one saying %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}
