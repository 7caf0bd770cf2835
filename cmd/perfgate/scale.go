package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// scaleFlags are `perfgate run`'s flags for running on many machines:
// one part of a partitioned suite, or one of several load generators.
type scaleFlags struct {
	part, generator, startAt string
	list                     bool
}

func (s *scaleFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.part, "part", "", "with --config: run part I of N (I/N) of the suite, balanced by expected duration")
	fs.BoolVar(&s.list, "list", false, "with --config: print the scenario names the run (or its --part) would run, one a line, and run nothing")
	fs.StringVar(&s.generator, "generator", "", "send 1/N of the load as generator I of N (I/N); merge the shards with perfgate merge")
	fs.StringVar(&s.startAt, "start-at", "", "with --generator: begin the warm-up at this RFC 3339 instant, the same for every generator")
}

// scalePlan is what the scale flags decided for a run.
type scalePlan struct {
	// names replaces the --scenario selection when a part is given.
	names []string
	// done is true when nothing is to run (--list, or an empty part).
	done bool
	part *result.Part
	gen  *suite.Generator
}

// apply sets the plan's suite options.
func (p *scalePlan) apply(o *suite.Options) {
	o.Part = p.part
	o.Generator = p.gen
}

// plan checks the scale flags against cfg and the --scenario selection,
// and prints the scenario list for --list (or an empty part's notice).
func (s *scaleFlags) plan(e *env, cfg *config.Config, fromConfig bool, scenarios []string) (*scalePlan, error) {
	p := &scalePlan{names: scenarios}
	if (s.part != "" || s.list) && !fromConfig {
		return nil, usageErr("run: --part and --list split a config's suite: give --config")
	}
	if s.part != "" {
		if len(scenarios) > 0 {
			return nil, usageErr("run: give --part or --scenario, not both")
		}
		i, n, err := parseShare("part", s.part)
		if err != nil {
			return nil, err
		}
		names, err := suite.PartNames(cfg, i, n)
		if err != nil {
			return nil, usageErr("run: --part %s: %v", s.part, err)
		}
		p.names = names
		p.part = &result.Part{Index: i, Count: n}
		if len(names) == 0 && !s.list {
			fmt.Fprintf(e.stderr, "part %d/%d has no scenarios (the suite has fewer groups of compared variants than parts): nothing to run\n", i, n)
			p.done = true
			return p, nil
		}
	}
	if s.list {
		names := p.names
		if len(names) == 0 {
			for _, sc := range cfg.Scenarios {
				names = append(names, sc.Name)
			}
		}
		for _, n := range names {
			fmt.Fprintln(e.stdout, n)
		}
		p.done = true
		return p, nil
	}
	if s.startAt != "" && s.generator == "" {
		return nil, usageErr("run: --start-at aligns generators: give --generator I/N too")
	}
	if s.generator != "" {
		i, n, err := parseShare("generator", s.generator)
		if err != nil {
			return nil, err
		}
		g := &suite.Generator{Index: i, Count: n}
		if s.startAt != "" {
			t, err := time.Parse(time.RFC3339Nano, s.startAt)
			if err != nil {
				return nil, usageErr("run: --start-at %q: want an RFC 3339 instant such as 2026-11-30T14:00:00Z", s.startAt)
			}
			// A generator may start a little after the instant and catch up
			// inside its warm-up; past the longest warm-up it never could.
			var warmup time.Duration
			for _, sc := range cfg.Scenarios {
				warmup = max(warmup, sc.Load.Warmup.D())
			}
			if late := time.Since(t); late > warmup {
				return nil, usageErr("run: --start-at %s is %v in the past, more than the warm-up: give an instant after every generator will have started", s.startAt, late.Round(time.Millisecond))
			}
			g.StartAt = t
		}
		p.gen = g
	}
	return p, nil
}

// parseShare parses "I/N" with 1 ≤ I ≤ N.
func parseShare(flagName, v string) (i, n int, err error) {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, usageErr("run: --%s %q: want I/N with 1 ≤ I ≤ N, such as 2/4", flagName, v)
	}
	return i, n, nil
}
