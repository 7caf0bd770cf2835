package main

import (
	"context"
	"flag"
	"time"

	"github.com/perfgate/perfgate/telemetry"
)

// cmdGPUSample is `perfgate gpu-sample`: it samples NVML for a while and
// prints one telemetry JSON object (no_gpu when there is none), for
// checking perfgate's GPU figures against nvidia-smi (bench/gpu).
func cmdGPUSample(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("gpu-sample", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	setUsage(fs, "gpu-sample")
	d := fs.Duration("duration", gpuSampleDuration, "how long to sample")
	iv := fs.Duration("interval", telemetry.DefaultInterval, "sampling interval")
	if err := fs.Parse(args); err != nil {
		return usageErr("gpu-sample: %v", err)
	}
	if err := checkFlagRanges("gpu-sample", fs); err != nil {
		return err
	}
	if *d <= 0 || *iv <= 0 {
		return usageErr("gpu-sample: --duration and --interval must be > 0")
	}
	return withCode(exitRunFailed, telemetry.SampleFor(ctx, *d, *iv, e.stdout))
}

// gpuSampleDuration is gpu-sample's default --duration.
const gpuSampleDuration = 8 * time.Second
