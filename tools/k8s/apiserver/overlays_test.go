package apiserver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// baselineDir holds each overlay as it was last released, rendered: the
// starting point of the upgrade test (k8s/testdata/baseline/README.md).
const baselineDir = "k8s/testdata/baseline"

// applyFresh moves objs into the fresh namespace ns, installs the CRDs
// they use and applies them; it returns what was applied (retargeted) and
// what the server stored.
func (c *cluster) applyFresh(ctx context.Context, objs []*unstructured.Unstructured, ns string) (applied, stored []*unstructured.Unstructured, err error) {
	if err := c.ensureCRDs(ctx, objs); err != nil {
		return nil, nil, err
	}
	applied, err = c.retarget(objs, ns)
	if err != nil {
		return nil, nil, err
	}
	stored, err = c.apply(ctx, applied)
	return applied, stored, err
}

// TestOverlaysApply: every overlay, and the Helm chart with each overlay's
// values file, server-side applied into a fresh
// namespace, is accepted whole (no refusal, no warning), is stored as
// applied, passes the checks of the stored PDB, HPA, NetworkPolicy,
// ServiceMonitor and PrometheusRule, and a second apply changes nothing.
func TestOverlaysApply(t *testing.T) {
	c := getCluster(t)
	t.Logf("API server %s", c.serverVer)
	for _, overlay := range manifestSetNames(t) {
		t.Run(overlay, func(t *testing.T) {
			ctx := testContext(t)
			objs := mustParse(t, manifestSets(t)[overlay])
			applied, stored, err := c.applyFresh(ctx, objs, "install-"+overlay)
			if err != nil {
				t.Fatalf("first apply refused:\n%v", err)
			}
			if len(stored) != len(applied) {
				t.Fatalf("stored %d objects, applied %d", len(stored), len(applied))
			}
			readBack, err := c.get(ctx, applied)
			if err != nil {
				t.Fatal(err)
			}
			if err := storedAsApplied(applied, readBack); err != nil {
				t.Errorf("the server changed fields as it stored them:\n%v", err)
			}
			if err := checkStored(readBack); err != nil {
				t.Errorf("stored objects:\n%v", err)
			}

			again, err := c.apply(ctx, applied)
			if err != nil {
				t.Fatalf("second apply refused:\n%v", err)
			}
			if err := unchanged(resourceVersions(readBack), resourceVersions(again)); err != nil {
				t.Errorf("the second apply of the same objects wrote them again (not idempotent):\n%v", err)
			}
		})
	}
}

// unchanged compares resourceVersions before and after an apply: a no-op
// apply leaves every object's resourceVersion as it was.
func unchanged(before, after map[string]string) error {
	var errs []error
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range before {
			if !yield(k) {
				return
			}
		}
	}) {
		if before[k] != after[k] {
			errs = append(errs, fmt.Errorf("%s: resourceVersion %s became %s", k, before[k], after[k]))
		}
	}
	return errors.Join(errs...)
}

// baseline reads the committed rendering of overlay at the last release.
func baseline(t *testing.T, overlay string) []*unstructured.Unstructured {
	t.Helper()
	path := filepath.Join(repoRoot(t), baselineDir, overlay+".yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no baseline for overlay %s (%v): a new overlay needs one; see %s/README.md", overlay, err, baselineDir)
	}
	return mustParse(t, b)
}

// TestOverlaysUpgrade: every overlay as released (the committed baseline),
// then today's on top (and the chart's rendering with that overlay's
// values file on top of the same baseline: baselineOf) in the same namespace: both accepted (no immutable
// field changed, no conflict), the result stored as today's objects say,
// and a further apply changes nothing.
func TestOverlaysUpgrade(t *testing.T) {
	c := getCluster(t)
	for _, overlay := range manifestSetNames(t) {
		t.Run(overlay, func(t *testing.T) {
			ctx := testContext(t)
			ns := "upgrade-" + overlay
			old := baseline(t, baselineOf(overlay))
			if _, _, err := c.applyFresh(ctx, old, ns); err != nil {
				t.Fatalf("the baseline (%s/%s.yaml) is refused:\n%v", baselineDir, baselineOf(overlay), err)
			}
			applied, _, err := c.applyFresh(ctx, mustParse(t, manifestSets(t)[overlay]), ns)
			if err != nil {
				t.Fatalf("upgrading from the baseline is refused:\n%v", err)
			}
			readBack, err := c.get(ctx, applied)
			if err != nil {
				t.Fatal(err)
			}
			if err := storedAsApplied(applied, readBack); err != nil {
				t.Errorf("after the upgrade:\n%v", err)
			}
			if err := checkStored(readBack); err != nil {
				t.Errorf("stored objects after the upgrade:\n%v", err)
			}
			again, err := c.apply(ctx, applied)
			if err != nil {
				t.Fatalf("apply after the upgrade refused:\n%v", err)
			}
			if err := unchanged(resourceVersions(readBack), resourceVersions(again)); err != nil {
				t.Errorf("not idempotent after the upgrade:\n%v", err)
			}
			// kubectl apply does not delete what a release dropped: say so.
			for _, o := range old {
				if o.GetKind() != "Namespace" && find(applied, o.GetKind(), o.GetName()) == nil {
					t.Logf("%s is in the baseline but no longer rendered: an upgrade leaves it in the cluster", id(o))
				}
			}
		})
	}
}

// ---- checks of the objects as stored

// typed converts a stored object into its k8s.io/api type.
func typed[T any](o *unstructured.Unstructured) (*T, error) {
	var x T
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &x); err != nil {
		return nil, fmt.Errorf("%s: %w", id(o), err)
	}
	return &x, nil
}

// storedSet is one overlay's objects as the server stored them.
type storedSet struct {
	deployments []*appsv1.Deployment
	services    []*corev1.Service
}

// podsSelected names the Deployments whose pod template sel selects.
func (s *storedSet) podsSelected(sel *metav1.LabelSelector) ([]*appsv1.Deployment, error) {
	ls, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, err
	}
	if ls.Empty() {
		return nil, errors.New("empty selector (selects every pod in the namespace)")
	}
	var out []*appsv1.Deployment
	for _, d := range s.deployments {
		if ls.Matches(labels.Set(d.Spec.Template.Labels)) {
			out = append(out, d)
		}
	}
	return out, nil
}

// checkStored checks, on the objects as the server stored them (defaults
// filled in), the fields damone relies on. Every overlay must have at
// least one of each kind checked here.
func checkStored(objs []*unstructured.Unstructured) error {
	var errs []error
	fail := func(o *unstructured.Unstructured, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", id(o), fmt.Sprintf(format, args...)))
	}
	s := &storedSet{}
	for _, o := range ofKind(objs, "Deployment") {
		d, err := typed[appsv1.Deployment](o)
		if err != nil {
			return err
		}
		s.deployments = append(s.deployments, d)
	}
	for _, o := range ofKind(objs, "Service") {
		svc, err := typed[corev1.Service](o)
		if err != nil {
			return err
		}
		s.services = append(s.services, svc)
	}
	for _, kind := range []string{"Deployment", "PodDisruptionBudget", "HorizontalPodAutoscaler", "NetworkPolicy", "ServiceMonitor", "PrometheusRule"} {
		if len(ofKind(objs, kind)) == 0 {
			errs = append(errs, fmt.Errorf("no %s stored: the check expects every overlay to have one", kind))
		}
	}

	// PodDisruptionBudget: maxUnavailable 1 means drains evict one pod at
	// a time and always progress; the server must not have added
	// minAvailable, and it must cover the pods of exactly one Deployment.
	for _, o := range ofKind(objs, "PodDisruptionBudget") {
		p, err := typed[policyv1.PodDisruptionBudget](o)
		if err != nil {
			return err
		}
		if p.Spec.MinAvailable != nil {
			fail(o, "stored minAvailable %v: a drain could block", p.Spec.MinAvailable)
		}
		if p.Spec.MaxUnavailable == nil || p.Spec.MaxUnavailable.Type != intstr.Int || p.Spec.MaxUnavailable.IntVal < 1 {
			fail(o, "stored maxUnavailable %v, want a count of at least 1", p.Spec.MaxUnavailable)
		}
		if pol := p.Spec.UnhealthyPodEvictionPolicy; pol != nil && *pol != policyv1.IfHealthyBudget {
			fail(o, "stored unhealthyPodEvictionPolicy %s, want unset or IfHealthyBudget", *pol)
		}
		if ds, err := s.podsSelected(p.Spec.Selector); err != nil || len(ds) != 1 {
			fail(o, "selector covers the pods of %d Deployments (%v), want 1", len(ds), err)
		}
	}

	// HorizontalPodAutoscaler: its target exists; it scales on CPU
	// utilization of requests the target's containers all set; scale-down
	// waits its stabilization window; no direction was defaulted to
	// Disabled.
	for _, o := range ofKind(objs, "HorizontalPodAutoscaler") {
		h, err := typed[autoscalingv2.HorizontalPodAutoscaler](o)
		if err != nil {
			return err
		}
		ref := h.Spec.ScaleTargetRef
		var target *appsv1.Deployment
		for _, d := range s.deployments {
			if ref.APIVersion == "apps/v1" && ref.Kind == "Deployment" && ref.Name == d.Name {
				target = d
			}
		}
		if target == nil {
			fail(o, "scaleTargetRef %s %s/%s is not a stored Deployment", ref.APIVersion, ref.Kind, ref.Name)
		}
		if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 1 || *h.Spec.MinReplicas > h.Spec.MaxReplicas {
			fail(o, "stored minReplicas %v, maxReplicas %d: want 1 <= min <= max", h.Spec.MinReplicas, h.Spec.MaxReplicas)
		}
		if len(h.Spec.Metrics) == 0 {
			fail(o, "no metrics stored")
		}
		for i, m := range h.Spec.Metrics {
			if m.Type != autoscalingv2.ResourceMetricSourceType || m.Resource == nil || m.Resource.Name != corev1.ResourceCPU ||
				m.Resource.Target.Type != autoscalingv2.UtilizationMetricType || m.Resource.Target.AverageUtilization == nil ||
				*m.Resource.Target.AverageUtilization < 1 || *m.Resource.Target.AverageUtilization > 100 {
				fail(o, "metrics[%d] stored as %+v, want CPU utilization between 1 and 100 %%", i, m)
			}
		}
		if target != nil {
			for _, ct := range target.Spec.Template.Spec.Containers {
				if _, ok := ct.Resources.Requests[corev1.ResourceCPU]; !ok {
					fail(o, "target %s container %s has no CPU request: CPU utilization cannot be computed", target.Name, ct.Name)
				}
			}
		}
		b := h.Spec.Behavior
		if b == nil || b.ScaleDown == nil || b.ScaleUp == nil {
			fail(o, "stored behavior %+v: want scaleUp and scaleDown (defaulted if not set)", b)
		} else {
			for dir, r := range map[string]*autoscalingv2.HPAScalingRules{"scaleUp": b.ScaleUp, "scaleDown": b.ScaleDown} {
				if r.SelectPolicy != nil && *r.SelectPolicy == autoscalingv2.DisabledPolicySelect {
					fail(o, "%s selectPolicy Disabled: it would never scale that way", dir)
				}
				if len(r.Policies) == 0 {
					fail(o, "%s has no policies stored", dir)
				}
			}
			if w := b.ScaleDown.StabilizationWindowSeconds; w == nil || *w < 60 {
				fail(o, "scaleDown stabilizationWindowSeconds %v: want a window (docs: 5 minutes)", w)
			}
		}
	}

	// NetworkPolicy: only Ingress is restricted (the server must not have
	// added Egress); every port it admits is a named port of every pod it
	// selects; it selects every Deployment's pods.
	for _, o := range ofKind(objs, "NetworkPolicy") {
		np, err := typed[networkingv1.NetworkPolicy](o)
		if err != nil {
			return err
		}
		if !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}) {
			fail(o, "stored policyTypes %v, want [Ingress] (Egress would cut every outbound connection)", np.Spec.PolicyTypes)
		}
		ds, err := s.podsSelected(&np.Spec.PodSelector)
		if err != nil {
			fail(o, "podSelector: %v", err)
		}
		if len(ds) != len(s.deployments) {
			fail(o, "podSelector covers %d of %d Deployments", len(ds), len(s.deployments))
		}
		for _, rule := range np.Spec.Ingress {
			if len(rule.From) != 0 {
				continue
			}
			for _, p := range rule.Ports {
				if p.Protocol == nil || *p.Protocol != corev1.ProtocolTCP || p.Port == nil {
					fail(o, "ingress port %+v: want a TCP port", p)
					continue
				}
				for _, d := range ds {
					if !hasContainerPort(d, *p.Port) {
						fail(o, "admits port %s, which Deployment %s's pods do not have", p.Port.String(), d.Name)
					}
				}
			}
		}
	}

	// ServiceMonitor: it scrapes, in its own namespace only, the named port
	// of Services that have it, with a timeout within the interval.
	for _, o := range ofKind(objs, "ServiceMonitor") {
		if _, found, _ := unstructured.NestedFieldNoCopy(o.Object, "spec", "namespaceSelector"); found {
			ns, _, _ := unstructured.NestedFieldNoCopy(o.Object, "spec", "namespaceSelector")
			fail(o, "stored namespaceSelector %v: want none (its own namespace only)", ns)
		}
		selMap, _, _ := unstructured.NestedMap(o.Object, "spec", "selector")
		var sel metav1.LabelSelector
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(selMap, &sel); err != nil {
			fail(o, "selector: %v", err)
			continue
		}
		ls, err := metav1.LabelSelectorAsSelector(&sel)
		if err != nil || ls.Empty() {
			fail(o, "selector %v: %v (empty selects every Service)", selMap, err)
			continue
		}
		eps, _, _ := unstructured.NestedSlice(o.Object, "spec", "endpoints")
		if len(eps) == 0 {
			fail(o, "no endpoints stored")
		}
		for i, e := range eps {
			ep, _ := e.(map[string]any)
			port, _ := ep["port"].(string)
			scraped := 0
			for _, svc := range s.services {
				if ls.Matches(labels.Set(svc.Labels)) && slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == port }) {
					scraped++
				}
			}
			if scraped == 0 {
				fail(o, "endpoints[%d] port %q is on no selected Service", i, port)
			}
			interval, err1 := time.ParseDuration(fmt.Sprint(ep["interval"]))
			timeout, err2 := time.ParseDuration(fmt.Sprint(ep["scrapeTimeout"]))
			if err1 != nil || err2 != nil || timeout > interval {
				fail(o, "endpoints[%d] interval %v, scrapeTimeout %v: want both, the timeout within the interval", i, ep["interval"], ep["scrapeTimeout"])
			}
		}
	}

	// PrometheusRule: every group has rules, each rule records or alerts
	// (not both) on a non-empty expression, and alerts carry a severity.
	for _, o := range ofKind(objs, "PrometheusRule") {
		groups, _, _ := unstructured.NestedSlice(o.Object, "spec", "groups")
		if len(groups) == 0 {
			fail(o, "no groups stored")
		}
		for gi, g := range groups {
			gm, _ := g.(map[string]any)
			rules, _ := gm["rules"].([]any)
			if len(rules) == 0 {
				fail(o, "group %v has no rules stored", gm["name"])
			}
			for ri, r := range rules {
				rm, _ := r.(map[string]any)
				rec, _ := rm["record"].(string)
				alert, _ := rm["alert"].(string)
				expr := fmt.Sprint(rm["expr"])
				where := fmt.Sprintf("groups[%d].rules[%d]", gi, ri)
				if (rec == "") == (alert == "") {
					fail(o, "%s: want exactly one of record and alert, stored record %q alert %q", where, rec, alert)
				}
				if strings.TrimSpace(expr) == "" || rm["expr"] == nil {
					fail(o, "%s: empty expr", where)
				}
				if alert != "" {
					ls, _ := rm["labels"].(map[string]any)
					if ls["severity"] == nil {
						fail(o, "%s (%s): no severity label", where, alert)
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}

func hasContainerPort(d *appsv1.Deployment, port intstr.IntOrString) bool {
	for _, ct := range d.Spec.Template.Spec.Containers {
		for _, p := range ct.Ports {
			if (port.Type == intstr.String && p.Name == port.StrVal) || (port.Type == intstr.Int && p.ContainerPort == port.IntVal) {
				return true
			}
		}
	}
	return false
}
