package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planYAML is a config whose files are relative to its folder; each case
// of TestCompile writes the files it needs, or edits the text.
const planYAML = `version: 1
baselines: perfgate/baselines
capacity: {peak_qps: 100, traffic: traffic.csv}
targets:
  server:
    command: ["./server", "--port", "{port}"]
    ready: "http://127.0.0.1:{port}/ready"
    dir: srv
  grpc:
    command: ["./server", "--grpc", "{grpc_port}"]
    ready: "http://127.0.0.1:8000/ready"
scenarios:
  - name: kserve
    layer: model
    target: server
    protocol: kserve-http
    model: m
    body: payloads/body.json
    tls: {ca: certs/ca.pem}
    load: {mode: rate, rate: 10}
  - name: llm
    layer: engine
    target: server
    protocol: openai
    model: m
    dataset: prompts.jsonl
    load: {mode: rate, rate: 10}
  - name: grpc
    layer: engine
    target: grpc
    protocol: kserve-grpc
    model: m
    load: {mode: rate, rate: 10}
  - name: replay
    layer: system
    target: server
    load: {mode: replay, trace: traces/t.jsonl}
`

// planFiles are the files planYAML names, relative to its folder.
var planFiles = map[string]string{
	"payloads/body.json": `{"inputs": []}`,
	"certs/ca.pem":       "not checked here",
	"prompts.jsonl":      `{"prompt": "hi"}`,
	"traces/t.jsonl":     `{"offset_ms": 0}`,
	"traffic.csv":        "0,1\n",
}

func TestCompile(t *testing.T) {
	tests := []struct {
		name string
		// edit changes the config's text; drop leaves a file out.
		edit    func(string) string
		drop    string
		wantErr []string // substrings of the error; none: it compiles
	}{
		{name: "compiles"},
		{name: "missing body", drop: "payloads/body.json",
			wantErr: []string{"perfgate.yaml:", "scenarios[0].body", `"payloads/body.json"`, "no such file"}},
		{name: "missing trace", drop: "traces/t.jsonl",
			wantErr: []string{"perfgate.yaml:", "scenarios[3].load.trace", `"traces/t.jsonl"`}},
		{name: "missing dataset", drop: "prompts.jsonl",
			wantErr: []string{"perfgate.yaml:", "scenarios[1].dataset", `"prompts.jsonl"`}},
		{name: "body is a folder", edit: func(s string) string { return strings.Replace(s, "body: payloads/body.json", "body: payloads", 1) },
			wantErr: []string{"scenarios[0].body", `"payloads"`}},
		{name: "unknown placeholder", edit: func(s string) string { return strings.Replace(s, "{port}/ready", "{port}/{model}/ready", 1) },
			wantErr: []string{"perfgate.yaml:7: targets.server.ready", "unknown placeholder {model}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range planFiles {
				if name == tt.drop {
					continue
				}
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			text := planYAML
			if tt.edit != nil {
				text = tt.edit(text)
			}
			path := filepath.Join(dir, "perfgate.yaml")
			cfg, err := Parse(path, []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			p, err := Compile(cfg)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("Compile() = nil error, want one naming %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("Compile() error %q does not name %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			abs := func(rel string) string { return filepath.Join(dir, rel) }
			kserve, llm, grpc, replay := p.Scenarios[0], p.Scenarios[1], p.Scenarios[2], p.Scenarios[3]
			for _, c := range []struct{ field, got, want string }{
				{"dir", p.Dir, dir},
				{"baselines", p.Baselines, abs("perfgate/baselines")},
				{"capacity.traffic", p.Capacity.Traffic, abs("traffic.csv")},
				{"targets.server.dir", p.Targets["server"].Dir, abs("srv")},
				{"targets.grpc.dir (unset: perfgate's working folder, as before)", p.Targets["grpc"].Dir, ""},
				{"scenarios[0].body", kserve.Body, abs("payloads/body.json")},
				{"scenarios[0].tls.ca", kserve.TLS.CA, abs("certs/ca.pem")},
				{"scenarios[1].dataset", llm.Dataset, abs("prompts.jsonl")},
				{"scenarios[3].load.trace", replay.Load.Trace, abs("traces/t.jsonl")},
				{"body read", string(p.Inputs["kserve"].Body), planFiles["payloads/body.json"]},
				{"ab.resident default", p.AB.Resident, DefaultABResident},
				{"ab.design default", p.AB.Design, DesignInterleaved},
			} {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
				}
			}
			if p.AB.MaxTrials != DefaultABMaxTrials {
				t.Errorf("ab.max_trials = %d, want the default %d", p.AB.MaxTrials, DefaultABMaxTrials)
			}
			if tr := p.Inputs["kserve"].Traits; tr.Name != "kserve-http" || !tr.NeedsModel || tr.GRPC {
				t.Errorf("kserve traits = %+v", tr)
			}
			if tr := p.Inputs["llm"].Traits; !tr.Streaming || !tr.NeedsModel {
				t.Errorf("openai traits = %+v", tr)
			}
			if tr := p.Inputs[grpc.Name].Traits; !tr.GRPC {
				t.Errorf("kserve-grpc traits = %+v", tr)
			}
			if tr := p.Inputs[replay.Name].Traits; tr.Name != "http" || !tr.WholeURL {
				t.Errorf("http (the default protocol) traits = %+v", tr)
			}
			if p.Inputs["llm"].Body != nil {
				t.Errorf("a scenario without body has body %q", p.Inputs["llm"].Body)
			}
			if w := p.ReadyWarnings["grpc"]; !strings.Contains(w, `ready URL "http://127.0.0.1:8000/ready" has no {port}`) {
				t.Errorf("ready warning for target grpc = %q", w)
			}
			if w, ok := p.ReadyWarnings["server"]; ok {
				t.Errorf("target server (ready on {port}) warned: %q", w)
			}
			// The config compiled is left as parsed.
			if cfg.Scenarios[0].Body != "payloads/body.json" || cfg.Targets["server"].Dir != "srv" || cfg.Baselines != "perfgate/baselines" ||
				cfg.Scenarios[0].TLS.CA != "certs/ca.pem" || cfg.AB.Resident != "" {
				t.Errorf("Compile changed the config it compiled: %+v %+v", cfg.Scenarios[0], cfg.Targets["server"])
			}
			if p.Hash != cfg.Hash || p.Path != path {
				t.Errorf("plan hash %q path %q, want the config's %q %q", p.Hash, p.Path, cfg.Hash, path)
			}
		})
	}
}

// A config built in code (perfgate run --url) resolves against the
// working folder and gets a hash of its settings as given.
func TestCompileCommandLine(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("b.json", []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &Config{Path: "command line", Version: Version, LayerOptional: true,
		Scenarios: []*Scenario{{Name: "url", URL: "http://127.0.0.1:1/", Body: "b.json", Load: Load{Mode: "rate", Rate: 1}}}}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	p, err := Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if got := p.Scenarios[0].Body; got != filepath.Join(wd, "b.json") {
		t.Errorf("body = %q, want it in the working folder %s", got, wd)
	}
	if p.Hash == "" || c.Hash != "" {
		t.Errorf("plan hash %q (want one), config hash %q (want none)", p.Hash, c.Hash)
	}
}
