// Package k8s holds damone's Kubernetes manifests (base/ and overlays/, in
// kustomize form) and renders them with kustomize's Go API, so neither
// `make manifests` nor the checks in manifests_test.go need a kubectl or
// kustomize binary.
package k8s

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Dir is the folder of this package: the one that holds base/ and
// overlays/.
func Dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("k8s: cannot locate the manifests folder")
	}
	return filepath.Dir(file)
}

// Overlays lists the overlay names under dir/overlays, sorted.
func Overlays(dir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "overlays"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("no overlays under %s", filepath.Join(dir, "overlays"))
	}
	return names, nil
}

// Render runs kustomize on the kustomization in dir (as `kubectl apply -k
// dir` would) and returns the resulting objects.
func Render(dir string) (resmap.ResMap, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	opts := krusty.MakeDefaultOptions()
	// As `kustomize build` and `kubectl apply -k` do: the legacy order
	// (Namespace and ConfigMaps before the workloads that use them) unless
	// a kustomization asks otherwise.
	opts.Reorder = krusty.ReorderOptionUnspecified
	k := krusty.MakeKustomizer(opts)
	m, err := k.Run(filesys.MakeFsOnDisk(), abs)
	if err != nil {
		return nil, fmt.Errorf("kustomize %s: %w", dir, err)
	}
	return m, nil
}

// RenderYAML renders dir as one multi-document YAML stream.
func RenderYAML(dir string) ([]byte, error) {
	m, err := Render(dir)
	if err != nil {
		return nil, err
	}
	return m.AsYaml()
}
