package baselines

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/result"
)

// ErrNoBaselines is returned (wrapped) by Load when the folder does not
// exist or holds no baseline file: the gate's "no baseline" case.
var ErrNoBaselines = errors.New("no baselines")

// FileName is the file a scenario's baseline is stored in: the name with
// anything but ASCII letters, digits, '.', '_' and '-' replaced by '_', a
// leading '.' replaced too (no hidden files), and ".json" appended.
func FileName(scenario string) string {
	var b strings.Builder
	for i, r := range scenario {
		ok := r < 128 && (r == '_' || r == '-' || r == '.' && i > 0 ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		if ok {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		b.WriteByte('_')
	}
	return b.String() + ".json"
}

// Load reads and validates every baseline file (*.json, not hidden) in dir,
// sorted by file name. Each bad file is reported, naming it; any bad file
// makes Load fail. A missing folder or one without baselines gives an
// error wrapping ErrNoBaselines.
func Load(dir string) ([]*result.Result, error) {
	paths, err := jsonFiles(dir)
	if err != nil {
		return nil, err
	}
	var rs []*result.Result
	var errs []error
	for _, p := range paths {
		r, err := LoadFile(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if want := FileName(r.Scenario); filepath.Base(p) != want {
			errs = append(errs, fmt.Errorf("baseline %q: holds scenario %q, whose file is %q", p, r.Scenario, want))
			continue
		}
		rs = append(rs, r)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return rs, nil
}

// jsonFiles lists the visible *.json files of dir, sorted.
func jsonFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("baselines %q: folder does not exist: %w", dir, ErrNoBaselines)
	}
	if err != nil {
		return nil, fmt.Errorf("baselines %q: %w", dir, err)
	}
	var paths []string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".json") {
			continue
		}
		paths = append(paths, filepath.Join(dir, n))
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return nil, fmt.Errorf("baselines %q: no .json files: %w", dir, ErrNoBaselines)
	}
	return paths, nil
}

// LoadFile reads and validates one baseline file.
func LoadFile(path string) (*result.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("baseline %q: %w", path, err)
	}
	r, err := Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("baseline %q: %w", path, err)
	}
	return r, nil
}

// Decode reads one baseline from rd and validates it (see Validate).
func Decode(rd io.Reader) (*result.Result, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, err
	}
	r, err := parse(data)
	if err != nil {
		return nil, err
	}
	if err := Validate(r); err != nil {
		return nil, err
	}
	return r, nil
}

// parse decodes one JSON result document that must fill data.
func parse(data []byte) (*result.Result, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty file")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var r result.Result
	if err := dec.Decode(&r); err != nil {
		return nil, describeJSONError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON object at byte %d", dec.InputOffset())
	}
	return &r, nil
}

// describeJSONError says where and how the JSON is broken.
func describeJSONError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("truncated JSON: the file ends after %d bytes, inside the document: %w", len(data), err)
	case errors.As(err, &syn):
		line := 1 + bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n"))
		return fmt.Errorf("line %d: malformed JSON: %w", line, err)
	case errors.As(err, &typ):
		return fmt.Errorf("field %q: %s is not a %s: %w", typ.Field, typ.Value, typ.Type, err)
	}
	return fmt.Errorf("decoding JSON: %w", err)
}

// errNoTrials is Validate's error for a result without trials.
var errNoTrials = errors.New(`missing field "trials": a baseline needs at least one trial`)

// Validate checks what a baseline must have: the result schema, a
// scenario, a known layer, a valid and complete run, at least one trial,
// and trial histograms (latency, and TTFT/TPOT when present) that decode.
func Validate(r *result.Result) error {
	if r.Schema != result.Schema {
		return fmt.Errorf("schema is %q, want %q", r.Schema, result.Schema)
	}
	if r.Scenario == "" {
		return errors.New(`missing field "scenario"`)
	}
	if r.Layer != "" && !validLayer(r.Layer) {
		return fmt.Errorf("layer %q: want one of %s", r.Layer, strings.Join(result.Layers, ", "))
	}
	if r.Interrupted {
		return errors.New("the run was interrupted: not a baseline")
	}
	if !r.Valid {
		return errors.New(`the run is marked invalid ("valid": false): not a baseline`)
	}
	if len(r.Trials) == 0 {
		return errNoTrials
	}
	for i, t := range r.Trials {
		if t.Histogram == "" {
			return fmt.Errorf("trial %d: missing field \"histogram\"", i+1)
		}
		hists := []struct{ name, enc string }{{"histogram", t.Histogram}}
		if t.LLM != nil {
			hists = append(hists, struct{ name, enc string }{"llm.ttft_histogram", t.LLM.TTFTHistogram},
				struct{ name, enc string }{"llm.tpot_histogram", t.LLM.TPOTHistogram})
		}
		for _, h := range hists {
			if h.enc == "" && h.name != "histogram" {
				continue
			}
			if _, err := result.DecodeHistogram(h.enc); err != nil {
				return fmt.Errorf("trial %d: field %q: %w", i+1, h.name, err)
			}
		}
	}
	return nil
}

func validLayer(l string) bool {
	for _, x := range result.Layers {
		if x == l {
			return true
		}
	}
	return false
}
