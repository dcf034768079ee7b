// Command damone-manifests renders every overlay under k8s/overlays with
// kustomize's Go API and writes OUT/<overlay>.yaml for each: what
// `kubectl apply -k k8s/overlays/<overlay>` would apply. `make manifests`
// runs it.
//
//	go run ./k8s/cmd/damone-manifests [-out bin/manifests] [-k8s k8s]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/damone-rules/damone/k8s"
)

func main() {
	out := flag.String("out", filepath.Join("bin", "manifests"), "folder to write <overlay>.yaml into")
	dir := flag.String("k8s", "k8s", "folder that holds base/ and overlays/")
	flag.Parse()
	if err := run(*dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "damone-manifests:", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	overlays, err := k8s.Overlays(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, name := range overlays {
		y, err := k8s.RenderYAML(filepath.Join(dir, "overlays", name))
		if err != nil {
			return err
		}
		path := filepath.Join(out, name+".yaml")
		if err := os.WriteFile(path, y, 0o644); err != nil {
			return err
		}
		fmt.Printf("%s: %d bytes\n", path, len(y))
	}
	return nil
}
