package bisect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"time"

	"github.com/perfgate/perfgate/compare"
)

// Statuses of an Outcome.
const (
	// Found: the window narrowed to one commit, the culprit.
	Found = "found"
	// Inconclusive: a step could not decide; Window is the narrowest
	// established.
	Inconclusive = "inconclusive"
	// NoChange: A and B measured alike: nothing to bisect.
	NoChange = "no-change"
)

// ErrBadRange marks good and bad revisions that cannot be bisected: not
// commits, or good not an ancestor of bad. A usage error.
var ErrBadRange = errors.New("bad bisect range")

// Measurer measures two commits against each other on the same runner
// (base is the good side) and returns the paired comparison.
type Measurer interface {
	Measure(ctx context.Context, base, head string) (*compare.Comparison, error)
}

// MeasureFunc adapts a function to Measurer.
type MeasureFunc func(ctx context.Context, base, head string) (*compare.Comparison, error)

// Measure calls f.
func (f MeasureFunc) Measure(ctx context.Context, base, head string) (*compare.Comparison, error) {
	return f(ctx, base, head)
}

// Step is one A/B of the bisection.
type Step struct {
	Base string `json:"base"`
	Head string `json:"head"`
	// Verdict is the step's: regressed, improved, unchanged or
	// inconclusive (the worst over the scenarios bisected).
	Verdict compare.Verdict `json:"verdict"`
	// Metric is the metric the step's change is told in (p99_ms, or
	// max_qps for a knee), DeltaPct and CIPct its change and interval.
	Metric   string     `json:"metric,omitempty"`
	DeltaPct float64    `json:"delta_pct"`
	CIPct    [2]float64 `json:"ci_pct"`
	// ThresholdPct is the gate's threshold for that metric (0: unknown).
	ThresholdPct float64 `json:"threshold_pct,omitempty"`
	Pairs        int     `json:"pairs"`
	RunnerS      float64 `json:"runner_s"`
	// WallS is the step's wall time, builds and starts included.
	WallS float64 `json:"wall_s"`
}

// Outcome is a bisection's result.
type Outcome struct {
	Good, Bad string
	// Commits is the number of commits after Good up to Bad.
	Commits int    `json:"commits"`
	Status  string `json:"status"`
	// Direction is the A→B change being bisected: regressed or improved.
	Direction compare.Verdict `json:"direction,omitempty"`
	// Culprit is the first commit like B (Status found).
	Culprit string `json:"culprit,omitempty"`
	// Window is (last commit like A, first commit like B]: the narrowest
	// range established.
	Window [2]string `json:"window"`
	// Change is the culprit's own change (the last step), Total A→B's
	// (the first step).
	Change *Step  `json:"change,omitempty"`
	Total  *Step  `json:"total,omitempty"`
	Steps  []Step `json:"steps"`
	// RunnerS is the runner time of every step's trials; WallS the
	// bisection's wall time.
	RunnerS float64 `json:"runner_s"`
	WallS   float64 `json:"wall_s"`
	// Note says what the reader should know: why it stopped, or that the
	// culprit explains only part of A→B.
	Note string `json:"note,omitempty"`
}

// Commits lists good and the first-parent commits after it up to bad,
// oldest first, in the repository around dir.
func Commits(ctx context.Context, dir, good, bad string) ([]string, error) {
	var shas [2]string
	for i, r := range []string{good, bad} {
		s, err := gitOut(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", r+"^{commit}")
		if err != nil || s == "" {
			return nil, fmt.Errorf("%w: %q is not a commit in %s: fetch it first (actions/checkout with fetch-depth: 0)", ErrBadRange, r, dir)
		}
		shas[i] = s
	}
	if _, err := gitOut(ctx, dir, "merge-base", "--is-ancestor", shas[0], shas[1]); err != nil {
		return nil, fmt.Errorf("%w: --good %s is not an ancestor of --bad %s", ErrBadRange, good, bad)
	}
	out, err := gitOut(ctx, dir, "rev-list", "--first-parent", "--reverse", shas[0]+".."+shas[1])
	if err != nil {
		return nil, err
	}
	list := []string{shas[0]}
	for _, l := range strings.Fields(out) {
		list = append(list, l)
	}
	if len(list) < 2 {
		return nil, fmt.Errorf("%w: --good and --bad are the same commit", ErrBadRange)
	}
	return list, nil
}

// Run bisects the commits (Commits' list) with m, measuring only the
// scenarios named (all the comparison's when none).
func Run(ctx context.Context, commits []string, m Measurer, scenarios []string) (*Outcome, error) {
	start := time.Now()
	n := len(commits) - 1
	out := &Outcome{Good: commits[0], Bad: commits[n], Commits: n, Window: [2]string{commits[0], commits[n]}, Steps: []Step{}}
	step := func(base, head string) (Step, error) {
		t0 := time.Now()
		c, err := m.Measure(ctx, base, head)
		if err != nil {
			return Step{}, fmt.Errorf("measuring %s against %s: %w", short(head), short(base), err)
		}
		s := summarize(c, scenarios)
		s.Base, s.Head = base, head
		s.WallS = time.Since(t0).Seconds()
		out.Steps = append(out.Steps, s)
		out.RunnerS += s.RunnerS
		return s, nil
	}
	defer func() { out.WallS = time.Since(start).Seconds() }()

	total, err := step(commits[0], commits[n])
	if err != nil {
		return out, err
	}
	out.Total = &total
	switch total.Verdict {
	case compare.Regressed, compare.Improved:
		out.Direction = total.Verdict
	case compare.Unchanged:
		out.Status = NoChange
		out.Note = "the good and bad commits measured alike: nothing to bisect"
		return out, nil
	default:
		out.Status = Inconclusive
		out.Note = "the good and bad commits could not be told apart with confidence: give more trials (ab.max_trials, ab.budget) or a wider range"
		return out, nil
	}
	lo, hi := 0, n
	// byVerdict marks the commits judged good by the gate's own verdict
	// (unchanged against A), not by the midpoint rule.
	byVerdict := map[int]bool{0: true}
	rechecked := false
	var own Step
	for {
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			s, err := step(commits[0], commits[mid])
			if err != nil {
				return out, err
			}
			sd := side(s, total, out.Direction)
			if sd == undecided {
				// Once, an undecided commit is measured again with fresh
				// pairs: a commit carrying part of a change built over
				// several commits straddles the bar, and one more
				// measurement often settles which side it is on.
				first := s
				if s, err = step(commits[0], commits[mid]); err != nil {
					return out, err
				}
				if sd = side(s, total, out.Direction); sd == undecided {
					out.Window = [2]string{commits[lo], commits[hi]}
					out.Status = Inconclusive
					out.Note = fmt.Sprintf("step %s against the good commit was %s twice (%s, then %s), short of neither the bar nor beyond it: the change lies after %s and at or before %s",
						short(commits[mid]), s.Verdict, stepChange(first), stepChange(s), short(commits[lo]), short(commits[hi]))
					return out, nil
				}
			}
			switch sd {
			case bad:
				hi = mid
			case good:
				lo = mid
				byVerdict[mid] = s.Verdict == compare.Unchanged
			}
		}
		// The culprit's own change: against its parent, unless that step
		// was already measured.
		own = total
		if lo != 0 || hi != n {
			var err error
			if own, err = step(commits[lo], commits[hi]); err != nil {
				return out, err
			}
		}
		// A culprit whose own change measured unchanged contradicts a
		// parent put on A's side by the midpoint rule alone (its interval
		// short of half the change, the gate's verdict inconclusive): the
		// two commits measured alike, so one of those steps was noise, or
		// a change built over several commits tipped here. Once, the
		// parent is measured against A again with fresh pairs; like B, it
		// takes the window's top and the search goes on below it.
		if rechecked || own.Verdict != compare.Unchanged || byVerdict[lo] {
			break
		}
		rechecked = true
		s, err := step(commits[0], commits[lo])
		if err != nil {
			return out, err
		}
		if side(s, total, out.Direction) != bad {
			break
		}
		hi = lo
		for lo = hi - 1; lo > 0 && !byVerdict[lo]; lo-- {
		}
	}
	out.Window = [2]string{commits[lo], commits[hi]}
	out.Culprit = commits[hi]
	out.Status = Found
	out.Change = &own
	if own.Verdict != out.Direction {
		out.Note = fmt.Sprintf("the culprit's own change against its parent was %s (%+.1f%%): it tipped a change built over several commits", own.Verdict, own.DeltaPct)
	} else if total.DeltaPct != 0 && own.DeltaPct/total.DeltaPct < 0.67 {
		out.Note = fmt.Sprintf("the culprit explains %+.1f%% of the %+.1f%% between good and bad: bisect again with --good %s for the rest", own.DeltaPct, total.DeltaPct, short(out.Culprit))
	}
	return out, nil
}

// Sides a step can put a commit on.
const (
	undecided = iota
	good
	bad
)

// side says which end a commit measured against the good one is like: bad
// when the step's verdict is the bisected change's direction, or when its
// whole interval lies beyond the bar; good when the verdict is unchanged,
// or the whole interval lies short of the bar; else undecided. The bar is
// half the good→bad change, or the gate's threshold when that is smaller:
// a commit whose change may exceed the threshold is not like A, even when
// it is short of half a change several commits built (two commits adding
// 15% each against a 10% threshold: the first measured +9.9% [+6.3,
// +13.6] and, by half the change alone, was put on A's side). The rule
// lets a step decide a commit that is clearly one or the other even when
// the gate's own verdict is inconclusive.
func side(s, total Step, direction compare.Verdict) int {
	switch s.Verdict {
	case direction:
		return bad
	case compare.Unchanged:
		return good
	}
	if s.Metric == "" || s.Metric != total.Metric {
		return undecided
	}
	bar := math.Abs(total.DeltaPct) / 2
	if t := s.ThresholdPct; t > 0 && t < bar {
		bar = t
	}
	lo, hi := s.CIPct[0], s.CIPct[1]
	if total.DeltaPct < 0 { // an improvement: mirror
		lo, hi = -hi, -lo
	}
	switch {
	case lo > bar:
		return bad
	case hi < bar:
		return good
	}
	return undecided
}

// stepChange is a step's change and interval in a few words.
func stepChange(s Step) string {
	return fmt.Sprintf("%+.1f%% [%+.1f, %+.1f]", s.DeltaPct, s.CIPct[0], s.CIPct[1])
}

// summarize reduces a comparison to a step: the worst scenario verdict
// (regressed before inconclusive before improved before unchanged) and the
// change of the first gated metric of the first scenario with that
// verdict.
func summarize(c *compare.Comparison, scenarios []string) Step {
	var s Step
	for _, sc := range c.Scenarios {
		if len(scenarios) > 0 && !contains(scenarios, sc.Scenario) {
			continue
		}
		// The worst verdict (compare.Worse: no-baseline and the like count
		// as inconclusive, not a decision), its first scenario's change.
		w := compare.Worse(sc.Verdict, sc.Verdict)
		if s.Verdict != "" {
			w = compare.Worse(s.Verdict, sc.Verdict)
		}
		if w != s.Verdict {
			s.Verdict = w
			for _, m := range sc.Metrics {
				if m.Metric == compare.MetricP99 || m.Metric == compare.MetricMaxQPS {
					s.Metric, s.DeltaPct, s.CIPct, s.ThresholdPct = m.Metric, m.DeltaPct, m.CIPct, m.ThresholdPct
					break
				}
			}
		}
	}
	if s.Verdict == "" {
		s.Verdict = compare.Inconclusive
	}
	if c.AB != nil {
		for _, a := range c.AB.Scenarios {
			if len(scenarios) == 0 || contains(scenarios, a.Scenario) {
				s.Pairs += a.Pairs
				s.RunnerS += a.RunnerS
			}
		}
	}
	return s
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func short(sha string) string { return sha[:min(len(sha), 12)] }

// gitOut runs git in dir and returns its trimmed output.
func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(e.String()))
	}
	return strings.TrimSpace(o.String()), nil
}
