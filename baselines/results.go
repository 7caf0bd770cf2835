package baselines

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/perfgate/perfgate/result"
)

// ReadResults reads the candidate side of a comparison: path is one
// perfgate.result/v1 file or a folder of them (other JSON documents there,
// such as comparisons, are skipped). Unlike a baseline, a candidate may be
// an invalid or interrupted run (compare reports it and never gates on
// it), but it must decode: schema, JSON and every trial histogram.
func ReadResults(path string) ([]*result.Result, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("results %q: %w", path, err)
	}
	if !st.IsDir() {
		r, err := readResult(path)
		if err != nil {
			return nil, err
		}
		return []*result.Result{r}, nil
	}
	paths, err := jsonFiles(path)
	if err != nil {
		return nil, err
	}
	rs, err := decodeFiles(paths, decodeResult)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("results %q: no %s files", path, result.Schema)
	}
	return rs, nil
}

// decodeFiles decodes every perfgate.result file of paths with decode,
// skipping other JSON documents (comparisons, sizings) and joining the
// errors of every file that fails, each naming its file.
func decodeFiles(paths []string, decode func([]byte) (*result.Result, error)) ([]*result.Result, error) {
	var rs []*result.Result
	var errs []error
	for _, p := range paths {
		b, err := os.ReadFile(p)
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

func readResult(path string) (*result.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("result %q: %w", path, err)
	}
	r, err := decodeResult(b)
	if err != nil {
		return nil, fmt.Errorf("result %q: %w", path, err)
	}
	return r, nil
}

// decodeResult decodes and validates a result as Decode does, except that
// an invalid or interrupted run is accepted.
func decodeResult(b []byte) (*result.Result, error) {
	r, err := parse(b)
	if err != nil {
		return nil, err
	}
	valid, interrupted := r.Valid, r.Interrupted
	r.Valid, r.Interrupted = true, false
	err = Validate(r)
	r.Valid, r.Interrupted = valid, interrupted
	if errors.Is(err, errNoTrials) && r.Capacity != nil {
		// A knee search in which no probe met the SLO keeps no trial: a
		// result all the same (the report says no probe passed).
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}
