package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/perfgate/perfgate/compare"
)

// esc makes an untrusted string (a name from perfgate.yaml) inert in
// GitHub-flavoured markdown, table cells included: HTML metacharacters
// become entities, markdown punctuation is backslash-escaped, '@' and '#'
// are followed by a zero-width joiner so that GitHub neither mentions
// anyone (@team) nor links an issue (#123, owner/repo#123) — GitHub
// still mentions after "&#64;" and links after "\#" — and line breaks and
// control characters become spaces.
func esc(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '@':
			b.WriteString("@" + zwj)
		case '#':
			b.WriteString("\\#" + zwj)
		case '|', '\\', '`', '*', '_', '[', ']', '(', ')', '~', '!', '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
				b.WriteByte(' ')
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// zwj is the zero-width joiner esc puts after '@' and '#'.
const zwj = "\u200d"

// plain makes an untrusted string safe for a terminal: control characters
// (escape sequences among them) become '?', so a name cannot move the cursor
// or recolour the screen.
func plain(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}

// mermaidText keeps only characters that cannot end or disturb a Mermaid
// block or string: letters, digits, space and . , _ / + - : %.
func mermaidText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			return r
		case strings.ContainsRune(" ._/+-:%", r):
			return r
		}
		return '-'
	}, s)
}

// ms formats a latency in milliseconds with three significant digits.
func ms(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a < 1:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case a < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return thousands(v, 0)
}

// qps formats a rate: whole numbers with thousands separators from 100 up.
func qps(v float64) string {
	if math.Abs(v) < 100 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return thousands(v, 0)
}

// thousands formats v with dec decimals and commas between thousands.
func thousands(v float64, dec int) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', dec, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 && s != strconv.FormatFloat(0, 'f', dec, 64) {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// money formats dollars: $10,950.
func money(v float64) string {
	s := thousands(v, 0)
	if strings.HasPrefix(s, "-") {
		return "-$" + s[1:]
	}
	return "$" + s
}

// signedMoney is money with an explicit sign.
func signedMoney(v float64) string {
	if v > 0 {
		return "+" + money(v)
	}
	if v == 0 {
		return "±$0"
	}
	return money(v)
}

// pct formats a signed change in percent, or in points when abs.
func pct(v float64, abs bool) string {
	unit := "%"
	if abs {
		unit = " pp"
	}
	return fmt.Sprintf("%+.1f%s", v, unit)
}

// interval formats a metric's confidence interval of its change.
func interval(m *compare.Metric) string {
	hi := fmt.Sprintf("%+.1f", m.CIPct[1])
	if m.CIOpenHigh {
		hi = "∞"
	}
	return fmt.Sprintf("[%+.1f, %s]", m.CIPct[0], hi)
}

// changeCI formats an attributed change with its interval.
func changeCI(c *compare.Change) string {
	if c == nil {
		return "—"
	}
	v := c.Verdict
	if c.Descriptive {
		v = "(descriptive)"
	}
	s := fmt.Sprintf("%s [%+.1f, %+.1f] %s", pct(c.DeltaPct, false), c.CIPct[0], c.CIPct[1], v)
	if c.Ratio > 0 {
		s = fmt.Sprintf("×%.3f ", c.Ratio) + s
	}
	return s
}

// ladderSum says how a ladder's steps add up: log ratios sum to the
// whole's; no interaction without a factorial set of rungs.
func ladderSum(l *compare.LadderAttribution) string {
	var sum float64
	for _, st := range l.Steps {
		sum += st.P99.LogRatio
	}
	return fmt.Sprintf("log ratios of the steps add up to %+.3f = log of the whole's ×%.3f; no interaction is estimated (that needs a factorial set of rungs)",
		sum, l.Whole.P99.Ratio)
}

// signedInt formats an integer change: +3, -2, ±0.
func signedInt(n int) string {
	if n == 0 {
		return "±0"
	}
	return fmt.Sprintf("%+d", n)
}

// mark is the emoji of a scenario or metric verdict.
func mark(v string) string {
	switch v {
	case compare.Regressed:
		return "🔴"
	case compare.Improved:
		return "🟢"
	case compare.Unchanged:
		return "⚪"
	case compare.Inconclusive:
		return "🟡"
	case compare.NoBaseline:
		return "➖"
	}
	return "❔"
}

// verdictMark is the emoji of a comparison's top-level verdict.
func verdictMark(v string) string {
	switch v {
	case compare.Pass:
		return "✅"
	case compare.Fail:
		return "❌"
	case compare.Incomparable:
		return "⚠️"
	case compare.NoBaseline:
		return "➖"
	case compare.Undecided:
		return "🟡"
	}
	return "❔"
}

// plural is n with its noun, pluralized with s.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
