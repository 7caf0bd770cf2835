package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/changepoint"
)

// tinyRecord is a record line of about 150 bytes: the densest a hostile
// history can pack records.
func tinyRecord(scenario string, i int) string {
	return fmt.Sprintf(`{"schema":%q,"scenario":%q,"date":%q,"runner":"r","environment":{},"load":{},"metrics":{"p99_ms":{"value":1}}}`+"\n",
		Schema, scenario, time.Unix(int64(i), 0).UTC().Format(time.RFC3339))
}

// repeat is a reader of s repeated n times, never held whole.
func repeat(s string, n int) io.Reader {
	return io.LimitReader(&loop{s: s}, int64(len(s)*n))
}

type loop struct {
	s   string
	off int
}

func (l *loop) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], l.s[l.off:])
		n += k
		l.off = (l.off + k) % len(l.s)
	}
	return n, nil
}

// gitBranch makes a repository whose branch "h" holds files (name →
// contents, streamed into git), and returns the repository.
func gitBranch(t *testing.T, files map[string]func() io.Reader) string {
	t.Helper()
	repo := t.TempDir()
	gitT(t, repo, "init", "-q")
	var tree bytes.Buffer
	for name, content := range files {
		cmd := exec.Command("git", "hash-object", "-w", "--stdin")
		cmd.Dir = repo
		cmd.Stdin = content()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git hash-object: %v", err)
		}
		fmt.Fprintf(&tree, "100644 blob %s\t%s\n", strings.TrimSpace(string(out)), name)
	}
	cmd := exec.Command("git", "mktree")
	cmd.Dir, cmd.Stdin = repo, &tree
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git mktree: %v", err)
	}
	commit := strings.TrimSpace(gitT(t, repo, "commit-tree", "-m", "history", strings.TrimSpace(string(out))))
	gitT(t, repo, "update-ref", "refs/heads/h", commit)
	return repo
}

// A history branch is read within bounds, however small it is in git
// (issue 43: 300k records, 3.7 MB in .git, decoded into 2 GB): git's
// output is streamed with a byte cap and git stopped past it, and records
// are counted per scenario and in all.
func TestHistoryBounds(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	tests := []struct {
		name    string
		files   map[string]func() io.Reader
		wantErr string // "" reads
	}{
		{"within bounds", map[string]func() io.Reader{
			"a.jsonl": func() io.Reader { return repeat(tinyRecord("a", 1), 100) },
		}, ""},
		{"a scenario over its records", map[string]func() io.Reader{
			"a.jsonl": func() io.Reader { return repeat(tinyRecord("a", 1), MaxRecordsPerScenario+1) },
		}, fmt.Sprintf(`h:a.jsonl:%d: scenario "a" has more than %d records`, MaxRecordsPerScenario+1, MaxRecordsPerScenario)},
		// Blank lines hold no record: only the byte cap stops them,
		// a few kilobytes in git.
		{"a file over its bytes", map[string]func() io.Reader{
			"a.jsonl": func() io.Reader { return repeat("\n", MaxFileBytes+1) },
		}, fmt.Sprintf("h:a.jsonl: more than %d MiB", MaxFileBytes>>20)},
		{"the files over their records together", func() map[string]func() io.Reader {
			m := map[string]func() io.Reader{}
			for i := range MaxRecords/MaxRecordsPerScenario + 1 {
				s := fmt.Sprintf("s%02d", i)
				m[s+".jsonl"] = func() io.Reader { return repeat(tinyRecord(s, 1), MaxRecordsPerScenario) }
			}
			return m
		}(), fmt.Sprintf("more than %d records", MaxRecords)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := gitBranch(t, tt.files)
			src, err := Open(context.Background(), "h", repo)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := src.Read(context.Background())
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Read = %v", err)
			case tt.wantErr != "" && (err == nil || !errors.Is(err, ErrTooBig) || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Read = %d records, %v; want an error with %q", len(recs), err, tt.wantErr)
			}
		})
	}
}

// A folder's history files are read through the same bounds, and only
// regular files are: a FIFO among them is refused, not waited on.
func TestDirHistoryBounds(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(f, repeat(tinyRecord("a", 1), MaxRecordsPerScenario+1))
	f.Close()
	if _, err := Dir(dir).Read(context.Background()); err == nil || !errors.Is(err, ErrTooBig) {
		t.Errorf("Read(%d records of a scenario) = %v, want ErrTooBig", MaxRecordsPerScenario+1, err)
	}
	fifoDir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(fifoDir, "a.jsonl"), 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Dir(fifoDir).Read(context.Background()); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Read(a FIFO) = %v, want it refused as not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read(a FIFO) still blocked after 5s")
	}
}

// A git history at the record bound is read in bounded memory: the heap
// after reading 10,000 records holds them, not the stream.
func TestHistoryGitMemory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := gitBranch(t, map[string]func() io.Reader{
		"a.jsonl": func() io.Reader { return repeat(tinyRecord("a", 1), MaxRecordsPerScenario) },
	})
	src, err := Open(context.Background(), "h", repo)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	recs, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	// TotalAlloc counts every allocation, freed or not: reading is linear
	// in the records, about 2 KB each.
	if got, limit := m1.TotalAlloc-m0.TotalAlloc, uint64(MaxRecordsPerScenario)*8<<10; got > limit {
		t.Errorf("reading %d records allocated %d MB, want under %d MB", len(recs), got>>20, limit>>20)
	}
}

// A record in a file that is not its scenario's is moved to its
// scenario's file by Compact, not copied (issue 43: it was copied, once
// more on every compact, skewing the learned noise), and records found
// twice are kept once: compacting again changes nothing.
func TestCompactMisplacedRecord(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, lines ...string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("renamed.jsonl", tinyRecord("b", 1)) // b's record under another name
	write("b.jsonl", tinyRecord("b", 2))
	write("c.jsonl", tinyRecord("c", 3), tinyRecord("c", 3)) // left by the old bug
	for i := range 3 {
		if _, err := Dir(dir).Compact(context.Background(), DefaultRetention); err != nil {
			t.Fatal(err)
		}
		ents, _ := os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if got, want := strings.Join(names, " "), "b.jsonl c.jsonl"; got != want {
			t.Errorf("compact %d: files %q, want %q", i+1, got, want)
		}
		recs, err := Dir(dir).Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		count := map[string]int{}
		for _, r := range recs {
			count[r.Scenario]++
		}
		if count["b"] != 2 || count["c"] != 1 {
			t.Errorf("compact %d: records per scenario %v, want b:2 c:1", i+1, count)
		}
	}
}

// A learned run-to-run noise outside gate.run_to_run's range is refused,
// naming the file, scenario, metric and value (issue 43: +Inf% was
// learned from absurd values and accepted, which disables the gate).
func TestLearnNoiseRange(t *testing.T) {
	var recs []Record
	for i := range 2 * MinNoiseRuns {
		v := 1e308
		if i%2 == 1 {
			v = 1e-300
		}
		recs = append(recs, Record{Schema: Schema, Scenario: "api", Runner: "r", Date: time.Unix(int64(i), 0).UTC(),
			Metrics: map[string]Value{MetricP99: {Value: v}}})
	}
	_, err := LearnNoise(recs, "api", "r", changepoint.DefaultSettings())
	want := `api.jsonl: scenario "api": run-to-run noise learned from p99_ms is +Inf%: out of range`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("LearnNoise(absurd values) = %v, want an error with %q", err, want)
	}
}
