package suite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/targetproc"
)

// ErrBuild marks a target's build step that failed: the run itself
// failed (exit 3), before any load was sent.
var ErrBuild = errors.New("build failed")

// buildQuoteLines is how many of a failed build's last output lines the
// error quotes.
const buildQuoteLines = 20

// Build is one run of a target's build step (its `build:` argv): every
// mode that starts a target runs it first, once per run, so that the run
// measures the code checked out, not whatever binary an earlier build
// left in the target's folder. `gate --ab` runs it in each checkout.
type Build struct {
	// Target names the target built.
	Target string
	// Argv is the build command; a relative program ("./build.sh") is
	// resolved in Dir.
	Argv []string
	// Dir is the folder it runs in: the one the target starts in.
	Dir string
	// Env is its whole environment (BuildEnv).
	Env []string
	// Log receives its output, stdout and stderr together ("": not kept).
	Log string
}

// Run runs the build and returns how long it took. A failure wraps
// ErrBuild and quotes the end of the build's output.
func (b Build) Run(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	cmd := exec.CommandContext(ctx, b.Argv[0], b.Argv[1:]...)
	cmd.Dir, cmd.Env = b.Dir, b.Env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	took := time.Since(start)
	if b.Log != "" {
		if merr := os.MkdirAll(filepath.Dir(b.Log), 0o755); merr == nil {
			os.WriteFile(b.Log, out.Bytes(), 0o644)
		}
	}
	if err != nil {
		where := b.Dir
		if where == "" {
			where = "the working folder"
		}
		return took, fmt.Errorf("%w: target %s: %s in %s: %v; its output ends:\n%s", ErrBuild, b.Target,
			strings.Join(b.Argv, " "), where, err, quoteLines(out.String(), buildQuoteLines))
	}
	return took, nil
}

// quoteLines returns the last n lines of s, indented for quoting.
func quoteLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + strings.Join(lines, "\n    ")
}

// BuildEnv is the environment target t's build runs with: what a target
// inherits of environ (targetproc.InheritedEnv: the default allow-list and
// t's env_passthrough), then t's env. The build's output is kept beside
// the results (an artifact on CI), so secrets are withheld from it as
// from the target itself.
func BuildEnv(environ []string, t *config.Target) []string {
	out, _ := targetproc.InheritedEnv(environ, t.EnvPassthrough)
	var own []string
	for k, v := range t.Env {
		own = append(own, k+"="+v)
	}
	slices.Sort(own)
	return append(out, own...)
}

// buildTargets runs the build step of each target the selected scenarios
// start, once each, in the order they are first used; the output goes to
// OutDir/<target>.build.log beside the targets' logs. The first failure
// stops it.
func buildTargets(ctx context.Context, cfg *config.Plan, selected []*config.Scenario, o Options) error {
	var done []string
	for _, s := range selected {
		t := cfg.Targets[s.Target]
		if s.URL != "" || t == nil || len(t.Build) == 0 || slices.Contains(done, s.Target) {
			continue
		}
		done = append(done, s.Target)
		b := Build{Target: s.Target, Argv: t.Build, Dir: t.Dir, Env: BuildEnv(o.Environ, t)}
		if o.OutDir != "" {
			b.Log = filepath.Join(o.OutDir, strings.TrimSuffix(FileName(s.Target), ".json")+".build.log")
		}
		logf(o.Log, "target %s: building: %s", s.Target, strings.Join(b.Argv, " "))
		took, err := b.Run(ctx)
		if err != nil {
			return err
		}
		kept := "its output was not kept"
		if b.Log != "" {
			kept = "its output is in " + b.Log
		}
		logf(o.Log, "target %s: built in %.1fs; %s", s.Target, took.Seconds(), kept)
	}
	return nil
}
