package docs_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/knee"
	"github.com/perfgate/perfgate/protocol"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
	"github.com/perfgate/perfgate/suite"
)

// readPage reads a page of docs/.
func readPage(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("reading docs/%s: %v", name, err)
	}
	return string(b)
}

// section is a heading and the lines under it, up to the next heading of
// the same or a higher level.
type section struct {
	level   int
	heading string
	body    string
}

// sections splits a markdown page at its headings of level ≤ max, outside
// code blocks.
func sections(page string, max int) []section {
	var out []section
	cur := section{}
	var body strings.Builder
	fence := false
	for line := range strings.SplitSeq(page, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(line, "#") {
			level := len(line) - len(strings.TrimLeft(line, "#"))
			if level <= max && strings.HasPrefix(line[level:], " ") {
				cur.body = body.String()
				out = append(out, cur)
				cur = section{level: level, heading: strings.TrimSpace(line[level:])}
				body.Reset()
				continue
			}
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	cur.body = body.String()
	return append(out, cur)
}

// find returns the section whose heading satisfies ok.
func find(t *testing.T, page, name string, max int, ok func(heading string) bool) section {
	t.Helper()
	for _, s := range sections(page, max) {
		if s.level > 0 && ok(s.heading) {
			return s
		}
	}
	t.Fatalf("docs/%s: no section found (level ≤ %d) for it", name, max)
	return section{}
}

// rowRE matches a table row whose first cell is one code span: the key,
// field or input the row documents.
var rowRE = regexp.MustCompile("(?m)^\\| `([^`]+)` \\|(.*)$")

// rows returns the first cells of the table rows in text, and the rest of
// each row.
func rows(text string) (keys []string, rest map[string]string) {
	rest = map[string]string{}
	for _, m := range rowRE.FindAllStringSubmatch(text, -1) {
		keys = append(keys, m[1])
		rest[m[1]] = m[2]
	}
	return keys, rest
}

// codeBlock returns the first fenced block of the given language in text.
func codeBlock(t *testing.T, text, lang, where string) string {
	t.Helper()
	start := strings.Index(text, "```"+lang+"\n")
	if start < 0 {
		t.Fatalf("%s: no ```%s block", where, lang)
	}
	text = text[start+len("```"+lang+"\n"):]
	end := strings.Index(text, "\n```")
	if end < 0 {
		t.Fatalf("%s: the ```%s block is not closed", where, lang)
	}
	return text[:end+1]
}

// diff reports what want has that got lacks, and the reverse.
func diff(want, got []string) (missing, extra []string) {
	w := map[string]bool{}
	for _, k := range want {
		w[k] = true
	}
	g := map[string]bool{}
	for _, k := range got {
		g[k] = true
		if !w[k] {
			extra = append(extra, k)
		}
	}
	for _, k := range want {
		if !g[k] {
			missing = append(missing, k)
		}
	}
	return missing, extra
}

// --- configuration.md -------------------------------------------------

// configKeys lists every key of perfgate.yaml by walking config.Config's
// yaml tags, as config.Parse's strict check does: `scenarios[].load.rate`
// for a list of mappings, `targets.<name>.ready` for a mapping of them.
func configKeys(t reflect.Type, prefix string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if tag == "" || tag == "-" {
				continue
			}
			p := tag
			if prefix != "" {
				p = prefix + "." + tag
			}
			*out = append(*out, p)
			configKeys(f.Type, p, out)
		}
	case reflect.Slice:
		configKeys(t.Elem(), prefix+"[]", out)
	case reflect.Map:
		configKeys(t.Elem(), prefix+".<name>", out)
	}
}

func allConfigKeys() []string {
	var keys []string
	configKeys(reflect.TypeOf(config.Config{}), "", &keys)
	// The walk adds "x[]" / "x.<name>" prefixes only when it descends into
	// a struct; keys of scalar lists and maps stay as they are.
	return keys
}

// TestConfigurationKeys keeps docs/configuration.md's reference tables in
// step with config.Config: every key has a row, and every row is a key.
func TestConfigurationKeys(t *testing.T) {
	page := readPage(t, "configuration.md")
	ref := find(t, page, "configuration.md", 2, func(h string) bool { return strings.HasPrefix(h, "Every key") })
	got, _ := rows(ref.body)
	missing, extra := diff(allConfigKeys(), got)
	for _, k := range missing {
		t.Errorf("docs/configuration.md: key %s (config.Config) has no row under \"Every key\": add `| `%s` | type | default | range | meaning |`", k, k)
	}
	for _, k := range extra {
		t.Errorf("docs/configuration.md: row %s is not a key of config.Config: remove it or fix its path", k)
	}
}

// exampleKeys collects the key paths used in a YAML document, normalized
// as configKeys writes them.
func exampleKeys(n *yaml.Node, t reflect.Type, prefix string, seen map[string]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.DocumentNode {
		exampleKeys(n.Content[0], t, prefix, seen)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			for j := range t.NumField() {
				f := t.Field(j)
				if strings.Split(f.Tag.Get("yaml"), ",")[0] != k {
					continue
				}
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				seen[p] = true
				exampleKeys(v, f.Type, p, seen)
			}
		}
	case reflect.Slice:
		for _, c := range n.Content {
			exampleKeys(c, t.Elem(), prefix+"[]", seen)
		}
	case reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			exampleKeys(n.Content[i+1], t.Elem(), prefix+".<name>", seen)
		}
	}
}

// TestConfigurationExample parses the complete example of
// docs/configuration.md with config.Parse and checks that it uses every
// key.
func TestConfigurationExample(t *testing.T) {
	page := readPage(t, "configuration.md")
	ex := find(t, page, "configuration.md", 2, func(h string) bool { return strings.HasPrefix(h, "A complete example") })
	text := codeBlock(t, ex.body, "yaml", "docs/configuration.md, A complete example")
	dir := t.TempDir()
	// The files the example names must exist where config.Parse checks
	// them (the TLS files).
	for _, f := range []string{"certs/ca.pem", "certs/client.pem", "certs/client-key.pem"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "perfgate.yaml")
	if _, err := config.Parse(path, []byte(text)); err != nil {
		t.Fatalf("docs/configuration.md: the complete example does not parse: %v", err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(text), &root); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	exampleKeys(&root, reflect.TypeOf(config.Config{}), "", seen)
	for _, k := range allConfigKeys() {
		if !seen[k] {
			t.Errorf("docs/configuration.md: the complete example does not use key %s: add it", k)
		}
	}
}

// TestConfigurationDefaults checks the defaults the page states against
// the code's constants.
func TestConfigurationDefaults(t *testing.T) {
	page := readPage(t, "configuration.md")
	_, rest := rows(page)
	d := config.Defaults()
	k := knee.DefaultOptions(0)
	pct := func(f float64) string { return strconv.FormatFloat(math.Round(f*1e6)/1e4, 'g', -1, 64) + "%" }
	for key, want := range map[string]string{
		"slo.max_error_rate":           pct(d.MaxErrorRate),
		"capacity.headroom":            fmtFloat(d.Headroom),
		"gate.p99_regression":          pct(d.P99Regression),
		"gate.max_qps_regression":      pct(d.MaxQPSRegression),
		"gate.confidence":              fmtFloat(d.Confidence),
		"baselines":                    d.Baselines,
		"targets.<name>.ready_timeout": d.ReadyTimeout.String(),
		"scenarios[].protocol":         d.Protocol,
		"scenarios[].load.duration":    shortDur(d.Duration),
		"scenarios[].load.warmup":      shortDur(d.Warmup),
		"scenarios[].load.trials":      fmtInt(d.Trials),
		"scenarios[].restarts":         fmtInt(d.Restarts),
		"scenarios[].load.estimates":   fmtInt(d.Estimates),
		"scenarios[].load.speed":       fmtFloat(d.Speed),
		"scenarios[].load.start":       fmtFloat(k.Start),
		"scenarios[].load.resolution":  pct(k.Resolution),
		"scenarios[].load.budget":      shortDur(suite.DefaultSweepBudget),
		"scenarios[].timeout":          shortDur(protocol.DefaultTimeout),
		"scenarios[].prompt_tokens":    fmtInt(protocol.DefaultPromptTokens),
		"scenarios[].max_tokens":       fmtInt(protocol.DefaultMaxTokens),
		"capacity.lead_time":           shortDur(sizing.DefaultLeadTime),
		"capacity.scale_in_after":      shortDur(sizing.DefaultScaleInAfter),
	} {
		r, ok := rest[key]
		if !ok {
			t.Errorf("docs/configuration.md: no row for %s", key)
			continue
		}
		cells := strings.Split(r, "|")
		if len(cells) < 3 {
			t.Errorf("docs/configuration.md: row %s has too few cells", key)
			continue
		}
		def := cells[1]
		m := codeSpanRE.FindStringSubmatch(def)
		if m == nil || !sameValue(m[1], want) {
			t.Errorf("docs/configuration.md: %s: the default cell %q does not begin with `%s`, the code's default", key, strings.TrimSpace(def), want)
		}
	}
}

var codeSpanRE = regexp.MustCompile("`([^`]*)`")

// sameValue says whether a value written on the page is want: the same
// text, or the same duration written differently (60s and 1m0s).
func sameValue(got, want string) bool {
	if got == want {
		return true
	}
	g, err1 := time.ParseDuration(got)
	w, err2 := time.ParseDuration(want)
	return err1 == nil && err2 == nil && g == w
}

// boundPath writes a config.Bound's key as the page does.
func boundPath(key string) string {
	switch {
	case strings.HasPrefix(key, "load."):
		return "scenarios[]." + key
	case strings.HasPrefix(key, "scenarios."):
		return "scenarios[]." + strings.TrimPrefix(key, "scenarios.")
	case strings.HasPrefix(key, "targets."):
		return "targets.<name>." + strings.TrimPrefix(key, "targets.")
	}
	return key
}

// TestConfigurationRanges checks that the range cell of every numeric key
// says what config.Bounds, the ranges perfgate enforces, says.
func TestConfigurationRanges(t *testing.T) {
	page := readPage(t, "configuration.md")
	_, rest := rows(page)
	for _, b := range config.Bounds() {
		key := boundPath(b.Key)
		r, ok := rest[key]
		if !ok {
			t.Errorf("docs/configuration.md: no row for %s (config.Bounds has %s)", key, b.Key)
			continue
		}
		cells := strings.Split(r, "|")
		if len(cells) < 4 {
			t.Errorf("docs/configuration.md: row %s has too few cells", key)
			continue
		}
		if want := b.Range.String(); !strings.Contains(cells[2], want) {
			t.Errorf("docs/configuration.md: %s: the range cell %q does not say %q (config.Bounds)", key, strings.TrimSpace(cells[2]), want)
		}
	}
}

func fmtFloat(f float64) string { b, _ := json.Marshal(f); return string(b) }
func fmtInt(i int) string       { b, _ := json.Marshal(i); return string(b) }

// shortDur writes 30s rather than time.Duration's 30s, 5m rather than 5m0s.
func shortDur(d time.Duration) string {
	s := d.String()
	for _, suf := range []string{"m0s", "h0m"} {
		if strings.HasSuffix(s, suf) {
			s = strings.TrimSuffix(s, suf[1:])
		}
	}
	return s
}

// --- formats.md -------------------------------------------------------

// structTypes lists the struct types reachable from t through JSON fields,
// t first.
func structTypes(t reflect.Type, seen map[reflect.Type]bool, out *[]reflect.Type) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == reflect.TypeOf(time.Time{}) || seen[t] {
		return
	}
	seen[t] = true
	*out = append(*out, t)
	for i := range t.NumField() {
		f := t.Field(i)
		if name := jsonName(f); name == "" {
			continue
		}
		structTypes(f.Type, seen, out)
	}
}

func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := strings.Split(f.Tag.Get("json"), ",")[0]
	if tag == "-" {
		return ""
	}
	if tag == "" {
		return f.Name
	}
	return tag
}

func jsonFields(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		if n := jsonName(t.Field(i)); n != "" {
			names = append(names, n)
		}
	}
	return names
}

var formats = []struct {
	schema string
	root   reflect.Type
}{
	{result.Schema, reflect.TypeOf(result.Result{})},
	{compare.Schema, reflect.TypeOf(compare.Comparison{})},
	{sizing.Schema, reflect.TypeOf(sizing.Sizing{})},
	{result.ManifestSchema, reflect.TypeOf(result.Manifest{})},
}

// TestFormatsFields keeps docs/formats.md in step with the Go types of the
// JSON formats: each struct type reachable from a format's root has
// a section (### TypeName) under the format's heading, with one row per
// JSON field and no row for a field that does not exist.
func TestFormatsFields(t *testing.T) {
	page := readPage(t, "formats.md")
	for _, f := range formats {
		sec := find(t, page, "formats.md", 2, func(h string) bool { return strings.Contains(h, f.schema) })
		subs := sections(sec.body, 3)
		var types []reflect.Type
		structTypes(f.root, map[reflect.Type]bool{}, &types)
		documented := map[string]bool{}
		for _, typ := range types {
			var body string
			found := false
			for _, s := range subs {
				if s.level == 3 && strings.Fields(s.heading)[0] == typ.Name() {
					body, found = s.body, true
				}
			}
			if !found {
				t.Errorf("docs/formats.md, %s: no section \"### %s\" for %s (fields %s)", f.schema, typ.Name(), typ, strings.Join(jsonFields(typ), ", "))
				continue
			}
			documented[typ.Name()] = true
			got, _ := rows(body)
			missing, extra := diff(jsonFields(typ), got)
			for _, k := range missing {
				t.Errorf("docs/formats.md, %s, ### %s: field %s (%s) has no row", f.schema, typ.Name(), k, typ)
			}
			for _, k := range extra {
				t.Errorf("docs/formats.md, %s, ### %s: row %s is not a JSON field of %s", f.schema, typ.Name(), k, typ)
			}
		}
		for _, s := range subs {
			if s.level == 3 && !documented[strings.Fields(s.heading)[0]] {
				t.Errorf("docs/formats.md, %s: section %q is not a type of the format: remove it or rename it after the Go type", f.schema, s.heading)
			}
		}
	}
}

// TestFormatsExamples decodes each format's example strictly (no unknown
// field) into its Go type, and checks the schema tag and, for results,
// that every histogram decodes.
func TestFormatsExamples(t *testing.T) {
	page := readPage(t, "formats.md")
	for _, f := range formats {
		sec := find(t, page, "formats.md", 2, func(h string) bool { return strings.Contains(h, f.schema) })
		text := codeBlock(t, sec.body, "json", "docs/formats.md, "+f.schema)
		v := reflect.New(f.root)
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v.Interface()); err != nil {
			t.Errorf("docs/formats.md, %s: the example does not decode strictly into %s: %v", f.schema, f.root, err)
			continue
		}
		if got := v.Elem().FieldByName("Schema").String(); got != f.schema {
			t.Errorf("docs/formats.md, %s: the example's schema is %q", f.schema, got)
		}
		if r, ok := v.Interface().(*result.Result); ok {
			if len(r.Trials) == 0 {
				t.Errorf("docs/formats.md: the result example has no trial")
			}
			for i, tr := range r.Trials {
				if _, err := result.DecodeHistogram(tr.Histogram); err != nil {
					t.Errorf("docs/formats.md: the result example's trials[%d].histogram: %v", i, err)
				}
			}
		}
	}
}

// --- action.md --------------------------------------------------------

type actionYML struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]any `yaml:"outputs"`
}

// TestActionInputs keeps docs/action.md in step with action.yml: one row
// per input with action.yml's default, one row per output, and no row for
// an input or output that does not exist.
func TestActionInputs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionYML
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	page := readPage(t, "action.md")
	in := find(t, page, "action.md", 2, func(h string) bool { return h == "Inputs" })
	names, rest := rows(in.body)
	var want []string
	for n := range a.Inputs {
		want = append(want, n)
	}
	sort.Strings(want)
	missing, extra := diff(want, names)
	for _, k := range missing {
		t.Errorf("docs/action.md: input %s of action.yml has no row under Inputs", k)
	}
	for _, k := range extra {
		t.Errorf("docs/action.md: row %s under Inputs is not an input of action.yml", k)
	}
	for _, n := range want {
		r, ok := rest[n]
		if !ok {
			continue
		}
		def := strings.TrimSpace(strings.Split(r, "|")[0])
		wantDef := "none"
		if d := a.Inputs[n].Default; d != "" {
			wantDef = "`" + d + "`"
		}
		if def != wantDef {
			t.Errorf("docs/action.md: input %s: default cell is %q, action.yml says %s", n, def, wantDef)
		}
	}
	out := find(t, page, "action.md", 2, func(h string) bool { return h == "Outputs" })
	names, _ = rows(out.body)
	want = want[:0]
	for n := range a.Outputs {
		want = append(want, n)
	}
	missing, extra = diff(want, names)
	for _, k := range missing {
		t.Errorf("docs/action.md: output %s of action.yml has no row under Outputs", k)
	}
	for _, k := range extra {
		t.Errorf("docs/action.md: row %s under Outputs is not an output of action.yml", k)
	}
}

// --- the index and the README -----------------------------------------

var linkRE = regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)`)

// slug is GitHub's anchor for a heading: lower case, punctuation dropped,
// spaces as hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the anchors of a markdown file's headings.
func anchors(page string) map[string]bool {
	out := map[string]bool{}
	for _, s := range sections(page, 6) {
		if s.level > 0 {
			out[slug(s.heading)] = true
		}
	}
	return out
}

// TestIndex checks that docs/README.md links every page in docs/, that
// every relative link of every page and of the repository's README
// resolves, and that README.md links the reference pages.
func TestIndex(t *testing.T) {
	index := readPage(t, "README.md")
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if p != "README.md" && !strings.Contains(index, "]("+p+")") {
			t.Errorf("docs/README.md does not link %s: add it to the index", p)
		}
	}
	check := func(file, base string) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(string(b), -1) {
			target, anchor := m[1], strings.TrimPrefix(m[2], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path := file
			if target != "" {
				path = filepath.Join(base, target)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %q does not resolve: %v", file, target, err)
				continue
			}
			if anchor == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			page, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(page))[anchor] {
				t.Errorf("%s: link %s#%s: %s has no heading with that anchor", file, target, anchor, path)
			}
		}
	}
	for _, p := range pages {
		check(p, ".")
	}
	readme := filepath.Join("..", "README.md")
	check(readme, "..")
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"docs/README.md", "docs/configuration.md", "docs/formats.md", "docs/method.md", "docs/action.md"} {
		if !strings.Contains(string(b), "]("+p) {
			t.Errorf("README.md does not link %s", p)
		}
	}
}

// TestNoOutsideContract checks that no file of the repository sends its
// reader to a document the repository does not have: the design notes
// outside the checkout.
func TestNoOutsideContract(t *testing.T) {
	// The design notes the project started from lie outside the checkout
	// (a tool's path there, such as bench's prebuilt wrk2, is not a
	// document). Built so that this file does not match itself.
	banned := []string{"shared/" + "DESIGN", "DESIGN" + ".md", "shared/" + "STYLE"}
	root := ".."
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "testdata" || n == "perfgate-demo" || n == "perfgate-out" {
				return filepath.SkipDir
			}
			return nil
		}
		if !slices.Contains([]string{".go", ".md", ".yml", ".yaml", ".sh", ".txt"}, filepath.Ext(p)) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range banned {
			if i := bytes.Index(b, []byte(s)); i >= 0 {
				line := bytes.Count(b[:i], []byte("\n")) + 1
				t.Errorf("%s:%d mentions %s, which users of the repository do not have: point to the page in docs/ instead (docs/README.md lists them)", p, line, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
