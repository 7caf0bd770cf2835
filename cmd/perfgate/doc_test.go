package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestManualCoversCommands checks that the package documentation (the
// manual) and the usage text name every subcommand the dispatcher knows.
func TestManualCoversCommands(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	main, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	cases := regexp.MustCompile(`case "([a-z]+)":\n\t\treturn cmd`).FindAllSubmatch(main, -1)
	if len(cases) < 8 {
		t.Fatalf("found %d subcommands in main.go, want at least 8", len(cases))
	}
	for _, c := range cases {
		name := string(c[1])
		if !strings.Contains(string(doc), "//\tperfgate "+name) {
			t.Errorf("doc.go's usage does not show perfgate %s", name)
		}
		if !strings.Contains(usageText, "perfgate "+name) {
			t.Errorf("usageText does not show perfgate %s", name)
		}
	}
}
