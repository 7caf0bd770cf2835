package demo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/result"
)

// Store stores what can be a baseline, names each result left out and
// why, and writes the config to gate with; with nothing storable, or when
// interrupted, it stores nothing and says which.
func TestStore(t *testing.T) {
	noKnee := testResult("service-batch1", 2)
	noKnee.Load.Mode, noKnee.Trials = "sweep", nil
	noKnee.Capacity = &result.Capacity{SLOP99Ms: 60, Windows: 5,
		Points: []result.Point{{OfferedRPS: 100, Host: &result.HostLoad{Busy: true, Why: "other work"}}}}
	invalid := testResult("llm-fp32", 3)
	invalid.Valid = false
	tests := []struct {
		name        string
		rs          []*result.Result
		interrupted bool
		wantWritten int
		wantSkipped []Skip
		wantConfig  bool
		wantErr     func(error) bool
	}{
		{name: "all stored", rs: []*result.Result{testResult("model-fp32", 1), testResult("model-int8", 4)},
			wantWritten: 2, wantConfig: true, wantErr: func(err error) bool { return err == nil }},
		{name: "some stored", rs: []*result.Result{testResult("model-fp32", 1), noKnee, invalid},
			wantWritten: 1, wantConfig: true, wantErr: func(err error) bool { return err == nil },
			wantSkipped: []Skip{{"service-batch1", "no knee: no probe met the SLO, host busy"}, {"llm-fp32", "invalid run"}}},
		{name: "none storable", rs: []*result.Result{noKnee},
			wantSkipped: []Skip{{"service-batch1", "no knee: no probe met the SLO, host busy"}},
			wantErr:     func(err error) bool { var ns *NotStoredError; return errors.As(err, &ns) }},
		{name: "interrupted", rs: []*result.Result{testResult("model-fp32", 1)}, interrupted: true,
			wantErr: func(err error) bool { return errors.Is(err, ErrInterrupted) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Config(false)
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			results := filepath.Join(out, "results")
			byName := comparetest.WriteRun(t, results, tt.rs...)
			ctx, cancel := context.WithCancel(context.Background())
			if tt.interrupted {
				cancel()
			}
			defer cancel()
			st, err := Store(ctx, cfg, out, results, byName)
			if !tt.wantErr(err) {
				t.Fatalf("Store: unexpected error %v", err)
			}
			if st.Dir != filepath.Join(out, "baselines") || len(st.Written) != tt.wantWritten || !slices.Equal(st.Skipped, tt.wantSkipped) {
				t.Errorf("Store = %+v, want dir %s, %d written, skipped %v", st, filepath.Join(out, "baselines"), tt.wantWritten, tt.wantSkipped)
			}
			if !tt.wantConfig {
				if st.ConfigPath != "" {
					t.Errorf("Store wrote a config %s, want none", st.ConfigPath)
				}
				return
			}
			if st.ConfigPath != filepath.Join(out, "perfgate.yaml") {
				t.Fatalf("config path %q, want %s", st.ConfigPath, filepath.Join(out, "perfgate.yaml"))
			}
			b, err := os.ReadFile(st.ConfigPath)
			if err != nil {
				t.Fatal(err)
			}
			again, err := config.Parse(st.ConfigPath, b)
			if err != nil {
				t.Fatalf("the written config does not parse: %v", err)
			}
			if again.Baselines != filepath.Join(out, "baselines") && again.Baselines != "baselines" {
				t.Errorf("the written config's baselines are %q, want the stored folder", again.Baselines)
			}
		})
	}
}

// A skipped result says why, in a few words.
func TestSkipWhy(t *testing.T) {
	noKnee := testResult("s", 1)
	noKnee.Capacity = &result.Capacity{}
	invalid := testResult("s", 2)
	invalid.Valid = false
	invalidBusy := busyTrial(testResult("s", 4))
	invalidBusy.Valid = false
	tests := []struct {
		name string
		r    *result.Result
		want string
	}{
		{"not in the run", nil, "cannot be a baseline"},
		{"valid", testResult("s", 3), "cannot be a baseline"},
		{"no knee", noKnee, "no knee: no probe met the SLO"},
		{"invalid", invalid, "invalid run"},
		{"invalid, host busy", invalidBusy, "invalid run, host busy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := why(tt.r); got != tt.want {
				t.Errorf("why = %q, want %q", got, tt.want)
			}
		})
	}
	if s := (Skip{"llm-fp32", "invalid run"}).String(); s != "llm-fp32 (invalid run)" {
		t.Errorf("Skip.String = %q", s)
	}
}
