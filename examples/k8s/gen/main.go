// Command gen writes the Kubernetes example's manifests (run by
// `go generate ./examples/k8s` from the repository root, or `go run ./gen`
// in examples/k8s).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/examples/k8s"
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	files, err := k8s.Files(k8s.DefaultOptions())
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
