package helmchart_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"

	"github.com/damone-rules/damone/k8s"
	helmchart "github.com/damone-rules/damone/tools/helm"
)

// clusterScoped kinds carry no namespace.
var clusterScoped = map[string]bool{"Namespace": true}

// key names an object in messages and pairs the two renders' objects.
func key(o map[string]any) string {
	md, _ := o["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	if ns != "" {
		return fmt.Sprintf("%s %s %s/%s", o["apiVersion"], o["kind"], ns, name)
	}
	return fmt.Sprintf("%s %s %s", o["apiVersion"], o["kind"], name)
}

// kustomizeObjects renders k8s/base (overlay "") or k8s/overlays/NAME. An
// object of the base has no namespace: `kubectl apply -k k8s/base` puts it
// in the current one, which the chart names (the release's); both are
// compared in "default".
func kustomizeObjects(t *testing.T, overlay string) (objs []map[string]any, namespace string) {
	t.Helper()
	dir := filepath.Join(k8s.Dir(), "base")
	if overlay != "" {
		dir = filepath.Join(k8s.Dir(), "overlays", overlay)
	}
	y, err := k8s.RenderYAML(dir)
	if err != nil {
		t.Fatal(err)
	}
	objs, err = helmchart.Objects(string(y))
	if err != nil {
		t.Fatal(err)
	}
	namespaces := map[string]bool{}
	for _, o := range objs {
		md := o["metadata"].(map[string]any)
		if clusterScoped[fmt.Sprint(o["kind"])] {
			continue
		}
		if md["namespace"] == nil {
			md["namespace"] = "default"
		}
		namespaces[md["namespace"].(string)] = true
	}
	if len(namespaces) != 1 {
		t.Fatalf("kustomize %s: objects in %d namespaces %v, want one", dir, len(namespaces), namespaces)
	}
	for ns := range namespaces {
		namespace = ns
	}
	return objs, namespace
}

// diff lists the differences between a (the chart's) and b (kustomize's)
// as "path: chart X, kustomize Y".
func diff(path string, a, b any, out *[]string) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range keys {
				if !yield(k) {
					return
				}
			}
		}) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			x, inA := av[k]
			y, inB := bv[k]
			switch {
			case !inA:
				*out = append(*out, fmt.Sprintf("%s: missing from the chart, kustomize has %s", p, show(y)))
			case !inB:
				*out = append(*out, fmt.Sprintf("%s: the chart has %s, kustomize has none", p, show(x)))
			default:
				diff(p, x, y, out)
			}
		}
		return
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		if len(av) != len(bv) {
			*out = append(*out, fmt.Sprintf("%s: the chart has %d items, kustomize %d (chart %s, kustomize %s)", path, len(av), len(bv), show(av), show(bv)))
			return
		}
		for i := range av {
			diff(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i], out)
		}
		return
	default:
		if reflect.DeepEqual(a, b) {
			return
		}
	}
	*out = append(*out, fmt.Sprintf("%s: chart %s, kustomize %s", path, show(a), show(b)))
}

// show prints a value with its type, so 1 and "1" differ visibly.
func show(v any) string {
	s := fmt.Sprintf("%#v", v)
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// compare pairs the objects by apiVersion, kind, namespace and name and
// returns every difference, each naming its object and field.
func compare(chart, kust []map[string]any) error {
	byKey := func(objs []map[string]any) (map[string]map[string]any, []error) {
		m := map[string]map[string]any{}
		var errs []error
		for _, o := range objs {
			k := key(o)
			if m[k] != nil {
				errs = append(errs, fmt.Errorf("%s rendered twice", k))
			}
			m[k] = o
		}
		return m, errs
	}
	c, errs := byKey(chart)
	k, kerrs := byKey(kust)
	errs = append(errs, kerrs...)
	var keys []string
	for x := range k {
		keys = append(keys, x)
	}
	for x := range c {
		if k[x] == nil {
			keys = append(keys, x)
		}
	}
	sort.Strings(keys)
	for _, x := range keys {
		switch {
		case c[x] == nil:
			errs = append(errs, fmt.Errorf("%s: kustomize renders it, the chart does not", x))
		case k[x] == nil:
			errs = append(errs, fmt.Errorf("%s: the chart renders it, kustomize does not", x))
		default:
			var d []string
			diff("", c[x], k[x], &d)
			for _, line := range d {
				errs = append(errs, fmt.Errorf("%s: %s", x, line))
			}
		}
	}
	return errors.Join(errs...)
}

// TestChartMatchesKustomize: the chart with its defaults renders what
// k8s/base does, and with values-NAME.yaml what k8s/overlays/NAME does,
// object by object and field by field; every overlay has a values file
// and every values file an overlay. helm lint passes each with no warning.
func TestChartMatchesKustomize(t *testing.T) {
	overlays, err := k8s.Overlays(k8s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	files, err := helmchart.OverlayValues(helmchart.ChartDir(), overlays)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := loader.Load(helmchart.ChartDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, overlay := range append([]string{""}, overlays...) {
		name := overlay
		if name == "" {
			name = "base"
		}
		t.Run(name, func(t *testing.T) {
			kust, ns := kustomizeObjects(t, overlay)
			var vf []string
			if files[overlay] != "" {
				vf = []string{files[overlay]}
			}
			vals, err := helmchart.Values(vf, nil)
			if err != nil {
				t.Fatal(err)
			}
			rendered, err := helmchart.Render(ch, vals, ns)
			if err != nil {
				t.Fatal(err)
			}
			stream, err := helmchart.Manifests(rendered)
			if err != nil {
				t.Fatal(err)
			}
			objs, err := helmchart.Objects(stream)
			if err != nil {
				t.Fatalf("the chart's output does not parse: %v\n%s", err, stream)
			}
			if err := compare(objs, kust); err != nil {
				t.Errorf("the chart (values %s, namespace %s) and kustomize (%s) differ:\n%v", valuesName(vf), ns, name, err)
			}

			linter := lint.All(helmchart.ChartDir(), vals, ns, false)
			for _, m := range linter.Messages {
				if m.Severity >= support.WarningSev {
					t.Errorf("helm lint: %s", m)
				} else {
					t.Logf("helm lint: %s", m)
				}
			}
		})
	}
}

func valuesName(files []string) string {
	if len(files) == 0 {
		return "defaults"
	}
	return strings.Join(files, ", ")
}

// TestCompareNamesObjectAndField: the comparison itself catches a changed
// field, an extra and a missing object, and says which.
func TestCompareNamesObjectAndField(t *testing.T) {
	obj := func(name string, replicas any) map[string]any {
		return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": name, "namespace": "ns"},
			"spec":     map[string]any{"replicas": replicas, "list": []any{"a", "b"}}}
	}
	err := compare(
		[]map[string]any{obj("a", int64(1)), obj("extra", int64(1))},
		[]map[string]any{obj("a", "1"), obj("gone", int64(1))})
	if err == nil {
		t.Fatal("no difference found")
	}
	for _, want := range []string{
		`apps/v1 Deployment ns/a: spec.replicas: chart 1, kustomize "1"`,
		`apps/v1 Deployment ns/extra: the chart renders it, kustomize does not`,
		`apps/v1 Deployment ns/gone: kustomize renders it, the chart does not`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("differences:\n%v\nwant a line %q", err, want)
		}
	}
	b := obj("a", int64(1))
	b["spec"].(map[string]any)["list"] = []any{"a", "c"}
	if err := compare([]map[string]any{obj("a", int64(1))}, []map[string]any{b}); err == nil ||
		!strings.Contains(err.Error(), `spec.list[1]: chart "b", kustomize "c"`) {
		t.Errorf("a changed list item: got %v", err)
	}
}

// TestPackageRendersTheSame: the packaged chart (make chart) holds the
// linked files' contents and the stamped version, and renders what the
// folder renders but for the default image tag, which becomes the version.
func TestPackageRendersTheSame(t *testing.T) {
	path, err := helmchart.Package(helmchart.ChartDir(), "9.8.7", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "damone-9.8.7.tgz" {
		t.Errorf("packaged as %s, want damone-9.8.7.tgz", filepath.Base(path))
	}
	values := filepath.Join(helmchart.ChartDir(), "values-prod.yaml")
	fromDir, err := helmchart.RenderFiles(helmchart.ChartDir(), []string{values}, nil, "damone")
	if err != nil {
		t.Fatal(err)
	}
	fromPackage, err := helmchart.RenderFiles(path, []string{values}, nil, "damone")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := helmchart.Objects(fromDir)
	b, _ := helmchart.Objects(fromPackage)
	if err := compare(b, a); err != nil {
		t.Errorf("the package renders differently from the folder:\n%v", err)
	}
	ch, err := loader.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Metadata.Version != "9.8.7" || ch.Metadata.AppVersion != "9.8.7" {
		t.Errorf("version %s, appVersion %s, want 9.8.7 both", ch.Metadata.Version, ch.Metadata.AppVersion)
	}
	defaults, err := helmchart.RenderFiles(path, nil, nil, "default")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(defaults, "image: damone:9.8.7\n") {
		t.Errorf("the packaged chart's default image is not damone:9.8.7")
	}
	for _, f := range ch.Files {
		if strings.HasPrefix(f.Name, "files/") && len(f.Data) < 1000 {
			t.Errorf("%s holds %d bytes: a link, not the file", f.Name, len(f.Data))
		}
	}
}
