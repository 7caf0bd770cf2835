package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// SampleFor samples the GPUs every interval for d (or until ctx ends) and
// writes the window's telemetry as one JSON object to w: the
// result.Telemetry of a single window, with gpus (result.GPUStats per
// device), sampler_cpu_pct and the GPU-only bottleneck class
// (compute-bound, bandwidth-bound or unknown), or no_gpu and a warning.
// It backs the
// `perfgate gpu-sample` command that bench/gpu/run.sh uses to compare
// perfgate's figures with nvidia-smi's.
func SampleFor(ctx context.Context, d, interval time.Duration, w io.Writer) error {
	if d <= 0 {
		return fmt.Errorf("gpu-sample: duration %v: must be positive", d)
	}
	c, err := New(ctx, Options{GPU: true, Interval: interval})
	if err != nil {
		return err
	}
	defer c.Close()
	c.BeginTrial(0)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
	t := c.EndTrial(0)
	if len(t.GPUs) > 0 {
		t.Bottleneck = Classify(ClassifyInput{GPUs: t.GPUs})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(t); err != nil {
		return fmt.Errorf("gpu-sample: writing JSON: %w", err)
	}
	return ctx.Err()
}
