package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/internal/export"
	"github.com/perfgate/perfgate/result"
)

// cmdExport is `perfgate export --format F RESULTS…`: the run-level
// figures of result files or folders in another tool's format (package
// export).
func cmdExport(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	setUsage(fs, "export")
	var names []string
	for _, f := range export.Formats {
		names = append(names, string(f))
	}
	var (
		format = fs.String("format", "", "output format: "+strings.Join(names, ", "))
		tool   = fs.String("tool", export.ToolSmaller, "github-action-benchmark: the custom tool the file is for, "+export.ToolSmaller+" (latencies, error rate) or "+export.ToolBigger+" (throughputs)")
		commit = fs.String("commit", "", "the commit measured (default: the results', or $GITHUB_SHA)")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usageErr("export: %v", err)
	}
	o := export.Options{Format: export.Format(*format), Tool: *tool}
	if err := o.Validate(); err != nil {
		return usageErr("export: --%v", err)
	}
	if fs.NArg() == 0 {
		return usageErr("export: give result files or folders to export")
	}
	m := history.Meta{Commit: firstOf(*commit, e.getenv("GITHUB_SHA")), Date: time.Now().UTC(), Perfgate: version}
	var recs []history.Record
	for _, p := range fs.Args() {
		path, err := resultsPath("RESULTS", absPath(e, p))
		if err != nil {
			return usageErr("export: %v", err)
		}
		rs, err := result.ReadResults(path)
		if err != nil {
			return withCode(exitUsage, err)
		}
		got, errs := history.FromResults(rs, m)
		for _, err := range errs {
			fmt.Fprintf(e.stderr, "perfgate: export: %v\n", err)
		}
		recs = append(recs, got...)
	}
	if len(recs) == 0 {
		return withCode(exitRunFailed, errors.New("export: no valid result to export"))
	}
	return export.Write(e.stdout, recs, o)
}
