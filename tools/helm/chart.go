// Package helmchart renders, lints and packages damone's Helm chart
// (charts/damone) with Helm's own Go packages, as `helm template`, `helm
// lint` and `helm package` would, so neither the drift test beside it nor
// `make chart` needs a helm binary.
package helmchart

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/getter"
	"helm.sh/helm/v3/pkg/releaseutil"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// ReleaseName is the release name the checks render with; the chart names
// its objects as k8s/base does whatever the release is called.
const ReleaseName = "damone"

// RepoRoot is the repository this package was built from (two folders up).
func RepoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("helmchart: cannot locate the repository")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// ChartDir is charts/damone of RepoRoot.
func ChartDir() string { return filepath.Join(RepoRoot(), "charts", "damone") }

// Values merges values files and --set style assignments as `helm -f FILE
// --set K=V` does: files in order, then the assignments.
func Values(files []string, set []string) (map[string]any, error) {
	opts := values.Options{ValueFiles: files, Values: set}
	return opts.MergeValues(getter.Providers{})
}

// Render renders ch with vals (user values, as Values returns) into
// namespace, checking them against values.schema.json first as `helm
// install` does. It returns each template's output by template path
// (NOTES.txt included).
func Render(ch *chart.Chart, vals map[string]any, namespace string) (map[string]string, error) {
	top, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{
		Name: ReleaseName, Namespace: namespace, Revision: 1, IsInstall: true,
	}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	return engine.Render(ch, top)
}

// Manifests joins the rendered objects (not NOTES.txt, not empty
// templates) into one YAML stream in the order `helm install` applies
// them.
func Manifests(rendered map[string]string) (string, error) {
	delete(rendered, filepath.Join(chartName(rendered), "templates", "NOTES.txt"))
	_, manifests, err := releaseutil.SortManifests(rendered, chartutil.VersionSet{"v1"}, releaseutil.InstallOrder)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	return b.String(), nil
}

func chartName(rendered map[string]string) string {
	for k := range rendered {
		return strings.SplitN(k, "/", 2)[0]
	}
	return ""
}

// Objects parses a YAML stream of objects.
func Objects(stream string) ([]map[string]any, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(stream), 4096)
	var objs []map[string]any
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if err == io.EOF {
				return objs, nil
			}
			return nil, err
		}
		if len(m) > 0 {
			objs = append(objs, m)
		}
	}
}

// RenderFiles loads the chart in dir and renders it with the values files
// (none: the defaults) into namespace, as one YAML stream of objects.
func RenderFiles(dir string, files []string, set []string, namespace string) (string, error) {
	ch, err := loader.Load(dir)
	if err != nil {
		return "", err
	}
	vals, err := Values(files, set)
	if err != nil {
		return "", err
	}
	rendered, err := Render(ch, vals, namespace)
	if err != nil {
		return "", err
	}
	return Manifests(rendered)
}

// Package writes dir's chart as DEST/damone-VERSION.tgz with version and
// appVersion set to version, as `helm package --version V --app-version V`
// does, and returns the file's path. Linked files are stored as their
// contents.
func Package(dir, version, dest string) (string, error) {
	ch, err := loader.Load(dir)
	if err != nil {
		return "", err
	}
	ch.Metadata.Version = version
	ch.Metadata.AppVersion = version
	if err := ch.Validate(); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return "", err
	}
	return chartutil.Save(ch, dest)
}

// OverlayValues maps each kustomize overlay name to the chart's values
// file of the same name (values-NAME.yaml); "" (k8s/base) to no file.
func OverlayValues(dir string, overlays []string) (map[string]string, error) {
	out := map[string]string{"": ""}
	for _, o := range overlays {
		f := filepath.Join(dir, "values-"+o+".yaml")
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("overlay %s has no values file in the chart: %w", o, err)
		}
		out[o] = f
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var extra []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, "values-") && strings.HasSuffix(name, ".yaml") {
			o := strings.TrimSuffix(strings.TrimPrefix(name, "values-"), ".yaml")
			if _, ok := out[o]; !ok {
				extra = append(extra, name)
			}
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		return nil, fmt.Errorf("values files with no overlay of the same name in k8s/overlays: %v", extra)
	}
	return out, nil
}
