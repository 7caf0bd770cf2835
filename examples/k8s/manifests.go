package k8s

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Options shape the example.
type Options struct {
	// Generators is the number of generator pods (the Job's completions
	// and parallelism).
	Generators int
	// Image is a container image with perfgate and /bin/sh (the Dockerfile
	// beside the manifests builds one).
	Image string
	// TargetURL, Protocol, Model and Rate are the load all generators send
	// together: each sends Rate/Generators.
	TargetURL, Protocol, Model string
	Rate                       float64
	Duration, Warmup           string
	Trials                     int
	// CPU is each generator's CPU request and limit (equal: the pod gets
	// Guaranteed QoS, so the generator's cores are its own).
	CPU string
}

// DefaultOptions are the example's settings.
func DefaultOptions() Options {
	return Options{
		Generators: 3, Image: "perfgate:latest",
		TargetURL: "http://model.default.svc.cluster.local:8000", Protocol: "kserve-http", Model: "mlp",
		Rate: 6000, Duration: "30s", Warmup: "10s", Trials: 5, CPU: "2",
	}
}

// Names of the objects, shared by the manifests.
const (
	GeneratorJob = "perfgate-generators"
	MergeJob     = "perfgate-merge"
	ResultsClaim = "perfgate-results"
	StartConfig  = "perfgate-start"
	resultsPath  = "/results"
)

var labels = map[string]string{"app.kubernetes.io/name": "perfgate"}

func meta(name, component string) metav1.ObjectMeta {
	l := map[string]string{"app.kubernetes.io/component": component}
	for k, v := range labels {
		l[k] = v
	}
	return metav1.ObjectMeta{Name: name, Labels: l}
}

func resultsVolume() (corev1.Volume, corev1.VolumeMount) {
	return corev1.Volume{Name: "results", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: ResultsClaim}}},
		corev1.VolumeMount{Name: "results", MountPath: resultsPath}
}

// ResultsClaimObject is the volume every generator writes its shard to and
// the merge reads: ReadWriteMany, since the pods run on different nodes.
func ResultsClaimObject() *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: meta(ResultsClaim, "results"),
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
}

// GeneratorScript is the shell command of generator pods: perfgate's
// 1-based index from the Job's 0-based one, the shard written under
// /results/shards.
func GeneratorScript(o Options) string {
	args := []string{
		"perfgate", "run",
		"--url", `"$TARGET_URL"`, "--protocol", o.Protocol, "--model", o.Model,
		"--rate", fmt.Sprint(o.Rate), "--duration", o.Duration, "--warmup", o.Warmup, "--trials", fmt.Sprint(o.Trials),
		"--generator", fmt.Sprintf(`"$((JOB_COMPLETION_INDEX + 1))/%d"`, o.Generators),
		"--start-at", `"$START_AT"`,
		"--out", `"$SHARD/result.json"`,
	}
	return `SHARD="` + resultsPath + `/shards/$START_AT/g$((JOB_COMPLETION_INDEX + 1))" && mkdir -p "$SHARD" && exec ` + strings.Join(args, " ")
}

// MergeScript is the merge pod's shell command: the shards of the run
// that started at START_AT (earlier runs' shards stay apart) into one
// result under /results/merged/START_AT.
func MergeScript() string {
	return `exec perfgate merge --out "` + resultsPath + `/merged/$START_AT" "` + resultsPath + `/shards/$START_AT"`
}

// startAtEnv is START_AT from the ConfigMap.
func startAtEnv() corev1.EnvVar {
	return corev1.EnvVar{Name: "START_AT", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: StartConfig}, Key: "start-at"}}}
}

// GeneratorJobObject is the Indexed Job of N generator pods.
func GeneratorJobObject(o Options) *batchv1.Job {
	n := int32(o.Generators)
	zero := int32(0)
	indexed := batchv1.IndexedCompletion
	vol, mount := resultsVolume()
	cpu := resource.MustParse(o.CPU)
	mem := resource.MustParse("512Mi")
	m := meta(GeneratorJob, "generator")
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: m,
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed,
			Completions:    &n,
			Parallelism:    &n,
			// A generator that restarts would miss the agreed windows: the
			// run is then retried whole, with a new START_AT.
			BackoffLimit: &zero,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: m.Labels},
				Spec: corev1.PodSpec{
					RestartPolicy:   corev1.RestartPolicyNever,
					SecurityContext: podSecurity(),
					// One generator per node where the cluster allows it:
					// generators sharing a node share its cores.
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
						PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
							Weight: 100,
							PodAffinityTerm: corev1.PodAffinityTerm{
								TopologyKey:   "kubernetes.io/hostname",
								LabelSelector: &metav1.LabelSelector{MatchLabels: m.Labels},
							},
						}},
					}},
					Containers: []corev1.Container{{
						Name:    "generator",
						Image:   o.Image,
						Command: []string{"/bin/sh", "-c"},
						Args:    []string{GeneratorScript(o)},
						Env: []corev1.EnvVar{
							{Name: "TARGET_URL", Value: o.TargetURL},
							startAtEnv(),
						},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem},
							Limits:   corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem},
						},
						VolumeMounts: []corev1.VolumeMount{mount},
					}},
					Volumes: []corev1.Volume{vol},
				},
			},
		},
	}
}

// MergeJobObject is the Job that merges the shards once the generators
// are done (kubectl wait --for=condition=complete job/perfgate-generators).
func MergeJobObject(o Options) *batchv1.Job {
	zero := int32(0)
	one := int32(1)
	vol, mount := resultsVolume()
	m := meta(MergeJob, "merge")
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: m,
		Spec: batchv1.JobSpec{
			Completions:  &one,
			BackoffLimit: &zero,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: m.Labels},
				Spec: corev1.PodSpec{
					RestartPolicy:   corev1.RestartPolicyNever,
					SecurityContext: podSecurity(),
					Containers: []corev1.Container{{
						Name:         "merge",
						Image:        o.Image,
						Command:      []string{"/bin/sh", "-c"},
						Args:         []string{MergeScript()},
						Env:          []corev1.EnvVar{startAtEnv()},
						VolumeMounts: []corev1.VolumeMount{mount},
					}},
					Volumes: []corev1.Volume{vol},
				},
			},
		},
	}
}

// StartConfigObject is the ConfigMap every generator reads START_AT from;
// the example's README makes it with kubectl, a minute or two ahead, just
// before creating the Job. This one holds a placeholder instant.
func StartConfigObject(startAt string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: meta(StartConfig, "generator"),
		Data:       map[string]string{"start-at": startAt},
	}
}

// Header opens every generated file.
const Header = "# Generated by `go generate ./examples/k8s` from typed k8s.io/api objects\n# (examples/k8s/manifests.go); edit that file, not this one.\n"

// startHeader explains start.yaml.
const startHeader = `# START_AT for every generator: the instant they all begin their warm-up.
# Set it a few minutes ahead for each run, e.g.
#   kubectl create configmap perfgate-start --dry-run=client -o yaml \
#     --from-literal=start-at="$(date -u -d '+2 min' +%Y-%m-%dT%H:%M:%SZ)" | kubectl apply -f -
`

// Files returns the example's manifests by file name.
func Files(o Options) (map[string][]byte, error) {
	start, err := Render(Header+startHeader,
		StartConfigObject("2026-12-01T12:00:00Z"))
	if err != nil {
		return nil, err
	}
	gens, err := Render(Header+"# The shared results volume and the Indexed Job of generators.\n",
		ResultsClaimObject(), GeneratorJobObject(o))
	if err != nil {
		return nil, err
	}
	merge, err := Render(Header+"# Run once the generators are done:\n#   kubectl wait --for=condition=complete job/"+GeneratorJob+"\n", MergeJobObject(o))
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"start.yaml": start, "generators.yaml": gens, "merge.yaml": merge}, nil
}

// podSecurity runs the pods as the image's unprivileged user, with the
// results volume writable by its group.
func podSecurity() *corev1.PodSecurityContext {
	id := int64(65534)
	yes := true
	return &corev1.PodSecurityContext{RunAsNonRoot: &yes, RunAsUser: &id, RunAsGroup: &id, FSGroup: &id}
}
