package ab

import (
	"context"
	"fmt"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/suite"
)

// ErrBuild marks a target's build step that failed: the run itself
// failed (exit 3). It is suite.ErrBuild: every mode builds the same way.
var ErrBuild = suite.ErrBuild

// build runs a target's build argv in one side's checkout dir with env,
// keeping its output in logPath (suite.Build). A failure is ErrBuild
// quoting the end of the output, and names the side.
func build(ctx context.Context, target, side string, argv []string, dir string, env []string, logPath string) (compare.ABBuild, error) {
	took, err := suite.Build{Target: target, Argv: argv, Dir: dir, Env: env, Log: logPath}.Run(ctx)
	b := compare.ABBuild{Target: target, Side: side, Argv: argv, Dir: dir, Log: logPath, TookS: took.Seconds()}
	if err != nil {
		return b, fmt.Errorf("%s side: %w", side, err)
	}
	return b, nil
}
