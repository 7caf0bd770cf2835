package baselines

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// stagedFile is one baseline to write: its final path and contents.
type stagedFile struct {
	path string
	data []byte
}

// replaceAll writes files (all in folder to) so that either all of them
// replace their old versions or none does:
//
//  1. a sibling folder is made (to's name + ".staging-*", on the same file
//     system), holding hard links to everything in to (no copy, no space)
//     and the new files written with write, each synced;
//  2. it then takes to's place: on Linux in one step (renameat2 with
//     RENAME_EXCHANGE, so that to never disappears), elsewhere by two
//     renames; the old folder is removed.
//
// A failure before the swap (a full disk while writing a file) removes
// the staging folder and leaves to untouched; the error names the file
// (its final path). A folder to that does not exist yet is created (0755,
// less the umask, as mkdir makes it); one that exists keeps its mode, since
// the staging folder that takes its place is given it.
func replaceAll(to string, files []stagedFile, write func(path string, data []byte) error) (err error) {
	to = filepath.Clean(to)
	parent := filepath.Dir(to)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	exists := true
	mode := fs.FileMode(0o755)
	if st, serr := os.Stat(to); errors.Is(serr, fs.ErrNotExist) {
		exists = false
	} else if serr != nil {
		return serr
	} else if !st.IsDir() {
		return fmt.Errorf("%s is not a folder", to)
	} else {
		mode = st.Mode().Perm()
	}
	stage, err := mkdirStage(parent, "."+filepath.Base(to)+".staging-", mode)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(stage)
		}
	}()
	if exists {
		// The umask may have taken bits off: give it the old folder's.
		if err := os.Chmod(stage, mode); err != nil {
			return err
		}
		if err := linkTree(to, stage); err != nil {
			return fmt.Errorf("staging the baselines: %w", err)
		}
	}
	for _, f := range files {
		rel, rerr := filepath.Rel(to, f.path)
		if rerr != nil || rel != filepath.Base(f.path) {
			return fmt.Errorf("%s is not a file of %s", f.path, to)
		}
		dst := filepath.Join(stage, rel)
		os.Remove(dst) // a link to the old version: never write through it
		if err := write(dst, f.data); err != nil {
			// Name the baseline, not its staging copy.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("writing %s: %w", f.path, err)
		}
	}
	syncDir(stage)
	if !exists {
		if err := os.Rename(stage, to); err != nil {
			return err
		}
		syncDir(parent)
		return nil
	}
	if err := swapDirs(stage, to); err != nil {
		return err
	}
	syncDir(parent)
	// stage now holds the old set.
	os.RemoveAll(stage)
	return nil
}

// mkdirStage makes a new folder in parent named prefix and a random
// suffix, with mode less the umask (os.MkdirTemp's 0700 would become the
// baselines folder's mode once swapped in).
func mkdirStage(parent, prefix string, mode fs.FileMode) (string, error) {
	for range 100 {
		p := filepath.Join(parent, prefix+strconv.FormatUint(rand.Uint64(), 36))
		switch err := os.Mkdir(p, mode); {
		case err == nil:
			return p, nil
		case !errors.Is(err, fs.ErrExist):
			return "", err
		}
	}
	return "", fmt.Errorf("making a staging folder in %s: too many taken names", parent)
}

// linkTree recreates src's tree in dst: folders made, files hard-linked,
// symbolic links copied as links.
func linkTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "." {
			return nil
		}
		t := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(t, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, t)
		default:
			return os.Link(p, t)
		}
	})
}

// writeSynced writes data to a new file at path and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir syncs a folder's entries to disk, where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// swapByRenames puts folder a in b's place and b in a's with two renames
// (through a third name); if the second fails, the first is undone.
func swapByRenames(a, b string) error {
	old := a + ".old"
	if err := os.Rename(b, old); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		os.Rename(old, b)
		return err
	}
	return os.Rename(old, a)
}
