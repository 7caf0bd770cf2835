package gate

import (
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/baselines"
	"github.com/perfgate/perfgate/internal/exitcode"
	"github.com/perfgate/perfgate/result"
)

// loadStored reads the baselines of dir for st. A folder without
// baselines is a first run (none, no error: the verdict is no-baseline);
// a folder that does not exist is a first run only when st.FirstRun says
// so, else a configuration error naming the path (exit 2), since it is
// more often a typo (--baselines perfgate/baseline) than a first run, and
// a typo must never switch the gate off. A damaged baseline is
// ErrBadBaselines.
func loadStored(st Stored, dir string) ([]*result.Result, error) {
	base, err := baselines.Load(dir)
	switch {
	case err == nil:
		return base, nil
	case errors.Is(err, baselines.ErrNoBaselines):
		return nil, nil
	case errors.Is(err, baselines.ErrNoFolder) && st.FirstRun:
		return nil, nil
	case errors.Is(err, baselines.ErrNoFolder):
		return nil, exitcode.With(exitcode.Usage, err)
	}
	return nil, fmt.Errorf("%w: %v", ErrBadBaselines, err)
}
