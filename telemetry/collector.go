package telemetry

import (
	"context"
	"errors"
	"fmt"
	"github.com/perfgate/perfgate/internal/sameorigin"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"time"

	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/telemetry/gpu"
)

// DefaultInterval is the GPU sampling interval when Options.Interval is 0:
// 10 Hz.
const DefaultInterval = 100 * time.Millisecond

// DefaultScrapeTimeout bounds one scrape of the metrics URL when
// Options.HTTPClient has no timeout of its own.
const DefaultScrapeTimeout = 2 * time.Second

// Options says what a Collector samples. The zero value samples nothing.
type Options struct {
	// GPU turns NVML sampling on. Without a usable GPU the Collector says
	// "no GPU" once and records Telemetry.NoGPU, never zeros.
	GPU bool
	// PGID is the process group of the target perfgate started; 0 skips the
	// target's CPU and memory.
	PGID int
	// MetricsURL is the target's Prometheus endpoint; "" skips server time.
	MetricsURL string
	// HTTPClient scrapes MetricsURL; nil means a client with
	// DefaultScrapeTimeout.
	HTTPClient *http.Client
	// Interval is the GPU sampling interval; 0 means DefaultInterval.
	Interval time.Duration
}

// Validate checks the options.
func (o Options) Validate() error {
	if o.PGID < 0 {
		return fmt.Errorf("telemetry: process group %d: must be positive", o.PGID)
	}
	if o.Interval < 0 {
		return fmt.Errorf("telemetry: interval %v: must be positive", o.Interval)
	}
	if o.MetricsURL != "" {
		u, err := url.Parse(o.MetricsURL)
		if err != nil {
			return fmt.Errorf("telemetry: metrics URL %q: %w", o.MetricsURL, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return fmt.Errorf("telemetry: metrics URL %q: want http or https", o.MetricsURL)
		}
	}
	return nil
}

// gpuSource is what the Collector needs of a GPU sampler (gpu.Sampler);
// tests substitute their own.
type gpuSource interface {
	Devices() []gpu.Info
	Reset()
	Sample() []gpu.Sample
	Close() error
}

// Collector samples the target around trial windows; it satisfies the
// harness's TrialObserver. BeginTrial and EndTrial are called from one
// goroutine, in pairs; GPU sampling runs in its own goroutine between them.
// Close stops it.
//
// The sampler's own cost, Telemetry.SamplerCPUPct, is the CPU time the
// sampling goroutine's OS thread (locked to it) spent taking and recording
// samples during the window, over the window's wall time, in percent of
// one core (CLOCK_THREAD_CPUTIME_ID on Linux).
type Collector struct {
	opts   Options
	ctx    context.Context
	client *http.Client
	gpu    gpuSource // nil: GPU not sampled
	noGPU  string    // why there is no GPU, when one was asked for
	toldNo bool

	stop, done chan struct{}
	kick       chan struct{}
	closeOnce  sync.Once

	mu         sync.Mutex // guards the window state below
	active     bool
	gen        int // counts windows, so a late sample is not added to the next one
	reset      bool
	trial      int
	win        gpu.Window
	samplerCPU time.Duration
	began      time.Time

	// Taken at BeginTrial, used at EndTrial (the caller's goroutine only).
	procBefore   groupSnapshot
	procErr      error
	scrapeBefore []counters
	scrapeErr    error
}

// New starts a Collector. ctx bounds the background sampling; Close ends
// it earlier. Only invalid options are an error: a missing GPU, process or
// metrics endpoint becomes a warning in the trial's telemetry.
func New(ctx context.Context, opts Options) (*Collector, error) {
	return newCollector(ctx, opts, func() (gpuSource, error) { return gpu.Open() })
}

func newCollector(ctx context.Context, opts Options, openGPU func() (gpuSource, error)) (*Collector, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Interval == 0 {
		opts.Interval = DefaultInterval
	}
	c := &Collector{opts: opts, ctx: ctx, client: opts.HTTPClient,
		stop: make(chan struct{}), done: make(chan struct{}), kick: make(chan struct{}, 1)}
	if c.client == nil {
		c.client = sameorigin.Client(&http.Client{Timeout: DefaultScrapeTimeout})
	}
	if opts.GPU {
		g, err := openGPU()
		switch {
		case err != nil && errors.Is(err, gpu.ErrNoGPU):
			c.noGPU = err.Error()
		case err != nil:
			c.noGPU = "no GPU: " + err.Error()
		default:
			c.gpu = g
		}
	}
	if c.gpu == nil {
		close(c.done)
		return c, nil
	}
	go c.loop()
	return c, nil
}

// loop samples the GPUs every interval while a window is open. It keeps
// its OS thread so that the thread's CPU time is the sampler's own cost.
func (c *Collector) loop() {
	defer close(c.done)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tick := time.NewTicker(c.opts.Interval)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-c.ctx.Done():
			return
		case <-tick.C:
		case <-c.kick:
		}
		c.mu.Lock()
		gen, active, reset := c.gen, c.active, c.reset
		c.reset = false
		c.mu.Unlock()
		if !active {
			continue
		}
		t0 := threadCPU()
		if reset {
			c.gpu.Reset()
		}
		s := c.gpu.Sample()
		c.mu.Lock()
		if c.active && c.gen == gen {
			c.win.Add(s)
			c.samplerCPU += threadCPU() - t0
		}
		c.mu.Unlock()
	}
}

// BeginTrial opens trial i's window: it scrapes the metrics URL, reads the
// target's process group and starts GPU sampling.
func (c *Collector) BeginTrial(i int) {
	if c.opts.MetricsURL != "" {
		c.scrapeBefore, c.scrapeErr = c.scrape()
	}
	if c.opts.PGID > 0 {
		c.procBefore, c.procErr = readGroup("/proc", c.opts.PGID)
	}
	c.mu.Lock()
	c.active, c.trial, c.reset = true, i, true
	c.gen++
	c.win = gpu.Window{}
	c.samplerCPU = 0
	c.began = time.Now()
	c.mu.Unlock()
	select { // take the first GPU sample now, not one interval late
	case c.kick <- struct{}{}:
	default:
	}
}

// EndTrial closes trial i's window and summarizes what was sampled in it.
// Whatever could not be sampled is a warning in the result, never a crash
// or a zero.
func (c *Collector) EndTrial(i int) *result.Telemetry {
	c.mu.Lock()
	wasActive, trial := c.active, c.trial
	c.active = false
	win, cpu, began := c.win, c.samplerCPU, c.began
	c.win = gpu.Window{}
	c.mu.Unlock()
	wall := time.Since(began)
	t := &result.Telemetry{}
	if !wasActive || trial != i {
		t.Warnings = append(t.Warnings, fmt.Sprintf("telemetry: EndTrial(%d) without BeginTrial(%d)", i, i))
	}
	c.endGPU(t, &win, cpu, wall)
	c.endProc(t)
	c.endScrape(t)
	return t
}

// endGPU summarizes the GPU window into t.
func (c *Collector) endGPU(t *result.Telemetry, win *gpu.Window, cpu, wall time.Duration) {
	switch {
	case c.gpu != nil:
		t.GPUs = win.Stats(c.gpu.Devices())
		if len(t.GPUs) == 0 {
			t.Warnings = append(t.Warnings, fmt.Sprintf("GPU: no sample in a %v window", wall.Round(time.Millisecond)))
		}
		if wall > 0 {
			t.SamplerCPUPct = round3(100 * cpu.Seconds() / wall.Seconds())
		}
	case c.noGPU != "":
		t.NoGPU = true
		if !c.toldNo {
			c.toldNo = true
			t.Warnings = append(t.Warnings, c.noGPU)
		}
	}
}

// endProc measures the target's process group into t.
func (c *Collector) endProc(t *result.Telemetry) {
	if c.opts.PGID <= 0 {
		return
	}
	if c.procErr != nil {
		t.Warnings = append(t.Warnings, fmt.Sprintf("target CPU: %v", c.procErr))
		return
	}
	after, err := readGroup("/proc", c.opts.PGID)
	switch {
	case err != nil:
		t.Warnings = append(t.Warnings, fmt.Sprintf("target CPU: %v", err))
	case len(after.procs) == 0:
		t.Warnings = append(t.Warnings, fmt.Sprintf("target CPU: process group %d: no process left", c.opts.PGID))
	default:
		t.TargetCPUCores = round3(coresBetween(c.procBefore, after))
		t.TargetRSSMiB = round3(float64(after.rss) / (1 << 20))
		t.TargetProcs = len(after.procs)
	}
}

// endScrape derives the server's time per request into t.
func (c *Collector) endScrape(t *result.Telemetry) {
	if c.opts.MetricsURL == "" {
		return
	}
	if c.scrapeErr != nil {
		t.Warnings = append(t.Warnings, fmt.Sprintf("server metrics: %v", c.scrapeErr))
		return
	}
	after, err := c.scrape()
	if err == nil {
		t.ServerMs, err = serverMsBetween(c.scrapeBefore, after)
	}
	if err != nil {
		t.Warnings = append(t.Warnings, fmt.Sprintf("server metrics: %v", err))
	}
}

func (c *Collector) scrape() ([]counters, error) {
	ctx, cancel := context.WithTimeout(c.ctx, DefaultScrapeTimeout)
	defer cancel()
	return scrape(ctx, c.client, c.opts.MetricsURL)
}

// Close stops GPU sampling and releases NVML. It is safe to call twice.
func (c *Collector) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.stop)
		<-c.done
		if c.gpu != nil {
			err = c.gpu.Close()
		}
	})
	return err
}

// ErrNoGPU is wrapped by GPUEnvironment's error when NVML cannot be loaded
// or finds no device.
var ErrNoGPU = gpu.ErrNoGPU

// GPUEnvironment describes the machine's GPUs for the environment
// fingerprint: name, driver, CUDA driver version, memory, MIG mode and UUID,
// one entry per GPU (the count is the length). The error wraps ErrNoGPU
// when NVML cannot be loaded or finds no device.
func GPUEnvironment() ([]result.GPU, error) {
	return gpu.Environment()
}
