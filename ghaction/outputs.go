package ghaction

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/compare"
	"github.com/sethvargo/go-githubactions"
)

// Output is one step output: a name and its value.
type Output struct{ Name, Value string }

// Outputs writes step outputs to $GITHUB_OUTPUT. Each value is written as
// a heredoc with a fresh random delimiter (go-githubactions uses a fixed
// one, which a value could contain and so forge other outputs); a value
// holding its delimiter is impossible to write safely and is refused with a
// warning. Without GITHUB_OUTPUT it does nothing.
func Outputs(gha *githubactions.Action, getenv func(string) string, outs ...Output) {
	path := getenv("GITHUB_OUTPUT")
	if path == "" {
		return
	}
	var b strings.Builder
	for _, o := range outs {
		if o.Name == "verdict" && !slices.Contains(Verdicts(), o.Value) {
			// Only a documented value: a later step may put it in a shell.
			gha.Warningf("%s", fmt.Sprintf("perfgate: verdict %q is not one perfgate writes: the verdict output is \"error\"", o.Value))
			o.Value = "error"
		}
		delim := "ghadelimiter_" + randomToken()
		if strings.Contains(o.Value, delim) {
			gha.Warningf("perfgate: output %s holds its delimiter: not written", o.Name)
			continue
		}
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", o.Name, delim, o.Value, delim)
	}
	if err := appendFile(path, b.String()); err != nil {
		gha.Warningf("perfgate: writing outputs: %s", err.Error())
	}
}

// randomToken is 16 random bytes in hex.
func randomToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// appendFile appends s to the file at path, creating it.
func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, s); err != nil {
		f.Close()
		return fmt.Errorf("appending to %q: %w", path, err)
	}
	return f.Close()
}

// Verdicts are the values the action writes to its verdict output: a
// comparison's verdict, "baseline" (baseline mode) or "error". Nothing else
// is ever written there, whatever a bundle says.
func Verdicts() []string {
	return []string{string(compare.Pass), string(compare.Fail), string(compare.NoBaseline), string(compare.Incomparable), "inconclusive", "baseline", "error"}
}
