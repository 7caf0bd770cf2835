package history

import (
	"bytes"
	"context"
	"encoding/json"
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

// Read reads every *.jsonl file of the folder, within the bounds of
// bounds.go. A missing folder or one without records is ErrNoHistory.
func (d Dir) Read(_ context.Context) ([]Record, error) {
	files, err := d.readFiles()
	if err != nil {
		return nil, err
	}
	var out []Record
	for _, f := range files {
		out = append(out, f.recs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("history %q: no records: %w", string(d), ErrNoHistory)
	}
	return out, nil
}

// dirFile is one file of a history folder and its records.
type dirFile struct {
	name string
	recs []Record
}

// readFiles reads every *.jsonl file of the folder, sorted by name.
func (d Dir) readFiles() ([]dirFile, error) {
	ents, err := os.ReadDir(string(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("history %q: folder does not exist: %w", string(d), ErrNoHistory)
	}
	if err != nil {
		return nil, fmt.Errorf("history %q: %w", string(d), err)
	}
	var rd reader
	var out []dirFile
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		recs, err := rd.readPath(filepath.Join(string(d), e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, dirFile{e.Name(), recs})
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
// atomically per file. It returns how many records were dropped. A record
// sits in its scenario's file (FileName) after it: one found in another
// file (renamed by hand, or a scenario whose name maps elsewhere) is moved
// there, not copied, and a record found twice is kept once, so compacting
// again changes nothing.
func (d Dir) Compact(ctx context.Context, r Retention) (int, error) {
	files, err := d.readFiles()
	if err != nil {
		return 0, err
	}
	var recs []Record
	seen := map[string]bool{}
	read := 0
	for _, f := range files {
		for _, rec := range f.recs {
			read++
			b, err := json.Marshal(rec)
			if err != nil {
				return 0, fmt.Errorf("history %q: %w", filepath.Join(string(d), f.name), err)
			}
			if !seen[string(b)] {
				seen[string(b)] = true
				recs = append(recs, rec)
			}
		}
	}
	if read == 0 {
		return 0, fmt.Errorf("history %q: no records: %w", string(d), ErrNoHistory)
	}
	kept := r.Apply(recs)
	groups := byFile(kept)
	for name, rs := range groups {
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
	// A file read whose records all went elsewhere (or were dropped) is
	// removed, after the files that now hold them are in place.
	for _, f := range files {
		if _, ok := groups[f.name]; !ok {
			if err := os.Remove(filepath.Join(string(d), f.name)); err != nil {
				return 0, fmt.Errorf("history %q: %w", filepath.Join(string(d), f.name), err)
			}
		}
	}
	return read - len(kept), nil
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
