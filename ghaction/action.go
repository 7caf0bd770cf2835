package ghaction

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/internal/exitcode"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/sethvargo/go-githubactions"
)

// Env is what the action may touch of the process.
type Env struct {
	// Getenv reads the runner's variables (os.Getenv in the command).
	Getenv func(string) string
	// Stdout is where the text report goes: the command passes it through
	// a guard that keeps lines of pull-request text from acting as
	// workflow commands.
	Stdout io.Writer
	// Commands returns the writer, past that guard, for the action's own
	// workflow commands (nil: Stdout).
	Commands func() io.Writer
	// Workdir is the directory relative input paths resolve against.
	Workdir string
	// OutDir is the output folder under Workdir (an A/B run writes there).
	OutDir string
}

// commands is the writer for the action's own workflow commands.
func (env Env) commands() io.Writer {
	if env.Commands == nil {
		return env.Stdout
	}
	return env.Commands()
}

// Pipelines are the stages the action drives: the command passes the real
// ones (each one call of package gate: gate.Gate and its Outcome.Write,
// gate.StoreBaseline), tests their own.
type Pipelines struct {
	// Gate runs (or reads) the results, compares them with the baselines
	// and sizes them, and writes the outcome's files (gate.Outcome.Write).
	Gate func(ctx context.Context, in Inputs) (*gate.Outcome, error)
	// Baseline runs the suite and stores its results as baselines,
	// returning the files it wrote.
	Baseline func(ctx context.Context, in Inputs) ([]string, error)
	// AB runs the same-runner A/B gate against git revision ref, writing
	// into out (compare-with: base or both).
	AB func(ctx context.Context, in Inputs, ref, out string) (*gate.Outcome, error)
}

// Action is one run of the action.
type Action struct {
	env Env
	gha *githubactions.Action
	in  Inputs
	gh  GitHub
}

// errReported is returned when the failure was already reported (as an
// annotation): the exit code is all that is left to say.
var errReported = errors.New("")

// New starts a run of the action: it reads the token input and masks it
// before anything else is printed.
func New(env Env) *Action {
	gha := githubactions.New(githubactions.WithGetenv(env.Getenv), githubactions.WithWriter(env.commands()))
	token := Input(gha, env.Getenv, "github-token")
	if token != "" {
		gha.AddMask(token)
	}
	return &Action{env: env, gha: gha, in: Inputs{Token: token}}
}

// usage is a usage or configuration error (exit 2).
func usage(format string, a ...any) error {
	return exitcode.With(exitcode.Usage, fmt.Errorf(format, a...))
}

// Run reads the inputs and the run, and drives the mode asked for.
// commentFrom, when set (the command's --comment-from), selects comment
// mode with that bundle. Errors carry their exit code (exitcode.Of).
func (a *Action) Run(ctx context.Context, commentFrom string, p Pipelines) error {
	if a.env.Getenv("GITHUB_ACTIONS") != "true" && a.env.Getenv("GITHUB_EVENT_NAME") == "" {
		return usage("action: no GitHub Actions environment (GITHUB_ACTIONS and GITHUB_EVENT_NAME are unset): " +
			"this command is the Action's entry point. Outside Actions use `perfgate gate --config perfgate.yaml`, " +
			"or set the variables `perfgate action -h` lists to run it locally")
	}
	in, err := ReadInputs(a.gha, a.env.Getenv, a.in.Token)
	if err != nil {
		a.gha.Errorf("%s", err.Error())
		return usage("action: %w", err)
	}
	if commentFrom != "" {
		in.Mode, in.CommentFrom = ModeComment, commentFrom
	}
	a.in = in
	gh, err := ReadGitHub(a.env.Getenv)
	if err != nil {
		a.gha.Errorf("%s", err.Error())
		return usage("action: %w", err)
	}
	a.gh = gh
	switch in.Mode {
	case ModeBaseline:
		return a.baseline(ctx, p)
	case ModeComment:
		// A refused bundle (forged, contradicting itself, for another
		// commit) is a failed run: its verdict output says error.
		err := a.commentFromBundle(ctx)
		if err != nil {
			a.outputs(Output{"verdict", "error"})
		}
		return err
	}
	return a.gate(ctx, p)
}

// path resolves p against the working directory.
func (a *Action) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(a.env.Workdir, p)
}

// gate runs the gate pipeline and reports its outcome. Its exit code and
// message are the outcome's (gate.Outcome.ExitCode, Message), with
// fail-on-regression false asking it to report without failing
// (gate.Outcome.ReportOnly).
func (a *Action) gate(ctx context.Context, p Pipelines) error {
	out, err := a.gateWith(ctx, p)
	if err == nil && out.RunErr != nil {
		err = out.Err()
	}
	if err != nil {
		a.gha.Errorf("%s", err.Error())
		a.outputs(Output{"verdict", "error"})
		return err
	}
	out.ReportOnly = !a.in.FailOnRegression
	r := out.Report
	r.Commit, r.RunURL, r.SummaryURL = a.gh.Event.HeadSHA(), a.gh.RunURL(), a.gh.RunURL()
	a.printText(r)
	a.summary(r)
	for _, reg := range out.Regressions {
		a.gha.WithFieldsMap(map[string]string{"title": "perfgate regression"}).Errorf("%s", reg)
	}
	if a.in.CommentDir != "" {
		if err := result.MkdirOut(a.path(a.in.CommentDir), a.env.Workdir); err != nil {
			a.gha.Warningf("comment-dir: %s: the comment bundle was not written", err.Error())
		} else if err := WriteBundle(a.path(a.in.CommentDir), r, BundlePR{Number: a.gh.Event.PRNumber(), HeadSHA: a.gh.Event.HeadSHA()}); err != nil {
			a.gha.Warningf("%s", err.Error())
		}
	}
	url := ""
	if n := a.gh.Event.PRNumber(); a.in.Comment && n > 0 {
		url = a.comment(ctx, n, r)
	} else if a.in.Comment {
		a.gha.Noticef("%s", fmt.Sprintf("perfgate: the %q event is not a pull request: no comment posted", a.gh.EventName))
	}
	a.outputs(Output{"verdict", string(out.Verdict())}, Output{"report", out.Paths.Comparison}, Output{"comment-url", url})
	msg := out.Message()
	if msg == "" {
		return nil
	}
	if code := out.ExitCode(); code != exitcode.Pass {
		a.gha.Errorf("%s", "perfgate: "+msg)
		return exitcode.With(code, errReported)
	}
	a.gha.Warningf("%s", "perfgate: "+msg)
	return nil
}

// baseline runs every scenario and writes the baselines atomically. They
// are left in the work tree, uncommitted: a following step commits them or
// opens a pull request (peter-evans/create-pull-request), so that new
// baselines are reviewed like code and the action needs no write access.
func (a *Action) baseline(ctx context.Context, p Pipelines) error {
	written, err := p.Baseline(ctx, a.in)
	if err != nil {
		a.gha.Errorf("%s", err.Error())
		a.outputs(Output{"verdict", "error"})
		return err
	}
	dir := a.in.Baselines
	if dir == "" {
		if c, err := config.ReadFile(a.path(a.in.Config)); err == nil {
			if p, err := config.Compile(c); err == nil {
				dir = p.Baselines
			}
		}
	}
	// The files the pipeline wrote, read back: the summary says what was
	// measured, not only where it went.
	stored := make([]report.StoredBaseline, len(written))
	for i, p := range written {
		stored[i].Path = p
		stored[i].Result, stored[i].Err = result.ReadFile(p)
	}
	var b strings.Builder
	if err := report.BaselinesMarkdown(&b, dir, stored); err != nil {
		a.gha.Warningf("%s", err.Error())
	}
	a.appendSummary(b.String())
	a.gha.Noticef("%s", fmt.Sprintf("perfgate: %d baselines written to %s (not committed)", len(written), dir))
	a.outputs(Output{"verdict", "baseline"}, Output{"baselines", dir})
	return nil
}

// commentFromBundle is comment mode, the trusted half of the fork-safe
// pair: it runs on workflow_run with a writable token, reads the bundle the
// pull_request run uploaded, checks that the pull request it names has the
// head commit that run measured, and posts the comment. The verdict was the
// pull_request run's; this step fails only on bad input.
func (a *Action) commentFromBundle(ctx context.Context) error {
	if a.in.CommentFrom == "" {
		return usage("action: mode comment needs the comment-from input (or --comment-from DIR)")
	}
	r, info, err := ReadBundle(a.path(a.in.CommentFrom))
	if err != nil {
		a.gha.Errorf("%s", err.Error())
		return usage("action: %w", err)
	}
	wr := a.gh.Event.WorkflowRun
	if wr == nil {
		if a.gh.EventName != "workflow_run" {
			return usage("action: mode comment runs on a workflow_run event; GITHUB_EVENT_NAME is %q", a.gh.EventName)
		}
		if a.gh.EventPath == "" {
			return usage("action: mode comment reads the workflow_run event payload, but GITHUB_EVENT_PATH is not set")
		}
		return usage("action: the event payload %s has no workflow_run object: mode comment needs the workflow_run event's payload (its head_sha and html_url)", a.gh.EventPath)
	}
	if info.HeadSHA != wr.HeadSHA {
		msg := fmt.Sprintf("the bundle is for commit %s but the triggering run measured %s: not posted", info.HeadSHA, wr.HeadSHA)
		a.gha.Errorf("%s", "perfgate: "+msg)
		return usage("action: %s", msg)
	}
	r.Commit, r.RunURL, r.SummaryURL = info.HeadSHA, wr.HTMLURL, wr.HTMLURL
	a.summary(r)
	url := ""
	if a.in.Comment {
		url = a.checkedComment(ctx, info, r)
	}
	a.outputs(Output{"verdict", string(r.Comparison.Verdict)}, Output{"comment-url", url})
	return nil
}

// gateWith runs the gate the compare-with input asks for: the stored
// baselines, a same-runner A/B against the pull request's base commit, or
// both (the A/B outcome reported, failing when either fails, the
// baselines' verdict added to its warnings).
func (a *Action) gateWith(ctx context.Context, p Pipelines) (*gate.Outcome, error) {
	if a.in.CompareWith == CompareBaselines || a.in.CompareWith == "" {
		return p.Gate(ctx, a.in)
	}
	base := a.gh.Event.BaseSHA()
	if base == "" {
		return nil, usage("action: compare-with %s measures the pull request's base commit, but the %q event has none: run it on pull_request events, or use compare-with baselines", a.in.CompareWith, a.gh.EventName)
	}
	if !IsSHA(base) {
		return nil, usage("action: the event's pull_request.base.sha %q is not a commit id", base)
	}
	out := filepath.Join(a.env.Workdir, a.env.OutDir)
	if a.in.CompareWith == CompareBase {
		return p.AB(ctx, a.in, base, out)
	}
	stored, err := p.Gate(ctx, a.in)
	if err != nil {
		return nil, err
	}
	ab, err := p.AB(ctx, a.in, base, filepath.Join(out, "ab"))
	if err != nil {
		return nil, err
	}
	return ab.Join(stored), nil
}
