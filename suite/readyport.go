package suite

import (
	"fmt"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/config"
)

// fixedPortWarnings warns, before any wait, of each started target (one
// the selected scenarios use) whose readiness URL names no port perfgate
// fills in: perfgate starts the target on a free port of its choosing,
// {port}, so a URL with a fixed port waits for some other server, or for
// nothing until ready_timeout.
func fixedPortWarnings(cfg *config.Config, selected []*config.Scenario) []string {
	var names []string
	for _, s := range selected {
		if s.URL == "" && s.Target != "" && !slices.Contains(names, s.Target) {
			names = append(names, s.Target)
		}
	}
	var out []string
	for _, n := range names {
		t := cfg.Targets[n]
		if t == nil || t.Ready == "" || strings.Contains(t.Ready, "{port}") || strings.Contains(t.Ready, "{grpc_port}") {
			continue
		}
		out = append(out, fmt.Sprintf("warning: target %s: ready URL %q has no {port}: perfgate starts the target on a free port it fills into {port} (in the command, the ready and metrics URLs); with a fixed port the wait (ready_timeout %v) asks another server, or none. Write it as http://127.0.0.1:{port}/... and pass {port} to the command",
			n, t.Ready, t.ReadyTimeout.D()))
	}
	return out
}
