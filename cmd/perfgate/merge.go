package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/merge"
)

// cmdMerge is `perfgate merge --out DIR PATH…`: generator shards of a
// scenario become one result; results of different scenarios (the parts
// of a matrix) are gathered into one folder.
func cmdMerge(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	setUsage(fs, "merge")
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
	var paths []string
	for _, p := range fs.Args() {
		paths = append(paths, absPath(e, p))
	}
	ins, err := merge.Read(paths)
	if err != nil {
		return usageErr("merge: %v", err)
	}
	// A folder given as input may hold --out (merging again into the same
	// place): what an earlier merge wrote there is not an input.
	if outAbs, err := filepath.Abs(absPath(e, *out)); err == nil {
		ins = slices.DeleteFunc(ins, func(in merge.Input) bool {
			p, err := filepath.Abs(in.Path)
			return err == nil && strings.HasPrefix(p, outAbs+string(filepath.Separator))
		})
	}
	rs, err := merge.Gather(ins, merge.Options{MaxSkew: *maxSkew})
	if err != nil {
		if errors.Is(err, merge.ErrMismatch) {
			return usageErr("merge: %v", err)
		}
		return withCode(exitRunFailed, fmt.Errorf("merge: %w", err))
	}
	written, err := merge.WriteDir(absPath(e, *out), rs)
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
				r.Scenario, m.Generators, r.Summary.Requests, r.Summary.Latency.P50, r.Summary.Latency.P99, m.StartSkewMs, m.MaxStartSkewMs, valid, written[i])
		default:
			fmt.Fprintf(e.stdout, "%s → %s\n", r.Scenario, written[i])
		}
	}
	return nil
}
