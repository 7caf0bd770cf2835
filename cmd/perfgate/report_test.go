package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportCommand(t *testing.T) {
	good, err := filepath.Abs(filepath.Join("..", "..", "baselines", "testdata", "good", "ok.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string // in stderr
	}{
		{name: "no --html", args: []string{good}, wantCode: exitUsage, wantErr: "--html OUT.html is required"},
		{name: "no results", args: []string{"--html", filepath.Join(dir, "x.html")}, wantCode: exitUsage, wantErr: "name at least one result"},
		{name: "missing result", args: []string{"--html", filepath.Join(dir, "x.html"), filepath.Join(dir, "nope.json")}, wantCode: exitUsage, wantErr: "nope.json"},
		{name: "a result without baseline", args: []string{"--html", filepath.Join(dir, "ok.html"), good}, wantCode: exitPass, wantErr: "wrote"},
		{name: "compared with itself", args: []string{"--html", filepath.Join(dir, "self.html"), "--baseline", good, good}, wantCode: exitPass, wantErr: "wrote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append([]string{"report"}, tt.args...)...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("perfgate report %v: exit %d, stderr %q; want exit %d and %q", tt.args, code, stderr, tt.wantCode, tt.wantErr)
			}
		})
	}
	page, err := os.ReadFile(filepath.Join(dir, "self.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", `data-kind="spectrum"`, `data-kind="trials"`, "unchanged"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
