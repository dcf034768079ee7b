package apiserver_test

// Rendering the overlays (with the project's own renderer,
// k8s/cmd/damone-manifests), installing the CRDs they use from the pinned
// prometheus-operator module, and server-side applying objects as
// `kubectl apply --server-side` does (strict field validation, one field
// manager, conflicts not forced).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"context"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

// fieldManager is the manager every apply here uses, so a later apply
// owns (and may drop) what an earlier one set, as one operator re-running
// kubectl apply --server-side would.
const fieldManager = "damone-test"

// promOperatorModule ships the CRD YAMLs under crdDir.
const (
	promOperatorModule = "github.com/prometheus-operator/prometheus-operator"
	crdDir             = "example/prometheus-operator-crd"
)

var (
	renderOnce sync.Once
	rendered   map[string][]byte // overlay name -> rendered YAML
	renderErr  error
)

// renderOverlays renders every overlay under k8s/overlays with `go run
// ./k8s/cmd/damone-manifests` (what make manifests runs) and returns
// overlay -> YAML; it checks that every overlay folder was rendered.
func renderOverlays(t *testing.T) map[string][]byte {
	t.Helper()
	root := repoRoot(t)
	renderOnce.Do(func() {
		out, err := os.MkdirTemp("", "damone-manifests-")
		if err != nil {
			renderErr = err
			return
		}
		defer os.RemoveAll(out)
		cmd := exec.Command("go", "run", "./k8s/cmd/damone-manifests", "-k8s", "k8s", "-out", out)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			renderErr = fmt.Errorf("go run ./k8s/cmd/damone-manifests: %v\n%s", err, b)
			return
		}
		dirs, err := os.ReadDir(filepath.Join(root, "k8s", "overlays"))
		if err != nil {
			renderErr = err
			return
		}
		rendered = map[string][]byte{}
		for _, d := range dirs {
			if !d.IsDir() {
				continue
			}
			b, err := os.ReadFile(filepath.Join(out, d.Name()+".yaml"))
			if err != nil {
				renderErr = fmt.Errorf("overlay %s was not rendered: %w", d.Name(), err)
				return
			}
			rendered[d.Name()] = b
		}
		if len(rendered) == 0 {
			renderErr = errors.New("no overlays under k8s/overlays")
		}
	})
	if renderErr != nil {
		t.Fatal(renderErr)
	}
	return rendered
}

// overlayNames is the rendered overlays' names, sorted.
func overlayNames(t *testing.T) []string {
	names := slices.Collect(func(yield func(string) bool) {
		for n := range renderOverlays(t) {
			if !yield(n) {
				return
			}
		}
	})
	sort.Strings(names)
	return names
}

// parseObjects splits a multi-document YAML stream into objects.
func parseObjects(b []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if err == io.EOF {
				return objs, nil
			}
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
}

func mustParse(t *testing.T, b []byte) []*unstructured.Unstructured {
	t.Helper()
	objs, err := parseObjects(b)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// id names an object in messages: Kind/name.
func id(o *unstructured.Unstructured) string { return o.GetKind() + "/" + o.GetName() }

// find returns the object of that kind and name, or nil.
func find(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// ofKind returns the objects of one kind, in order.
func ofKind(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// retarget returns copies of objs moved into namespace ns: the overlay's
// Namespace object is renamed to ns, every namespaced object placed in
// it. If objs hold no Namespace, one is added first.
func (c *cluster) retarget(objs []*unstructured.Unstructured, ns string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	hasNS := false
	for _, o := range objs {
		o = o.DeepCopy()
		if o.GetAPIVersion() == "v1" && o.GetKind() == "Namespace" {
			if hasNS {
				return nil, fmt.Errorf("more than one Namespace (%s): the check moves one overlay into one fresh namespace", o.GetName())
			}
			hasNS = true
			o.SetName(ns)
		} else {
			m, err := c.mapping(o)
			if err != nil {
				return nil, err
			}
			if m.Scope.Name() == meta.RESTScopeNameNamespace {
				o.SetNamespace(ns)
			}
		}
		out = append(out, o)
	}
	if !hasNS {
		n := &unstructured.Unstructured{}
		n.SetAPIVersion("v1")
		n.SetKind("Namespace")
		n.SetName(ns)
		out = append([]*unstructured.Unstructured{n}, out...)
	}
	return out, nil
}

// mapping finds the resource of o's kind, refreshing discovery once if it
// is not known yet (a CRD just installed).
func (c *cluster) mapping(o *unstructured.Unstructured) (*meta.RESTMapping, error) {
	gvk := o.GroupVersionKind()
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		c.mapper.Reset()
		m, err = c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id(o), err)
	}
	return m, nil
}

func (c *cluster) resource(o *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	m, err := c.mapping(o)
	if err != nil {
		return nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return c.dyn.Resource(m.Resource).Namespace(o.GetNamespace()), nil
	}
	return c.dyn.Resource(m.Resource), nil
}

// apply server-side applies every object in order, as `kubectl apply
// --server-side` does: field manager damone-test, strict field validation
// (an unknown or duplicate field is an error, not a warning), conflicts
// not forced. It goes on past a refused object, so that one run names
// every refusal, and returns the objects as stored, in order. A warning
// from the server (Pod Security, a deprecated API, ...) is an error too.
func (c *cluster) apply(ctx context.Context, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	var errs []error
	var stored []*unstructured.Unstructured
	c.warnings.take()
	for _, o := range objs {
		r, err := c.resource(o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		data, err := json.Marshal(o.Object)
		if err != nil {
			return nil, err
		}
		got, err := r.Patch(ctx, o.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{
			FieldManager:    fieldManager,
			FieldValidation: metav1.FieldValidationStrict,
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", id(o), err))
			continue
		}
		if w := c.warnings.take(); len(w) > 0 {
			errs = append(errs, fmt.Errorf("%s: the server warned: %s", id(o), strings.Join(w, "; ")))
		}
		stored = append(stored, got)
	}
	return stored, errors.Join(errs...)
}

// get reads objs back as the server stores them.
func (c *cluster) get(ctx context.Context, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		r, err := c.resource(o)
		if err != nil {
			return nil, err
		}
		got, err := r.Get(ctx, o.GetName(), metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("%s: read back: %w", id(o), err)
		}
		out = append(out, got)
	}
	return out, nil
}

var (
	crdFilesOnce sync.Once
	crdFiles     map[schema.GroupKind]*unstructured.Unstructured
	crdFilesErr  error
)

// promOperatorCRDs reads the CRDs shipped by the prometheus-operator
// module pinned in tools/k8s/go.mod, by group and kind.
func promOperatorCRDs() (map[schema.GroupKind]*unstructured.Unstructured, error) {
	// The module's folder in the module cache (downloaded if missing), as
	// tools/k8s/go.mod pins it: this package's module.
	cmd := exec.Command("go", "mod", "download", "-json", promOperatorModule)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s %s", err, ee.Stderr, out)
		}
		return nil, fmt.Errorf("go mod download %s: %w", promOperatorModule, err)
	}
	var mod struct{ Dir, Version string }
	if err := json.Unmarshal(out, &mod); err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(mod.Dir, crdDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no CRDs under %s@%s/%s (%v)", promOperatorModule, mod.Version, crdDir, err)
	}
	crds := map[schema.GroupKind]*unstructured.Unstructured{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		objs, err := parseObjects(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, o := range objs {
			if o.GetKind() != "CustomResourceDefinition" {
				continue
			}
			group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
			crds[schema.GroupKind{Group: group, Kind: kind}] = o
		}
	}
	return crds, nil
}

// ensureCRDs installs, once each, the CRD of every kind in objs that the
// prometheus-operator module defines, and waits until the server serves
// them.
func (c *cluster) ensureCRDs(ctx context.Context, objs []*unstructured.Unstructured) error {
	crdFilesOnce.Do(func() { crdFiles, crdFilesErr = promOperatorCRDs() })
	if crdFilesErr != nil {
		return crdFilesErr
	}
	c.crdMu.Lock()
	defer c.crdMu.Unlock()
	var want []*unstructured.Unstructured
	for _, o := range objs {
		gk := o.GroupVersionKind().GroupKind()
		if crd, ok := crdFiles[gk]; ok && !c.crdInstalled[gk] {
			c.crdInstalled[gk] = true
			want = append(want, crd)
		}
	}
	if len(want) == 0 {
		return nil
	}
	if _, err := c.apply(ctx, want); err != nil {
		return fmt.Errorf("install CRDs: %w", err)
	}
	for _, crd := range want {
		if err := c.waitEstablished(ctx, crd.GetName()); err != nil {
			return err
		}
	}
	c.mapper.Reset()
	return nil
}

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func (c *cluster) waitEstablished(ctx context.Context, name string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		crd, err := c.dyn.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
		for _, cond := range conds {
			m, _ := cond.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("CRD %s not Established after 30s: %v", name, conds)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// resourceVersions maps each object's id to its resourceVersion.
func resourceVersions(objs []*unstructured.Unstructured) map[string]string {
	m := map[string]string{}
	for _, o := range objs {
		m[id(o)] = o.GetResourceVersion()
	}
	return m
}

// normalize turns an object into plain JSON values (numbers float64), so
// that a rendered object and a stored one compare field by field.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// subsetDiffs lists every field set in want whose value the server did not
// store as given (path: what differs). Maps: each key of want must be in
// got; lists: same length, element by element; resource quantities equal
// as quantities ("1000m" is "1"). Fields the server added are ignored here:
// the checks of each kind look at the defaults that matter.
func subsetDiffs(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: stored %s, want an object", path, show(got))}
		}
		var diffs []string
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range w {
				if !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				if w[k] == nil {
					continue
				}
				diffs = append(diffs, fmt.Sprintf("%s.%s: not stored (want %s)", path, k, show(w[k])))
				continue
			}
			diffs = append(diffs, subsetDiffs(path+"."+k, w[k], gv)...)
		}
		return diffs
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: stored %s, want %s", path, show(got), show(want))}
		}
		var diffs []string
		for i := range w {
			diffs = append(diffs, subsetDiffs(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return diffs
	default:
		if reflect.DeepEqual(want, got) {
			return nil
		}
		if ws, ok := want.(string); ok && strings.Contains(path, ".resources.") {
			if gs, ok := got.(string); ok {
				wq, err1 := resource.ParseQuantity(ws)
				gq, err2 := resource.ParseQuantity(gs)
				if err1 == nil && err2 == nil && wq.Cmp(gq) == 0 {
					return nil
				}
			}
		}
		return []string{fmt.Sprintf("%s: stored %s, want %s", path, show(got), show(want))}
	}
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// storedAsApplied checks that every field of every applied object is
// stored as given (defaulting added fields but changed none).
func storedAsApplied(applied, stored []*unstructured.Unstructured) error {
	var errs []error
	for _, a := range applied {
		s := find(stored, a.GetKind(), a.GetName())
		if s == nil {
			errs = append(errs, fmt.Errorf("%s: not stored", id(a)))
			continue
		}
		for _, d := range subsetDiffs(id(a), normalize(a.Object), normalize(s.Object)) {
			errs = append(errs, errors.New(d))
		}
	}
	return errors.Join(errs...)
}

// isServerRefusal reports whether err holds the API server's answer
// refusing an object (a Failure status: 422 Invalid mostly; server-side
// apply answers a mistyped field with a 500), not a failure on the client
// side or of the connection.
func isServerRefusal(err error) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return false
	}
	s := st.Status()
	return s.Status == metav1.StatusFailure && s.Code >= 400 && s.Code != 401 && s.Code != 403 && s.Code != 404
}
