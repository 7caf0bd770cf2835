package main

import (
	"context"
	"errors"
)

// cmdBaseline is not built yet.
func cmdBaseline(ctx context.Context, e *env, args []string) error {
	return withCode(exitUsage, errors.New("baseline: not implemented yet"))
}
