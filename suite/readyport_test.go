package suite

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/config"
)

// A started target whose readiness URL has a fixed port is warned of
// before the wait, once; {port} or {grpc_port}, a url: scenario, or no
// ready URL (TCP on {port}) are not.
func TestFixedPortWarnings(t *testing.T) {
	cfg := &config.Config{Targets: map[string]*config.Target{
		"fixed":  {Ready: "http://127.0.0.1:18081/v2/health/ready", ReadyTimeout: config.Duration(30 * time.Second)},
		"port":   {Ready: "http://127.0.0.1:{port}/v2/health/ready"},
		"grpc":   {Ready: "http://127.0.0.1:{grpc_port}/ready"},
		"tcp":    {},
		"unused": {Ready: "http://127.0.0.1:9/ready"},
	}}
	sel := []*config.Scenario{{Name: "a", Target: "fixed"}, {Name: "b", Target: "fixed"}, {Name: "c", Target: "port"},
		{Name: "d", Target: "grpc"}, {Name: "e", Target: "tcp"}, {Name: "f", URL: "http://127.0.0.1:8000"}}
	got := fixedPortWarnings(compiled(t, cfg), sel)
	if len(got) != 1 || !strings.Contains(got[0], `target fixed: ready URL "http://127.0.0.1:18081/v2/health/ready" has no {port}`) ||
		!strings.Contains(got[0], "ready_timeout 30s") {
		t.Errorf("fixedPortWarnings() = %q, want one warning for target fixed, naming its URL and timeout", got)
	}
}
