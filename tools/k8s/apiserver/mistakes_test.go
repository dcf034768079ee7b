package apiserver_test

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// overlayWith returns the first overlay (by name) that renders an object
// of kind with that name, and its objects.
func overlayWith(t *testing.T, kind, name string) (string, []*unstructured.Unstructured) {
	t.Helper()
	for _, overlay := range overlayNames(t) {
		objs := mustParse(t, renderOverlays(t)[overlay])
		if find(objs, kind, name) != nil {
			return overlay, objs
		}
	}
	t.Fatalf("no overlay renders %s/%s", kind, name)
	return "", nil
}

// mutated returns a copy of objs with f applied to the object kind/name.
func mutated(t *testing.T, objs []*unstructured.Unstructured, kind, name string, f func(o map[string]any) error) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, o := range objs {
		o = o.DeepCopy()
		if o.GetKind() == kind && o.GetName() == name {
			if err := f(o.Object); err != nil {
				t.Fatalf("mutate %s/%s: %v", kind, name, err)
			}
		}
		out = append(out, o)
	}
	return out
}

// firstAlert applies f to the first alerting rule of a PrometheusRule.
func firstAlert(f func(rule map[string]any)) func(o map[string]any) error {
	return func(o map[string]any) error {
		groups, _, err := unstructured.NestedSlice(o, "spec", "groups")
		if err != nil {
			return err
		}
		for _, g := range groups {
			for _, r := range g.(map[string]any)["rules"].([]any) {
				if rule := r.(map[string]any); rule["alert"] != nil {
					f(rule)
					return unstructured.SetNestedSlice(o, groups, "spec", "groups")
				}
			}
		}
		return errors.New("no alerting rule")
	}
}

// TestServerCatchesMistakes: a mistake that strict decoding into the Go
// types lets through (or that only shows on an upgrade) fails the apply,
// with the API server's own error naming the field. Each case starts from
// a rendered overlay that TestOverlaysApply shows is accepted, and breaks
// one thing.
func TestServerCatchesMistakes(t *testing.T) {
	c := getCluster(t)
	type mistake struct {
		name        string
		kind, obj   string
		mutate      func(o map[string]any) error
		upgrade     bool     // apply the overlay's baseline first, then the mutated objects
		warning     bool     // the server accepts it with a warning (which the check refuses)
		wantInError []string // all of these in the server's error
	}
	endpoint0 := func(f func(ep map[string]any)) func(o map[string]any) error {
		return func(o map[string]any) error {
			eps, _, err := unstructured.NestedSlice(o, "spec", "endpoints")
			if err != nil {
				return err
			}
			f(eps[0].(map[string]any))
			return unstructured.SetNestedSlice(o, eps, "spec", "endpoints")
		}
	}
	metric0 := func(m map[string]any) func(o map[string]any) error {
		return func(o map[string]any) error {
			ms, _, err := unstructured.NestedSlice(o, "spec", "metrics")
			if err != nil {
				return err
			}
			ms[0] = m
			return unstructured.SetNestedSlice(o, ms, "spec", "metrics")
		}
	}
	cpu70 := map[string]any{"name": "cpu", "target": map[string]any{"type": "Utilization", "averageUtilization": int64(70)}}
	for _, m := range []mistake{
		{
			// The CRD's schema says string. Server-side apply refuses it
			// while merging, before validation, and (as upstream does
			// today) with a 500 "failed to create typed patch object";
			// a client-side apply would get 422 "must be of type string".
			name: "ServiceMonitor interval of the wrong type", kind: "ServiceMonitor", obj: "damone",
			mutate:      endpoint0(func(ep map[string]any) { ep["interval"] = int64(30) }),
			wantInError: []string{"ServiceMonitor/damone", ".spec.endpoints[0].interval", "expected string"},
		},
		{
			// A string, so the Go types take it; only the CRD's pattern
			// refuses it.
			name: "ServiceMonitor interval not a Prometheus duration", kind: "ServiceMonitor", obj: "damone",
			mutate:      endpoint0(func(ep map[string]any) { ep["interval"] = "30 seconds" }),
			wantInError: []string{"ServiceMonitor/damone", "spec.endpoints[0].interval", "should match"},
		},
		{
			// Prometheus would read "5 minutes" as no duration at all.
			name: "PrometheusRule alert for not a Prometheus duration", kind: "PrometheusRule", obj: "damone",
			mutate:      firstAlert(func(rule map[string]any) { rule["for"] = "5 minutes" }),
			wantInError: []string{"PrometheusRule/damone", "].for", "should match"},
		},
		{
			name: "Deployment selector changed on upgrade", kind: "Deployment", obj: "damone-rules", upgrade: true,
			mutate: func(o map[string]any) error {
				if err := unstructured.SetNestedField(o, "damone", "spec", "selector", "matchLabels", "app.kubernetes.io/part-of"); err != nil {
					return err
				}
				return unstructured.SetNestedField(o, "damone", "spec", "template", "metadata", "labels", "app.kubernetes.io/part-of")
			},
			wantInError: []string{"Deployment/damone-rules", "spec.selector", "field is immutable"},
		},
		{
			// Accepted, with a warning from the namespace's Pod Security
			// "warn" label: the ReplicaSet's pods would be refused by its
			// "enforce" label, so the Deployment would never run a pod.
			name: "pods below the restricted Pod Security level", kind: "Deployment", obj: "damone-rules", warning: true,
			mutate: func(o map[string]any) error {
				cs, _, err := unstructured.NestedSlice(o, "spec", "template", "spec", "containers")
				if err != nil {
					return err
				}
				cs[0].(map[string]any)["securityContext"].(map[string]any)["allowPrivilegeEscalation"] = true
				return unstructured.SetNestedSlice(o, cs, "spec", "template", "spec", "containers")
			},
			wantInError: []string{"Deployment/damone-rules: the server warned", `would violate PodSecurity "restricted:latest"`, "allowPrivilegeEscalation != false"},
		},
		{
			name: "HPA metric of a type that does not exist", kind: "HorizontalPodAutoscaler", obj: "damone-rules",
			mutate:      metric0(map[string]any{"type": "Cpu", "resource": cpu70}),
			wantInError: []string{"HorizontalPodAutoscaler/damone-rules", "spec.metrics[0].type", "Unsupported value"},
		},
		{
			name: "HPA metric type without its source", kind: "HorizontalPodAutoscaler", obj: "damone-rules",
			mutate:      metric0(map[string]any{"type": "Pods", "resource": cpu70}),
			wantInError: []string{"HorizontalPodAutoscaler/damone-rules", "spec.metrics[0].pods", "must populate information for the given metric source"},
		},
	} {
		t.Run(m.name, func(t *testing.T) {
			ctx := testContext(t)
			overlay, objs := overlayWith(t, m.kind, m.obj)
			ns := "mistake-" + strings.ToLower(strings.NewReplacer(" ", "-").Replace(m.name))
			if len(ns) > 63 {
				ns = ns[:63]
			}
			ns = strings.TrimRight(ns, "-")
			if m.upgrade {
				if _, _, err := c.applyFresh(ctx, baseline(t, overlay), ns); err != nil {
					t.Fatalf("baseline of %s refused: %v", overlay, err)
				}
			}
			_, _, err := c.applyFresh(ctx, mutated(t, objs, m.kind, m.obj, m.mutate), ns)
			if err == nil {
				t.Fatalf("%s with the mistake was accepted", overlay)
			}
			if !m.warning && !isServerRefusal(err) {
				t.Fatalf("want the API server to refuse the object, got: %v", err)
			}
			for _, w := range m.wantInError {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not contain %q:\n%v", w, err)
				}
			}
			t.Logf("%s: %v", overlay, err)
		})
	}
}

// TestStoredChecksCatchMeaningChanges: objects the server accepts, but
// whose stored form means something other than intended, fail checkStored
// naming the problem. The first is the server's defaulting at work: a
// NetworkPolicy with egress rules and no policyTypes is stored with
// policyTypes [Ingress, Egress], cutting every other outbound connection.
func TestStoredChecksCatchMeaningChanges(t *testing.T) {
	c := getCluster(t)
	for _, m := range []struct {
		name, kind, obj string
		mutate          func(o map[string]any) error
		want            string
	}{
		{
			name: "NetworkPolicy egress defaulted in", kind: "NetworkPolicy", obj: "damone",
			mutate: func(o map[string]any) error {
				unstructured.RemoveNestedField(o, "spec", "policyTypes")
				return unstructured.SetNestedSlice(o, []any{map[string]any{
					"ports": []any{map[string]any{"port": int64(53), "protocol": "UDP"}},
				}}, "spec", "egress")
			},
			want: "NetworkPolicy/damone: stored policyTypes [Ingress Egress], want [Ingress]",
		},
		{
			name: "HPA scale-down disabled", kind: "HorizontalPodAutoscaler", obj: "damone-rules",
			mutate: func(o map[string]any) error {
				return unstructured.SetNestedField(o, "Disabled", "spec", "behavior", "scaleDown", "selectPolicy")
			},
			want: "HorizontalPodAutoscaler/damone-rules: scaleDown selectPolicy Disabled",
		},
		{
			name: "PDB by minAvailable", kind: "PodDisruptionBudget", obj: "damone-rules",
			mutate: func(o map[string]any) error {
				unstructured.RemoveNestedField(o, "spec", "maxUnavailable")
				return unstructured.SetNestedField(o, int64(1), "spec", "minAvailable")
			},
			want: "PodDisruptionBudget/damone-rules: stored minAvailable 1",
		},
		{
			name: "PrometheusRule alert without severity", kind: "PrometheusRule", obj: "damone",
			mutate: firstAlert(func(rule map[string]any) { delete(rule["labels"].(map[string]any), "severity") }),
			want:   "): no severity label",
		},
		{
			name: "ServiceMonitor timeout over interval", kind: "ServiceMonitor", obj: "damone",
			mutate: func(o map[string]any) error {
				eps, _, _ := unstructured.NestedSlice(o, "spec", "endpoints")
				eps[0].(map[string]any)["scrapeTimeout"] = "45s"
				return unstructured.SetNestedSlice(o, eps, "spec", "endpoints")
			},
			want: "ServiceMonitor/damone: endpoints[0] interval 30s, scrapeTimeout 45s",
		},
	} {
		t.Run(m.name, func(t *testing.T) {
			ctx := testContext(t)
			_, objs := overlayWith(t, m.kind, m.obj)
			ns := "meaning-" + strings.ToLower(strings.NewReplacer(" ", "-").Replace(m.name))
			_, stored, err := c.applyFresh(ctx, mutated(t, objs, m.kind, m.obj, m.mutate), ns)
			if err != nil {
				t.Fatalf("the server refused it (the case needs an accepted object): %v", err)
			}
			err = checkStored(stored)
			if err == nil || !strings.Contains(err.Error(), m.want) {
				t.Fatalf("checkStored: got %v, want an error containing %q", err, m.want)
			}
		})
	}
}
