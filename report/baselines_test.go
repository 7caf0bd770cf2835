package report

import (
	"errors"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// The baseline-mode summary: one row per stored file with what it holds,
// names escaped, and a file that could not be read back said so.
func TestBaselinesMarkdown(t *testing.T) {
	files := []StoredBaseline{
		{Path: "perfgate/baselines/api.json", Result: &result.Result{Scenario: "api @team", Layer: "service",
			Load:     result.Load{Mode: "rate", Rate: 200},
			Summary:  result.Summary{Requests: 12000, Errors: 3, Latency: result.Latency{P50: 4.234, P99: 12.87}},
			Capacity: &result.Capacity{MaxQPS: 1234.5}}},
		{Path: "perfgate/baselines/x`|y.json", Err: errors.New("parsing x: bad|json")},
	}
	var b strings.Builder
	if err := BaselinesMarkdown(&b, "perfgate/base`lines", files); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"2 baseline files written to `perfgate/base'lines`:",
		"| `api.json` | api @\u200dteam | service | 200/s | 12000 | 3 | 4.23 | 12.9 | 1,234 |",
		"| `x'\\|y.json` | unreadable: parsing x: bad\\|json | | | | | | | |",
		"not committed",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}
