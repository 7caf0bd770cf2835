package telemetry

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// A /metrics page can be large (a server exporting thousands of series),
// and expfmt's parsed form is about twenty times its text. perfgate reads
// a handful of families (readFamilies), so a scrape is filtered line by
// line as it is read: only those families' lines reach the parser, and
// at most maxScrapeSeries of their samples. Lines that are not of the
// text format at all still reach it, so that a page that is not
// Prometheus text (HTML, JSON) is refused as before.
const (
	// maxScrapeSeries caps the samples of the families perfgate reads
	// (Triton: one series a model and version; vLLM: a histogram's
	// buckets a model).
	maxScrapeSeries = 10_000
	// maxScrapeLine caps one line of a scrape.
	maxScrapeLine = 1 << 20
)

// readFamilies are the families perfgate reads from a scrape.
var readFamilies = []string{
	tritonSuccess, tritonQueue, tritonCompute,
	vllmQueue, vllmQueueV0, vllmInference, vllmPrefill, vllmDecode,
	tritonCacheHits, tritonCacheMisses, vllmPrefixQueries, vllmPrefixHits, vllmPrefixRateV0,
}

// familySuffixes are what the text format appends to a family's name on
// its samples (histograms, summaries, counters).
var familySuffixes = []string{"", "_total", "_bucket", "_sum", "_count", "_created"}

// filterScrape reads a text exposition from r and returns the lines of
// readFamilies (and any line that is not of the format), and how many
// families r held in all (counted as runs of one name, the format's
// grouping).
func filterScrape(r io.Reader) ([]byte, int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxScrapeLine)
	var out bytes.Buffer
	families, series := 0, 0
	last := ""
	for sc.Scan() {
		line := sc.Text()
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		name, comment := metricName(t)
		if name == "" {
			if !comment {
				out.WriteString(line + "\n") // not the format: the parser says so
			}
			continue
		}
		base := baseName(name)
		if base != last {
			families++
			last = base
		}
		if !wanted(name) {
			continue
		}
		if !comment {
			if series++; series > maxScrapeSeries {
				return nil, families, fmt.Errorf("more than %d samples of the families perfgate reads: refused", maxScrapeSeries)
			}
		}
		out.WriteString(line + "\n")
	}
	if err := sc.Err(); err != nil {
		return nil, families, err
	}
	return out.Bytes(), families, nil
}

// metricName is the metric a line of the format names: a sample's name,
// or the name a "# TYPE" or "# HELP" comment describes (comment true).
// It is "" for another comment, and for a line that does not start with
// a metric name (not the format).
func metricName(t string) (name string, comment bool) {
	if strings.HasPrefix(t, "#") {
		f := strings.Fields(t)
		if len(f) >= 3 && (f[1] == "TYPE" || f[1] == "HELP") {
			return f[2], true
		}
		return "", true
	}
	i := strings.IndexAny(t, "{ \t")
	if i < 0 {
		i = len(t)
	}
	name = t[:i]
	for j, c := range name {
		ok := c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 0 && c >= '0' && c <= '9'
		if !ok {
			return "", false
		}
	}
	return name, false
}

// baseName is name without a suffix the format appends.
func baseName(name string) string {
	for _, s := range familySuffixes[1:] {
		if b, ok := strings.CutSuffix(name, s); ok {
			return b
		}
	}
	return name
}

// wanted reports whether name is a sample or family of readFamilies.
func wanted(name string) bool {
	for _, f := range readFamilies {
		if rest, ok := strings.CutPrefix(name, f); ok {
			for _, s := range familySuffixes {
				if rest == s {
					return true
				}
			}
		}
	}
	return false
}
