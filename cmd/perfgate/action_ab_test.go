package main

import (
	"context"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/ghaction"
	"github.com/perfgate/perfgate/internal/githubapi/githubapitest"
)

// TestActionCompareWith checks the compare-with input: baselines runs the
// stored gate only, base runs the A/B gate against the event's base
// commit, both runs the two and fails when either fails; a base run on an
// event without a pull request is a usage error.
func TestActionCompareWith(t *testing.T) {
	const baseSHA = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"
	tests := []struct {
		name, event, compareWith string
		stored, ab               compare.Verdict // verdicts
		wantCode                 int
		wantCalls                string
		wantStderr               string
	}{
		{name: "default is baselines", event: "pull_request", stored: compare.Pass, ab: compare.Fail, wantCode: exitPass, wantCalls: "gate"},
		{name: "base", event: "pull_request", compareWith: "base", stored: compare.Pass, ab: compare.Fail, wantCode: exitRegression, wantCalls: "ab:" + baseSHA},
		{name: "both, stored fails", event: "pull_request", compareWith: "both", stored: compare.Fail, ab: compare.Pass, wantCode: exitRegression, wantCalls: "gate,ab:" + baseSHA},
		{name: "both pass", event: "pull_request", compareWith: "both", stored: compare.Pass, ab: compare.Pass, wantCode: exitPass, wantCalls: "gate,ab:" + baseSHA},
		{name: "base on push", event: "push", compareWith: "base", wantCode: exitUsage, wantStderr: "has none"},
		{name: "bad value", event: "pull_request", compareWith: "main", wantCode: exitUsage, wantStderr: "want baselines, base or both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
			r := newActionRun(t, srv, tt.event)
			r.vars["INPUT_COMPARE-WITH"] = tt.compareWith
			r.vars["INPUT_COMMENT"] = "false"
			var calls []string
			p := fakeGate(t, tt.stored, "")
			stored := p.gate
			p.gate = func(ctx context.Context, e *env, in ghaction.Inputs) (*gateOutcome, error) {
				calls = append(calls, "gate")
				return stored(ctx, e, in)
			}
			p.ab = func(ctx context.Context, e *env, in ghaction.Inputs, ref, out string) (*gateOutcome, error) {
				calls = append(calls, "ab:"+ref)
				rep := gateReport(tt.ab)
				rep.Comparison.AB = &compare.ABRun{Ref: ref, BaseSHA: ref, Resident: "both"}
				return &gateOutcome{Report: rep}, nil
			}
			code := r.run(p)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.wantCode, r.stderr.String())
			}
			if got := strings.Join(calls, ","); got != tt.wantCalls {
				t.Errorf("pipelines called %q, want %q", got, tt.wantCalls)
			}
			if !strings.Contains(r.stderr.String()+r.stdout.String(), tt.wantStderr) {
				t.Errorf("output does not say %q:\n%s\n%s", tt.wantStderr, r.stdout.String(), r.stderr.String())
			}
			if strings.HasPrefix(tt.wantCalls, "ab") || strings.Contains(tt.wantCalls, ",ab") {
				if s := r.file("summary"); !strings.Contains(s, "Same-runner A/B") {
					t.Errorf("the step summary does not say the A/B mode ran:\n%s", s)
				}
			}
		})
	}
}
