package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The spectrum line appears at a terminal and nowhere else.
func TestRunSpectrumOnlyAtATerminal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	tests := []struct {
		name     string
		terminal bool
		ci       string
		want     bool
	}{
		{name: "terminal", terminal: true, want: true},
		{name: "pipe", terminal: false, want: false},
		{name: "terminal in CI", terminal: true, ci: "true", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			e := &env{getenv: func(k string) string {
				if k == "CI" {
					return tt.ci
				}
				return ""
			}, stdout: &out, stderr: &errb, workdir: t.TempDir(), isTerminal: tt.terminal}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			err := run(ctx, []string{"run", "--url", srv.URL, "--rate", "200", "--duration", "300ms", "--warmup", "50ms", "--trials", "2"}, e)
			if err != nil {
				t.Fatalf("run: %v\n%s", err, errb.String())
			}
			got := strings.Contains(errb.String(), "latency spectrum (0% → ")
			if got != tt.want {
				t.Errorf("spectrum printed = %v, want %v; stderr:\n%s", got, tt.want, errb.String())
			}
			if strings.Contains(out.String(), "latency spectrum") {
				t.Errorf("the spectrum went to stdout:\n%s", out.String())
			}
		})
	}
}
