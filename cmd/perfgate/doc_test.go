package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestManualUsageIsTheSynopses checks that the manual's Usage block in
// doc.go is the synopses of usage.go, line for line: the synopses are the
// one source (of `perfgate help` and every -h), and the manual, which Go
// cannot compute, is their checked copy.
func TestManualUsageIsTheSynopses(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)// Usage:\n//\n(.*?)//\n`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("doc.go has no Usage block")
	}
	var want []string
	for _, s := range synopses() {
		for _, l := range s.lines {
			want = append(want, "//\t"+l)
		}
	}
	got := strings.Split(strings.TrimSuffix(string(m[1]), "\n"), "\n")
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("doc.go's Usage block differs from synopses() in usage.go; copy them over (-want +got):\n%s", d)
	}
}

// TestEveryCommandHasASynopsis checks that each command's -h has its
// synopsis to print.
func TestEveryCommandHasASynopsis(t *testing.T) {
	main, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range regexp.MustCompile(`case "([a-z-]+)":\n\t\treturn cmd`).FindAllSubmatch(main, -1) {
		if u := commandUsage(string(c[1])); !strings.HasPrefix(u, "usage: perfgate "+string(c[1])) {
			t.Errorf("commandUsage(%q) = %q, want its synopsis", c[1], u)
		}
	}
}
