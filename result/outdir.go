package result

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutLink is the error MkdirOut returns for an output folder with a
// symbolic link on its way.
var ErrOutLink = errors.New("a symbolic link: perfgate does not write through links; remove it, or name another folder")

// MkdirOut creates dir, an output folder, and its parents, after checking
// that no folder on its way below root is a symbolic link: every
// component of a relative dir, the components of an absolute dir below
// root (the working directory, which a pull request's checkout fills),
// and only dir's last component when it lies elsewhere (a user's own
// absolute path may pass through links such as macOS's /tmp).
//
// Why: a pull request can commit perfgate-out, or perfgate-out/results,
// as a link to a folder outside the checkout, and a trusted job would
// then write its results, reports and bundles there.
func MkdirOut(dir, root string) error {
	clean := filepath.Clean(dir)
	var check []string
	rel, err := filepath.Rel(filepath.Clean(root), clean)
	switch {
	case !filepath.IsAbs(clean):
		rel = clean
		fallthrough
	case root != "" && err == nil && rel != "." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != "..":
		base := strings.TrimSuffix(clean, rel)
		p := ""
		for _, c := range strings.Split(rel, string(filepath.Separator)) {
			p = filepath.Join(p, c)
			check = append(check, base+p)
		}
	default:
		check = []string{clean}
	}
	for _, p := range check {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			break // nothing below a missing folder exists either
		}
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			to, _ := os.Readlink(p)
			return fmt.Errorf("output folder %q: %q (→ %q) is %w", dir, p, to, ErrOutLink)
		}
	}
	return os.MkdirAll(dir, 0o755)
}
