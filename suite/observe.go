package suite

import (
	"context"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/result"
)

// gpuEnvironment returns the GPU fingerprint function for the environment.
func gpuEnvironment(enabled bool) func() []result.GPU {
	return func() []result.GPU { return nil }
}

// newObserver returns the telemetry collector for one scenario.
func newObserver(ctx context.Context, gpu bool, pgid int, metrics string) (harness.TrialObserver, func()) {
	return nil, func() {}
}

// annotate classifies the bottleneck of a result from its telemetry.
func annotate(res *result.Result, obs harness.TrialObserver) {}

// isAllFailed reports whether err says every request failed.
func isAllFailed(err error) bool { return err != nil && errorsIs(err, harness.ErrAllFailed) }
