package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
)

// cmdSize implements perfgate size: it reads a result file with a knee
// search and prints the capacity plan for a peak load.
//
//	perfgate size --result FILE --peak-qps N [--headroom 1.3] [--cost-per-hour X] [--format text|markdown|json]
func cmdSize(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("size", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var (
		cfgPath = fs.String("config", "", "perfgate.yaml whose capacity section (peak_qps, headroom, cost_per_instance_hour) to use; flags override")
		resPath = fs.String("result", "", "result `FILE` of a knee search (perfgate run --sweep)")
		peak    = fs.Float64("peak-qps", 0, "peak traffic to size for, in requests per second (required)")
		head    = fs.Float64("headroom", sizing.DefaultHeadroom, "safety margin: instances are sized for peak × headroom")
		cost    = fs.Float64("cost-per-hour", 0, "price of one instance per hour; adds the cost per month (730 h)")
		format  = fs.String("format", "text", "output format: text, markdown or json")
	)
	fs.Float64Var(cost, "cost-per-instance-hour", 0, "alias of --cost-per-hour")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: perfgate size [--config perfgate.yaml] --result FILE --peak-qps N [--headroom 1.3] [--cost-per-hour X] [--format text|markdown|json]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageErr("size: %v", err)
	}
	if fs.NArg() > 0 {
		return usageErr("size: unexpected argument %q", fs.Arg(0))
	}
	if *resPath == "" {
		return usageErr("size: --result is required: the result file of a knee search")
	}
	write, err := sizeWriter(*format)
	if err != nil {
		return err
	}
	if *cfgPath != "" {
		cfg, err := config.ReadFile(absPath(e, *cfgPath))
		if err != nil {
			return withCode(exitUsage, err)
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["peak-qps"] {
			*peak = cfg.Capacity.PeakQPS
		}
		if !set["headroom"] {
			*head = cfg.Capacity.Headroom
		}
		if !set["cost-per-hour"] && !set["cost-per-instance-hour"] {
			*cost = cfg.Capacity.CostPerInstanceHour
		}
	}
	in := sizing.Input{PeakQPS: *peak, Headroom: *head, CostPerInstanceHour: *cost}
	if *peak == 0 {
		return usageErr("size: --peak-qps is required (or --config with capacity.peak_qps): the peak traffic to size for, in requests per second")
	}
	if err := in.Validate(); err != nil || *head == 0 {
		return usageErr("size: --%s", flagName(err, in))
	}
	path := *resPath
	if !filepath.IsAbs(path) && e.workdir != "" {
		path = filepath.Join(e.workdir, path)
	}
	res, err := result.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return usageErr("size: --result %q: no such file", *resPath)
		}
		return usageErr("size: %v", err)
	}
	s, err := sizing.Plan(res, in)
	if err != nil {
		return usageErr("size: result %q: %v", *resPath, err)
	}
	return write(s, e.stdout)
}

// sizeWriter returns the renderer for a --format value.
func sizeWriter(format string) (func(*sizing.Sizing, io.Writer) error, error) {
	switch format {
	case "text":
		return (*sizing.Sizing).WriteText, nil
	case "markdown", "md":
		return (*sizing.Sizing).WriteMarkdown, nil
	case "json":
		return (*sizing.Sizing).WriteJSON, nil
	}
	return nil, usageErr("size: --format is %q, want text, markdown or json", format)
}

// flagName rewrites a sizing.Input validation error in terms of the flags.
func flagName(err error, in sizing.Input) string {
	switch {
	case !(in.PeakQPS > 0):
		return fmt.Sprintf("peak-qps is %v, want a number > 0", in.PeakQPS)
	case !(in.Headroom >= 1):
		return fmt.Sprintf("headroom is %v, want a number >= 1 (1.3 plans 30%% spare)", in.Headroom)
	case !(in.CostPerInstanceHour >= 0):
		return fmt.Sprintf("cost-per-hour is %v, want a number >= 0", in.CostPerInstanceHour)
	}
	if err == nil {
		return "invalid input"
	}
	return err.Error()
}
