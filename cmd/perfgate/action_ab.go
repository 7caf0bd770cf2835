package main

import (
	"context"

	"github.com/perfgate/perfgate/ghaction"
)

// runABPipeline is the Action's A/B gate: `gate --ab ref`, its outputs in
// out, with the inputs' config, allow-env-mismatch and on-inconclusive.
func runABPipeline(ctx context.Context, e *env, in ghaction.Inputs, ref, out string) (*gateOutcome, error) {
	g, err := gateABPipeline(ctx, e, in.Config, ref, out, nil, in.AllowEnvMismatch, in.OnInconclusive)
	if err != nil {
		return nil, err
	}
	if g.runErr != nil {
		return nil, withCode(exitRunFailed, g.runErr)
	}
	return outcomeOf(g), nil
}
