package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/ghaction"
)

// gateOutcome is what the gate pipeline hands the action.
type gateOutcome = gate.Outcome

// pipelines are the stages the action drives. cmdAction uses the real ones;
// tests pass their own.
type pipelines struct {
	// gate runs (or, with the results input, reads) the gate with the
	// action's inputs.
	gate func(ctx context.Context, e *env, in ghaction.Inputs) (*gateOutcome, error)
	// baseline runs the suite and stores its results as baselines,
	// returning the files it wrote.
	baseline func(ctx context.Context, e *env, cfgPath, baselinesDir string) ([]string, error)
	// ab runs the same-runner A/B gate against git revision ref, writing
	// into out (compare-with: base or both).
	ab func(ctx context.Context, e *env, in ghaction.Inputs, ref, out string) (*gateOutcome, error)
}

// cmdAction is the GitHub Action's entry point: it reads INPUT_* and
// GITHUB_*, runs the gate (or stores baselines, or posts the comment of a
// fork's run), and reports through the step summary, annotations, outputs
// and one sticky pull request comment (package ghaction).
func cmdAction(ctx context.Context, e *env, args []string) error {
	return runAction(ctx, e, args, pipelines{gate: runGatePipeline, baseline: runBaselinePipeline, ab: runABPipeline})
}

// actionUsage is `perfgate action -h` after the synopsis: what the entry
// point reads, and how to run it on a laptop.
const actionUsage = `
The GitHub Action's entry point (action.yml runs it). It reads its inputs
from INPUT_* variables and the run from GITHUB_* variables, as the runner
sets them:

  INPUT_CONFIG              perfgate.yaml to run (default perfgate.yaml)
  INPUT_MODE                gate (default), baseline, or comment
  INPUT_COMPARE-WITH        baselines (default), base (same-runner A/B against the PR's base commit), or both
  INPUT_GITHUB-TOKEN        token for the PR comment (INPUT_GITHUB_TOKEN also read)
  INPUT_BASELINES           baseline folder (default: the config's baselines:)
  INPUT_FIRST-RUN           false (default) | true: a baselines folder that does not exist is a first run, not an error
  INPUT_FAIL-ON-REGRESSION  true (default) | false
  INPUT_COMMENT             true (default) | false: keep one sticky PR comment
  INPUT_ALLOW-ENV-MISMATCH  false (default) | true
  INPUT_COMMENT-DIR         gate mode: write the comment bundle here (fork-safe pair)
  INPUT_COMMENT-FROM        comment mode: post the bundle from here
  INPUT_RESULTS             gate mode: gate the results in this folder instead of running
  INPUT_ON-INCONCLUSIVE     pass | fail | rerun (default: the config's gate.on_inconclusive)
  INPUT_HISTORY-BRANCH      the run history's branch (perfgate-data): baseline mode pushes to it, gate mode learns noise from it
  INPUT_HISTORY-ISSUE       false (default) | true: baseline mode reports new change points in an issue (needs issues: write)
  INPUT_COMMENT-AUTHOR      login whose marked comment is edited (default github-actions[bot])
  GITHUB_ACTIONS            "true" on a runner; it or GITHUB_EVENT_NAME must be set
  GITHUB_EVENT_NAME         pull_request, push, release, workflow_run, ...
  GITHUB_EVENT_PATH         the event payload (JSON): the PR number and head sha
  GITHUB_REPOSITORY         owner/name, for the comment
  GITHUB_API_URL            default https://api.github.com
  GITHUB_SERVER_URL         default https://github.com
  GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT   to link the run's page
  GITHUB_SHA, GITHUB_REF, GITHUB_REF_NAME, GITHUB_REF_TYPE   provenance of baselines
  GITHUB_OUTPUT             file the outputs are appended to (verdict, report, comment-url)
  GITHUB_STEP_SUMMARY       file the report is appended to

A local run of gate mode, without commenting (copy and paste):

  echo '{"pull_request": {"number": 1, "head": {"sha": "'$(git rev-parse HEAD)'"}}}' > /tmp/event.json
  GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH=/tmp/event.json \
  GITHUB_REPOSITORY=me/svc GITHUB_OUTPUT=/tmp/out GITHUB_STEP_SUMMARY=/tmp/summary.md \
  INPUT_CONFIG=perfgate.yaml INPUT_COMMENT=false perfgate action
  cat /tmp/out /tmp/summary.md

Flags:
`

// runAction is cmdAction with its pipelines given: the flags, and the
// wiring of the pipelines to the action package.
func runAction(ctx context.Context, e *env, args []string, p pipelines) error {
	// The action's own workflow commands go straight to stdout; everything
	// else it and its pipelines print passes a guard that keeps lines of
	// pull-request text from acting as commands.
	guarded := *e
	guarded.stdout, guarded.stderr = guardCommands(e.stdout), guardCommands(e.stderr)
	e = &guarded
	// The token is masked before anything else is printed.
	a := ghaction.New(ghaction.Env{Getenv: e.getenv, Stdout: e.stdout,
		Commands: func() io.Writer { return unguarded(e.stdout) }, Workdir: e.workdir, OutDir: defaultOutDir})
	fs := flag.NewFlagSet("action", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	commentFrom := fs.String("comment-from", "", "post the comment bundle in `DIR` (written by a gate run with comment-dir) on its pull request")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), commandUsage("action")+actionUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageErr("action: %v", err)
	}
	return a.Run(ctx, *commentFrom, ghaction.Pipelines{
		Gate: func(ctx context.Context, in ghaction.Inputs) (*gateOutcome, error) {
			if in.Results == "" {
				if err := checkAncestors(e); err != nil {
					return nil, err
				}
			}
			return p.gate(ctx, e, in)
		},
		Baseline: func(ctx context.Context, in ghaction.Inputs) ([]string, error) {
			if err := checkAncestors(e); err != nil {
				return nil, err
			}
			written, err := p.baseline(ctx, e, in.Config, in.Baselines)
			if err == nil && in.HistoryBranch != "" {
				err = actionHistory(ctx, e, in, written)
			}
			return written, err
		},
		AB: func(ctx context.Context, in ghaction.Inputs, ref, out string) (*gateOutcome, error) {
			if err := checkAncestors(e); err != nil {
				return nil, err
			}
			return p.ab(ctx, e, in, ref, out)
		},
	})
}

// checkAncestors refuses to run the modes that start targets while a
// process above perfgate shows the Action's token in its environment
// block (a step that ran perfgate without exec), and warns of any other
// secret one shows: a target runs as the same user and could read it.
func checkAncestors(e *env) error {
	if e.exposures == nil {
		return nil
	}
	xs := e.exposures()
	if o := otherExposures(xs); o != "" {
		fmt.Fprintf(e.stderr, "perfgate: warning: secrets perfgate withholds from targets are in the environment of a process that started it (%s): a target running as the same user can read them there\n", o)
	}
	return tokenExposed(xs)
}

// actionVerdicts are the values the action writes to its verdict output.
func actionVerdicts() []string { return ghaction.Verdicts() }
