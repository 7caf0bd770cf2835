package ghaction

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/config"
	"github.com/sethvargo/go-githubactions"
)

// Modes of the action (the mode input).
const (
	ModeGate     = "gate"
	ModeBaseline = "baseline"
	ModeComment  = "comment"
)

// DefaultConfig is the config input's default.
const DefaultConfig = config.DefaultFile

// Inputs are the action's inputs (action.yml).
type Inputs struct {
	Config, Token, Mode, Baselines string
	FailOnRegression, Comment      bool
	AllowEnvMismatch               bool
	// FirstRun (first-run): gate mode reads a baselines folder that does
	// not exist as none (gate.Stored.FirstRun) instead of failing.
	FirstRun bool
	// CommentDir is where gate mode writes the comment bundle for the
	// fork-safe workflow_run job; CommentFrom is where comment mode reads it.
	CommentDir, CommentFrom string
	// CommentAuthor is the login whose marked comment is ours to edit
	// (githubapi.DefaultBotLogin when empty).
	CommentAuthor string
	// CompareWith is what gate mode compares with: CompareBaselines,
	// CompareBase (an A/B run against the pull request's base commit) or
	// CompareBoth.
	CompareWith string
	// Results, when set, is a folder of results measured elsewhere (a
	// matrix's parts, gathered with perfgate merge) that gate mode gates
	// instead of running.
	Results string
	// OnInconclusive is what an inconclusive gate does: pass, fail or
	// rerun (config.OnInconclusive*); empty: the config's
	// gate.on_inconclusive.
	OnInconclusive string
	// HistoryBranch is the run history's branch (history-branch): baseline
	// mode appends to it, gate mode learns the run-to-run noise from it;
	// empty for none.
	HistoryBranch string
	// HistoryIssue (history-issue): baseline mode with a history branch
	// also tells the repository about new change points in an issue: a
	// comment on the open perfgate change-point issue, or a new one
	// (githubapi.ReportChangePoints). Needs issues: write.
	HistoryIssue bool
}

// Values of the compare-with input.
const (
	CompareBaselines = "baselines"
	CompareBase      = "base"
	CompareBoth      = "both"
)

// readCompareWith checks and sets the compare-with input.
func (in *Inputs) readCompareWith(v string) error {
	switch v {
	case "":
		in.CompareWith = CompareBaselines
	case CompareBaselines, CompareBase, CompareBoth:
		in.CompareWith = v
	default:
		return fmt.Errorf("input compare-with is %q, want baselines, base or both", v)
	}
	return nil
}

// Input reads an action input: INPUT_GITHUB-TOKEN as the runner sets it for
// JavaScript and Docker actions, or INPUT_GITHUB_TOKEN as a composite
// action's env: can spell it.
func Input(gha *githubactions.Action, getenv func(string) string, name string) string {
	if v := gha.GetInput(name); v != "" {
		return v
	}
	return strings.TrimSpace(getenv("INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))))
}

// ReadInputs reads and checks the inputs other than the token.
func ReadInputs(gha *githubactions.Action, getenv func(string) string, token string) (Inputs, error) {
	in := Inputs{Token: token, Config: Input(gha, getenv, "config"), Mode: Input(gha, getenv, "mode"),
		Baselines: Input(gha, getenv, "baselines"), CommentDir: Input(gha, getenv, "comment-dir"),
		CommentFrom: Input(gha, getenv, "comment-from"), CommentAuthor: Input(gha, getenv, "comment-author"),
		Results: Input(gha, getenv, "results"), OnInconclusive: Input(gha, getenv, "on-inconclusive"),
		HistoryBranch: Input(gha, getenv, "history-branch")}
	if in.Config == "" {
		in.Config = DefaultConfig
	}
	if in.Mode == "" {
		in.Mode = ModeGate
	}
	if err := config.CheckOnInconclusive(in.OnInconclusive); err != nil {
		return in, fmt.Errorf("input on-inconclusive is %w", err)
	}
	if err := in.readCompareWith(Input(gha, getenv, "compare-with")); err != nil {
		return in, err
	}
	if !slices.Contains([]string{ModeGate, ModeBaseline, ModeComment}, in.Mode) {
		return in, fmt.Errorf("input mode is %q, want gate, baseline or comment", in.Mode)
	}
	for _, b := range []struct {
		name string
		dst  *bool
		def  bool
	}{{"fail-on-regression", &in.FailOnRegression, true}, {"comment", &in.Comment, true}, {"allow-env-mismatch", &in.AllowEnvMismatch, false},
		{"history-issue", &in.HistoryIssue, false}, {"first-run", &in.FirstRun, false}} {
		v := Input(gha, getenv, b.name)
		if v == "" {
			*b.dst = b.def
			continue
		}
		x, err := strconv.ParseBool(v)
		if err != nil {
			return in, fmt.Errorf("input %s is %q, want true or false", b.name, v)
		}
		*b.dst = x
	}
	return in, nil
}
