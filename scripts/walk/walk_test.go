package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// Nothing below gate calls back into package config (issue 30): the
// configuration is compiled once (config.Compile) and the plan handed
// down.
func TestNoClimbsBelowGate(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the module")
	}
	if err := os.Chdir("../.."); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(&out, true); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	if !strings.HasSuffix(first, "climbs 0") {
		t.Errorf("the walk from gate climbs back into config:\n%s", out.String())
	}
}
