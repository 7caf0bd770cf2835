package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/result"
)

// StoredBaseline is one baseline file a run stored: its path, and the
// result read back from it (or why it could not be).
type StoredBaseline struct {
	Path   string
	Result *result.Result
	Err    error
}

// BaselinesMarkdown writes the step summary of the Action's baseline mode:
// how many files went to dir, and a table of what each holds, so that the
// summary says what was measured, not only where it went.
func BaselinesMarkdown(w io.Writer, dir string, files []StoredBaseline) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## perfgate: baselines stored\n\n%d baseline files written to %s:\n\n", len(files), codeSpan(dir))
	b.WriteString("| file | scenario | layer | load | requests | errors | P50 ms | P99 ms | max QPS under SLO |\n")
	b.WriteString("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, f := range files {
		r := f.Result
		if f.Err != nil || r == nil {
			why := "no result"
			if f.Err != nil {
				why = f.Err.Error()
			}
			fmt.Fprintf(&b, "| %s | unreadable: %s | | | | | | | |\n", codeSpan(filepath.Base(f.Path)), esc(why))
			continue
		}
		load := r.Load.Mode
		switch r.Load.Mode {
		case "rate":
			load = fmt.Sprintf("%g/s", r.Load.Rate)
		case "concurrency":
			load = fmt.Sprintf("%d in flight", r.Load.Concurrency)
		}
		knee := "–"
		if r.Capacity != nil && r.Capacity.MaxQPS > 0 {
			knee = qps(r.Capacity.MaxQPS)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d | %s | %s | %s |\n", codeSpan(filepath.Base(f.Path)), esc(r.Scenario), esc(r.Layer),
			esc(load), r.Summary.Requests, r.Summary.Errors, ms(r.Summary.Latency.P50), ms(r.Summary.Latency.P99), knee)
	}
	b.WriteString("\nThey are left in the work tree, not committed: a following step commits them or opens a pull request.\n")
	_, err := io.WriteString(w, b.String())
	return err
}
