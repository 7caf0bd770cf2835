package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/procfs"
	"github.com/perfgate/perfgate/targetproc"
)

// tokenInputs are the names the Action's token arrives under (action.yml
// maps the github-token input to INPUT_GITHUB_TOKEN; a runner's own
// INPUT_* naming keeps the dash).
var tokenInputs = []string{"INPUT_GITHUB_TOKEN", "INPUT_GITHUB-TOKEN"}

// exposure is one secret of perfgate's shown by another process's
// environment block: a process the target, running as the same user,
// could read.
type exposure struct {
	PID  int
	Comm string
	// Name is the variable's name in that process; Token says its value
	// is the Action's token.
	Name  string
	Token bool
}

func (x exposure) String() string { return fmt.Sprintf("%s in pid %d (%s)", x.Name, x.PID, x.Comm) }

// secretValues maps the values of the secrets in environ (the variables
// targetproc.SensitiveEnv marks, the Action's inputs but its token left
// out: they are settings) to whether the value is the Action's token.
// Values under 8 bytes are left out: they would match by chance.
func secretValues(environ []string) map[string]bool {
	vals := map[string]bool{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		token := slices.Contains(tokenInputs, strings.ToUpper(k))
		if len(v) < 8 || !targetproc.SensitiveEnv(k) || (strings.HasPrefix(strings.ToUpper(k), "INPUT_") && !token) {
			continue
		}
		vals[v] = vals[v] || token
	}
	return vals
}

// ancestorExposures walks from pid's parent up to pid 1 (included: in a
// container it may be the shell) under the /proc
// root and returns every entry of a readable environment block whose value
// is one of secrets. An ancestor whose block perfgate cannot read (another
// user's, a non-dumpable process's) is one a target of the same user
// cannot read either.
//
// Why ancestors: the step that runs perfgate is its parent, and a shell
// that starts perfgate without exec stays alive, holding in its block the
// environment the runner gave it, token included, for as long as perfgate
// runs.
func ancestorExposures(root string, pid int, secrets map[string]bool) []exposure {
	var out []exposure
	for n := 0; n < 64; n++ {
		st, err := procfs.ReadStat(root, pid)
		if err != nil || st.PPID <= 0 {
			return out
		}
		pid = st.PPID
		block, err := readEnviron(filepath.Join(root, strconv.Itoa(pid), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(block, []byte{0}) {
			k, v, ok := bytes.Cut(kv, []byte("="))
			if !ok {
				continue
			}
			if token, secret := secrets[string(v)]; secret {
				out = append(out, exposure{PID: pid, Comm: procfs.Comm(root, pid), Name: string(k), Token: token})
			}
		}
	}
	return out
}

// maxEnviron bounds the read of one environment block (the kernel's own
// limit on argv plus envp is a quarter of the stack limit, 2 MiB by
// default).
const maxEnviron = 8 << 20

func readEnviron(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxEnviron))
}

// errTokenExposed refuses to start targets while an ancestor shows the
// Action's token.
func tokenExposed(xs []exposure) error {
	var where []string
	for _, x := range xs {
		if x.Token {
			where = append(where, x.String())
		}
	}
	if len(where) == 0 {
		return nil
	}
	return usageErr("action: the Action's token is in the environment of a process that started perfgate (%s): "+
		"any target, running as the same user, could read it from /proc/PID/environ, so none is started; "+
		"run perfgate with exec (`exec \"$PERFGATE_BIN\" action`, as action.yml does) so that no shell stays "+
		"behind holding the token (docs/hardening.md)", strings.Join(where, ", "))
}

// otherExposures says which other secrets an ancestor shows, for a
// warning: perfgate cannot close another process.
func otherExposures(xs []exposure) string {
	var where []string
	for _, x := range xs {
		if !x.Token {
			where = append(where, x.String())
		}
	}
	return strings.Join(where, ", ")
}
