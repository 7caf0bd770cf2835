package targetproc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// createLog creates a target's log at path without following a link
// planted there: whatever is at path (a symlink to a file elsewhere, a
// hard link to one) is removed first, as a name, and the log is created
// anew with O_EXCL and, where the system has it, O_NOFOLLOW. Truncating
// in place would truncate and overwrite the file a planted link points
// to (issue 28: perfgate-out/results/s.target.log → /some/file).
func createLog(path string) (*os.File, error) {
	if st, err := os.Lstat(path); err == nil {
		if st.IsDir() {
			return nil, fmt.Errorf("%s is a folder", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND|oNoFollow, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w (perfgate creates the log anew and never follows a link there)", err)
	}
	return f, nil
}
