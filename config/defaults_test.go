package config

import (
	"testing"

	"github.com/perfgate/perfgate/compare"
)

// TestDefaultsInStep holds the gate defaults config writes out equal to
// compare's (config cannot import compare: compare's tests read config).
func TestDefaultsInStep(t *testing.T) {
	d, s := Defaults(), compare.DefaultSettings()
	for _, c := range []struct {
		name          string
		config, owner float64
	}{
		{"p99 regression", d.P99Regression, s.P99Regression},
		{"p50 regression", d.P50Regression, s.P50Regression},
		{"server compute regression", d.ServerComputeRegression, s.ServerComputeRegression},
		{"max qps regression", d.MaxQPSRegression, s.MaxQPSRegression},
		{"confidence", d.Confidence, s.Confidence},
		{"run-to-run noise", d.RunToRun, s.RunToRun},
	} {
		if c.config != c.owner {
			t.Errorf("Defaults() %s = %v, compare.DefaultSettings() %v", c.name, c.config, c.owner)
		}
	}
}
