package apiserver_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// chartPrefix names a manifest set rendered from the Helm chart: "helm-"
// and the overlay whose values file (charts/damone/values-OVERLAY.yaml)
// rendered it.
const chartPrefix = "helm-"

var (
	chartOnce     sync.Once
	chartRendered map[string][]byte // "helm-OVERLAY" -> YAML
	chartErr      error
)

// renderCharts renders charts/damone with each overlay's values file, as
// `helm template` would, with tools/helm's damone-chart (Helm's Go
// packages; tools/helm is a module of its own, so this module's build
// list, which makes kube-apiserver, does not take in Helm's).
func renderCharts(t *testing.T) map[string][]byte {
	t.Helper()
	root := repoRoot(t)
	chartOnce.Do(func() {
		tmp, err := os.MkdirTemp("", "damone-chart-")
		if err != nil {
			chartErr = err
			return
		}
		defer os.RemoveAll(tmp)
		bin := filepath.Join(tmp, "damone-chart")
		build := exec.Command("go", "build", "-o", bin, "./cmd/damone-chart")
		build.Dir = filepath.Join(root, "tools", "helm")
		if b, err := build.CombinedOutput(); err != nil {
			chartErr = fmt.Errorf("go build tools/helm/cmd/damone-chart: %v\n%s", err, b)
			return
		}
		chartRendered = map[string][]byte{}
		for overlay := range renderOverlays(t) {
			values := filepath.Join(root, "charts", "damone", "values-"+overlay+".yaml")
			cmd := exec.Command(bin, "render", "-f", values, "-namespace", "damone-"+overlay)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				chartErr = fmt.Errorf("damone-chart render -f %s: %v\n%s", values, err, stderr.String())
				return
			}
			chartRendered[chartPrefix+overlay] = out
		}
	})
	if chartErr != nil {
		t.Fatal(chartErr)
	}
	return chartRendered
}

// manifestSets is every overlay's rendering and the chart's with each
// overlay's values file: name -> YAML.
func manifestSets(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for k, v := range renderOverlays(t) {
		out[k] = v
	}
	for k, v := range renderCharts(t) {
		out[k] = v
	}
	return out
}

// manifestSetNames is manifestSets' names, sorted.
func manifestSetNames(t *testing.T) []string {
	var names []string
	for n := range manifestSets(t) {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// baselineOf is the overlay whose committed baseline a set upgrades from.
// The chart renders what the overlays render (tools/helm's drift test), so
// the overlay as last released is what the chart of that release renders
// with the same values file: the chart's upgrade starts from it.
func baselineOf(set string) string { return strings.TrimPrefix(set, chartPrefix) }
