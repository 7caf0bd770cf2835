// Package k8s builds the Kubernetes example of a load spread over many
// generators: an Indexed Job whose N pods each run
//
//	perfgate run --url … --generator $((JOB_COMPLETION_INDEX + 1))/N --start-at $START_AT
//
// (JOB_COMPLETION_INDEX is the 0-based index Kubernetes gives each pod of
// an Indexed Job; perfgate's generator index is 1-based), writing its shard
// to a shared volume, and a merge Job that adds the shards into one result
// with perfgate merge. Every pod reads the same START_AT from a ConfigMap,
// so all begin their warm-up at one instant.
//
// The manifests in this folder are generated from typed k8s.io/api objects
// by `go generate ./examples/k8s` (go run ./gen), and the tests decode them
// strictly back into those types, so a misspelled field cannot creep in.
package k8s

//go:generate go run ./gen
