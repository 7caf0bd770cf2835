package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/perfgate/perfgate/internal/capread"
)

// What perfgate reads of a history, documented in docs/history.md and
// docs/hardening.md. A history branch is written by whoever can push to
// it, and git stores a file of repeated lines in a few kilobytes: without
// these a small branch decodes into gigabytes. Each bound is ten times or
// more what DefaultRetention keeps.
const (
	// MaxFileBytes caps one history file (one scenario's, about 5 MB at
	// DefaultRetention).
	MaxFileBytes = 64 << 20
	// MaxBytes caps a whole history: its files together.
	MaxBytes = 256 << 20
	// MaxRecordsPerScenario caps one scenario's records (DefaultRetention
	// keeps 1,000 per runner).
	MaxRecordsPerScenario = 10_000
	// MaxRecords caps a whole history's records.
	MaxRecords = 100_000
	// maxLineBytes caps one record's line (a record with its histograms
	// is 10-20 KB).
	maxLineBytes = 4 << 20
)

// ErrTooBig is returned (wrapped) when a history is over one of the
// bounds above.
var ErrTooBig = errors.New("history over perfgate's bounds")

// reader reads a history's files within the bounds, counting across files.
type reader struct {
	bytes      int64
	records    int
	byScenario map[string]int
}

// file decodes one file's records from rd, named name, refusing it once
// it or the history passes a bound.
func (r *reader) file(rd io.Reader, name string) ([]Record, error) {
	left := min(int64(MaxFileBytes), MaxBytes-r.bytes)
	lr := &io.LimitedReader{R: rd, N: left + 1}
	recs, err := decode(lr, name, func(rec Record) error {
		if r.byScenario == nil {
			r.byScenario = map[string]int{}
		}
		r.records++
		r.byScenario[rec.Scenario]++
		switch {
		case r.byScenario[rec.Scenario] > MaxRecordsPerScenario:
			return fmt.Errorf("scenario %q has more than %d records: %w", rec.Scenario, MaxRecordsPerScenario, ErrTooBig)
		case r.records > MaxRecords:
			return fmt.Errorf("more than %d records: %w", MaxRecords, ErrTooBig)
		}
		return nil
	})
	r.bytes += left + 1 - lr.N
	if lr.N <= 0 {
		if left < MaxFileBytes {
			return nil, fmt.Errorf("%s: the history's files pass %d MiB together: %w", name, MaxBytes>>20, ErrTooBig)
		}
		return nil, fmt.Errorf("%s: more than %d MiB: %w", name, MaxFileBytes>>20, ErrTooBig)
	}
	return recs, err
}

// readPath reads a history file of a folder: a regular file, at most
// MaxFileBytes.
func (r *reader) readPath(path string) ([]Record, error) {
	f, err := capread.Open(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	return r.file(f, path)
}

// gitFile streams `git show rev:file` into r.file, stopping git once a
// bound is passed: the blob is never held whole, however large it
// inflates to.
func (r *reader) gitFile(ctx context.Context, repo, rev, file string) ([]Record, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "show", rev+":"+file)
	cmd.Dir = repo
	var errb bytes.Buffer
	cmd.Stderr = &capWriter{w: &errb, n: 64 << 10}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git show %s:%s: %w", rev, file, err)
	}
	recs, rerr := r.file(out, rev+":"+file)
	if rerr != nil {
		cancel() // stop git: the rest is not read
		cmd.Wait()
		return nil, rerr
	}
	io.Copy(io.Discard, io.LimitReader(out, 1)) // let git finish writing
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git show %s:%s: %w: %s", rev, file, err, strings.TrimSpace(errb.String()))
	}
	return recs, nil
}

// capWriter keeps the first n bytes written to it and drops the rest.
type capWriter struct {
	w io.Writer
	n int
}

func (c *capWriter) Write(p []byte) (int, error) {
	if c.n > 0 {
		k := min(len(p), c.n)
		c.w.Write(p[:k])
		c.n -= k
	}
	return len(p), nil
}
