package k8s

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// The committed manifests are what the typed objects generate.
func TestManifestsUpToDate(t *testing.T) {
	files, err := Files(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./examples/k8s", name)
		}
	}
}

// decodeStrict decodes every document of the YAML file at path into the
// k8s.io/api type its kind names (see decodeAll).
func decodeStrict(t *testing.T, path string) []any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeAll(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return objs
}

// decodeAll decodes every document of a YAML stream into the k8s.io/api
// type its kind names, rejecting unknown fields (a misspelled key) and
// wrong types.
func decodeAll(data []byte) ([]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var objs []any
	for i := 1; ; i++ {
		var doc map[string]any
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return objs, nil
		} else if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		var obj any
		switch fmt.Sprint(doc["apiVersion"], " ", doc["kind"]) {
		case "batch/v1 Job":
			obj = &batchv1.Job{}
		case "v1 ConfigMap":
			obj = &corev1.ConfigMap{}
		case "v1 PersistentVolumeClaim":
			obj = &corev1.PersistentVolumeClaim{}
		default:
			return nil, fmt.Errorf("document %d: unexpected %v %v", i, doc["apiVersion"], doc["kind"])
		}
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		jd := json.NewDecoder(bytes.NewReader(b))
		jd.DisallowUnknownFields()
		if err := jd.Decode(obj); err != nil {
			return nil, fmt.Errorf("document %d (%v): %w", i, doc["kind"], err)
		}
		objs = append(objs, obj)
	}
}

// The strict decoding catches what kubectl would reject or silently drop.
func TestDecodeAllRejects(t *testing.T) {
	good, err := os.ReadFile("generators.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, from, to, want string }{
		{"misspelled field", "completionMode:", "completionMod:", `unknown field "completionMod"`},
		{"wrong type", "parallelism: 3", "parallelism: three", "cannot unmarshal"},
		{"wrong quantity", `cpu: "2"`, `cpu: "two"`, "quantities must match"},
	}
	for _, tt := range tests {
		bad := strings.Replace(string(good), tt.from, tt.to, 1)
		if bad == string(good) {
			t.Fatalf("%s: %q not found in generators.yaml", tt.name, tt.from)
		}
		if _, err := decodeAll([]byte(bad)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: decodeAll = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// The manifests decode strictly into k8s.io/api types and fit together:
// an Indexed Job of N generators whose pods read START_AT from the
// ConfigMap and write to the claim the merge Job reads.
func TestManifestsDecodeStrictly(t *testing.T) {
	o := DefaultOptions()
	starts := decodeStrict(t, "start.yaml")
	gens := decodeStrict(t, "generators.yaml")
	merges := decodeStrict(t, "merge.yaml")
	if len(starts) != 1 || len(gens) != 2 || len(merges) != 1 {
		t.Fatalf("start.yaml has %d objects, generators.yaml %d, merge.yaml %d; want 1, 2 and 1", len(starts), len(gens), len(merges))
	}
	cm := starts[0].(*corev1.ConfigMap)
	claim, job := gens[0].(*corev1.PersistentVolumeClaim), gens[1].(*batchv1.Job)
	merge := merges[0].(*batchv1.Job)
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", s.CompletionMode)
	}
	if *s.Completions != int32(o.Generators) || *s.Parallelism != int32(o.Generators) {
		t.Errorf("completions %d, parallelism %d; want %d generators running at once", *s.Completions, *s.Parallelism, o.Generators)
	}
	if _, ok := cm.Data["start-at"]; !ok || cm.Name != StartConfig {
		t.Errorf("ConfigMap %s data %v, want %s with start-at", cm.Name, cm.Data, StartConfig)
	}
	for _, j := range []*batchv1.Job{job, merge} {
		pod := j.Spec.Template.Spec
		c := pod.Containers[0]
		var ref *corev1.ConfigMapKeySelector
		for _, e := range c.Env {
			if e.Name == "START_AT" && e.ValueFrom != nil {
				ref = e.ValueFrom.ConfigMapKeyRef
			}
		}
		if ref == nil || ref.Name != cm.Name || ref.Key != "start-at" {
			t.Errorf("job %s: START_AT not read from ConfigMap %s key start-at", j.Name, cm.Name)
		}
		if len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim == nil || pod.Volumes[0].PersistentVolumeClaim.ClaimName != claim.Name {
			t.Errorf("job %s: does not mount the claim %s", j.Name, claim.Name)
		}
		if pod.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("job %s: restartPolicy %s, want Never (a restarted generator misses its windows)", j.Name, pod.RestartPolicy)
		}
	}
	if claim.Spec.AccessModes[0] != corev1.ReadWriteMany {
		t.Errorf("claim access %v, want ReadWriteMany: the pods run on several nodes", claim.Spec.AccessModes)
	}
	gc := s.Template.Spec.Containers[0]
	if gc.Resources.Requests.Cpu().Cmp(*gc.Resources.Limits.Cpu()) != 0 {
		t.Errorf("generator CPU request %v, limit %v: want them equal (Guaranteed QoS)", gc.Resources.Requests.Cpu(), gc.Resources.Limits.Cpu())
	}
}

// The pods' shell commands, run by /bin/sh with the variables Kubernetes
// sets, give perfgate generator indexes 1…N (from JOB_COMPLETION_INDEX
// 0…N−1), one shard folder each, and the merge reads the folder holding
// them. perfgate is a stand-in here that prints its arguments: what is
// tested is the shell's expansion, not perfgate.
func TestScriptsExpand(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "perfgate"), []byte("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n"), 0o755)
	root := filepath.Join(dir, "results")
	o := DefaultOptions()
	const startAt = "2026-12-01T12:00:00Z"
	run := func(script string, env ...string) []string {
		cmd := exec.Command("sh", "-c", strings.ReplaceAll(script, resultsPath, root))
		cmd.Env = append([]string{"PATH=" + bin + ":" + os.Getenv("PATH"), "START_AT=" + startAt, "TARGET_URL=http://svc:8000"}, env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	arg := func(args []string, flag string) string {
		for i, a := range args {
			if a == flag && i+1 < len(args) {
				return args[i+1]
			}
		}
		return ""
	}
	outs := map[string]bool{}
	for i := 0; i < o.Generators; i++ {
		args := run(GeneratorScript(o), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
		if got, want := arg(args, "--generator"), fmt.Sprintf("%d/%d", i+1, o.Generators); got != want {
			t.Errorf("index %d: --generator %q, want %q", i, got, want)
		}
		if got := arg(args, "--start-at"); got != startAt {
			t.Errorf("index %d: --start-at %q, want %q", i, got, startAt)
		}
		if got := arg(args, "--url"); got != "http://svc:8000" {
			t.Errorf("index %d: --url %q", i, got)
		}
		out := arg(args, "--out")
		if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
			t.Errorf("index %d: the shard folder of --out %q was not made", i, out)
		}
		outs[out] = true
	}
	if len(outs) != o.Generators {
		t.Errorf("%d distinct shard files for %d generators: %v", len(outs), o.Generators, outs)
	}
	margs := run(MergeScript())
	shards := margs[len(margs)-1]
	for out := range outs {
		if !strings.HasPrefix(out, shards+"/") {
			t.Errorf("shard %s is not under the merge's input %s", out, shards)
		}
	}
}
