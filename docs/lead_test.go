package docs_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// leadLines is how far into a page its reader may have to read to find
// what to run.
const leadLines = 20

// leadCommand is a command in a code span or a code block: what a user
// does (`perfgate gate --ab REF`, `go doc ./compare`).
var leadCommand = regexp.MustCompile("(?m)^```|`(perfgate|go) [^`]+`")

// Each page leads with what a user does: within its first leadLines
// lines it names a command to run. README.md is the index of the others.
func TestPagesLeadWithWhatAUserDoes(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil || len(pages) < 10 {
		t.Fatalf("docs pages: %v (%d found)", err, len(pages))
	}
	for _, name := range pages {
		if name == "README.md" {
			continue
		}
		lines := strings.SplitN(readPage(t, name), "\n", leadLines+1)
		lead := strings.Join(lines[:min(len(lines), leadLines)], "\n")
		if !leadCommand.MatchString(lead) {
			t.Errorf("docs/%s: no command in its first %d lines: lead with what a user does (a `perfgate …` command or a code block)", name, leadLines)
		}
	}
}
