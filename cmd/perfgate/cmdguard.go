package main

import (
	"bytes"
	"io"
	"unicode"
	"unicode/utf8"
)

// cmdGuard passes output through, defusing every form of workflow command
// the GitHub Actions runner parses, so that text a pull request controls
// (scenario names, a target's log lines, error messages quoting them)
// cannot set outputs, add masks, stop commands or forge annotations. The
// action's own commands are written past the guard (see unguarded).
//
// The runner (actions/runner, ActionCommand.cs) reads a step's output with
// .NET's ReadLine, so a line ends at "\n", "\r" or "\r\n", and takes a line
// as a command when
//
//   - after String.TrimStart (every char.IsWhiteSpace rune: blanks, NBSP,
//     U+2000–U+200A, U+3000, U+2028, …) it starts with "::" (TryParseV2),
//     or
//   - it contains "##[" anywhere (the legacy TryParse).
//
// Both tests use .NET's culture-sensitive StartsWith and IndexOf, which
// under ICU skip "ignorable" runes (zero-width spaces and joiners, soft
// hyphens, controls, combining marks), so the guard looks at a line with
// those removed and treats them as whitespace. A line whose visible start
// is "::" is prefixed with "· "; in a line with "##[" a "·" goes before
// the "[". Both are over-approximations: an odd line may get a mark it
// did not need, never the other way round.
//
// The guard holds a line until its end; a line longer than maxGuardLine
// is written in pieces, the first piece defused when its start is
// undecided (all blanks so far).
type cmdGuard struct {
	w io.Writer
	// line holds the current line's bytes not yet written.
	line []byte
	// started: part of the current line has been written (its start is
	// decided).
	started bool
	// hashes counts the '#' runes that end the written part of the line,
	// ignorable runes skipped, for a "##[" split across pieces.
	hashes int
}

// maxGuardLine is how much of one line the guard holds before writing it
// in pieces (a target that logs megabytes without a newline).
const maxGuardLine = 64 << 10

// guardCommands wraps w in a cmdGuard (once).
func guardCommands(w io.Writer) io.Writer {
	if _, ok := w.(*cmdGuard); ok || w == nil {
		return w
	}
	return &cmdGuard{w: w}
}

// unguarded returns the writer under a cmdGuard, for the action's own
// workflow commands; an unfinished line is written first and ended, so
// that the action's command starts a line of its own.
func unguarded(w io.Writer) io.Writer {
	if g, ok := w.(*cmdGuard); ok {
		g.endLine()
		return g.w
	}
	return w
}

// flushGuard writes out an unfinished line held by w, if w is a guard
// (main calls it before exiting).
func flushGuard(w io.Writer) {
	if g, ok := w.(*cmdGuard); ok {
		g.endLine()
	}
}

// cmdDefuse is what a would-be command line is prefixed with; cmdBreak
// goes between "##" and "[".
const (
	cmdDefuse = "· "
	cmdBreak  = "·"
)

// Write implements io.Writer.
func (g *cmdGuard) Write(p []byte) (int, error) {
	n := len(p)
	var out []byte
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			g.line = append(g.line, p...)
			p = nil
			if len(g.line) >= maxGuardLine {
				out = g.emit(out, false)
			}
			break
		}
		g.line = append(g.line, p[:i+1]...)
		p = p[i+1:]
		out = g.emit(out, true)
	}
	if len(out) == 0 {
		return n, nil
	}
	if _, err := g.w.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}

// endLine writes an unfinished line, followed by a newline.
func (g *cmdGuard) endLine() {
	if len(g.line) == 0 && !g.started {
		return
	}
	g.line = append(g.line, '\n')
	g.w.Write(g.emit(nil, true))
}

// emit appends the held line, defused, to out. With end, the held bytes
// end the line; without, they are a piece of a longer line (an
// incomplete UTF-8 rune at their end stays held).
func (g *cmdGuard) emit(out []byte, end bool) []byte {
	b := g.line
	if !end {
		// Keep a rune cut by the piece's end for the next piece.
		for k := 1; k <= utf8.UTFMax && k <= len(b); k++ {
			if utf8.RuneStart(b[len(b)-k]) {
				if !utf8.FullRune(b[len(b)-k:]) {
					b = b[:len(b)-k]
				}
				break
			}
		}
	}
	if !g.started {
		if start := visibleStart(b); start == "::" || (!end && (start == "" || start == ":")) {
			out = append(out, cmdDefuse...)
		}
		g.started = true
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case ignorable(r):
		case r == '[' && g.hashes >= 2:
			out = append(out, cmdBreak...)
			g.hashes = 0
		case r == '#':
			g.hashes++
		default:
			g.hashes = 0
		}
		out = append(out, b[i:i+n]...)
		i += n
	}
	g.line = append(g.line[:0], g.line[len(b):]...)
	if end {
		g.started, g.hashes = false, 0
	}
	return out
}

// visibleStart returns up to the first two runes of b that are neither
// whitespace nor ignorable, as a string; "::" means a command. When b's
// visible part starts with one ':' followed by something else, it
// returns ":x".
func visibleStart(b []byte) string {
	var got []rune
	for i := 0; i < len(b) && len(got) < 2; {
		r, n := utf8.DecodeRune(b[i:])
		i += n
		if unicode.IsSpace(r) || ignorable(r) {
			continue
		}
		got = append(got, r)
	}
	switch {
	case len(got) == 0:
		return ""
	case got[0] != ':':
		return "x"
	case len(got) == 1:
		return ":"
	case got[1] == ':':
		return "::"
	}
	return ":x"
}

// ignorable reports whether a culture-sensitive .NET comparison may skip
// r: controls (but the line breaks, which never reach here inside a
// line), format characters (zero-width space, joiners, soft hyphen, BOM),
// combining marks, and anything not graphic (unassigned, private use,
// invalid UTF-8).
func ignorable(r rune) bool {
	if unicode.IsSpace(r) {
		return r != ' ' && r < 0x80 // \t, \v, \f: controls, not spaces, to ICU
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me) || !unicode.IsGraphic(r)
}
