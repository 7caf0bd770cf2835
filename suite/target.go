package suite

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/cpuset"
	"github.com/perfgate/perfgate/internal/sameorigin"
	"github.com/perfgate/perfgate/protocol/traits"
	"github.com/perfgate/perfgate/targetproc"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/protocol"
)

// running is a scenario's target, started or given.
type running struct {
	// base is the address the protocol client uses: the HTTP base URL, or
	// host:port for kserve-grpc; httpBase is the HTTP base URL when known.
	base, httpBase string
	metrics        string
	pgid           int
	// urlPID is the process serving a url: target on this host, found by
	// its listening socket (0: not found, or not on this host).
	urlPID int
	stop   func()
	// done is closed when a started target's process ends; err says how,
	// logPath and logTail show its log. All unset for a given URL.
	done    <-chan struct{}
	err     func() error
	logPath string
	logTail func() string
}

// startTarget starts the scenario's target variant, or returns its URL.
func startTarget(ctx context.Context, cfg *config.Plan, s *config.Scenario, o Options) (*running, error) {
	return startTargetLog(ctx, cfg, s, o, "")
}

// startTargetLog is startTarget with the target's log at logPath when set.
func startTargetLog(ctx context.Context, cfg *config.Plan, s *config.Scenario, o Options, logPath string) (*running, error) {
	if s.URL != "" {
		if err := dialURL(ctx, s.URL, s.Timeout.D()); err != nil {
			return nil, err
		}
		r := &running{base: s.URL, metrics: s.Metrics, stop: func() {}}
		if !cfg.Inputs[s.Name].Traits.GRPC {
			r.httpBase = s.URL
		}
		r.urlPID = urlTargetPID(s.URL, o.Log)
		return r, nil
	}
	t := cfg.Targets[s.Target]
	env := maps.Clone(t.Env)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, s.Env)
	command := append(append([]string{}, t.Command...), s.Args...)
	for i, a := range command {
		command[i] = strings.ReplaceAll(a, "{perfgate}", o.Self)
	}
	spec := targetproc.Spec{
		Name:         s.Target,
		Command:      command,
		Env:          env,
		BaseEnv:      o.Environ,
		Passthrough:  t.EnvPassthrough,
		Dir:          t.Dir, // absolute: compiled
		Ready:        t.Ready,
		ReadyTimeout: t.ReadyTimeout.D(),
		Metrics:      firstNonEmpty(s.Metrics, t.Metrics),
		GRPCPort:     t.GRPCPort || cfg.Inputs[s.Name].Traits.GRPC,
	}
	spec.Supervisor = o.Supervisor
	iso := o.CPUs
	if iso == nil && t.CPUs != "" {
		iso = &CPUIsolation{}
		iso.Host, _ = cpuset.Allowed() // none: not applied, and recorded so
	}
	spec.CPUs, _ = targetCPUs(t, iso) // why not: recorded by cpuRecord
	if o.OutDir != "" {
		spec.LogPath = filepath.Join(o.OutDir, strings.TrimSuffix(FileName(s.Name), ".json")+".target.log")
	}
	if logPath != "" {
		spec.LogPath = logPath
	}
	tg, err := targetproc.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	if o.Log != nil {
		// The command as it was started: placeholders filled.
		r := strings.NewReplacer("{port}", strconv.Itoa(tg.Port()), "{grpc_port}", strconv.Itoa(tg.GRPCPort()))
		fmt.Fprintf(o.Log, "scenario %s: started target %s: %s\n", s.Name, s.Target, r.Replace(strings.Join(spec.Command, " ")))
	}
	if w := tg.Withheld(); len(w) > 0 && o.Log != nil {
		fmt.Fprintf(o.Log, "scenario %s: target %s inherits only the default variables (docs/hardening.md) and env_passthrough: %d others withheld (%s); list any it needs under env_passthrough\n",
			s.Name, s.Target, len(w), withheldNames(w))
	}
	r := &running{base: tg.URL(), httpBase: tg.URL(), metrics: tg.MetricsURL(), pgid: tg.PGID(),
		stop: func() { tg.Stop(5 * time.Second) },
		done: tg.Done(), err: tg.Err, logPath: tg.LogPath(), logTail: tg.LogTail}
	if cfg.Inputs[s.Name].Traits.GRPC {
		r.base = fmt.Sprintf("127.0.0.1:%d", tg.GRPCPort())
	}
	return r, nil
}

// SimulatedHeader is the response header with which a target declares that
// its timing is simulated (the reference server's --model sim and its
// sim-llm): such a result is marked Simulated and every report says so.
const SimulatedHeader = "X-Perfgate-Simulated"

// simulated asks the target's model endpoint whether its timing is
// simulated. Any failure means "not declared".
func simulated(ctx context.Context, httpBase string, tr traits.Protocol, model string) bool {
	path := tr.MetadataPath(model)
	if path == "" || httpBase == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(httpBase, "/")+path, nil)
	if err != nil {
		return false
	}
	resp, err := sameorigin.Client(nil).Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.Header.Get(SimulatedHeader) == "1"
}

func firstNonEmpty(a ...string) string {
	for _, s := range a {
		if s != "" {
			return s
		}
	}
	return ""
}

// newClient builds the scenario's protocol client.
func newClient(ctx context.Context, cfg *config.Plan, s *config.Scenario, base string) (harness.Client, error) {
	po := protocol.Options{
		Protocol: s.Protocol, URL: base, Model: s.Model, Endpoint: s.Endpoint,
		Method: s.Method, Headers: s.Headers, Shape: s.Shape, Datatype: s.Datatype,
		PromptTokens: s.PromptTokens, MaxTokens: s.MaxTokens, Timeout: s.Timeout.D(),
		MaxConns: harness.PoolSize(s.Load.Mode, s.Load.Concurrency, s.Load.Connections), StdHTTP: s.Client == "std",
	}
	if cfg.Inputs[s.Name].Traits.WholeURL && s.Path != "" {
		po.URL = strings.TrimSuffix(base, "/") + "/" + strings.TrimPrefix(s.Path, "/")
	}
	// The plan holds the body, read once, and absolute paths.
	if s.Body != "" {
		po.Body, po.BodyPath = cfg.Inputs[s.Name].Body, s.Body
	}
	po.Dataset = s.Dataset
	if t := s.TLS; t != nil {
		conf, err := protocol.TLSConfig(protocol.TLSFiles{CA: t.CA, Cert: t.Cert, Key: t.Key, ServerName: t.ServerName, Insecure: t.Insecure})
		if err != nil {
			return nil, err
		}
		po.TLS = conf
	}
	c, err := protocol.New(ctx, po)
	if err != nil || s.Repeat == 0 {
		return c, err
	}
	return withRepeat(c, po, float64(s.Repeat))
}

// withheldNames lists the first 20 names withheld, sorted, and how many
// more there are: a runner's environment holds a hundred.
func withheldNames(w []string) string {
	w = slices.Sorted(slices.Values(w))
	if len(w) <= 20 {
		return strings.Join(w, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(w[:20], ", "), len(w)-20)
}
