package main

import (
	"context"
)

// runABPipeline is the Action's A/B gate: `gate --ab ref`, its outputs in out.
func runABPipeline(ctx context.Context, e *env, cfgPath, ref, out string, allowEnvMismatch bool) (*gateOutcome, error) {
	g, err := gateABPipeline(ctx, e, cfgPath, ref, out, nil, allowEnvMismatch)
	if err != nil {
		return nil, err
	}
	if g.runErr != nil {
		return nil, withCode(exitRunFailed, g.runErr)
	}
	return outcomeOf(g), nil
}
