package baselines

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/perfgate/perfgate/internal/capread"

	"github.com/perfgate/perfgate/result"
)

// ErrNoBaselines is returned (wrapped) by Load when the folder holds no
// baseline file: the gate's "no baseline" case, a first run.
var ErrNoBaselines = errors.New("no baselines")

// ErrNoFolder is returned (wrapped, in a *MissingFolderError) by Load when
// the folder does not exist. It is not ErrNoBaselines: a path that does
// not exist is more often a typo than a first run, and a typo must not
// switch the gate off; the caller reads it as no baselines only when the
// user said this is the first run.
var ErrNoFolder = errors.New("baselines folder does not exist")

// MissingFolderError is Load's error for a baselines folder that does not
// exist: it names the path and says what to do.
type MissingFolderError struct{ Dir string }

func (e *MissingFolderError) Error() string {
	return fmt.Sprintf("baselines folder %q does not exist: check the path (a mistyped one would switch the gate off); "+
		"on the first run, before any baseline is stored, say so with --first-run (the Action's first-run: true input), "+
		"or commit the folder empty (with a .gitkeep file in it)", e.Dir)
}

func (e *MissingFolderError) Unwrap() error { return ErrNoFolder }

// Load reads and validates every baseline file (*.json, not hidden) in dir,
// sorted by file name. Each bad file is reported, naming it; any bad file
// makes Load fail. A folder without baselines gives an error wrapping
// ErrNoBaselines, a missing one a *MissingFolderError (ErrNoFolder).
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
		if want := result.FileName(r.Scenario); filepath.Base(p) != want {
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

// jsonFiles lists the visible *.json files of dir, sorted; a folder
// without any is ErrNoBaselines, a missing one ErrNoFolder.
func jsonFiles(dir string) ([]string, error) {
	paths, err := result.JSONFiles(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MissingFolderError{Dir: dir}
	}
	if err != nil {
		return nil, fmt.Errorf("baselines %q: %w", dir, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("baselines %q: no .json files: %w", dir, ErrNoBaselines)
	}
	return paths, nil
}

// LoadFile reads and validates one baseline file.
func LoadFile(path string) (*result.Result, error) {
	b, err := capread.ReadFile(path, capread.Result)
	if err != nil {
		return nil, fmt.Errorf("baseline %q: %w", path, err)
	}
	r, err := Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("baseline %q: %w", path, err)
	}
	return r, nil
}

// Decode reads one baseline from rd (result.Decode) and checks that it
// may be trusted as one (see Validate).
func Decode(rd io.Reader) (*result.Result, error) {
	r, err := result.Decode(rd)
	if err != nil {
		return nil, err
	}
	if err := Validate(r); err != nil {
		return nil, err
	}
	return r, nil
}

// Validate is the policy of a trusted baseline: a well-formed result
// (result.Check) of a complete, valid run with at least one trial.
func Validate(r *result.Result) error {
	if err := r.Check(); err != nil && !errors.Is(err, result.ErrNoTrials) {
		return err
	}
	if r.Interrupted {
		return errors.New("the run was interrupted: not a baseline")
	}
	if !r.Valid {
		return errors.New(`the run is marked invalid ("valid": false): not a baseline`)
	}
	if len(r.Trials) == 0 {
		return result.ErrNoTrials
	}
	return nil
}
