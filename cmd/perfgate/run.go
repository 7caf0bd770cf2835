package main

import (
	"context"
	"errors"
)

func cmdRun(ctx context.Context, e *env, args []string) error {
	return withCode(exitUsage, errors.New("run: not implemented yet"))
}
