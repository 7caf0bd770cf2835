package suite

import (
	"slices"

	"github.com/perfgate/perfgate/config"
)

// fixedPortWarnings warns, before any wait, of each started target (one
// the selected scenarios use) whose readiness URL names no port perfgate
// fills in: perfgate starts the target on a free port of its choosing,
// {port}, so a URL with a fixed port waits for some other server, or for
// nothing until ready_timeout. The plan holds the warnings (Compile
// checks the placeholders); this picks the selected scenarios' targets.
func fixedPortWarnings(cfg *config.Plan, selected []*config.Scenario) []string {
	var names []string
	for _, s := range selected {
		if s.URL == "" && s.Target != "" && !slices.Contains(names, s.Target) {
			names = append(names, s.Target)
		}
	}
	var out []string
	for _, n := range names {
		if w := cfg.ReadyWarnings[n]; w != "" {
			out = append(out, w)
		}
	}
	return out
}
