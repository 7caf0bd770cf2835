package main

import (
	"context"
	"errors"
)

// cmdCompare is not built yet.
func cmdCompare(ctx context.Context, e *env, args []string) error {
	return withCode(exitUsage, errors.New("compare: not implemented yet"))
}
