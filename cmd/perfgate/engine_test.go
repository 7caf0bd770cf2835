package main

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
)

// The engine settings come from the flags over the environment over the
// config; the harness gets them whole (it reads no environment).
func TestEngineSettings(t *testing.T) {
	ms := func(d time.Duration) *config.Duration { c := config.Duration(d); return &c }
	tests := []struct {
		name  string
		cfg   *config.Config
		env   map[string]string
		flags []string
		want  harness.EngineSettings
	}{
		{name: "nothing set: the defaults", cfg: &config.Config{}},
		{name: "config", cfg: &config.Config{Engine: "workers", LoopBatch: ms(250 * time.Microsecond)},
			want: harness.EngineSettings{Engine: "workers", LoopBatch: 250 * time.Microsecond}},
		// A written 0s is not a left-out key: each hit is sent when due.
		{name: "config batch 0", cfg: &config.Config{LoopBatch: ms(0)}, want: harness.EngineSettings{LoopBatch: harness.NoLoopBatch}},
		{name: "environment over config", cfg: &config.Config{Engine: "workers", LoopBatch: ms(250 * time.Microsecond)},
			env:  map[string]string{engineEnv: "event-loop", batchEnv: "0", spinEnv: "20us"},
			want: harness.EngineSettings{Engine: "event-loop", LoopBatch: harness.NoLoopBatch, LoopSpin: 20 * time.Microsecond}},
		{name: "flags over environment", cfg: &config.Config{},
			env:   map[string]string{engineEnv: "event-loop", batchEnv: "2ms"},
			flags: []string{"--engine", "workers", "--loop-batch", "500us"},
			want:  harness.EngineSettings{Engine: "workers", LoopBatch: 500 * time.Microsecond}},
		{name: "flag batch 0", cfg: nil, flags: []string{"--loop-batch", "0"}, want: harness.EngineSettings{LoopBatch: harness.NoLoopBatch}},
		// loop_spin: the key, then the variable, then the flag; a given 0
		// turns off what is under it.
		{name: "config spin", cfg: &config.Config{LoopSpin: config.Duration(50 * time.Microsecond)},
			want: harness.EngineSettings{LoopSpin: 50 * time.Microsecond}},
		{name: "environment spin over config", cfg: &config.Config{LoopSpin: config.Duration(50 * time.Microsecond)},
			env: map[string]string{spinEnv: "20us"}, want: harness.EngineSettings{LoopSpin: 20 * time.Microsecond}},
		{name: "environment spin 0 over config", cfg: &config.Config{LoopSpin: config.Duration(50 * time.Microsecond)},
			env: map[string]string{spinEnv: "0"}, want: harness.EngineSettings{}},
		{name: "flag spin over environment and config", cfg: &config.Config{LoopSpin: config.Duration(50 * time.Microsecond)},
			env: map[string]string{spinEnv: "20us"}, flags: []string{"--loop-spin", "5us"}, want: harness.EngineSettings{LoopSpin: 5 * time.Microsecond}},
		{name: "flag spin 0 over environment", cfg: nil,
			env: map[string]string{spinEnv: "20us"}, flags: []string{"--loop-spin", "0"}, want: harness.EngineSettings{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{getenv: func(k string) string { return tt.env[k] }}
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			e.engine.register(fs)
			if err := fs.Parse(tt.flags); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, e.engineSettings(tt.cfg)); d != "" {
				t.Errorf("engineSettings (-want +got):\n%s", d)
			}
		})
	}
}

// A value that means nothing is an error naming where it came from.
func TestEngineBadValues(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"unknown engine", map[string]string{engineEnv: "epoll"}, `environment PERFGATE_ENGINE="epoll": want event-loop or workers`},
		{"batch not a duration", map[string]string{batchEnv: "1 ms"}, `environment PERFGATE_LOOP_BATCH="1 ms": want a duration`},
		{"negative spin", map[string]string{spinEnv: "-5us"}, `environment PERFGATE_LOOP_SPIN="-5us"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := engineFromEnv(func(k string) string { return tt.env[k] })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("engineFromEnv(%v) = %v, want an error containing %q", tt.env, err, tt.want)
			}
		})
	}
	f := engineFlags{engine: "epoll"}
	if err := f.check("run"); err == nil || !strings.Contains(err.Error(), `--engine "epoll"`) {
		t.Errorf(`check of --engine epoll = %v, want an error naming it`, err)
	}
}
