package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/sizing"
)

// Format is a rendering of data as text: the terminal's, GitHub markdown,
// or the data's JSON document.
type Format string

// The formats.
const (
	FormatText     Format = "text"
	FormatMarkdown Format = "markdown"
	FormatJSON     Format = "json"
)

// Formats are the names ParseFormat accepts, in the order usage lists them.
var Formats = []string{string(FormatText), string(FormatMarkdown), string(FormatJSON)}

// ParseFormat reads a --format value: text, markdown or json.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if s == f {
			return Format(s), nil
		}
	}
	return "", Format(s).unknown()
}

// unknown is the error for a format ParseFormat does not know.
func (f Format) unknown() error {
	return fmt.Errorf("--format %q: want %s or %s", string(f), strings.Join(Formats[:len(Formats)-1], ", "), Formats[len(Formats)-1])
}

// Render writes the report r in format f; markdown is bounded as the step
// summary is (SummaryMaxBytes).
func Render(w io.Writer, r *Report, f Format) error {
	switch f {
	case FormatText:
		return Text(w, r)
	case FormatMarkdown:
		return Markdown(w, r, Options{MaxBytes: SummaryMaxBytes})
	case FormatJSON:
		return JSON(w, r)
	}
	return f.unknown()
}

// RenderSizing writes the sizing plan s in format f.
func RenderSizing(w io.Writer, s *sizing.Sizing, f Format) error {
	switch f {
	case FormatText:
		return SizingText(w, s)
	case FormatMarkdown:
		return SizingMarkdown(w, s)
	case FormatJSON:
		return SizingJSON(w, s)
	}
	return f.unknown()
}
