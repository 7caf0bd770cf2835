package main

import (
	"context"
	"errors"
)

// cmdDemo is not built yet.
func cmdDemo(ctx context.Context, e *env, args []string) error {
	return withCode(exitUsage, errors.New("demo: not implemented yet"))
}
