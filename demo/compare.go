package demo

import (
	"strings"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// Pair is one layer's comparison: the baseline variant and the candidate
// variant of the layer, two scenarios of the demo config measured in the
// same run.
type Pair struct {
	// Layer names the change, such as "model: fp32 → int8"; the
	// comparison shows it as the scenario.
	Layer string
	// Base and Cand are the scenarios of the baseline and the candidate
	// variant.
	Base, Cand string
}

// Pairs are the demo's per-layer comparisons, in the order shown.
var Pairs = []Pair{
	{"model: fp32 → int8", "model-fp32", "model-int8"},
	{"service: batching off → on", "service-batch1", "service-batch32"},
	{"system: JSON/HTTP → protobuf/gRPC", "system-json-http", "system-protobuf-grpc"},
	{"LLM model: fp32 → int8", "llm-fp32", "llm-int8"},
	{"LLM service: continuous batching off → on", "llm-batching-off", "llm-batching-on"},
}

// Title is the title of the demo's report.
const Title = "perfgate demo: baseline variant → candidate variant, per layer"

// Run is a demo run's results.
type Run struct {
	// ByName is every result by its scenario.
	ByName map[string]*result.Result
	// All is every result, in the run's order.
	All []*result.Result
}

// Results gathers the results of a run's outcomes (an outcome without a
// result is left out).
func Results(outs []suite.Outcome) Run {
	r := Run{ByName: map[string]*result.Result{}}
	for _, o := range outs {
		if o.Result != nil {
			r.ByName[o.Scenario.Name] = o.Result
			r.All = append(r.All, o.Result)
		}
	}
	return r
}

// Layers are the baseline and candidate results of every pair whose two
// variants both ran, in the order of Pairs: copies, each named for its
// layer (Pair.Layer), so that the two variants compare as one scenario.
func (r Run) Layers() (base, cand []*result.Result) {
	for _, p := range Pairs {
		b, c := r.ByName[p.Base], r.ByName[p.Cand]
		if b == nil || c == nil {
			continue
		}
		bb, cc := *b, *c
		bb.Scenario, cc.Scenario = p.Layer, p.Layer
		base, cand = append(base, &bb), append(cand, &cc)
	}
	return base, cand
}

// Compare judges each layer's candidate variant against its baseline
// variant (Layers) with cfg's gate, less its run-to-run noise: both ran
// in this one run. A layer measured while the host was busy is
// inconclusive whatever its direction (see HostBusy). It returns nil and
// no error when no pair ran both its variants.
func Compare(cfg *config.Config, r Run) (*report.Report, error) {
	base, cand := r.Layers()
	if len(cand) == 0 {
		return nil, nil
	}
	inRun := *cfg
	inRun.Gate.RunToRun = 0
	rep, err := gate.Evaluate(&inRun, base, cand, r.All, false)
	if err != nil {
		return nil, err
	}
	HostBusy(rep.Comparison, base, cand)
	rep.Title = Title
	return rep, nil
}

// busy reports whether r rests on a trial or a knee probe measured while
// other work used the host (result.HostLoad).
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

// HostBusy holds the demo to a stricter rule than the gate: a layer
// effect measured while the host was busy is never shown as a result,
// whatever its direction (the gate only turns regressions and
// improvements resting on a busy host into inconclusive, since only they
// would change its exit code). Every layer of c whose baseline or
// candidate variant (base and cand, index for index) rests on a busy
// trial or knee probe and that is not already inconclusive (host busy)
// becomes so, and the comparison's verdict is inconclusive with the
// reason naming them (a failing comparison stays failing).
func HostBusy(c *compare.Comparison, base, cand []*result.Result) {
	var names []string
	for i := range c.Scenarios {
		sc := &c.Scenarios[i]
		var b, k *result.Result
		for j := range base {
			if base[j].Scenario == sc.Scenario {
				b, k = base[j], cand[j]
			}
		}
		if b == nil || !(busy(b) || busy(k)) {
			continue
		}
		names = append(names, sc.Scenario)
		if sc.HostBusy {
			continue
		}
		compare.HoldBusy(sc)
	}
	if len(names) > 0 && compare.HoldUndecided(c) {
		c.Reason = "the host was busy with other work while these layers were measured, so their effects are not shown as results: " +
			strings.Join(names, "; ") + "; run the demo on a quiet machine"
	}
}
