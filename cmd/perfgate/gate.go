package main

import (
	"context"
	"errors"
)

// cmdGate is not built yet.
func cmdGate(ctx context.Context, e *env, args []string) error {
	return withCode(exitUsage, errors.New("gate: not implemented yet"))
}
