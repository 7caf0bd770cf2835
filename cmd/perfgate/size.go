package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/internal/capread"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
)

// cmdSize implements perfgate size: it reads a result file with a knee
// search and prints the capacity plan for a peak load. Its usage is
// synopses()' "size".
func cmdSize(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("size", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var (
		cfgPath = fs.String("config", "", "perfgate.yaml whose capacity section (peak_qps, headroom, cost_per_instance_hour) to use; flags override")
		resPath = fs.String("result", "", "result `FILE` of a knee search (perfgate run --sweep)")
		peak    = fs.Float64("peak-qps", 0, "peak traffic to size for, in requests per second (required)")
		head    = fs.Float64("headroom", sizing.DefaultHeadroom, "safety margin: instances are sized for peak × headroom")
		cost    = fs.Float64("cost-per-hour", 0, "price of one instance per hour; adds the cost per month (730 h)")
		format  = formatFlag(fs, "the plan on stdout")
		traffic = fs.String("traffic", "", "traffic curve `FILE` (timestamp,qps CSV or a Prometheus range-query JSON export): plan a schedule")
		lead    = fs.Duration("lead-time", sizing.DefaultLeadTime, "with --traffic: scale out this long before each predicted rise (0 to 24h)")
		after   = fs.Duration("scale-in-after", sizing.DefaultScaleInAfter, "with --traffic: scale in only this long after a fall (0 to 24h)")
		tz      = fs.String("timezone", "", "with --traffic: convert the curve into this IANA zone (default: the curve's own offset)")
		emit    = fs.String("emit", "", "print a manifest instead of the plan: keda (ScaledObject; needs --traffic) or hpa")
		promURL = fs.String("prometheus-url", sizing.DefaultPrometheusURL, "with --emit keda: the Prometheus server of the reactive trigger")
		promQ   = fs.String("prometheus-query", "", "with --emit keda: PromQL of the service's total request rate (default: sum(rate(http_requests_total{service=NAME}[2m])))")
		hitRate = fs.Float64("hit-rate", -1, "cache hit rate production will see, 0 to 1 (default: the one measured)")
		whole   = fs.String("whole", "", "result `FILE` of the whole-device knee, to compare with a --result measured on a partition")
	)
	fs.Float64Var(cost, "cost-per-instance-hour", 0, "alias of --cost-per-hour")
	setUsage(fs, "size")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageErr("size: %v", err)
	}
	if fs.NArg() > 0 {
		return usageErr("size: unexpected argument %q", fs.Arg(0))
	}
	if err := checkFlagRanges("size", fs); err != nil {
		return err
	}
	if *resPath == "" {
		return usageErr("size: --result is required: the result file of a knee search")
	}
	outFormat, err := report.ParseFormat(*format)
	if err != nil {
		return usageErr("size: %v", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *cfgPath != "" {
		cfg, err := config.ReadFile(absPath(e, *cfgPath))
		if err != nil {
			return withCode(exitUsage, err)
		}
		if !set["peak-qps"] {
			*peak = cfg.Capacity.PeakQPS
		}
		if !set["headroom"] {
			*head = cfg.Capacity.Headroom
		}
		if !set["cost-per-hour"] && !set["cost-per-instance-hour"] {
			*cost = cfg.Capacity.CostPerInstanceHour
		}
		// capacity.traffic is relative to the config file.
		if !set["traffic"] && cfg.Capacity.Traffic != "" {
			*traffic = cfg.TrafficPath()
		}
		if d := cfg.Capacity.LeadTime; !set["lead-time"] && d != nil {
			*lead = d.D()
		}
		if d := cfg.Capacity.ScaleInAfter; !set["scale-in-after"] && d != nil {
			*after = d.D()
		}
	}
	in := sizing.Input{PeakQPS: *peak, Headroom: *head, CostPerInstanceHour: *cost,
		LeadTime: windowFlag(*lead), ScaleInAfter: windowFlag(*after)}
	if *hitRate != -1 {
		in.HitRate = hitRate
	}
	if *peak == 0 && *traffic == "" {
		return usageErr("size: --peak-qps is required (or --traffic, or --config with capacity.peak_qps or capacity.traffic): the peak traffic to size for, in requests per second")
	}
	if *emit != "" && *emit != "keda" && *emit != "hpa" {
		return usageErr("size: --emit is %q, want keda or hpa", *emit)
	}
	if *emit == "keda" && *traffic == "" {
		return usageErr("size: --emit keda needs --traffic: the cron triggers come from the traffic curve's schedule")
	}
	if *traffic != "" {
		c, err := readTraffic(e, *traffic, *tz)
		if err != nil {
			return err
		}
		in.Traffic = c
	}
	if err := in.Validate(); err != nil {
		return usageErr("size: %s", inputFlagError(err))
	}
	res, err := readResultFlag(e, "result", *resPath)
	if err != nil {
		return err
	}
	if *whole != "" {
		if in.Whole, err = readResultFlag(e, "whole", *whole); err != nil {
			return err
		}
	}
	s, err := sizing.Plan(res, in)
	if err != nil {
		return usageErr("size: result %q: %v", *resPath, err)
	}
	switch *emit {
	case "hpa":
		_, err = io.WriteString(e.stdout, s.Autoscaler.HPA)
		return err
	case "keda":
		doc, err := s.KEDAYAML(sizing.KEDAOptions{PrometheusURL: *promURL, Query: *promQ})
		if err != nil {
			return usageErr("size: %v", err)
		}
		_, err = io.WriteString(e.stdout, doc)
		return err
	}
	return report.RenderSizing(e.stdout, s, outFormat)
}

// windowFlag maps a 0 duration flag to sizing.NoWindow (the flag's zero
// means none; the Input's zero means the default).
func windowFlag(d time.Duration) time.Duration {
	if d == 0 {
		return sizing.NoWindow
	}
	return d
}

// readResultFlag reads the result file a flag names, relative to the
// working folder.
func readResultFlag(e *env, flagName, p string) (*result.Result, error) {
	path := p
	if !filepath.IsAbs(path) && e.workdir != "" {
		path = filepath.Join(e.workdir, path)
	}
	res, err := result.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, usageErr("size: --%s %q: no such file", flagName, p)
		}
		return nil, usageErr("size: --%s: %v", flagName, err)
	}
	return res, nil
}

// readTraffic reads a --traffic curve, converted into zone tz if given.
func readTraffic(e *env, p, tz string) (*sizing.Curve, error) {
	var loc *time.Location
	if tz != "" {
		l, err := time.LoadLocation(tz)
		if err != nil {
			return nil, usageErr("size: --timezone %q: %v (want an IANA name such as Europe/Paris)", tz, err)
		}
		loc = l
	}
	path := p
	if !filepath.IsAbs(path) && e.workdir != "" {
		path = filepath.Join(e.workdir, path)
	}
	f, err := capread.Open(path, capread.Traffic)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, usageErr("size: --traffic %q: no such file", p)
		}
		return nil, usageErr("size: --traffic: %v", err)
	}
	defer f.Close()
	c, err := sizing.ReadTraffic(p, f, loc)
	if err != nil {
		return nil, usageErr("size: %v", err)
	}
	return c, nil
}

// inputFlagError says a sizing.Input validation error in terms of the
// flags: a field's flag is its perfgate.yaml key with '-' for '_'.
func inputFlagError(err error) string {
	var ie *sizing.InputError
	if errors.As(err, &ie) {
		return fmt.Sprintf("--%s is %v, want %s", strings.ReplaceAll(ie.Field, "_", "-"), ie.Value, ie.Want)
	}
	return err.Error()
}
