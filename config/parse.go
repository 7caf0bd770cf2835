package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/perfgate/perfgate/internal/capread"
	"math"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Error is a configuration error at a place in a file.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ReadFile reads and parses the file at path.
func ReadFile(path string) (*Config, error) {
	data, err := capread.ReadFile(path, capread.Config)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	return Parse(path, data)
}

// Parse parses data, read from the file named path, checks it strictly,
// applies the defaults and validates the whole.
func Parse(path string, data []byte) (*Config, error) {
	p := &parser{file: path, lines: map[string]int{}}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		return nil, p.yamlErr(err)
	}
	if len(root.Content) == 0 {
		return nil, &Error{File: path, Msg: "the file is empty: it needs at least version: 1 and scenarios"}
	}
	doc := root.Content[0]
	if err := p.check(doc, reflect.TypeOf(Config{}), ""); err != nil {
		return nil, err
	}
	var c Config
	if err := doc.Decode(&c); err != nil {
		return nil, p.yamlErr(err)
	}
	c.Path = path
	c.lines = p.lines
	sum := sha256.Sum256(data)
	c.Hash = hex.EncodeToString(sum[:8])
	c.applyDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

type parser struct {
	file  string
	lines map[string]int // key path → line
	// seen holds the aliased nodes already checked, with the type they
	// were checked against: an alias is walked once, however often it is
	// used, so that a small file of nested aliases cannot make the walk
	// (and its key paths) grow exponentially. yaml.v3's own guard then
	// refuses the excessive aliasing when the document is decoded.
	seen map[aliasVisit]bool
	// nodes counts the nodes walked; more than maxNodes is refused.
	nodes int
}

// aliasVisit is one aliased node checked against one type.
type aliasVisit struct {
	node *yaml.Node
	t    reflect.Type
}

// maxNodes bounds the nodes the strict walk visits: far more than any
// real configuration holds.
const maxNodes = 1 << 20

var lineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// yamlErr rewrites the YAML library's errors as file:line: key: message.
func (p *parser) yamlErr(err error) error {
	var te *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	var errs []error
	for _, m := range msgs {
		e := &Error{File: p.file, Msg: m}
		if sm := lineRE.FindStringSubmatch(m); sm != nil {
			e.Line, _ = strconv.Atoi(sm[1])
			e.Msg = sm[2]
			e.Key = p.keyAt(e.Line)
		}
		e.Msg = strings.ReplaceAll(e.Msg, "!!str ", "string ")
		e.Msg = strings.ReplaceAll(e.Msg, "!!int ", "number ")
		e.Msg = strings.ReplaceAll(e.Msg, "!!float ", "number ")
		e.Msg = strings.ReplaceAll(e.Msg, "!!map", "a mapping")
		e.Msg = strings.ReplaceAll(e.Msg, "!!seq", "a list")
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// keyAt returns the deepest key path recorded at line.
func (p *parser) keyAt(line int) string {
	best := ""
	for k, l := range p.lines {
		if l == line && len(k) > len(best) {
			best = k
		}
	}
	return best
}

// check walks node against t, rejecting unknown keys and recording where
// each key is.
func (p *parser) check(node *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if node.Kind == yaml.AliasNode {
		if node.Alias == nil {
			return &Error{File: p.file, Line: node.Line, Key: path, Msg: fmt.Sprintf("alias *%s has no anchor", node.Value)}
		}
		v := aliasVisit{node.Alias, t}
		if p.seen[v] {
			return nil // checked already, at its first use
		}
		if p.seen == nil {
			p.seen = map[aliasVisit]bool{}
		}
		p.seen[v] = true
		node = node.Alias
	}
	if p.nodes++; p.nodes > maxNodes {
		return &Error{File: p.file, Line: node.Line, Key: path, Msg: fmt.Sprintf("the file has more than %d values: refusing it", maxNodes)}
	}
	switch t.Kind() {
	case reflect.Struct:
		if node.Kind != yaml.MappingNode {
			if t == reflect.TypeOf(Load{}) || t.NumField() > 1 {
				return &Error{File: p.file, Line: node.Line, Key: path, Msg: fmt.Sprintf("want a mapping of keys, got %s", describe(node))}
			}
			return nil
		}
		fields := map[string]reflect.StructField{}
		var names []string
		for i := range t.NumField() {
			f := t.Field(i)
			tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if tag == "" || tag == "-" {
				continue
			}
			fields[tag] = f
			names = append(names, tag)
		}
		sort.Strings(names)
		for i := 0; i+1 < len(node.Content); i += 2 {
			k, v := node.Content[i], node.Content[i+1]
			kp := join(path, k.Value)
			p.lines[kp] = k.Line
			f, ok := fields[k.Value]
			if !ok {
				return &Error{File: p.file, Line: k.Line, Key: kp,
					Msg: fmt.Sprintf("unknown key %q (known keys here: %s)", k.Value, strings.Join(names, ", "))}
			}
			if err := p.check(v, f.Type, kp); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if node.Kind != yaml.SequenceNode {
			if node.Kind == yaml.ScalarNode && node.Tag == "!!null" {
				return nil
			}
			return &Error{File: p.file, Line: node.Line, Key: path, Msg: fmt.Sprintf("want a list, got %s", describe(node))}
		}
		for i, c := range node.Content {
			ip := fmt.Sprintf("%s[%d]", path, i)
			p.lines[ip] = c.Line
			if err := p.check(c, t.Elem(), ip); err != nil {
				return err
			}
		}
	case reflect.Map:
		if node.Kind != yaml.MappingNode {
			if node.Kind == yaml.ScalarNode && node.Tag == "!!null" {
				return nil
			}
			return &Error{File: p.file, Line: node.Line, Key: path, Msg: fmt.Sprintf("want a mapping, got %s", describe(node))}
		}
		for i := 0; i+1 < len(node.Content); i += 2 {
			k, v := node.Content[i], node.Content[i+1]
			kp := join(path, k.Value)
			p.lines[kp] = k.Line
			if err := p.check(v, t.Elem(), kp); err != nil {
				return err
			}
		}
	default:
		if node.Kind != yaml.ScalarNode {
			return &Error{File: p.file, Line: node.Line, Key: path, Msg: fmt.Sprintf("want a single value, got %s", describe(node))}
		}
		p.lines[path] = node.Line
		return p.checkScalar(node, t, path)
	}
	return nil
}

// checkScalar decodes one value into its type, so that a wrong type is
// reported at its own key: the YAML library's errors carry only a line,
// and a flow mapping ({mode: rate, rate: fast, duration: 1s}) holds
// several keys on one line.
func (p *parser) checkScalar(node *yaml.Node, t reflect.Type, path string) error {
	if node.Tag == "!!null" {
		return nil
	}
	err := node.Decode(reflect.New(t).Interface())
	if err == nil {
		// yaml.v3 truncates a fraction into an integer (trials: 2.5 is 2).
		if isInt(t.Kind()) && node.ShortTag() == "!!float" {
			if f, ferr := strconv.ParseFloat(node.Value, 64); ferr == nil && f != math.Trunc(f) {
				return &Error{File: p.file, Line: node.Line, Key: path, Msg: fmt.Sprintf("want a whole number, got %q", node.Value)}
			}
		}
		return nil
	}
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if sm := lineRE.FindStringSubmatch(msg); sm != nil {
		msg = sm[2]
	}
	switch k := t.Kind(); {
	case k == reflect.Float32 || k == reflect.Float64 || isInt(k):
		if strings.Contains(msg, "cannot unmarshal") {
			want := "a number"
			if t.Kind() != reflect.Float32 && t.Kind() != reflect.Float64 {
				want = "a whole number"
			}
			msg = fmt.Sprintf("want %s, got %q", want, node.Value)
		}
	case k == reflect.Bool:
		if strings.Contains(msg, "cannot unmarshal") {
			msg = fmt.Sprintf("want true or false, got %q", node.Value)
		}
	}
	return &Error{File: p.file, Line: node.Line, Key: path, Msg: msg}
}

// isInt reports whether k is an integer kind.
func isInt(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// UnmarshalYAML reads a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Value == "auto" {
		*d = Auto // validate refuses it where it means nothing
		return nil
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration (write it like 50ms, 2s or 1m30s)", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes a duration as a string.
func (d Duration) MarshalYAML() (any, error) {
	if d == Auto {
		return "auto", nil
	}
	return time.Duration(d).String(), nil
}

// UnmarshalYAML reads a percentage string such as "5%" or "0.1%".
func (p *Percent) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParsePercent(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*p = Percent(v)
	return nil
}

// MarshalYAML writes a percentage as a string ("5%").
func (p Percent) MarshalYAML() (any, error) {
	return strconv.FormatFloat(float64(p)*100, 'g', -1, 64) + "%", nil
}

// ParsePercent parses "5%" as 0.05. A value without a percent sign is
// refused, since "5" could mean 5% or 500%.
func ParsePercent(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if !strings.HasSuffix(t, "%") {
		return 0, fmt.Errorf("%q is not a percentage: write it with a percent sign, like \"5%%\"", s)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a percentage: write it like \"5%%\"", s)
	}
	return v / 100, nil
}

// Resolve returns p relative to the config file's folder when it is not
// absolute.
func (c *Config) Resolve(p string) string {
	if p == "" || filepath.IsAbs(p) || c.Path == "" {
		return p
	}
	return filepath.Join(filepath.Dir(c.Path), p)
}
