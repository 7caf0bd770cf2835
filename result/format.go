package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/perfgate/perfgate/internal/capread"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The format's rules: a result's file name, its one decoder, and what a
// well-formed result holds. What a reader then trusts (a baseline must be a
// valid, complete run) is the reader's policy (package baselines).

// FileName is the file a scenario's result (and baseline) is stored in:
// the name with anything but ASCII letters, digits, '.', '_' and '-'
// replaced by '_', a leading '.' replaced too (no hidden files), and
// ".json" appended.
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

// Parse decodes one result document that must fill data: the format's one
// decoder. Errors say where and how the JSON is broken (a line, a field,
// truncation, trailing data) and reject other schemas. It does not check
// the document's content: see Check.
func Parse(data []byte) (*Result, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty file")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var r Result
	if err := dec.Decode(&r); err != nil {
		return nil, describeJSONError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON object at byte %d", dec.InputOffset())
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("schema is %q, want %q", r.Schema, Schema)
	}
	if len(r.Trials) > MaxTrials {
		return nil, fmt.Errorf("field \"trials\": %d trials, more than the %d a result may hold (perfgate writes at most %d: an A/B side at ab.max_trials)",
			len(r.Trials), MaxTrials, 200)
	}
	return &r, nil
}

// MaxTrials is the most trials a result may hold: Parse refuses more.
// perfgate writes at most 200 (an A/B side at ab.max_trials 200; a run at
// most load.trials 100, and baseline mode combines 2 runs). A decoded
// latency histogram is about 340 KB, and a comparison holds each side's
// histograms at once for its bootstrap, so this bounds its memory; Check
// decodes one trial's histograms at a time.
const MaxTrials = 256

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

// ErrNoTrials is Check's error for a result without trials.
var ErrNoTrials = errors.New(`missing field "trials": a baseline needs at least one trial`)

// Check checks what every well-formed result holds: the schema, a
// scenario, a known layer, at least one trial (except a knee search in
// which no probe met the SLO, which keeps none: its capacity says so), and
// trial histograms (latency, and TTFT/TPOT when present) that decode. It
// does not judge the run: an invalid or interrupted run is well formed.
func (r *Result) Check() error {
	if err := r.checkHeader(); err != nil {
		return err
	}
	if len(r.Trials) == 0 && r.Capacity == nil {
		return ErrNoTrials
	}
	if len(r.Trials) > MaxTrials {
		return fmt.Errorf("field \"trials\": %d trials, more than the %d a result may hold", len(r.Trials), MaxTrials)
	}
	if err := r.checkNoiseFloor(); err != nil {
		return err
	}
	return r.checkConsistency(r.trialHistogram)
}

// checkHeader checks the schema, the scenario and the layer.
func (r *Result) checkHeader() error {
	if r.Schema != Schema {
		return fmt.Errorf("schema is %q, want %q", r.Schema, Schema)
	}
	if r.Scenario == "" {
		return errors.New(`missing field "scenario"`)
	}
	if r.Layer != "" && !validLayer(r.Layer) {
		return fmt.Errorf("layer %q: want one of %s", r.Layer, strings.Join(Layers, ", "))
	}
	return nil
}

// trialHistogram checks that trial i's histograms decode, and returns its
// latency histogram. Each is decoded when its trial is checked and
// dropped after, so checking holds one trial's histograms at a time, not
// every trial's (about 340 KB each decoded).
func (r *Result) trialHistogram(i int) (*hdrhistogram.Histogram, error) {
	t := r.Trials[i]
	if t.Histogram == "" {
		return nil, fmt.Errorf("trial %d: missing field \"histogram\"", i+1)
	}
	lat, err := DecodeHistogram(t.Histogram)
	if err != nil {
		return nil, fmt.Errorf("trial %d: field %q: %w", i+1, "histogram", err)
	}
	if t.LLM != nil {
		for _, h := range []struct{ name, enc string }{{"llm.ttft_histogram", t.LLM.TTFTHistogram}, {"llm.tpot_histogram", t.LLM.TPOTHistogram}} {
			if h.enc == "" {
				continue
			}
			if _, err := DecodeHistogram(h.enc); err != nil {
				return nil, fmt.Errorf("trial %d: field %q: %w", i+1, h.name, err)
			}
		}
	}
	return lat, nil
}

func validLayer(l string) bool {
	for _, x := range Layers {
		if x == l {
			return true
		}
	}
	return false
}

// ReadResults reads results for a comparison's candidate side (or a
// merge): path is one result file or a folder of them (other JSON
// documents there, such as comparisons, are skipped). An invalid or
// interrupted run is read (compare reports it and never gates on it), but
// every file must be well formed (Parse, Check).
func ReadResults(path string) ([]*Result, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("results %q: %w", path, err)
	}
	if !st.IsDir() {
		b, err := capread.ReadFile(path, capread.Result)
		if err != nil {
			return nil, fmt.Errorf("result %q: %w", path, err)
		}
		r, err := parseChecked(b)
		if err != nil {
			return nil, fmt.Errorf("result %q: %w", path, err)
		}
		return []*Result{r}, nil
	}
	paths, err := JSONFiles(path)
	if err != nil {
		return nil, fmt.Errorf("results %q: %w", path, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("results %q: no .json files", path)
	}
	rs, err := DecodeFiles(paths, parseChecked)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("results %q: no %s files", path, Schema)
	}
	return rs, nil
}

// DecodeFiles decodes every perfgate.result file of paths with decode,
// skipping other JSON documents (comparisons, sizings, manifests) and
// joining the errors of every file that fails, each naming its file.
func DecodeFiles(paths []string, decode func([]byte) (*Result, error)) ([]*Result, error) {
	var rs []*Result
	var errs []error
	for _, p := range paths {
		b, err := capread.ReadFile(p, capread.Result)
		if err != nil {
			errs = append(errs, fmt.Errorf("result %q: %w", p, err))
			continue
		}
		var head struct {
			Schema string `json:"schema"`
		}
		if json.Unmarshal(b, &head) == nil && head.Schema != "" && !strings.HasPrefix(head.Schema, "perfgate.result/") {
			continue // another kind of document
		}
		r, err := decode(b)
		if err != nil {
			errs = append(errs, fmt.Errorf("result %q: %w", p, err))
			continue
		}
		rs = append(rs, r)
	}
	return rs, errors.Join(errs...)
}

// parseChecked is Parse then Check.
func parseChecked(b []byte) (*Result, error) {
	r, err := Parse(b)
	if err != nil {
		return nil, err
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	return r, nil
}

// JSONFiles lists the visible *.json files of dir, sorted.
func JSONFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
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
	return paths, nil
}

// MaxNoiseFloorPct is the largest noise floor a result may carry: runs
// that disagree by more gate nothing, and a floor raises the gate's
// threshold to it, so an absurd one (1e300) would switch the gate off.
const MaxNoiseFloorPct = 1000

// checkNoiseFloor checks noise_floor_pct: each a number from 0 to
// MaxNoiseFloorPct percent.
func (r *Result) checkNoiseFloor() error {
	keys := make([]string, 0, len(r.NoiseFloorPct))
	for k := range r.NoiseFloorPct {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := r.NoiseFloorPct[k]; !(v >= 0 && v <= MaxNoiseFloorPct) {
			return fmt.Errorf("field \"noise_floor_pct.%s\" is %v: out of range, want a percentage from 0 to %d", k, v, MaxNoiseFloorPct)
		}
	}
	return nil
}
