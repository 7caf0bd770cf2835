package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/internal/textfmt"
)

// esc makes an untrusted string (a name from perfgate.yaml) inert in
// GitHub-flavoured markdown, table cells included (textfmt.Markdown).
func esc(s string) string { return textfmt.Markdown(s) }

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
func thousands(v float64, dec int) string { return textfmt.Thousands(v, dec) }

// num formats a figure with as few decimals as it needs, at most two
// (textfmt.Num, as the sizing plan's own formula writes it).
func num(v float64) string { return textfmt.Num(v) }

// codeSpan puts an untrusted string (a file name, a git ref) in a markdown
// code span, where nothing is markup: a backtick, which would end it,
// becomes ', '|' is escaped for table cells and line breaks become spaces.
func codeSpan(s string) string {
	return "`" + strings.NewReplacer("`", "'", "|", `\|`, "\n", " ", "\r", " ").Replace(s) + "`"
}

// money formats dollars: $10,950.00.
func money(v float64) string { return textfmt.Money(v) }

// signedMoney is money with an explicit sign.
func signedMoney(v float64) string { return textfmt.SignedMoney(v) }

// pct formats a signed change: "+17.8%", or in percentage points when
// abs: "-0.10 pp".
func pct(v float64, abs bool) string {
	if abs {
		return fmt.Sprintf("%+.2f%s", v, unit(abs))
	}
	return fmt.Sprintf("%+.1f%s", v, unit(abs))
}

// interval formats a metric's confidence interval of its change (ciText).
func interval(m *compare.Metric) string { return ciText(m.CIPct, m.Absolute, m.CIOpenHigh) }

// signedInt formats an integer change: +3, -2, ±0.
func signedInt(n int) string { return textfmt.SignedInt(n) }

// mark is the emoji of a scenario or metric verdict.
func mark(v compare.Verdict) string {
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
func verdictMark(v compare.Verdict) string {
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
