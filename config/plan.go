package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/capread"
	"github.com/perfgate/perfgate/protocol/traits"
)

// Plan is a configuration compiled once for a run (Compile): what the
// engines below package gate (suite, ab) are handed, so that none of them
// calls back into this package to resolve a path, read a file or look up
// a default.
//
// Its Config is a copy of the one compiled, with every file path made
// absolute (targets' dir; scenarios' body, dataset, load.trace and TLS
// files; baselines; capacity.traffic) and the defaults applied (Parse
// applied them; the A/B section's are filled in here). Path stays as the
// user named the file, for messages.
type Plan struct {
	*Config
	// Dir is the config file's folder, absolute.
	Dir string
	// Inputs holds each scenario's compiled inputs, by scenario name.
	Inputs map[string]Inputs
	// ReadyWarnings holds, by target name, the warning for a target whose
	// ready URL names no port perfgate fills in ({port}, {grpc_port}):
	// the target starts on a free port of perfgate's choosing, so a fixed
	// port waits for some other server, or for nothing until
	// ready_timeout. The suite prints those of the targets it starts.
	ReadyWarnings map[string]string
}

// Inputs are one scenario's compiled inputs.
type Inputs struct {
	// Traits is what the scenario's protocol declares of itself.
	Traits traits.Protocol
	// Body is the content of the scenario's body file (Scenario.Body is
	// its absolute path), read once; nil when it has none.
	Body []byte
}

// URLPlaceholders are the names perfgate fills into a target's ready and
// metrics URLs (and a scenario's metrics URL): the ports it picks.
var URLPlaceholders = []string{"{port}", "{grpc_port}"}

// placeholderRE matches a placeholder-like word in braces.
var placeholderRE = regexp.MustCompile(`\{[A-Za-z_][A-Za-z0-9_]*\}`)

// Compile resolves cfg once into a Plan: paths made absolute against the
// config file's folder, body files read (a missing or unreadable one is
// an error naming the config file, the field and the value), dataset,
// trace and TLS files checked to be files, the A/B defaults filled in,
// each scenario's protocol traits attached, and the placeholders of the
// targets' ready and metrics URLs checked. cfg itself is not changed.
//
// A replay trace is not loaded here: its format and schedule belong to
// package harness (an engine this package must not import), and a trace
// may be large while only the replay scenarios selected for a run need
// it; the plan carries its absolute path (and load.speed), checked to be
// a readable file, and the suite loads it when the scenario runs.
func Compile(cfg *Config) (*Plan, error) {
	dir, err := filepath.Abs(filepath.Dir(cfg.Path))
	if err != nil {
		return nil, fmt.Errorf("%s: the config's folder: %w", cfg.Path, err)
	}
	c := *cfg
	// Built from the command line, it has no file: identified by its
	// settings as given, before any path is made absolute.
	c.Hash = cfg.identity()
	p := &Plan{Config: &c, Dir: dir, Inputs: map[string]Inputs{}, ReadyWarnings: map[string]string{}}
	abs := func(f string) string {
		if f == "" || filepath.IsAbs(f) {
			return f
		}
		return filepath.Join(dir, f)
	}
	c.Baselines = abs(c.Baselines)
	c.Capacity.Traffic = abs(c.Capacity.Traffic)
	if c.AB.Resident == "" {
		c.AB.Resident = DefaultABResident
	}
	if c.AB.MaxTrials == 0 {
		c.AB.MaxTrials = DefaultABMaxTrials
	}
	if c.AB.Design == "" {
		c.AB.Design = DefaultABDesign
	}
	// Each pair named (its label when the config gave none), so that the
	// engines below never ask config for it.
	c.Pairs = slices.Clone(cfg.Pairs)
	for i := range c.Pairs {
		c.Pairs[i].Name = c.Pairs[i].Label()
	}
	c.Targets = make(map[string]*Target, len(cfg.Targets))
	for _, name := range slices.Sorted(maps.Keys(cfg.Targets)) {
		t := cfg.Targets[name]
		if t == nil {
			c.Targets[name] = nil
			continue
		}
		tc := *t
		tc.Dir = abs(tc.Dir)
		c.Targets[name] = &tc
		key := "targets." + name
		for _, u := range []struct{ key, v string }{{key + ".ready", tc.Ready}, {key + ".metrics", tc.Metrics}} {
			if err := c.checkPlaceholders(u.key, u.v); err != nil {
				return nil, err
			}
		}
		if tc.Ready != "" && !strings.Contains(tc.Ready, "{port}") && !strings.Contains(tc.Ready, "{grpc_port}") {
			p.ReadyWarnings[name] = fmt.Sprintf("warning: target %s: ready URL %q has no {port}: perfgate starts the target on a free port it fills into {port} (in the command, the ready and metrics URLs); with a fixed port the wait (ready_timeout %v) asks another server, or none. Write it as http://127.0.0.1:{port}/... and pass {port} to the command",
				name, tc.Ready, tc.ReadyTimeout.D())
		}
	}
	c.Scenarios = make([]*Scenario, len(cfg.Scenarios))
	for i, s := range cfg.Scenarios {
		if s == nil {
			continue
		}
		sc := *s
		c.Scenarios[i] = &sc
		sp := fmt.Sprintf("scenarios[%d]", i)
		tr, ok := traits.Lookup(sc.Protocol)
		if !ok {
			return nil, c.errAt(sp+".protocol", "unknown protocol %q (known: %s)", sc.Protocol, strings.Join(traits.Names(), ", "))
		}
		in := Inputs{Traits: tr}
		if err := c.checkPlaceholders(sp+".metrics", sc.Metrics); err != nil {
			return nil, err
		}
		if sc.Body != "" {
			sc.Body = abs(sc.Body)
			b, err := capread.ReadFile(sc.Body, capread.Body)
			if err != nil {
				return nil, c.fileErr(sp+".body", s.Body, err)
			}
			in.Body = b
		}
		type file struct {
			key string
			v   *string
		}
		files := []file{{sp + ".dataset", &sc.Dataset}, {sp + ".load.trace", &sc.Load.Trace}}
		if s.TLS != nil {
			t := *s.TLS
			sc.TLS = &t
			files = append(files, file{sp + ".tls.ca", &t.CA}, file{sp + ".tls.cert", &t.Cert}, file{sp + ".tls.key", &t.Key})
		}
		for _, f := range files {
			if *f.v == "" {
				continue
			}
			given := *f.v
			*f.v = abs(given)
			if err := isFile(*f.v); err != nil {
				return nil, c.fileErr(f.key, given, err)
			}
		}
		p.Inputs[sc.Name] = in
	}
	return p, nil
}

// identity is what identifies c, so that shards of different
// configurations are never merged: its file's hash (Parse), or for a
// configuration built from the command line (perfgate run --url) a hash
// of its settings.
func (c *Config) identity() string {
	if c.Hash != "" {
		return c.Hash
	}
	b, err := json.Marshal(c)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// fileErr is a file named at key (as given) that cannot be used.
func (c *Config) fileErr(key, given string, err error) error {
	return c.errAt(key, "%q: %v (a path relative to the config file's folder, or absolute: check that the file exists and is readable)", given, err)
}

// isFile checks that path is a readable regular file.
func isFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	f, err := capread.OpenRegular(path) // a FIFO swapped in since: refused, not waited on
	if err != nil {
		return err
	}
	return f.Close()
}

// checkPlaceholders refuses a word in braces in v that is not one of the
// placeholders perfgate fills in (a misspelt {prot} would otherwise reach
// the target as written).
func (c *Config) checkPlaceholders(key, v string) error {
	for _, ph := range placeholderRE.FindAllString(v, -1) {
		if !slices.Contains(URLPlaceholders, ph) {
			return c.errAt(key, "%q: unknown placeholder %s: perfgate fills in {port} and {grpc_port} here", v, ph)
		}
	}
	return nil
}
