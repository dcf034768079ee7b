package apiserver_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
)

// TestRolloutsAndEvictions runs each overlay on a control plane with the
// controller manager, the scheduler and fake nodes (no kubelet: pods are
// marked Ready without running anything). Its pods are admitted (the
// namespace enforces the restricted Pod Security Standard), every
// Deployment reaches its replicas (for one an HPA targets, its
// minReplicas, set by the HPA controller), and a rollout of a changed pod
// template completes within each Deployment's strategy: RollingUpdate never
// below replicas - maxUnavailable ready pods and its ReplicaSets never
// asking for more than replicas + maxSurge, Recreate never more pods than
// replicas (for the memory-store games pod: never two at once). Then the
// eviction API: a PDB lets one pod go and refuses the next while the first
// is not replaced, and a pod that no PDB covers can be evicted.
func TestRolloutsAndEvictions(t *testing.T) {
	c := getControlPlane(t)
	for _, overlay := range manifestSetNames(t) {
		t.Run(overlay, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			ns := "rollout-" + overlay
			objs := mustParse(t, manifestSets(t)[overlay])
			applied, _, err := c.applyFresh(ctx, objs, ns)
			if err != nil {
				t.Fatalf("apply refused:\n%v", err)
			}
			want, err := wantReplicas(applied)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.waitRolledOut(ctx, ns, want); err != nil {
				t.Fatalf("first rollout: %v", err)
			}

			// A release that changes the pod template (as a new image or
			// setting would): every Deployment rolls.
			rev := mutateAll(applied, "Deployment", func(o map[string]any) error {
				return unstructured.SetNestedField(o, "2", "spec", "template", "metadata", "annotations", "damone.test/revision")
			})
			watches := map[string]*podWatch{}
			for name := range want {
				d, err := c.kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				w, err := c.watchPods(ctx, d)
				if err != nil {
					t.Fatal(err)
				}
				watches[name] = w
			}
			if _, err := c.apply(ctx, rev); err != nil {
				t.Fatalf("apply of the changed templates refused:\n%v", err)
			}
			if err := c.waitRolledOut(ctx, ns, want); err != nil {
				t.Fatalf("rollout of the changed templates: %v", err)
			}
			for name, w := range watches {
				d, err := c.kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if d.Spec.Template.Annotations["damone.test/revision"] != "2" {
					t.Errorf("Deployment/%s: the rollout did not take the new template", name)
				}
				w.stop()
				if err := w.check(d); err != nil {
					t.Errorf("Deployment/%s rollout: %v; the events seen:\n%s", name, err, strings.Join(w.timeline, "\n"))
				} else {
					t.Logf("Deployment/%s (%s, %d replicas) rolled: at any time at least %d pods ready, at most %d asked for by its ReplicaSets, at most %d not terminating, at most %d in all", name, d.Spec.Strategy.Type, *d.Spec.Replicas, w.minReady, w.maxAsked, w.maxLive, w.maxPods)
				}
			}

			c.checkEvictions(ctx, t, ns, applied)
		})
	}
}

// wantReplicas is each Deployment's replica count once settled: its HPA's
// minReplicas if an HPA targets it (it is raised from the default 1 with
// no metrics to say more), else its replicas (1 if unset).
func wantReplicas(objs []*unstructured.Unstructured) (map[string]int32, error) {
	want := map[string]int32{}
	for _, o := range ofKind(objs, "Deployment") {
		d, err := typed[appsv1.Deployment](o)
		if err != nil {
			return nil, err
		}
		want[d.Name] = 1
		if d.Spec.Replicas != nil {
			want[d.Name] = *d.Spec.Replicas
		}
	}
	for _, o := range ofKind(objs, "HorizontalPodAutoscaler") {
		h, err := typed[autoscalingv2.HorizontalPodAutoscaler](o)
		if err != nil {
			return nil, err
		}
		if _, ok := want[h.Spec.ScaleTargetRef.Name]; ok && h.Spec.MinReplicas != nil {
			want[h.Spec.ScaleTargetRef.Name] = *h.Spec.MinReplicas
		}
	}
	return want, nil
}

// mutateAll returns copies of objs with f applied to every object of kind.
func mutateAll(objs []*unstructured.Unstructured, kind string, f func(map[string]any) error) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		o = o.DeepCopy()
		if o.GetKind() == kind {
			if err := f(o.Object); err != nil {
				panic(err)
			}
		}
		out = append(out, o)
	}
	return out
}

// waitRolledOut waits until every Deployment in want runs exactly that
// many pods, all of its current template and available, as `kubectl
// rollout status` judges it. On timeout it says where each one stands.
func (c *cluster) waitRolledOut(ctx context.Context, ns string, want map[string]int32) error {
	deadline := time.Now().Add(90 * time.Second)
	for {
		var pending []string
		for name, n := range want {
			d, err := c.kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			s := d.Status
			if d.Spec.Replicas == nil || *d.Spec.Replicas != n || s.ObservedGeneration < d.Generation ||
				s.Replicas != n || s.UpdatedReplicas != n || s.ReadyReplicas != n || s.AvailableReplicas != n {
				pending = append(pending, fmt.Sprintf("%s: want %d, spec.replicas %v, status %+v", name, n, ptrStr(d.Spec.Replicas), s))
			}
		}
		if len(pending) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not rolled out after 90s:\n%s\n%s", strings.Join(pending, "\n"), c.replicaSetTroubles(ctx, ns))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func ptrStr(p *int32) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// replicaSetTroubles lists the failure conditions of a namespace's
// ReplicaSets (pods refused by admission show here) and its warning
// events.
func (c *cluster) replicaSetTroubles(ctx context.Context, ns string) string {
	var b strings.Builder
	rss, err := c.kube.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	if err == nil {
		for _, rs := range rss.Items {
			for _, cond := range rs.Status.Conditions {
				fmt.Fprintf(&b, "ReplicaSet/%s %s: %s\n", rs.Name, cond.Type, cond.Message)
			}
		}
	}
	evs, err := c.kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "type=Warning"})
	if err == nil {
		for _, e := range evs.Items {
			fmt.Fprintf(&b, "event %s/%s %s: %s\n", e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
		}
	}
	return b.String()
}

// podWatch follows a Deployment's pods and ReplicaSets during a rollout:
// the fewest ready (and not terminating) pods, the most pods its
// ReplicaSets ask for, the most pods not terminating, and the most pods
// terminating included, at any one time.
type podWatch struct {
	w        watch.Interface
	rsw      watch.Interface
	done     chan struct{}
	rsDone   chan struct{}
	mu       sync.Mutex
	pods     map[string]*corev1.Pod
	minReady int
	maxLive  int
	maxPods  int
	// maxAsked is the most pods the Deployment's ReplicaSets asked for
	// (the sum of their spec.replicas) at any one time.
	maxAsked int
	asked    map[string]int
	// timeline is every event seen, with the counts after it, for the
	// message of a failed check.
	timeline []string
}

func (c *cluster) watchPods(ctx context.Context, d *appsv1.Deployment) (*podWatch, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	list, err := c.kube.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	w, err := c.kube.CoreV1().Pods(d.Namespace).Watch(ctx, metav1.ListOptions{LabelSelector: sel.String(), ResourceVersion: list.ResourceVersion})
	if err != nil {
		return nil, err
	}
	rsw, err := c.kube.AppsV1().ReplicaSets(d.Namespace).Watch(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		w.Stop()
		return nil, err
	}
	pw := &podWatch{w: w, rsw: rsw, done: make(chan struct{}), rsDone: make(chan struct{}), pods: map[string]*corev1.Pod{}, asked: map[string]int{}}
	go func() {
		// The ReplicaSets' sizes go in the timeline too: a breach is the
		// controllers' doing, and their steps say which one.
		defer close(pw.rsDone)
		for ev := range rsw.ResultChan() {
			if rs, ok := ev.Object.(*appsv1.ReplicaSet); ok {
				pw.mu.Lock()
				pw.asked[rs.Name] = int(ptrInt(rs.Spec.Replicas))
				if ev.Type == watch.Deleted {
					delete(pw.asked, rs.Name)
				}
				sum := 0
				for _, n := range pw.asked {
					sum += n
				}
				pw.maxAsked = max(pw.maxAsked, sum)
				pw.timeline = append(pw.timeline, fmt.Sprintf("%s ReplicaSet/%s: spec.replicas %s, status.replicas %d", ev.Type, rs.Name, ptrStr(rs.Spec.Replicas), rs.Status.Replicas))
				pw.mu.Unlock()
			}
		}
	}()
	for i := range list.Items {
		pw.pods[list.Items[i].Name] = &list.Items[i]
	}
	pw.minReady, pw.maxLive, pw.maxPods = pw.count()
	go func() {
		defer close(pw.done)
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			pw.mu.Lock()
			if ev.Type == watch.Deleted {
				delete(pw.pods, p.Name)
			} else {
				pw.pods[p.Name] = p
			}
			ready, live, all := pw.count()
			pw.minReady = min(pw.minReady, ready)
			pw.maxLive = max(pw.maxLive, live)
			pw.maxPods = max(pw.maxPods, all)
			pw.timeline = append(pw.timeline, fmt.Sprintf("%s %s ready=%v terminating=%v: %d ready, %d not terminating, %d in all", ev.Type, p.Name, podReady(p), p.DeletionTimestamp != nil, ready, live, all))
			pw.mu.Unlock()
		}
	}()
	return pw, nil
}

// count returns the ready pods and the live pods (both not terminating),
// and all pods.
func (pw *podWatch) count() (ready, live, all int) {
	for _, p := range pw.pods {
		if p.DeletionTimestamp == nil {
			live++
			if podReady(p) {
				ready++
			}
		}
	}
	return ready, live, len(pw.pods)
}

func (pw *podWatch) stop() {
	pw.w.Stop()
	pw.rsw.Stop()
	<-pw.done
	<-pw.rsDone
}

// check holds the rollout to the Deployment's strategy.
func (pw *podWatch) check(d *appsv1.Deployment) error {
	n := int(*d.Spec.Replicas)
	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		// Recreate waits for the old pods to be gone, terminating ones
		// included: never two games pods at once.
		if pw.maxPods > n {
			return fmt.Errorf("Recreate ran %d pods at once, want at most %d", pw.maxPods, n)
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		ru := d.Spec.Strategy.RollingUpdate
		unavail, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, n, false)
		if err != nil {
			return err
		}
		surge, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxSurge, n, true)
		if err != nil {
			return err
		}
		if pw.minReady < n-unavail {
			return fmt.Errorf("%d pods ready at one point, want at least %d (maxUnavailable %s)", pw.minReady, n-unavail, ru.MaxUnavailable.String())
		}
		// The surge bounds what the ReplicaSets ask for, as the Deployment
		// controller counts it, not the pods: it scales the old set down
		// and the new one up in one step, and the new set's pod can come
		// before the old set's controller marks one of its pods for
		// deletion, so n+surge+1 pods live for a moment (seen here under
		// load: old set 2 -> 1 and new 2 -> 3 with the old set's two pods
		// still live).
		if pw.maxAsked > n+surge {
			return fmt.Errorf("the ReplicaSets asked for %d pods at one point, want at most %d (maxSurge %s)", pw.maxAsked, n+surge, ru.MaxSurge.String())
		}
	default:
		return fmt.Errorf("strategy %q", d.Spec.Strategy.Type)
	}
	return nil
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// readyPods lists the ready, not terminating pods selected by sel, by name.
func (c *cluster) readyPods(ctx context.Context, ns string, sel *metav1.LabelSelector) ([]corev1.Pod, error) {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, err
	}
	list, err := c.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: s.String()})
	if err != nil {
		return nil, err
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && podReady(&p) {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// waitBudget waits until the disruption controller has counted every pod
// the PDB covers as healthy (its status then allows its maxUnavailable).
func (c *cluster) waitBudget(ctx context.Context, ns, name string, healthy int32) (*policyv1.PodDisruptionBudget, error) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		p, err := c.kube.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		s := p.Status
		if s.ObservedGeneration == p.Generation && s.ExpectedPods == healthy && s.CurrentHealthy == healthy && len(s.DisruptedPods) == 0 && s.DisruptionsAllowed > 0 {
			return p, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("PodDisruptionBudget/%s: status %+v after 60s, want %d healthy", name, s, healthy)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (c *cluster) evict(ctx context.Context, p corev1.Pod) error {
	return c.kube.PolicyV1().Evictions(p.Namespace).Evict(ctx, &policyv1.Eviction{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace},
	})
}

// checkEvictions evicts through the Eviction API as a node drain does.
// For each PDB: with the namespace's pods held as they are (no replacement
// gets ready, the evicted pod stays terminating), the first eviction is
// allowed and, if the budget covers more pods, the next is refused with
// 429 naming the budget; once the replacement is ready, that pod can go.
// A Deployment no PDB covers has its pod evicted freely.
func (c *cluster) checkEvictions(ctx context.Context, t *testing.T, ns string, applied []*unstructured.Unstructured) {
	t.Helper()
	want, err := wantReplicas(applied)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, o := range ofKind(applied, "PodDisruptionBudget") {
		pdb, err := typed[policyv1.PodDisruptionBudget](o)
		if err != nil {
			t.Fatal(err)
		}
		var deploy string
		for _, d := range ofKind(applied, "Deployment") {
			dd, _ := typed[appsv1.Deployment](d)
			s, _ := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
			if s.Matches(labels.Set(dd.Spec.Template.Labels)) {
				deploy = dd.Name
			}
		}
		covered[deploy] = true
		pods, err := c.readyPods(ctx, ns, pdb.Spec.Selector)
		if err != nil {
			t.Fatal(err)
		}
		if int32(len(pods)) != want[deploy] {
			t.Fatalf("PodDisruptionBudget/%s: %d ready pods, want %d", pdb.Name, len(pods), want[deploy])
		}
		if _, err := c.waitBudget(ctx, ns, pdb.Name, int32(len(pods))); err != nil {
			t.Fatal(err)
		}
		c.kubelet.hold(ns, true)
		if err := c.evict(ctx, pods[0]); err != nil {
			c.kubelet.hold(ns, false)
			t.Fatalf("PodDisruptionBudget/%s allows one disruption, but evicting %s failed: %v", pdb.Name, pods[0].Name, err)
		}
		if len(pods) < 2 {
			c.kubelet.hold(ns, false)
			t.Logf("PodDisruptionBudget/%s: the one pod %s was evicted (a drain progresses at one replica)", pdb.Name, pods[0].Name)
			continue
		}
		err = c.evict(ctx, pods[1])
		c.kubelet.hold(ns, false)
		if err == nil {
			t.Fatalf("PodDisruptionBudget/%s (maxUnavailable %s): evicting %s while %s is terminating was allowed", pdb.Name, pdb.Spec.MaxUnavailable, pods[1].Name, pods[0].Name)
		}
		if !apierrors.IsTooManyRequests(err) || !strings.Contains(err.Error(), "disruption budget") {
			t.Fatalf("evicting %s: got %v, want 429 naming the disruption budget", pods[1].Name, err)
		}
		t.Logf("PodDisruptionBudget/%s: evicted %s, then refused %s: %v", pdb.Name, pods[0].Name, pods[1].Name, err)
		if _, err := c.waitBudget(ctx, ns, pdb.Name, int32(len(pods))); err != nil {
			t.Fatal(err)
		}
		if err := c.evict(ctx, pods[1]); err != nil {
			t.Fatalf("PodDisruptionBudget/%s: once the replacement is ready, evicting %s failed: %v", pdb.Name, pods[1].Name, err)
		}
	}
	for _, o := range ofKind(applied, "Deployment") {
		d, err := typed[appsv1.Deployment](o)
		if err != nil {
			t.Fatal(err)
		}
		if covered[d.Name] {
			continue
		}
		pods, err := c.readyPods(ctx, ns, d.Spec.Selector)
		if err != nil || len(pods) == 0 {
			t.Fatalf("Deployment/%s: no ready pod to evict (%v)", d.Name, err)
		}
		if err := c.evict(ctx, pods[0]); err != nil {
			t.Errorf("Deployment/%s has no PDB, yet evicting %s failed: %v", d.Name, pods[0].Name, err)
		}
	}
	if err := c.waitRolledOut(ctx, ns, want); err != nil {
		t.Fatalf("after the evictions: %v", err)
	}
}

// TestRolloutCheckCatchesBreaches: the rollout check fails a rollout that
// breaks its Deployment's strategy (the counts are made up here; the
// controller manager keeps to the strategy, so a real one cannot).
func TestRolloutCheckCatchesBreaches(t *testing.T) {
	deploy := func(n int32, strategy appsv1.DeploymentStrategy) *appsv1.Deployment {
		return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &n, Strategy: strategy}}
	}
	recreate := appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	zero, quarter := intstr.FromInt32(0), intstr.FromString("25%")
	rolling := appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &zero, MaxSurge: &quarter}}
	for _, c := range []struct {
		name                        string
		d                           *appsv1.Deployment
		minReady, maxAsked, maxPods int
		want                        string // "" for no error
	}{
		{"Recreate, one pod at a time", deploy(1, recreate), 0, 1, 1, ""},
		{"Recreate, a new pod beside a terminating one", deploy(1, recreate), 0, 1, 2, "Recreate ran 2 pods at once, want at most 1"},
		// Pods past the surge while the old set's controller catches up
		// are not a breach; the sets' sizes are.
		{"rolling, within", deploy(3, rolling), 3, 4, 5, ""},
		// 25% of 3 rounds up to a surge of 1.
		{"rolling, surged two", deploy(3, rolling), 3, 5, 5, "the ReplicaSets asked for 5 pods at one point, want at most 4 (maxSurge 25%)"},
		{"rolling, one unavailable", deploy(3, rolling), 2, 4, 4, "2 pods ready at one point, want at least 3 (maxUnavailable 0)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := (&podWatch{minReady: c.minReady, maxAsked: c.maxAsked, maxPods: c.maxPods}).check(c.d)
			if c.want == "" {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				return
			}
			if err == nil || err.Error() != c.want {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

func ptrInt(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
