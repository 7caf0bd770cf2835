package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Source is where a history is read from: a folder (Dir) or a git ref
// (Git).
type Source interface {
	// Read returns every record, in file order per scenario, scenarios
	// sorted by file name.
	Read(ctx context.Context) ([]Record, error)
	// String names the source in messages.
	String() string
}

var (
	_ Source = Dir("")
	_ Source = Git{}
)

// Dir is a history kept in a folder.
type Dir string

// String names the folder.
func (d Dir) String() string { return string(d) }

// Read reads every *.jsonl file of the folder. A missing folder or one
// without records is ErrNoHistory.
func (d Dir) Read(_ context.Context) ([]Record, error) {
	ents, err := os.ReadDir(string(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("history %q: folder does not exist: %w", string(d), ErrNoHistory)
	}
	if err != nil {
		return nil, fmt.Errorf("history %q: %w", string(d), err)
	}
	var out []Record
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(string(d), e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("history %q: %w", p, err)
		}
		recs, err := Decode(bytes.NewReader(b), p)
		if err != nil {
			return nil, err
		}
		out = append(out, recs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("history %q: no records: %w", string(d), ErrNoHistory)
	}
	return out, nil
}

// Append adds recs to the folder's files (created as needed), one write
// per scenario file opened for appending.
func (d Dir) Append(recs []Record) error {
	if err := os.MkdirAll(string(d), 0o755); err != nil {
		return fmt.Errorf("history %q: %w", string(d), err)
	}
	for _, name := range sortedFiles(recs) {
		var buf bytes.Buffer
		if err := Encode(&buf, byFile(recs)[name]); err != nil {
			return err
		}
		p := filepath.Join(string(d), name)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("history %q: %w", p, err)
		}
		_, werr := f.Write(buf.Bytes())
		cerr := f.Close()
		if err := errors.Join(werr, cerr); err != nil {
			return fmt.Errorf("history %q: %w", p, err)
		}
	}
	return nil
}

// Compact rewrites each file of the folder under r (see Retention.Apply),
// atomically per file. It returns how many records were dropped.
func (d Dir) Compact(ctx context.Context, r Retention) (int, error) {
	recs, err := d.Read(ctx)
	if err != nil {
		return 0, err
	}
	kept := r.Apply(recs)
	for name, rs := range byFile(kept) {
		var buf bytes.Buffer
		if err := Encode(&buf, rs); err != nil {
			return 0, err
		}
		p := filepath.Join(string(d), name)
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
			return 0, fmt.Errorf("history %q: %w", p, err)
		}
		if err := os.Rename(tmp, p); err != nil {
			return 0, fmt.Errorf("history %q: %w", p, err)
		}
	}
	return len(recs) - len(kept), nil
}

// byFile groups recs by their scenario's file name, keeping order.
func byFile(recs []Record) map[string][]Record {
	m := map[string][]Record{}
	for _, r := range recs {
		n := FileName(r.Scenario)
		m[n] = append(m[n], r)
	}
	return m
}

// sortedFiles lists the file names of recs' scenarios, sorted.
func sortedFiles(recs []Record) []string {
	var names []string
	for n := range byFile(recs) {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
