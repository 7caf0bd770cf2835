package demo

import (
	"math/rand/v2"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
)

// testResult is a seeded result of scenario name: 5 trials of 200
// requests around 3 ms.
func testResult(name string, seed uint64) *result.Result {
	return comparetest.Result(comparetest.Spec{Scenario: name, Layer: "model", Trials: 5, Requests: 200,
		MedianMs: 3, Noise: 0.02}, rand.New(rand.NewPCG(seed, 2)))
}

// busyTrial marks r's first trial as measured on a busy host.
func busyTrial(r *result.Result) *result.Result {
	r.Trials[0].Host = &result.HostLoad{Busy: true, Why: "other work"}
	return r
}
