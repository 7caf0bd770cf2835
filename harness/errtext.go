package harness

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxErrBytes bounds a Sample's Err: a server chooses its error messages
// (a gRPC status message, an HTTP error body), and one that sends
// megabytes would otherwise be kept in the result file and printed whole.
const MaxErrBytes = 1024

// ClipErr returns s cut to MaxErrBytes at a character boundary, saying
// how long it was, as a copy: the cut string does not keep the original's
// memory alive.
func ClipErr(s string) string {
	if len(s) <= MaxErrBytes {
		return s
	}
	n := MaxErrBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n]) + fmt.Sprintf("… (%d bytes in all)", len(s))
}
