package suite

import (
	"context"
	"errors"
	"runtime"
	"strconv"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/telemetry"
)

// gpuEnvironment returns the GPU fingerprint function for the environment:
// nil GPUs when NVML is absent (no GPU is recorded, never zeros).
func gpuEnvironment(enabled bool) func() []result.GPU {
	return func() []result.GPU {
		if !enabled {
			return nil
		}
		gpus, err := telemetry.GPUEnvironment()
		if err != nil {
			return nil
		}
		return gpus
	}
}

// newObserver returns the telemetry collector for one scenario: GPUs when
// asked, the target's process group when perfgate started it, and its
// Prometheus endpoint when it has one.
func newObserver(ctx context.Context, gpu bool, pgid int, metrics string) (harness.TrialObserver, func()) {
	c, err := telemetry.New(ctx, telemetry.Options{GPU: gpu, PGID: pgid, MetricsURL: metrics})
	if err != nil {
		return nil, func() {}
	}
	return c, func() { c.Close() }
}

// annotate classifies each trial's bottleneck from its telemetry and the
// client-side figures, and puts the last trial's telemetry (the steadiest
// state) on the result. A trial the classifier calls generator-bound
// measured perfgate, not the target: the result is then invalid.
func annotate(res *result.Result, obs harness.TrialObserver, targetCores int) {
	if obs == nil {
		return
	}
	for i := range res.Trials {
		tr := &res.Trials[i]
		telemetry.AnnotateCores(tr.Telemetry, tr, runtime.GOMAXPROCS(0), targetCores)
		if b := tr.Telemetry; b != nil && b.Bottleneck != nil && b.Bottleneck.Class == result.GeneratorBound {
			tr.GeneratorLimited = true
			res.Valid = false
		}
		if tr.Telemetry != nil {
			res.Telemetry = tr.Telemetry
		}
	}
}

// stallMarked is a knee probe's host load h, marked busy when a window of
// r stalled (telemetry.StallOf: its sends late while perfgate sat mostly
// idle), so that the probe is measured again (gate --ab) or a change
// resting on it is inconclusive (host busy), as for a neighbour's load: a
// stall of the whole machine for a fraction of a second fails a probe
// far below the knee, which the probe's own P99 cannot tell from the
// service.
func stallMarked(h *result.HostLoad, r *result.Result) *result.HostLoad {
	if r == nil {
		return h
	}
	for i := range r.Trials {
		if why, ok := telemetry.StallOf(&r.Trials[i], runtime.GOMAXPROCS(0)); ok {
			h = telemetry.WithBusy(h, why)
		}
	}
	return h
}

// isAllFailed reports whether err says every request failed.
func isAllFailed(err error) bool { return errors.Is(err, harness.ErrAllFailed) }

// targetCores is the number of cores the scenario's target may use: the
// GOMAXPROCS its environments set (later ones win, as when the target is
// started), capped by the host's, else the host's.
func targetCores(env ...map[string]string) int {
	n := runtime.NumCPU()
	limit := n
	for _, e := range env {
		if v, err := strconv.Atoi(e["GOMAXPROCS"]); err == nil && v > 0 {
			limit = v
		}
	}
	return min(limit, n)
}

// withHostLoad wraps obs with a host-load sampler for the target: the
// process group perfgate started, or the process serving a url: here.
func withHostLoad(obs harness.TrialObserver, r *running) *harness.HostSampler {
	return harness.NewHostSampler(obs, r.pgid).WithTargetTree(r.urlPID)
}

// stampHostLoad copies the sampler's per-trial host load into res.
func stampHostLoad(res *result.Result, hs *harness.HostSampler) {
	for i := range res.Trials {
		res.Trials[i].Host = hs.Load(i)
	}
}
