package config

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/cpuset"
	"github.com/perfgate/perfgate/internal/defaults"
	"github.com/perfgate/perfgate/protocol/traits"
	"github.com/perfgate/perfgate/targetproc"
)

// DefaultFile is the configuration file commands read when not told
// otherwise.
const DefaultFile = "perfgate.yaml"

// DefaultValues are the values of fields left out of the file.
type DefaultValues struct {
	MaxErrorRate  float64
	Headroom      float64
	P99Regression float64
	P50Regression float64
	// ServerComputeRegression is gate.server_compute_regression's default.
	ServerComputeRegression float64
	MaxQPSRegression        float64
	Confidence              float64
	RunToRun                float64
	RunToRunMedian          float64
	Baselines               string
	ReadyTimeout            time.Duration
	Protocol                string
	Duration                time.Duration
	Warmup                  time.Duration
	Trials                  int
	SweepDuration           time.Duration
	SweepWarmup             time.Duration
	Speed                   float64
	// Restarts is for targets perfgate starts; a url: runs in one process.
	Restarts  int
	Estimates int
}

// Defaults returns the values Parse gives fields left out of the file.
// Those the engines share are taken from package defaults (one source
// each, which this package and the engines import): the headroom
// (sizing.DefaultHeadroom) and the target's ready timeout
// (targetproc.DefaultReadyTimeout). The gate's thresholds and
// confidence are compare.DefaultSettings' (written out here, because
// compare's tests read this package; TestDefaultsInStep holds them equal).
// The command line's defaults are these too.
func Defaults() DefaultValues {
	return DefaultValues{
		MaxErrorRate:            0.001,
		Headroom:                defaults.Headroom,
		P99Regression:           0.05,
		P50Regression:           0.05,
		ServerComputeRegression: 0.05,
		MaxQPSRegression:        0.05,
		Confidence:              0.95,
		RunToRun:                0.15,
		RunToRunMedian:          0.05,
		Baselines:               "perfgate/baselines",
		ReadyTimeout:            defaults.ReadyTimeout,
		Protocol:                "http",
		Duration:                30 * time.Second,
		Warmup:                  5 * time.Second,
		Trials:                  5,
		SweepDuration:           5 * time.Second,
		SweepWarmup:             1 * time.Second,
		Speed:                   1,
		Restarts:                5,
		Estimates:               5,
	}
}

// Protocols lists the protocols perfgate speaks (package traits declares
// them and what each one is).
var Protocols = traits.Names()

// protocolTraits is what protocol name declares of itself; the zero
// Protocol for a name that is none (checked first).
func protocolTraits(name string) traits.Protocol {
	tr, _ := traits.Lookup(name)
	return tr
}

// Modes lists the load modes.
var Modes = []string{"rate", "concurrency", "sweep", "replay"}

var layers = []string{"model", "engine", "service", "system"}

// envNameRE matches an environment variable name env_passthrough accepts.
var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (c *Config) applyDefaults() {
	if c.SLO.MaxErrorRate == 0 && !c.has("slo.max_error_rate") {
		c.SLO.MaxErrorRate = Percent(Defaults().MaxErrorRate)
	}
	if c.Capacity.Headroom == 0 && !c.has("capacity.headroom") {
		c.Capacity.Headroom = Defaults().Headroom
	}
	if c.Gate.P99Regression == 0 && !c.has("gate.p99_regression") {
		c.Gate.P99Regression = Percent(Defaults().P99Regression)
	}
	if c.Gate.P50Regression == 0 && !c.has("gate.p50_regression") {
		c.Gate.P50Regression = Percent(Defaults().P50Regression)
	}
	if c.Gate.ServerComputeRegression == 0 && !c.has("gate.server_compute_regression") {
		c.Gate.ServerComputeRegression = Percent(Defaults().ServerComputeRegression)
	}
	if c.Gate.MaxQPSRegression == 0 && !c.has("gate.max_qps_regression") {
		c.Gate.MaxQPSRegression = Percent(Defaults().MaxQPSRegression)
	}
	if c.Gate.Confidence == 0 && !c.has("gate.confidence") {
		c.Gate.Confidence = Defaults().Confidence
	}
	if c.Gate.RunToRun == 0 && !c.has("gate.run_to_run") {
		c.Gate.RunToRun = Percent(Defaults().RunToRun)
	}
	if c.Gate.RunToRunMedian == 0 && !c.has("gate.run_to_run_median") {
		c.Gate.RunToRunMedian = Percent(Defaults().RunToRunMedian)
	}
	if c.Baselines == "" {
		c.Baselines = Defaults().Baselines
	}
	for name, t := range c.Targets {
		if t == nil {
			continue
		}
		t.Name = name
		if t.ReadyTimeout == 0 && !c.has("targets."+name+".ready_timeout") {
			t.ReadyTimeout = Duration(Defaults().ReadyTimeout)
		}
	}
	for _, s := range c.Scenarios {
		if s == nil {
			continue
		}
		if s.Protocol == "" {
			s.Protocol = Defaults().Protocol
		}
		l := &s.Load
		// Only keys left out get defaults: a zero written out is checked
		// (and refused) by validate, never silently replaced.
		lp := c.scenarioPath(s) + ".load"
		unset := func(key string) bool { return !c.has(lp + "." + key) }
		if l.Mode == "sweep" {
			if l.Duration == 0 && unset("duration") {
				l.Duration = Duration(Defaults().SweepDuration)
			}
			if l.Warmup == 0 && unset("warmup") {
				l.Warmup = Duration(Defaults().SweepWarmup)
			}
			if l.Trials == 0 && unset("trials") {
				l.Trials = 1
			}
		}
		if l.Duration == 0 && l.Mode != "replay" && unset("duration") {
			l.Duration = Duration(Defaults().Duration)
		}
		if l.Warmup == 0 && l.Mode != "replay" && unset("warmup") {
			l.Warmup = Duration(Defaults().Warmup)
		}
		if l.Trials == 0 && unset("trials") {
			l.Trials = Defaults().Trials
			if l.Mode == "replay" {
				l.Trials = 1
			}
		}
		if l.Mode == "replay" && l.Speed == 0 && unset("speed") {
			l.Speed = Defaults().Speed
		}
		if s.Restarts == 0 {
			s.Restarts = Defaults().Restarts
			if s.URL != "" {
				s.Restarts = 1
			}
		}
		if l.Mode == "sweep" && l.Estimates == 0 {
			l.Estimates = Defaults().Estimates
		}
	}
}

func (c *Config) has(path string) bool { _, ok := c.lines[path]; return ok }

// MarkSet records that the key at path ("scenarios[0].load.warmup") was
// given explicitly, so that a zero there is kept rather than replaced by
// the default. Parse does this for every key in the file; callers that
// build a Config from command-line flags call it for the flags given.
func (c *Config) MarkSet(path string) {
	if c.lines == nil {
		c.lines = map[string]int{"version": 0} // built in code, as Check assumes
	}
	if _, ok := c.lines[path]; !ok {
		c.lines[path] = 0
	}
}

func (c *Config) scenarioPath(s *Scenario) string {
	for i, x := range c.Scenarios {
		if x == s {
			return fmt.Sprintf("scenarios[%d]", i)
		}
	}
	return "scenarios"
}

// errAt builds an error at the line of path, or of its nearest parent.
func (c *Config) errAt(path, format string, a ...any) error {
	line := 0
	for p := path; p != ""; {
		if l, ok := c.lines[p]; ok {
			line = l
			break
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return &Error{File: c.Path, Line: line, Key: path, Msg: fmt.Sprintf(format, a...)}
}

func (c *Config) validate() error {
	if !c.has("version") {
		return c.errAt("version", "missing: the first line should be version: 1")
	}
	if c.Version != Version {
		return c.errAt("version", "version %d is not supported: this perfgate reads version %d", c.Version, Version)
	}
	if c.Capacity.PeakQPS < 0 {
		return c.errAt("capacity.peak_qps", "cannot be negative (%v)", c.Capacity.PeakQPS)
	}
	if c.Capacity.Headroom < 1 {
		return c.errAt("capacity.headroom", "must be at least 1 (got %v): it is a safety multiplier", c.Capacity.Headroom)
	}
	if c.Capacity.CostPerInstanceHour < 0 {
		return c.errAt("capacity.cost_per_instance_hour", "cannot be negative (%v)", c.Capacity.CostPerInstanceHour)
	}
	if err := c.validateCapacityPlan(); err != nil {
		return err
	}
	if err := CheckOnInconclusive(c.Gate.OnInconclusive); err != nil {
		return c.errAt("gate.on_inconclusive", "%v", err)
	}
	if eq, thr := c.Gate.P99Equivalence, c.Gate.P99Regression; eq != 0 && eq < thr {
		return c.errAt("gate.p99_equivalence", "must be at least gate.p99_regression (%g%%): got %g%%; the margin of unchanged cannot be narrower than the threshold of a regression", 100*float64(thr), 100*float64(eq))
	}
	if conf := c.Gate.Confidence; conf <= 0.5 || conf >= 1 {
		return c.errAt("gate.confidence", "must be between 0.5 and 1 (got %v), for example 0.95", conf)
	}
	if c.SLO.MaxErrorRate > 1 {
		return c.errAt("slo.max_error_rate", "cannot exceed 100%% (got %v%%)", float64(c.SLO.MaxErrorRate)*100)
	}
	if c.Engine != "" && !slices.Contains(Engines, c.Engine) {
		return c.errAt("engine", "%q: want %s (left out: the event loop where it can run)", c.Engine, strings.Join(Engines, " or "))
	}
	if err := c.validateCPUs(); err != nil {
		return err
	}
	for name, t := range c.Targets {
		tp := "targets." + name
		if t == nil {
			return c.errAt(tp, "target %q is empty: it needs command and ready", name)
		}
		if len(t.Command) == 0 {
			return c.errAt(tp+".command", "missing: the command that starts target %q, as a list", name)
		}
		if t.Ready == "" {
			return c.errAt(tp+".ready", "missing: the URL that answers 200 when target %q is ready", name)
		}
		if err := checkURL(t.Ready); err != nil {
			return c.errAt(tp+".ready", "%v", err)
		}
		for i, n := range t.EnvPassthrough {
			if !envNameRE.MatchString(n) {
				return c.errAt(fmt.Sprintf("%s.env_passthrough[%d]", tp, i), "%q is not a variable name: want letters, digits and _ (an exact name, no patterns)", n)
			}
			if slices.ContainsFunc(targetproc.NeverPassed, func(x string) bool { return strings.EqualFold(x, n) }) {
				what := "a runner command file: through it a target could set the environment, PATH or outputs of the steps after it"
				if strings.HasPrefix(strings.ToUpper(n), "INPUT_") {
					what = "the Action's own token (the github-token input): a target never gets it"
				}
				return c.errAt(fmt.Sprintf("%s.env_passthrough[%d]", tp, i), "%q is never passed to a target: it is %s; remove it", n, what)
			}
		}
	}
	if len(c.Scenarios) == 0 {
		return c.errAt("scenarios", "missing: at least one scenario is needed")
	}
	seen := map[string]bool{}
	for i, s := range c.Scenarios {
		sp := fmt.Sprintf("scenarios[%d]", i)
		if s == nil {
			return c.errAt(sp, "empty scenario")
		}
		if err := c.validateScenario(sp, s); err != nil {
			return err
		}
		if seen[s.Name] {
			return c.errAt(sp+".name", "scenario name %q is used twice", s.Name)
		}
		seen[s.Name] = true
	}
	if err := c.validateAB(); err != nil {
		return err
	}
	for i, n := range c.Ladder {
		if !seen[n] {
			return c.errAt(fmt.Sprintf("ladder[%d]", i), "no scenario is named %q", n)
		}
	}
	if err := c.validatePairs(); err != nil {
		return err
	}
	if err := c.checkFileNames(); err != nil {
		return err
	}
	return c.validateRanges()
}

func (c *Config) validateScenario(sp string, s *Scenario) error {
	if s.Name == "" {
		return c.errAt(sp+".name", "missing: every scenario needs a name")
	}
	if s.Layer == "" && !c.LayerOptional {
		return c.errAt(sp+".layer", "missing: the layer scenario %q exercises (%s)", s.Name, strings.Join(layers, ", "))
	}
	if s.Layer != "" && !slices.Contains(layers, s.Layer) {
		return c.errAt(sp+".layer", "%q is not a layer: want one of %s", s.Layer, strings.Join(layers, ", "))
	}
	if s.Restarts < 0 || s.Restarts > 16 {
		return c.errAt(sp+".restarts", "must be in [1, 16] (got %d)", s.Restarts)
	}
	switch {
	case s.Target == "" && s.URL == "":
		return c.errAt(sp, "scenario %q needs target (a name under targets) or url", s.Name)
	case s.Target != "" && s.URL != "":
		return c.errAt(sp+".url", "scenario %q has both target and url: keep one", s.Name)
	case s.Target != "":
		if _, ok := c.Targets[s.Target]; !ok {
			names := make([]string, 0, len(c.Targets))
			for n := range c.Targets {
				names = append(names, n)
			}
			slices.Sort(names)
			return c.errAt(sp+".target", "no target is named %q (defined: %s)", s.Target, strings.Join(names, ", "))
		}
	case s.URL != "":
		if !protocolTraits(s.Protocol).GRPC {
			if err := checkURL(s.URL); err != nil {
				return c.errAt(sp+".url", "%v", err)
			}
		}
	}
	if !slices.Contains(Protocols, s.Protocol) {
		return c.errAt(sp+".protocol", "%q is not a protocol: want one of %s", s.Protocol, strings.Join(Protocols, ", "))
	}
	if protocolTraits(s.Protocol).NeedsModel && s.Model == "" {
		return c.errAt(sp+".model", "missing: protocol %s needs the model's name", s.Protocol)
	}
	if s.Client != "" && s.Client != "fast" && s.Client != "std" {
		return c.errAt(sp+".client", "%q: want fast or std", s.Client)
	}
	if s.Endpoint != "" && s.Endpoint != "chat" && s.Endpoint != "completions" {
		return c.errAt(sp+".endpoint", "%q: want chat or completions", s.Endpoint)
	}
	if t := s.TLS; t != nil {
		if (t.Cert == "") != (t.Key == "") {
			return c.errAt(sp+".tls", "give both cert and key (the client certificate for mTLS and its private key), or neither")
		}
		for _, f := range []struct{ key, path string }{{"ca", t.CA}, {"cert", t.Cert}, {"key", t.Key}} {
			if f.path == "" {
				continue
			}
			if _, err := os.Stat(c.Resolve(f.path)); err != nil {
				return c.errAt(sp+".tls."+f.key, "%q: %v", f.path, err)
			}
		}
		if !protocolTraits(s.Protocol).GRPC && s.URL != "" && !strings.HasPrefix(s.URL, "https://") {
			return c.errAt(sp+".tls", "url %q is not https: tls applies to https:// URLs and kserve-grpc", s.URL)
		}
	}
	l, lp := s.Load, sp+".load"
	if l.Mode == "" {
		return c.errAt(lp+".mode", "missing: one of %s", strings.Join(Modes, ", "))
	}
	if !slices.Contains(Modes, l.Mode) {
		return c.errAt(lp+".mode", "%q is not a load mode: want one of %s", l.Mode, strings.Join(Modes, ", "))
	}
	switch l.Mode {
	case "rate":
		if !(l.Rate > 0) {
			return c.errAt(lp+".rate", "must be > 0 requests per second for mode rate (got %v)", l.Rate)
		}
	case "concurrency":
		if l.Concurrency < 1 {
			return c.errAt(lp+".concurrency", "must be >= 1 for mode concurrency (got %d)", l.Concurrency)
		}
	case "sweep":
		streaming := protocolTraits(s.Protocol).Streaming
		if c.SLO.P99 <= 0 && !streaming {
			return c.errAt("slo.p99", "missing: scenario %q sweeps for the knee, which needs slo.p99", s.Name)
		}
		if streaming && c.SLO.TTFT <= 0 && c.SLO.TPOT <= 0 && c.SLO.P99 <= 0 {
			return c.errAt("slo", "scenario %q sweeps an openai target: set slo.ttft and slo.tpot", s.Name)
		}
	case "replay":
		if l.Trace == "" {
			return c.errAt(lp+".trace", "missing: mode replay needs a trace file (JSONL of offset_ms and body or prompt)")
		}
		if l.Speed < 0 {
			return c.errAt(lp+".speed", "cannot be negative (%v)", l.Speed)
		}
	}
	if l.Arrival != "" && l.Arrival != "constant" && l.Arrival != "poisson" {
		return c.errAt(lp+".arrival", "%q: want constant or poisson", l.Arrival)
	}
	if err := c.validateAuto(lp, s); err != nil {
		return err
	}
	if l.Mode != "replay" && l.Duration <= 0 && l.Duration != Auto {
		return c.errAt(lp+".duration", "must be > 0 (got %v)", l.Duration.D())
	}
	if l.Warmup < 0 && l.Warmup != Auto {
		return c.errAt(lp+".warmup", "cannot be negative (%v)", l.Warmup.D())
	}
	if l.Trials < 1 {
		return c.errAt(lp+".trials", "must be >= 1 (got %d)", l.Trials)
	}
	if l.Estimates < 0 || l.Estimates > 20 {
		return c.errAt(lp+".estimates", "must be in [1, 20] (got %d)", l.Estimates)
	}
	if l.Rate < 0 || l.MaxRate < 0 || l.Start < 0 {
		return c.errAt(lp, "rates cannot be negative")
	}
	return c.validatePlanKeys(sp, s)
}

// checkURL checks that raw is an http(s) URL with a host ({port} allowed).
func checkURL(raw string) error {
	u, err := url.Parse(strings.ReplaceAll(strings.ReplaceAll(raw, "{port}", "1"), "{grpc_port}", "1"))
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: the URL needs http:// or https://", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("%q: the URL has no host", raw)
	}
	return nil
}

// Check applies the defaults and validates a Config built in code (the
// command line's quick mode) as Parse does for a file.
func (c *Config) Check() error {
	if c.lines == nil {
		c.lines = map[string]int{"version": 0}
	}
	c.applyDefaults()
	return c.validate()
}

// CheckOnInconclusive returns an error when v is neither empty (the
// default) nor one of the values of gate.on_inconclusive; the flag
// --on-inconclusive and the Action's on-inconclusive input take the same.
func CheckOnInconclusive(v string) error {
	switch v {
	case "", OnInconclusivePass, OnInconclusiveFail, OnInconclusiveRerun:
		return nil
	}
	return fmt.Errorf("%q: want %s, %s or %s", v, OnInconclusivePass, OnInconclusiveFail, OnInconclusiveRerun)
}

// validateCPUs checks the CPU lists (generator_cpus, targets.NAME.cpus):
// each must parse, and no target may share a CPU with the generator.
func (c *Config) validateCPUs() error {
	var gen cpuset.Set
	if c.GeneratorCPUs != "" {
		var err error
		if gen, err = cpuset.Parse(c.GeneratorCPUs); err != nil {
			return c.errAt("generator_cpus", "%v", err)
		}
	}
	names := make([]string, 0, len(c.Targets))
	for n := range c.Targets {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		t := c.Targets[n]
		if t == nil || t.CPUs == "" {
			continue
		}
		set, err := cpuset.Parse(t.CPUs)
		if err != nil {
			return c.errAt("targets."+n+".cpus", "%v", err)
		}
		if both := set.Overlap(gen); len(both) > 0 {
			return c.errAt("targets."+n+".cpus", "%q shares CPUs %s with generator_cpus %q: give the target and the generator disjoint CPUs", t.CPUs, both, c.GeneratorCPUs)
		}
	}
	return nil
}

// validateAuto checks the automatic warm-up and window of scenario s
// (load.warmup: auto, load.duration: auto) and their bounds.
func (c *Config) validateAuto(lp string, s *Scenario) error {
	l := s.Load
	fixed := l.Mode == "rate" || l.Mode == "concurrency"
	for _, k := range []struct {
		key string
		v   Duration
	}{{"warmup", l.Warmup}, {"duration", l.Duration}} {
		if k.v == Auto && !fixed {
			return c.errAt(lp+"."+k.key, "auto is for modes rate and concurrency, not %s: give a duration such as 10s", l.Mode)
		}
	}
	if l.WarmupMax != 0 && l.Warmup != Auto {
		return c.errAt(lp+".warmup_max", "bounds warmup: auto only, and warmup is %v: remove warmup_max or write warmup: auto", l.Warmup.D())
	}
	if l.DurationMax != 0 && l.Duration != Auto {
		return c.errAt(lp+".duration_max", "bounds duration: auto only, and duration is %v: remove duration_max or write duration: auto", l.Duration.D())
	}
	return nil
}
