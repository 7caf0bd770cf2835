package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/perfgate/perfgate/merge"
)

// cmdMerge is `perfgate merge --out DIR PATH…`: generator shards of a
// scenario become one result; results of different scenarios (the parts
// of a matrix) are gathered into one folder.
func cmdMerge(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	out := fs.String("out", "", "folder to write the merged results into (required)")
	maxSkew := fs.Duration("max-skew", merge.DefaultMaxSkew, "largest start skew between generator shards; beyond it (or beyond the warm-up) the merged result is invalid")
	if err := fs.Parse(args); err != nil {
		return usageErr("merge: %v", err)
	}
	if *out == "" || fs.NArg() == 0 {
		return usageErr("merge: give --out DIR and at least one result file or folder")
	}
	if *maxSkew <= 0 {
		return usageErr("merge: --max-skew %v: must be > 0", *maxSkew)
	}
	ins, err := merge.Read(fs.Args())
	if err != nil {
		return usageErr("merge: %v", err)
	}
	rs, err := merge.Gather(ins, merge.Options{MaxSkew: *maxSkew})
	if err != nil {
		if errors.Is(err, merge.ErrMismatch) {
			return usageErr("merge: %v", err)
		}
		return withCode(exitRunFailed, fmt.Errorf("merge: %w", err))
	}
	paths, err := merge.WriteDir(*out, rs)
	if err != nil {
		return withCode(exitRunFailed, fmt.Errorf("merge: %w", err))
	}
	for i, r := range rs {
		switch m := r.Merged; {
		case m != nil:
			valid := "valid"
			if !r.Valid {
				valid = "INVALID"
			}
			fmt.Fprintf(e.stdout, "%s: %d generators merged, %d requests, P50 %.3g ms, P99 %.3g ms, start skew %.1f ms (bound %.0f ms), %s → %s\n",
				r.Scenario, m.Generators, r.Summary.Requests, r.Summary.Latency.P50, r.Summary.Latency.P99, m.StartSkewMs, m.MaxStartSkewMs, valid, paths[i])
		default:
			fmt.Fprintf(e.stdout, "%s → %s\n", r.Scenario, paths[i])
		}
	}
	return nil
}
