package demo

import "github.com/perfgate/perfgate/result"

// Title is the title of the demo's report.
const Title = "perfgate demo: baseline variant → candidate variant, per layer, measured interleaved and paired"

// PlantedTitle is the title of the planted regression's report.
const PlantedTitle = "perfgate demo: the planted regression, clean server → slowed batcher, measured interleaved and paired"

// Run is a demo run's results.
type Run struct {
	// ByName is every result by its scenario.
	ByName map[string]*result.Result
	// All are the results in the order measured.
	All []*result.Result
}

// busy reports whether any trial or knee probe of r ran while the host
// was busy with other work.
func busy(r *result.Result) bool {
	for _, t := range r.Trials {
		if t.Host != nil && t.Host.Busy {
			return true
		}
	}
	if r.Capacity != nil {
		for _, p := range r.Capacity.Points {
			if p.Host != nil && p.Host.Busy {
				return true
			}
		}
	}
	return false
}
