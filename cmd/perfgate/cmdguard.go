package main

import (
	"bytes"
	"io"
)

// cmdGuard passes output through, except that a line which would start
// (after blanks) with "::" — a workflow command for the GitHub Actions
// runner — is prefixed with "· " so that it stays text. perfgate prints
// text a pull request controls (scenario names, a target's log lines,
// error messages quoting them): on a runner, such a line could otherwise
// set outputs, add masks, stop commands or forge annotations. The
// action's own commands are written past the guard (see unguarded).
type cmdGuard struct {
	w io.Writer
	// pending holds the start of the current line while it could still
	// become a command: blanks and a prefix of "::".
	pending []byte
	// decided: the current line is known to be plain text (or defused).
	decided bool
}

// guardCommands wraps w in a cmdGuard (once).
func guardCommands(w io.Writer) io.Writer {
	if _, ok := w.(*cmdGuard); ok || w == nil {
		return w
	}
	return &cmdGuard{w: w}
}

// unguarded returns the writer under a cmdGuard, for the action's own
// workflow commands; any undecided start of a line is written first.
func unguarded(w io.Writer) io.Writer {
	if g, ok := w.(*cmdGuard); ok {
		g.flush()
		return g.w
	}
	return w
}

// cmdDefuse is what a would-be command line is prefixed with.
const cmdDefuse = "· "

// Write implements io.Writer.
func (g *cmdGuard) Write(p []byte) (int, error) {
	out := make([]byte, 0, len(p)+8)
	for _, c := range p {
		switch {
		case c == '\n':
			out = append(out, g.pending...)
			out = append(out, c)
			g.pending, g.decided = g.pending[:0], false
			continue
		case g.decided:
			out = append(out, c)
			continue
		}
		g.pending = append(g.pending, c)
		t := bytes.TrimLeft(g.pending, " \t\r\v\f")
		switch {
		case len(t) == 0 || (len(t) == 1 && t[0] == ':'):
			// Still undecided.
		case bytes.HasPrefix(t, []byte("::")):
			out = append(out, cmdDefuse...)
			out = append(out, g.pending...)
			g.pending, g.decided = g.pending[:0], true
		default:
			out = append(out, g.pending...)
			g.pending, g.decided = g.pending[:0], true
		}
	}
	if len(out) == 0 {
		return len(p), nil
	}
	if _, err := g.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush writes an undecided line start as it is (it holds no command).
func (g *cmdGuard) flush() {
	if len(g.pending) > 0 {
		g.w.Write(g.pending)
		g.pending = g.pending[:0]
		g.decided = true
	}
}
