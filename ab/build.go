package ab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/compare"
)

// ErrBuild marks a target's build step that failed: the run itself
// failed (exit 3).
var ErrBuild = errors.New("build failed")

// buildQuoteLines is how many of a failed build's last output lines the
// error quotes.
const buildQuoteLines = 20

// build runs argv in dir with env, keeping its output in logPath. A failure
// is ErrBuild quoting the end of the output.
func build(ctx context.Context, target, side string, argv []string, dir string, env []string, logPath string) (compare.ABBuild, error) {
	b := compare.ABBuild{Target: target, Side: side, Argv: argv, Dir: dir, Log: logPath}
	start := time.Now()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// A relative program path ("./build.sh") is resolved in dir by exec.
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	b.TookS = time.Since(start).Seconds()
	if logPath != "" {
		if merr := os.MkdirAll(filepath.Dir(logPath), 0o755); merr == nil {
			os.WriteFile(logPath, out.Bytes(), 0o644)
		}
	}
	if err != nil {
		return b, fmt.Errorf("%w: target %s, %s side: %s in %s: %v; its output ends:\n%s", ErrBuild, target, side,
			strings.Join(argv, " "), dir, err, lastLines(out.String(), buildQuoteLines))
	}
	return b, nil
}

// lastLines returns the last n lines of s, indented for quoting.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + strings.Join(lines, "\n    ")
}
