package main

import (
	"context"
	"errors"
)

// cmdAction is not built yet.
func cmdAction(ctx context.Context, e *env, args []string) error {
	return withCode(exitUsage, errors.New("action: not implemented yet"))
}
