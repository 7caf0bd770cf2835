package main

import (
	"context"
	"errors"
)

// cmdSize is not built yet.
func cmdSize(ctx context.Context, e *env, args []string) error {
	return withCode(exitUsage, errors.New("size: not implemented yet"))
}
