package exitcode

import (
	"errors"
	"fmt"
	"testing"

	"github.com/perfgate/perfgate/compare"
)

func TestForVerdict(t *testing.T) {
	tests := []struct {
		verdict   compare.Verdict
		failOnInc bool
		want      int
	}{
		{compare.Pass, false, Pass},
		{compare.NoBaseline, false, Pass},
		{compare.Fail, false, Regression},
		// Incomparable exits 1 from gate, compare and the Action alike
		// (the Action used to exit 2).
		{compare.Incomparable, false, Regression},
		{compare.Inconclusive, false, Pass},
		{compare.Inconclusive, true, Regression},
		{compare.Fail, true, Regression},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%v", tt.verdict, tt.failOnInc), func(t *testing.T) {
			if got := ForVerdict(tt.verdict, tt.failOnInc); got != tt.want {
				t.Errorf("ForVerdict(%q, %v) = %d, want %d", tt.verdict, tt.failOnInc, got, tt.want)
			}
		})
	}
}

func TestOf(t *testing.T) {
	base := errors.New("boom")
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, Pass},
		{"plain error", base, RunFailed},
		{"usage", With(Usage, base), Usage},
		{"wrapped", fmt.Errorf("action: %w", With(Regression, base)), Regression},
		{"with nil", With(Usage, nil), Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of(tt.err); got != tt.want {
				t.Errorf("Of(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}
