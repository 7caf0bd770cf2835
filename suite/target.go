package suite

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/protocol"
)

// startTarget starts the scenario's target variant, or returns its URL.
// base is the address the protocol client uses: the HTTP base URL, or
// host:port for kserve-grpc.
func startTarget(ctx context.Context, cfg *config.Config, s *config.Scenario, o Options) (base, metrics string, stop func(), pgid int, err error) {
	if s.URL != "" {
		return s.URL, s.Metrics, func() {}, 0, nil
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
	spec := harness.TargetSpec{
		Name:         s.Target,
		Command:      command,
		Env:          env,
		BaseEnv:      o.Environ,
		Dir:          cfg.Resolve(t.Dir),
		Ready:        t.Ready,
		ReadyTimeout: t.ReadyTimeout.D(),
		Metrics:      firstNonEmpty(s.Metrics, t.Metrics),
		GRPCPort:     t.GRPCPort || s.Protocol == "kserve-grpc",
	}
	if o.OutDir != "" {
		spec.LogPath = filepath.Join(o.OutDir, strings.TrimSuffix(FileName(s.Name), ".json")+".target.log")
	}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "scenario %s: starting target %s: %s\n", s.Name, s.Target, strings.Join(spec.Command, " "))
	}
	tg, err := harness.StartTarget(ctx, spec)
	if err != nil {
		return "", "", nil, 0, err
	}
	stop = func() { tg.Stop(5 * time.Second) }
	base = tg.URL()
	if s.Protocol == "kserve-grpc" {
		base = fmt.Sprintf("127.0.0.1:%d", tg.GRPCPort())
	}
	return base, tg.MetricsURL(), stop, tg.PGID(), nil
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
func newClient(ctx context.Context, cfg *config.Config, s *config.Scenario, base string) (harness.Client, error) {
	po := protocol.Options{
		Protocol: s.Protocol, URL: base, Model: s.Model, Endpoint: s.Endpoint,
		Method: s.Method, Headers: s.Headers, Shape: s.Shape, Datatype: s.Datatype,
		PromptTokens: s.PromptTokens, MaxTokens: s.MaxTokens, Timeout: s.Timeout.D(),
		MaxConns: s.Load.Connections,
	}
	if s.Protocol == "http" && s.Path != "" {
		po.URL = strings.TrimSuffix(base, "/") + "/" + strings.TrimPrefix(s.Path, "/")
	}
	if s.Body != "" {
		p := cfg.Resolve(s.Body)
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("body: %w", err)
		}
		po.Body, po.BodyPath = b, p
	}
	if s.Dataset != "" {
		po.Dataset = cfg.Resolve(s.Dataset)
	}
	return protocol.New(ctx, po)
}
