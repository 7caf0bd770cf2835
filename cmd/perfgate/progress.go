package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/perfgate/perfgate/harness"
	"github.com/schollz/progressbar/v3"
)

// progress shows a run's progress on stderr: one live line on a terminal
// (schollz/progressbar: it handles terminal width, throttling and
// clearing; each scenario redraws the same line), plain lines per phase
// otherwise, so CI logs stay readable. It is also the io.Writer for the
// run's log lines: above the live line (or as lines in CI), or into log
// when set (the demo keeps to one screen; its log file has every line).
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	log      io.Writer // where log lines go; nil: p.w, above the bar
	bar      *progressbar.ProgressBar
	current  string
	// mark is the running totals at the end of the scenario's last phase,
	// so that each line counts its own phase (the engine's are cumulative
	// over warm-up and trials).
	mark phaseMark
}

// phaseMark is a scenario's running totals at a phase boundary.
type phaseMark struct {
	name                string
	sent, done, errored int64
	// inFlight were sent in the phase and still in flight when it
	// ended: they complete, and are counted, in the next one.
	inFlight int64
}

func newProgress(e *env) *progress {
	return &progress{w: e.stderr, terminal: e.isTerminal}
}

// Write prints a log line above the bar, or into p.log when set.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.log != nil {
		return p.log.Write(b)
	}
	if p.bar != nil {
		p.bar.Clear()
	}
	n, err := p.w.Write(b)
	if p.bar != nil {
		p.bar.RenderBlank()
	}
	return n, err
}

// update receives the engine's progress for one scenario.
func (p *progress) update(name string, pr harness.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.terminal {
		if pr.PhaseDone {
			if p.mark.name != name || pr.Sent < p.mark.sent {
				p.mark = phaseMark{name: name}
			}
			sent, done, errored := pr.Sent-p.mark.sent, pr.Done-p.mark.done, pr.Errors-p.mark.errored
			if pr.PhaseSent > 0 {
				// Counted by the phase each request was due in, as the
				// result counts a trial's requests (the running total
				// would give the warm-up the requests sent before its
				// line was printed).
				sent = pr.PhaseSent
			}
			carried := min(p.mark.inFlight, done)
			p.mark = phaseMark{name: name, sent: pr.Sent, done: pr.Done, errored: pr.Errors, inFlight: int64(pr.InFlight)}
			switch pr.Phase {
			case "warmup":
				fmt.Fprintf(p.w, "%s: warm-up done: %d sent (excluded from every figure)\n", name, sent)
			case "trial":
				// A request sent in the phase before and completed in this
				// one is counted here: say so, or "79 sent, 80 completed"
				// reads as a counting bug.
				from := ""
				if carried > 0 {
					from = fmt.Sprintf(" (%d of them sent before it)", carried)
				}
				fmt.Fprintf(p.w, "%s: trial %d/%d done: %d sent, %d completed%s, %d errors in this trial; %d in flight\n",
					name, pr.Trial, pr.Trials, sent, done, from, errored, pr.InFlight)
			}
		}
		return
	}
	if name != p.current || p.bar == nil {
		if p.bar != nil {
			// The next scenario redraws the same line.
			p.bar.Clear()
		}
		p.current = name
		p.bar = progressbar.NewOptions64(max(pr.Total.Milliseconds(), 1),
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetWidth(24),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionSetElapsedTime(false),
		)
	}
	phase := pr.Phase
	if phase == "trial" {
		phase = fmt.Sprintf("trial %d/%d", pr.Trial, pr.Trials)
	}
	p.bar.Describe(fmt.Sprintf("%s %s · %d sent · %d errors · %d in flight", name, phase, pr.Sent, pr.Errors, pr.InFlight))
	p.bar.Set64(min(pr.Elapsed.Milliseconds(), pr.Total.Milliseconds()))
}

func (p *progress) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		// The live line goes when the run ends: what it showed is in the
		// results that follow.
		p.bar.Clear()
		p.bar = nil
	}
}
