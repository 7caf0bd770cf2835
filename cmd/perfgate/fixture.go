package main

import (
	"context"
	"errors"
)

// cmdFixture is not built yet.
func cmdFixture(ctx context.Context, e *env, args []string) error {
	return withCode(exitUsage, errors.New("fixture: not implemented yet"))
}
