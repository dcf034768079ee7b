package k8s_test

// The manifests' checks: every overlay renders with kustomize's Go API, every
// object decodes strictly into its k8s.io/api or prometheus-operator type
// (an unknown or misspelt field fails), and the semantic checks below hold
// against the real server: its constants (internal/server) and the flags,
// environment variables and defaults that the damone binary itself reports.

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/damone-rules/damone/internal/server"
	"github.com/damone-rules/damone/k8s"
	"github.com/damone-rules/damone/k8s/grafana"
)

// sharedStores are the --store kinds whose games every replica sees. Only
// with one of these may more than one pod serve GameService; "memory" (and
// any store kept on a pod's own disk) is not one of them.
var sharedStores = map[string]bool{"postgres": true}

// objects is one rendered overlay, decoded.
type objects struct {
	overlay         string
	namespaces      []corev1.Namespace
	configMaps      map[string]corev1.ConfigMap
	deployments     []appsv1.Deployment
	services        []corev1.Service
	hpas            []autoscalingv2.HorizontalPodAutoscaler
	pdbs            []policyv1.PodDisruptionBudget
	serviceMonitors []monitoringv1.ServiceMonitor
	prometheusRules []monitoringv1.PrometheusRule
	netpols         []networkingv1.NetworkPolicy
}

// decode renders the kustomization in dir and decodes every object strictly
// into the type of its apiVersion and kind; an object of any other kind is
// an error, so a new kind has to be added here (and checked) first.
func decode(dir string) (*objects, error) {
	m, err := k8s.Render(dir)
	if err != nil {
		return nil, err
	}
	o := &objects{overlay: filepath.Base(dir), configMaps: map[string]corev1.ConfigMap{}}
	var errs []error
	for _, r := range m.Resources() {
		y, err := r.AsYAML()
		if err != nil {
			return nil, err
		}
		gvk := r.GetApiVersion() + ", Kind=" + r.GetKind()
		id := r.GetKind() + "/" + r.GetName()
		strict := func(into any) bool {
			if err := decodeStrict(y, into); err != nil {
				errs = append(errs, fmt.Errorf("%s: strict decode: %w", id, err))
				return false
			}
			return true
		}
		switch gvk {
		case "v1, Kind=Namespace":
			var x corev1.Namespace
			if strict(&x) {
				o.namespaces = append(o.namespaces, x)
			}
		case "v1, Kind=ConfigMap":
			var x corev1.ConfigMap
			if strict(&x) {
				o.configMaps[x.Name] = x
			}
		case "v1, Kind=Service":
			var x corev1.Service
			if strict(&x) {
				o.services = append(o.services, x)
			}
		case "apps/v1, Kind=Deployment":
			var x appsv1.Deployment
			if strict(&x) {
				o.deployments = append(o.deployments, x)
			}
		case "autoscaling/v2, Kind=HorizontalPodAutoscaler":
			var x autoscalingv2.HorizontalPodAutoscaler
			if strict(&x) {
				o.hpas = append(o.hpas, x)
			}
		case "policy/v1, Kind=PodDisruptionBudget":
			var x policyv1.PodDisruptionBudget
			if strict(&x) {
				o.pdbs = append(o.pdbs, x)
			}
		case "monitoring.coreos.com/v1, Kind=ServiceMonitor":
			var x monitoringv1.ServiceMonitor
			if strict(&x) {
				o.serviceMonitors = append(o.serviceMonitors, x)
			}
		case "monitoring.coreos.com/v1, Kind=PrometheusRule":
			var x monitoringv1.PrometheusRule
			if strict(&x) {
				o.prometheusRules = append(o.prometheusRules, x)
			}
		case "networking.k8s.io/v1, Kind=NetworkPolicy":
			var x networkingv1.NetworkPolicy
			if strict(&x) {
				o.netpols = append(o.netpols, x)
			}
		default:
			errs = append(errs, fmt.Errorf("%s: unexpected %s (add it to decode and check it)", id, gvk))
		}
	}
	return o, joinErrs(errs)
}

// decodeStrict decodes one YAML object as the API server would in strict
// field validation: field names are case-sensitive, and an unknown or
// duplicate field is an error. (encoding/json alone, under
// sigs.k8s.io/yaml.UnmarshalStrict, would take "readOnlyRootFileSystem" for
// readOnlyRootFilesystem.)
func decodeStrict(y []byte, into any) error {
	j, err := yaml.YAMLToJSONStrict(y)
	if err != nil {
		return err
	}
	strictErrs, err := sigsjson.UnmarshalStrict(j, into)
	if err != nil {
		return err
	}
	if len(strictErrs) > 0 {
		return joinErrs(strictErrs)
	}
	return nil
}

func joinErrs(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return fmt.Errorf("%s", strings.Join(msgs, "\n"))
}

// renderedOverlays decodes every overlay under dir/overlays.
func renderedOverlays(t *testing.T, dir string) []*objects {
	t.Helper()
	names, err := k8s.Overlays(dir)
	if err != nil {
		t.Fatal(err)
	}
	var all []*objects
	for _, name := range names {
		o, err := decode(filepath.Join(dir, "overlays", name))
		if err != nil {
			t.Fatalf("overlay %s:\n%v", name, err)
		}
		all = append(all, o)
	}
	return all
}

func TestOverlaysRenderDecodeAndPassChecks(t *testing.T) {
	for _, o := range renderedOverlays(t, k8s.Dir()) {
		t.Run(o.overlay, func(t *testing.T) {
			for _, err := range check(o, damone(t)) {
				t.Error(err)
			}
		})
	}
}

// TestOverlaysDiffer guards the point of having overlays at all.
func TestOverlaysDiffer(t *testing.T) {
	dev, err := k8s.RenderYAML(filepath.Join(k8s.Dir(), "overlays", "dev"))
	if err != nil {
		t.Fatal(err)
	}
	prod, err := k8s.RenderYAML(filepath.Join(k8s.Dir(), "overlays", "prod"))
	if err != nil {
		t.Fatal(err)
	}
	if string(dev) == string(prod) {
		t.Fatal("dev and prod render the same objects")
	}
}

// ---- the semantic checks ----

// container is a Deployment's container with its settings resolved.
type container struct {
	c   corev1.Container
	env map[string]string // DAMONE_* and other variables, envFrom then env
}

// setting is the value `damone serve` sees for the flag behind env var
// name: the container's variable, else the binary's default.
func (c container) setting(bin *binary, name string) string {
	if v, ok := c.env[name]; ok {
		return v
	}
	return bin.defaults[name]
}

// services reports which of the binary's services the container serves.
type services struct{ rules, games, analysis bool }

func (c container) services(bin *binary) services {
	var sv services
	for _, s := range strings.Split(c.setting(bin, "DAMONE_SERVICES"), ",") {
		switch strings.TrimSpace(s) {
		case "rules":
			sv.rules = true
		case "games":
			sv.games = true
		case "analysis":
			sv.analysis = true
		}
	}
	return sv
}

func (c container) port(name string) (int32, bool) {
	for _, p := range c.c.Ports {
		if p.Name == name {
			return p.ContainerPort, true
		}
	}
	return 0, false
}

func resolveEnv(o *objects, c corev1.Container) (map[string]string, []error) {
	env := map[string]string{}
	var errs []error
	for _, from := range c.EnvFrom {
		if from.ConfigMapRef == nil {
			errs = append(errs, fmt.Errorf("container %s: envFrom other than a ConfigMap", c.Name))
			continue
		}
		cm, ok := o.configMaps[from.ConfigMapRef.Name]
		if !ok {
			errs = append(errs, fmt.Errorf("container %s: envFrom ConfigMap %q is not in the overlay", c.Name, from.ConfigMapRef.Name))
			continue
		}
		for k, v := range cm.Data {
			env[from.Prefix+k] = v
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			env[e.Name] = ""
			continue
		}
		env[e.Name] = e.Value
	}
	return env, errs
}

// addrPort is the port of a listen address such as ":9090".
func addrPort(addr string) (int32, error) {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(p, 10, 32)
	return int32(n), err
}

// portFlags maps each named container port to the serve flag that sets it
// and the server's default for it.
var portFlags = []struct{ name, env, def string }{
	{"grpc", "DAMONE_GRPC_ADDR", server.DefaultGRPCAddr},
	{"http", "DAMONE_HTTP_ADDR", server.DefaultHTTPAddr},
	{"metrics", "DAMONE_METRICS_ADDR", server.DefaultMetricsAddr},
}

func selects(sel *metav1.LabelSelector, podLabels map[string]string) (bool, error) {
	if sel == nil || (len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		return false, fmt.Errorf("empty selector")
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	return s.Matches(labels.Set(podLabels)), nil
}

func portNames(ps []corev1.ServicePort) []string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return names
}

// check runs every semantic check on one overlay and returns what fails.
func check(o *objects, bin *binary) []error {
	var errs []error
	fail := func(id, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s: %s", o.overlay, id, fmt.Sprintf(format, args...)))
	}

	// Namespace: the overlay creates one, and every object lives in it.
	if len(o.namespaces) != 1 {
		fail("Namespace", "want exactly one Namespace object, got %d", len(o.namespaces))
	} else {
		ns := o.namespaces[0].Name
		metas := []metav1.ObjectMeta{}
		for _, x := range o.configMaps {
			metas = append(metas, x.ObjectMeta)
		}
		for _, x := range o.deployments {
			metas = append(metas, x.ObjectMeta)
		}
		for _, x := range o.services {
			metas = append(metas, x.ObjectMeta)
		}
		for _, x := range o.hpas {
			metas = append(metas, x.ObjectMeta)
		}
		for _, x := range o.pdbs {
			metas = append(metas, x.ObjectMeta)
		}
		for _, x := range o.serviceMonitors {
			metas = append(metas, x.ObjectMeta)
		}
		for _, x := range o.prometheusRules {
			metas = append(metas, x.ObjectMeta)
		}
		for _, x := range o.netpols {
			metas = append(metas, x.ObjectMeta)
		}
		for _, m := range metas {
			if m.Namespace != ns {
				fail(m.Name, "namespace %q, want the overlay's %q", m.Namespace, ns)
			}
		}
	}

	// The HPA of each Deployment, by name.
	hpaOf := map[string]autoscalingv2.HorizontalPodAutoscaler{}
	for _, h := range o.hpas {
		id := "HorizontalPodAutoscaler/" + h.Name
		ref := h.Spec.ScaleTargetRef
		if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" {
			fail(id, "scaleTargetRef %s %s, want apps/v1 Deployment", ref.APIVersion, ref.Kind)
		}
		if !slices.ContainsFunc(o.deployments, func(d appsv1.Deployment) bool { return d.Name == ref.Name }) {
			fail(id, "scaleTargetRef names Deployment %q, which the overlay does not have", ref.Name)
		}
		if _, dup := hpaOf[ref.Name]; dup {
			fail(id, "a second HPA targets Deployment %q", ref.Name)
		}
		hpaOf[ref.Name] = h
		if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 1 || *h.Spec.MinReplicas > h.Spec.MaxReplicas {
			fail(id, "want 1 <= minReplicas <= maxReplicas (%d)", h.Spec.MaxReplicas)
		}
		cpu := slices.ContainsFunc(h.Spec.Metrics, func(m autoscalingv2.MetricSpec) bool {
			return m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil &&
				m.Resource.Name == corev1.ResourceCPU && m.Resource.Target.Type == autoscalingv2.UtilizationMetricType &&
				m.Resource.Target.AverageUtilization != nil && *m.Resource.Target.AverageUtilization > 0
		})
		if !cpu {
			fail(id, "no CPU utilization metric")
		}
	}

	// maxReplicas is the most pods a Deployment can run: its HPA's
	// maxReplicas, or its replicas field (unset means 1).
	maxReplicas := func(d appsv1.Deployment) int32 {
		if h, ok := hpaOf[d.Name]; ok {
			return h.Spec.MaxReplicas
		}
		if d.Spec.Replicas == nil {
			return 1
		}
		return *d.Spec.Replicas
	}

	containers := map[string]container{} // the damone container of each Deployment
	gameHolders := 0
	for _, d := range o.deployments {
		id := "Deployment/" + d.Name
		pod := d.Spec.Template.Spec
		if ok, err := selects(d.Spec.Selector, d.Spec.Template.Labels); err != nil || !ok {
			fail(id, "selector does not match the pod template's labels %v (%v)", d.Spec.Template.Labels, err)
		}
		if _, ok := hpaOf[d.Name]; ok && d.Spec.Replicas != nil {
			fail(id, "sets replicas although an HPA owns its replica count")
		}

		// Pod security.
		psc := pod.SecurityContext
		switch {
		case psc == nil:
			fail(id, "no pod securityContext")
		default:
			if psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
				fail(id, "pod securityContext: runAsNonRoot is not true")
			}
			if psc.RunAsUser == nil || *psc.RunAsUser == 0 {
				fail(id, "pod securityContext: runAsUser unset or 0")
			}
			if psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
				fail(id, "pod securityContext: seccompProfile is not RuntimeDefault")
			}
		}
		if len(pod.InitContainers) > 0 || len(pod.EphemeralContainers) > 0 {
			fail(id, "init or ephemeral containers are not checked here: add their checks first")
		}
		if len(pod.Containers) != 1 {
			fail(id, "want exactly one container, got %d", len(pod.Containers))
			continue
		}
		for _, c := range pod.Containers {
			cid := id + " container " + c.Name
			for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				req, okReq := c.Resources.Requests[r]
				lim, okLim := c.Resources.Limits[r]
				if !okReq || !okLim {
					fail(cid, "%s needs both a request and a limit", r)
				} else if req.Cmp(lim) > 0 {
					fail(cid, "%s request %s above its limit %s", r, req.String(), lim.String())
				}
			}
			sc := c.SecurityContext
			if sc == nil {
				fail(cid, "no securityContext")
			} else {
				if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
					fail(cid, "allowPrivilegeEscalation is not false")
				}
				if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
					fail(cid, "readOnlyRootFilesystem is not true")
				}
				if sc.RunAsNonRoot != nil && !*sc.RunAsNonRoot || sc.RunAsUser != nil && *sc.RunAsUser == 0 {
					fail(cid, "runs as root")
				}
				if sc.Privileged != nil && *sc.Privileged {
					fail(cid, "privileged")
				}
				if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0 {
					fail(cid, "capabilities must drop ALL and add none")
				}
			}
			if img := c.Image; strings.HasSuffix(img, ":latest") || (!strings.Contains(img[strings.LastIndex(img, "/")+1:], ":") && !strings.Contains(img, "@")) {
				fail(cid, "image %q: want a fixed tag or digest, not latest", img)
			}
			if len(c.Command) > 0 || len(c.Args) == 0 || c.Args[0] != "serve" {
				fail(cid, "want args [serve] on the image's entrypoint, got command %v args %v", c.Command, c.Args)
			}

			env, envErrs := resolveEnv(o, c)
			for _, err := range envErrs {
				fail(id, "%v", err)
			}
			for name := range env {
				if strings.HasPrefix(name, "DAMONE_") {
					if _, ok := bin.defaults[name]; !ok {
						fail(cid, "%s is not a variable of `damone serve` (see damone serve --help); it would be ignored", name)
					}
				}
			}
			ctr := container{c: c, env: env}
			containers[d.Name] = ctr
			if _, ok := env["DAMONE_SERVICES"]; !ok {
				fail(cid, "DAMONE_SERVICES unset: say which services this Deployment serves")
			}

			// Ports: what the server listens on, by name.
			for _, pf := range portFlags {
				want, err := addrPort(ctr.setting(bin, pf.env))
				if err != nil {
					fail(cid, "%s: %v", pf.env, err)
					continue
				}
				if def, _ := addrPort(pf.def); want != def {
					fail(cid, "%s moves the %s port off the server's default %s", pf.env, pf.name, pf.def)
				}
				got, ok := ctr.port(pf.name)
				if !ok {
					fail(cid, "no container port named %q", pf.name)
				} else if got != want {
					fail(cid, "container port %s is %d, the server listens on %d", pf.name, got, want)
				}
			}
			grpcPort, _ := addrPort(ctr.setting(bin, "DAMONE_GRPC_ADDR"))
			for _, p := range []struct {
				kind    string
				probe   *corev1.Probe
				service string
			}{{"liveness", c.LivenessProbe, server.LivenessService}, {"readiness", c.ReadinessProbe, server.ReadinessService}} {
				switch {
				case p.probe == nil || p.probe.GRPC == nil:
					fail(cid, "no gRPC %s probe", p.kind)
				case p.probe.GRPC.Port != grpcPort:
					fail(cid, "%s probe on port %d, the gRPC server listens on %d", p.kind, p.probe.GRPC.Port, grpcPort)
				case p.probe.GRPC.Service == nil || *p.probe.GRPC.Service != p.service:
					fail(cid, "%s probe asks for health service %q, the server answers %q", p.kind, ptr.Deref(p.probe.GRPC.Service, ""), p.service)
				}
			}

			// Shutdown: preStop sleep, then SIGTERM and the server's drain,
			// all inside the grace period.
			var preStop int64
			if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil {
				fail(cid, "no preStop sleep")
			} else {
				preStop = c.Lifecycle.PreStop.Sleep.Seconds
			}
			drain, err := time.ParseDuration(ctr.setting(bin, "DAMONE_DRAIN_TIMEOUT"))
			if err != nil {
				fail(cid, "DAMONE_DRAIN_TIMEOUT: %v", err)
			}
			grace := time.Duration(corev1.DefaultTerminationGracePeriodSeconds) * time.Second
			if pod.TerminationGracePeriodSeconds != nil {
				grace = time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
			}
			if need := time.Duration(preStop)*time.Second + drain; grace <= need {
				fail(id, "terminationGracePeriodSeconds %v does not exceed preStop sleep %ds + drain %v", grace, preStop, drain)
			}

			// A store kept in a file needs a volume: the root filesystem is
			// read-only.
			if store := ctr.setting(bin, "DAMONE_STORE"); store == "embedded" {
				dataDir := ctr.setting(bin, "DAMONE_DATA_DIR")
				if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
					return !m.ReadOnly && filepath.IsAbs(dataDir) &&
						(dataDir == m.MountPath || strings.HasPrefix(dataDir, strings.TrimSuffix(m.MountPath, "/")+"/"))
				}) {
					fail(cid, "--store embedded writes under DAMONE_DATA_DIR %q, which no writable volume holds (the root filesystem is read-only)", dataDir)
				}
			}

			// Endgame tables: a prebuilt set, from the image's layer or a
			// volume. Without one every pod would build the default set
			// itself, under a cache directory on the read-only root.
			onVolume := func(dir string) bool {
				return slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
					return filepath.IsAbs(dir) && (dir == m.MountPath || strings.HasPrefix(dir, strings.TrimSuffix(m.MountPath, "/")+"/"))
				})
			}
			if dir := ctr.setting(bin, "DAMONE_EGTB_DIR"); dir != "" {
				if dir != imageEgtbDir && !onVolume(dir) {
					fail(cid, "DAMONE_EGTB_DIR %q is neither the image's endgame tables (%s) nor on a volume", dir, imageEgtbDir)
				}
			} else if ctr.setting(bin, "DAMONE_EGTB_PIECES") != "0" && ctr.setting(bin, "DAMONE_STORE") != "embedded" {
				fail(cid, "no DAMONE_EGTB_DIR: each pod would build the default endgame tables itself, under a cache directory on the read-only root filesystem; set DAMONE_EGTB_DIR=%s (built into the image) or DAMONE_EGTB_PIECES=0", imageEgtbDir)
			}

			if ctr.setting(bin, "DAMONE_STORE") == "postgres" {
				if _, ok := env["DAMONE_POSTGRES_DSN"]; !ok {
					fail(cid, "--store postgres without DAMONE_POSTGRES_DSN (set it from a Secret)")
				}
			}
			// A DSN holds the database password: it must come from a Secret.
			for _, e := range ctr.c.Env {
				if e.Name == "DAMONE_POSTGRES_DSN" && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
					fail(cid, "DAMONE_POSTGRES_DSN is not read from a Secret (valueFrom.secretKeyRef): it holds the database password")
				}
			}
			for name, cm := range o.configMaps {
				if _, ok := cm.Data["DAMONE_POSTGRES_DSN"]; ok {
					fail(cid, "DAMONE_POSTGRES_DSN is in ConfigMap %s: it holds the database password, put it in a Secret", name)
				}
			}

			// Replica safety: a store that not every pod shares means at
			// most one pod may serve games, and never two at once.
			if ctr.services(bin).games && !sharedStores[ctr.setting(bin, "DAMONE_STORE")] {
				gameHolders++
				if n := maxReplicas(d); n > 1 {
					fail(id, "serves games with --store %s but may run %d replicas: each would hold different games", ctr.setting(bin, "DAMONE_STORE"), n)
				}
				if _, ok := hpaOf[d.Name]; ok {
					fail(id, "serves games with --store %s but an HPA targets it", ctr.setting(bin, "DAMONE_STORE"))
				}
				switch s := d.Spec.Strategy; s.Type {
				case appsv1.RecreateDeploymentStrategyType:
				default:
					surge := intstr.FromString("25%")
					if s.RollingUpdate != nil && s.RollingUpdate.MaxSurge != nil {
						surge = *s.RollingUpdate.MaxSurge
					}
					if n, _ := intstr.GetScaledValueFromIntOrPercent(&surge, 1, true); n != 0 {
						fail(id, "serves games with --store %s and its rollout may surge a second pod: use strategy Recreate", ctr.setting(bin, "DAMONE_STORE"))
					}
				}
			}
		}
	}
	if gameHolders > 1 {
		fail("Deployments", "%d Deployments serve games each from their own store: at most one may", gameHolders)
	}
	for _, h := range o.hpas {
		if c, ok := containers[h.Spec.ScaleTargetRef.Name]; ok {
			if _, ok := c.c.Resources.Requests[corev1.ResourceCPU]; !ok {
				fail("HorizontalPodAutoscaler/"+h.Name, "scales on CPU utilization but its target sets no CPU request")
			}
		}
	}

	// selected lists the Deployments whose pods sel matches.
	selected := func(id string, sel *metav1.LabelSelector) []appsv1.Deployment {
		var out []appsv1.Deployment
		for _, d := range o.deployments {
			ok, err := selects(sel, d.Spec.Template.Labels)
			if err != nil {
				fail(id, "selector: %v", err)
				return nil
			}
			if ok {
				out = append(out, d)
			}
		}
		return out
	}

	// Services: each selects one Deployment's pods, and every port reaches
	// the container port of the same name, on the server's port number.
	scrapes := map[string]int{} // Deployment -> Services exposing a scraped port
	monitored := func(s corev1.Service) []string {
		var ports []string
		for _, sm := range o.serviceMonitors {
			if ok, err := selects(&sm.Spec.Selector, s.Labels); err == nil && ok {
				for _, ep := range sm.Spec.Endpoints {
					if slices.ContainsFunc(s.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == ep.Port }) {
						ports = append(ports, ep.Port)
					}
				}
			}
		}
		return ports
	}
	headlessOf := map[string]bool{} // Deployments behind a headless Service
	for _, s := range o.services {
		id := "Service/" + s.Name
		if len(s.Spec.Selector) == 0 {
			fail(id, "no selector")
			continue
		}
		ds := selected(id, &metav1.LabelSelector{MatchLabels: s.Spec.Selector})
		if len(ds) != 1 {
			fail(id, "selects the pods of %d Deployments, want exactly 1", len(ds))
			continue
		}
		d := ds[0]
		ctr, ok := containers[d.Name]
		if !ok {
			continue
		}
		if s.Spec.ClusterIP == corev1.ClusterIPNone {
			headlessOf[d.Name] = true
			if _, ok := hpaOf[d.Name]; !ok {
				fail(id, "headless Service in front of Deployment %s, which is not autoscaled", d.Name)
			}
			// Its DNS name is for gRPC clients only; REST and metrics go
			// through the ClusterIP Service (a second metrics port would be
			// scraped twice).
			if len(s.Spec.Ports) != 1 || s.Spec.Ports[0].Name != "grpc" {
				fail(id, "headless Service with ports %v: want only the grpc port", portNames(s.Spec.Ports))
			}
			// Clients re-resolve its DNS name only when a connection ends:
			// without a maximum connection age they never reach new pods.
			if age, err := time.ParseDuration(ctr.setting(bin, "DAMONE_MAX_CONNECTION_AGE")); err != nil || age <= 0 {
				fail(id, "Deployment %s behind a headless Service needs DAMONE_MAX_CONNECTION_AGE above 0 (got %q), or its clients never re-resolve and reach new pods",
					d.Name, ctr.setting(bin, "DAMONE_MAX_CONNECTION_AGE"))
			}
		}
		for _, p := range s.Spec.Ports {
			i := slices.IndexFunc(portFlags, func(pf struct{ name, env, def string }) bool { return pf.name == p.Name })
			if i < 0 {
				fail(id, "port %q: want a name among grpc, http, metrics", p.Name)
				continue
			}
			def, _ := addrPort(portFlags[i].def)
			if p.Port != def {
				fail(id, "port %s is %d, the server's default is %d", p.Name, p.Port, def)
			}
			want, _ := ctr.port(p.Name)
			var got int32
			if p.TargetPort.Type == intstr.String {
				got, ok = ctr.port(p.TargetPort.StrVal)
				if !ok {
					fail(id, "targetPort %q is not a port of Deployment %s", p.TargetPort.StrVal, d.Name)
					continue
				}
			} else {
				got = p.TargetPort.IntVal
				if got == 0 {
					got = p.Port
				}
			}
			if got != want {
				fail(id, "port %s reaches container port %d, the server's %s port is %d", p.Name, got, p.Name, want)
			}
			if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
				fail(id, "port %s: protocol %s", p.Name, p.Protocol)
			}
		}
		if ports := monitored(s); len(ports) > 0 {
			scrapes[d.Name]++
			if !slices.Contains(ports, "metrics") {
				fail(id, "scraped on %v, not on its metrics port", ports)
			}
		}
	}
	// A rules fleet of several pods needs a headless Service: through a
	// ClusterIP a gRPC client sends every call to one pod.
	for _, d := range o.deployments {
		if c, ok := containers[d.Name]; ok && c.services(bin).rules && maxReplicas(d) > 1 && !headlessOf[d.Name] {
			fail("Deployment/"+d.Name, "serves RulesService on up to %d pods but no headless Service selects them, for client-side gRPC load balancing", maxReplicas(d))
		}
	}
	for _, d := range o.deployments {
		switch n := scrapes[d.Name]; {
		case n == 0:
			fail("Deployment/"+d.Name, "no ServiceMonitor scrapes its metrics")
		case n > 1:
			fail("Deployment/"+d.Name, "scraped through %d Services: every sample would be stored %d times", n, n)
		}
	}

	// Grafana dashboards: a ConfigMap the Grafana sidecar loads (label
	// grafana_dashboard "1") holds .json files that pass package grafana's
	// checks, small enough for kubectl apply, which copies the whole object
	// into its last-applied-configuration annotation (at most 256 KiB).
	for name, cm := range o.configMaps {
		if cm.Labels["grafana_dashboard"] != "1" {
			continue
		}
		id := "ConfigMap/" + name
		if len(cm.Data) == 0 {
			fail(id, "labelled grafana_dashboard but holds no dashboard")
		}
		size := 0
		for key, v := range cm.Data {
			size += len(key) + len(v)
			if !strings.HasSuffix(key, ".json") {
				fail(id, "key %q: Grafana loads only files ending in .json", key)
			}
			if _, err := grafana.Parse([]byte(v)); err != nil {
				fail(id, "%s: %v", key, err)
			}
		}
		if size > 256<<10 {
			fail(id, "%d bytes of dashboards: kubectl apply's last-applied annotation holds at most 256 KiB", size)
		}
	}

	// ServiceMonitors: a named metrics port, on the server's metrics path.
	for _, sm := range o.serviceMonitors {
		id := "ServiceMonitor/" + sm.Name
		if len(sm.Spec.Endpoints) == 0 {
			fail(id, "no endpoints")
		}
		for _, ep := range sm.Spec.Endpoints {
			if ep.Port != "metrics" || ep.TargetPort != nil {
				fail(id, "endpoint port %q targetPort %v: want the Service port named \"metrics\"", ep.Port, ep.TargetPort)
			}
			if ep.Path != "" && ep.Path != "/metrics" {
				fail(id, "path %q: the server serves /metrics", ep.Path)
			}
		}
		if !slices.ContainsFunc(o.services, func(s corev1.Service) bool {
			ok, err := selects(&sm.Spec.Selector, s.Labels)
			return err == nil && ok
		}) {
			fail(id, "selects no Service")
		}
	}

	// PodDisruptionBudgets: only on autoscaled Deployments, and never one
	// that blocks every voluntary disruption.
	for _, pdb := range o.pdbs {
		id := "PodDisruptionBudget/" + pdb.Name
		ds := selected(id, pdb.Spec.Selector)
		if len(ds) != 1 {
			fail(id, "selects the pods of %d Deployments, want exactly 1", len(ds))
			continue
		}
		h, ok := hpaOf[ds[0].Name]
		if !ok {
			fail(id, "on Deployment %s, which no HPA scales: a budget on a single pod blocks node drains or protects nothing", ds[0].Name)
			continue
		}
		minPods := int(*h.Spec.MinReplicas)
		switch {
		case pdb.Spec.MaxUnavailable != nil:
			if n, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, minPods, true); err != nil || n < 1 {
				fail(id, "maxUnavailable %s allows no disruption", pdb.Spec.MaxUnavailable.String())
			}
		case pdb.Spec.MinAvailable != nil:
			if n, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, minPods, true); err != nil || n >= minPods {
				fail(id, "minAvailable %s blocks every drain at %d replicas", pdb.Spec.MinAvailable.String(), minPods)
			}
		default:
			fail(id, "neither minAvailable nor maxUnavailable")
		}
	}
	for _, d := range o.deployments {
		if _, ok := hpaOf[d.Name]; ok && !slices.ContainsFunc(o.pdbs, func(p policyv1.PodDisruptionBudget) bool {
			ok, _ := selects(p.Spec.Selector, d.Spec.Template.Labels)
			return ok
		}) {
			fail("Deployment/"+d.Name, "autoscaled but no PodDisruptionBudget")
		}
	}

	// NetworkPolicy: every damone pod is covered, and exactly the service
	// ports are admitted.
	covered := map[string]bool{}
	for _, np := range o.netpols {
		id := "NetworkPolicy/" + np.Name
		if !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) {
			fail(id, "policyTypes lacks Ingress")
		}
		for _, d := range selected(id, &np.Spec.PodSelector) {
			covered[d.Name] = true
			ctr, ok := containers[d.Name]
			if !ok {
				continue
			}
			want := map[int32]bool{}
			for _, p := range ctr.c.Ports {
				want[p.ContainerPort] = true
			}
			got := map[int32]bool{}
			for _, rule := range np.Spec.Ingress {
				if len(rule.Ports) == 0 {
					fail(id, "an ingress rule without ports admits every port of Deployment %s", d.Name)
				}
				for _, p := range rule.Ports {
					switch {
					case p.Port == nil || p.EndPort != nil:
						fail(id, "a port range or an unset port admits more than the service ports")
					case p.Port.Type == intstr.String:
						n, ok := ctr.port(p.Port.StrVal)
						if !ok {
							fail(id, "port %q is not a port of Deployment %s", p.Port.StrVal, d.Name)
						}
						got[n] = true
					default:
						got[p.Port.IntVal] = true
					}
				}
			}
			for n := range want {
				if !got[n] {
					fail(id, "does not admit port %d of Deployment %s", n, d.Name)
				}
			}
			for n := range got {
				if !want[n] {
					fail(id, "admits port %d, which Deployment %s does not serve", n, d.Name)
				}
			}
		}
	}
	for _, d := range o.deployments {
		if !covered[d.Name] {
			fail("Deployment/"+d.Name, "no NetworkPolicy selects its pods")
		}
	}

	// PrometheusRules: rules_test.go.
	checkPrometheusRules(o, fail)
	return errs
}

// ---- the checks catch mistakes ----

// TestChecksCatchMistakes copies the manifests, makes one mistake in a
// copy and expects the decode or the checks to report it.
func TestChecksCatchMistakes(t *testing.T) {
	bin := damone(t)
	mutations := []struct {
		name, file, old, new, want string
	}{
		{"misspelt field", "base/deployment-rules.yaml", "readOnlyRootFilesystem: true", "readOnlyRootFileSystem: true", "unknown field"},
		{"unknown field", "base/hpa.yaml", "minReplicas: 2", "minReplica: 2", "unknown field"},
		{"field at the wrong level", "base/deployment-games.yaml", "      terminationGracePeriodSeconds: 35", "      terminationGracePeriodSeconds: 35\n      readOnlyRootFilesystem: true", "unknown field"},
		{"liveness on the wrong service", "base/deployment-rules.yaml", "service: liveness", "service: alive", "health service"},
		{"readiness on the wrong port", "base/deployment-games.yaml", "port: 9090\n              service: readiness", "port: 8080\n              service: readiness", "readiness probe on port 8080"},
		{"Service selector misses the pods", "base/service.yaml", "app.kubernetes.io/component: games\nspec:\n  type: ClusterIP\n  selector:\n    app.kubernetes.io/name: damone\n    app.kubernetes.io/component: games", "app.kubernetes.io/component: games\nspec:\n  type: ClusterIP\n  selector:\n    app.kubernetes.io/name: damone\n    app.kubernetes.io/component: game", "selects the pods of 0 Deployments"},
		{"Service port off the server's", "base/service.yaml", "port: 8080", "port: 8081", "the server's default is 8080"},
		{"HPA targets a missing Deployment", "base/hpa.yaml", "name: damone-rules\n  minReplicas", "name: damone\n  minReplicas", "which the overlay does not have"},
		{"ServiceMonitor on the wrong port name", "base/servicemonitor.yaml", "port: metrics", "port: http-metrics", "want the Service port named"},
		{"grace period within the drain", "base/deployment-rules.yaml", "terminationGracePeriodSeconds: 35", "terminationGracePeriodSeconds: 20", "does not exceed"},
		{"drain longer than the grace period", "base/kustomization.yaml", "DAMONE_DRAIN_TIMEOUT=20s", "DAMONE_DRAIN_TIMEOUT=45s", "does not exceed"},
		{"no prebuilt endgame tables", "base/kustomization.yaml", "      - DAMONE_EGTB_DIR=/egtb\n", "", "no DAMONE_EGTB_DIR: each pod would build"},
		{"misspelt setting", "base/kustomization.yaml", "DAMONE_DRAIN_TIMEOUT=20s", "DAMONE_DRAIN_TIMOUT=20s", "not a variable of `damone serve`"},
		{"no memory limit", "base/deployment-games.yaml", "              memory: 512Mi\n", "", "needs both a request and a limit"},
		{"root user", "base/deployment-rules.yaml", "runAsNonRoot: true\n        runAsUser: 65532", "runAsNonRoot: false\n        runAsUser: 65532", "runAsNonRoot is not true"},
		{"games scaled up", "base/deployment-games.yaml", "replicas: 1", "replicas: 3", "may run 3 replicas"},
		{"games rolled with a surge", "base/deployment-games.yaml", "type: Recreate", "type: RollingUpdate", "use strategy Recreate"},
		{"rules pods also serve games", "base/deployment-rules.yaml", "value: rules", "value: rules,games", "may run"},
		{"replicas beside the HPA", "base/deployment-rules.yaml", "revisionHistoryLimit: 5", "replicas: 2\n  revisionHistoryLimit: 5", "sets replicas although an HPA"},
		{"NetworkPolicy misses the metrics port", "base/networkpolicy.yaml", "        - port: metrics\n          protocol: TCP\n", "", "does not admit port 9102"},
		{"PDB blocks drains", "base/pdb.yaml", "maxUnavailable: 1", "minAvailable: 100%", "blocks every drain"},
		{"headless Service turned ClusterIP", "base/service.yaml", "  clusterIP: None\n", "", "no headless Service selects them"},
		{"headless Service on the games pods", "base/service.yaml", "    app.kubernetes.io/component: rules\n  ports:\n    - name: grpc\n      port: 9090\n      targetPort: grpc\n      protocol: TCP\n      appProtocol: kubernetes.io/h2c\n---\n# damone-games", "    app.kubernetes.io/component: games\n  ports:\n    - name: grpc\n      port: 9090\n      targetPort: grpc\n      protocol: TCP\n      appProtocol: kubernetes.io/h2c\n---\n# damone-games", "no headless Service selects them"},
		{"headless Service with the REST port", "base/service.yaml", "      appProtocol: kubernetes.io/h2c\n---\n# damone-games", "      appProtocol: kubernetes.io/h2c\n    - name: http\n      port: 8080\n      targetPort: http\n---\n# damone-games", "want only the grpc port"},
		{"headless Service off the gRPC port", "base/service.yaml", "      targetPort: grpc\n      protocol: TCP\n      appProtocol: kubernetes.io/h2c\n---\n# damone-games", "      targetPort: http\n      protocol: TCP\n      appProtocol: kubernetes.io/h2c\n---\n# damone-games", "port grpc reaches container port 8080"},
		{"rules pods without a connection age", "base/deployment-rules.yaml", "            - name: DAMONE_MAX_CONNECTION_AGE\n              value: 5m\n", "", "needs DAMONE_MAX_CONNECTION_AGE above 0"},
		{"rules pods with connection age 0", "base/deployment-rules.yaml", "value: 5m", "value: 0s", "needs DAMONE_MAX_CONNECTION_AGE above 0"},
		{"metrics scraped twice", "base/service.yaml", "      appProtocol: kubernetes.io/h2c\n---\n# damone-games", "      appProtocol: kubernetes.io/h2c\n    - name: metrics\n      port: 9102\n      targetPort: metrics\n---\n# damone-games", "scraped through 2 Services"},
		{"embedded store on the read-only root", "base/kustomization.yaml", "DAMONE_STORE=memory", "DAMONE_STORE=embedded", "no writable volume holds"},
		{"latest image in prod", "overlays/prod/kustomization.yaml", `newTag: "0.1.0"`, `newTag: latest`, "not latest"},
		{"dev HPA bounds inverted", "overlays/dev/kustomization.yaml", "value: 1\n", "value: 3\n", "minReplicas <= maxReplicas"},
		{"DSN as a literal", "overlays/prod-postgres/kustomization.yaml", "valueFrom:\n            secretKeyRef:\n              name: damone-postgres\n              key: dsn", "value: postgres://damone:secret@db/damone", "not read from a Secret"},
		{"DSN in the ConfigMap", "base/kustomization.yaml", "DAMONE_STORE=memory", "DAMONE_STORE=memory\n      - DAMONE_POSTGRES_DSN=postgres://damone:secret@db/damone", "put it in a Secret"},
		{"postgres store without a DSN", "overlays/prod-postgres/kustomization.yaml", "          name: DAMONE_POSTGRES_DSN\n", "          name: DAMONE_POSTGRES_DSM\n", "without DAMONE_POSTGRES_DSN"},
		{"dashboard JSON broken", "grafana/damone.json", `"uid": "damone",`, `"uid": "damone"`, "dashboard JSON"},
		{"dashboard on a fixed data source", "grafana/damone.json", `"uid": "${datasource}"`, `"uid": "P1809F7CD0C75ACF3"`, "no fixed data source"},
		{"dashboard under a key Grafana skips", "grafana/kustomization.yaml", "      - damone.json", "      - damone=damone.json", "only files ending in .json"},
		{"alerts left out", "base/kustomization.yaml", "  - prometheusrule.yaml\n", "", "no PrometheusRule"},
		{"misspelt rule field", "base/prometheusrule.yaml", "          for: 2m\n", "          fro: 2m\n", "unknown field"},
		{"alert without for", "base/prometheusrule.yaml", "          for: 1m\n", "", "no for"},
		{"alert for zero", "base/prometheusrule.yaml", "          for: 1m\n", "          for: 0s\n", "not a positive Prometheus duration"},
		{"alert without severity", "base/prometheusrule.yaml", "          for: 15m\n          labels:\n            severity: warning", "          for: 15m\n          labels:\n            team: damone", `severity label ""`},
		{"runbook section missing", "base/prometheusrule.yaml", "operations.md#damonedown", "operations.md#damone-down", "want the alert's own, #damonedown"},
		{"alert without description", "base/prometheusrule.yaml", "            description: \"{{ $value | humanizePercentage }} of the game store's", "            details: \"{{ $value | humanizePercentage }} of the game store's", "no description annotation"},
		{"rules unselected with the monitor", "base/prometheusrule.yaml", "  labels:\n    app.kubernetes.io/name: damone\nspec:", "  labels:\n    app: damone\nspec:", "lacks ServiceMonitor damone's label app.kubernetes.io/name"},
		{"alert on a job not scraped", "base/prometheusrule.yaml", `absent(up{job="damone-games"})`, `absent(up{job="damone-game"})`, `job="damone-game" matches no scraped job`},
		{"no alert on a job vanishing", "base/prometheusrule.yaml", `            or on (job) absent(up{job="damone-games"})` + "\n", "", `no alert on absent(up{job="damone-games"})`},
		{"pod pattern misses a Deployment", "base/prometheusrule.yaml", `pod=~"damone-(rules|games)-[a-z0-9]+-[a-z0-9]+"}) == 0`, `pod=~"damone-(rule|games)-[a-z0-9]+-[a-z0-9]+"}) == 0`, "does not match the pods of Deployment damone-rules"},
		{"container renamed", "base/deployment-rules.yaml", "        - name: damone\n", "        - name: server\n", `container="damone" does not match container "server"`},
	}
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			dir := copyManifests(t)
			path := filepath.Join(dir, m.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), m.old) {
				t.Fatalf("%s does not contain %q: update this mutation", m.file, m.old)
			}
			if err := os.WriteFile(path, []byte(strings.Replace(string(b), m.old, m.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			var report []string
			names, _ := k8s.Overlays(dir)
			for _, name := range names {
				o, err := decode(filepath.Join(dir, "overlays", name))
				if err != nil {
					report = append(report, err.Error())
					continue
				}
				for _, e := range check(o, bin) {
					report = append(report, e.Error())
				}
			}
			all := strings.Join(report, "\n")
			if !strings.Contains(all, m.want) {
				t.Errorf("mutation not caught: want a failure containing %q, got:\n%s", m.want, all)
			}
		})
	}
}

// copyManifests copies base/, overlays/ and grafana/ into a temporary
// folder.
func copyManifests(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := k8s.Dir()
	for _, top := range []string{"base", "overlays", "grafana"} {
		err := filepath.WalkDir(filepath.Join(src, top), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, path)
			if d.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestPostgresOverlayScalesGames: the replica rule forbids exactly what is
// unsafe. The prod-postgres overlay (games in PostgreSQL, the DSN from a
// Secret) passes every check while its games Deployment has no fixed
// replica count, an HPA of several pods and a surging rollout.
func TestPostgresOverlayScalesGames(t *testing.T) {
	o, err := decode(filepath.Join("overlays", "prod-postgres"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range check(o, damone(t)) {
		t.Errorf("prod-postgres: %v", e)
	}
	var games *appsv1.Deployment
	for i := range o.deployments {
		if o.deployments[i].Name == "damone-games" {
			games = &o.deployments[i]
		}
	}
	if games == nil {
		t.Fatal("prod-postgres has no damone-games Deployment")
	}
	if games.Spec.Replicas != nil {
		t.Errorf("damone-games sets replicas %d; the HPA should own it", *games.Spec.Replicas)
	}
	scaled := false
	for _, h := range o.hpas {
		scaled = scaled || (h.Spec.ScaleTargetRef.Name == "damone-games" && h.Spec.MaxReplicas > 1)
	}
	if !scaled {
		t.Error("no HPA lets damone-games run several pods")
	}
	if games.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
		t.Errorf("damone-games strategy %s, want RollingUpdate on a shared store", games.Spec.Strategy.Type)
	}
}

// TestOverlaysProvisionTheDashboard: every overlay ships the committed
// Grafana dashboard (k8s/grafana/damone.json) in one ConfigMap the Grafana
// sidecar loads, under a name without kustomize's hash suffix (so a new
// version replaces the old ConfigMap instead of adding a second dashboard
// with the same uid).
func TestOverlaysProvisionTheDashboard(t *testing.T) {
	for _, o := range renderedOverlays(t, k8s.Dir()) {
		var dashboards []corev1.ConfigMap
		for _, cm := range o.configMaps {
			if cm.Labels["grafana_dashboard"] == "1" {
				dashboards = append(dashboards, cm)
			}
		}
		if len(dashboards) != 1 {
			t.Errorf("%s: %d ConfigMaps labelled grafana_dashboard \"1\", want 1", o.overlay, len(dashboards))
			continue
		}
		cm := dashboards[0]
		if cm.Name != "damone-grafana-dashboard" {
			t.Errorf("%s: dashboard ConfigMap %s, want damone-grafana-dashboard (no hash suffix)", o.overlay, cm.Name)
		}
		if got := cm.Data["damone.json"]; got != string(grafana.JSON) {
			t.Errorf("%s: ConfigMap %s's damone.json (%d bytes) is not k8s/grafana/damone.json (%d bytes)", o.overlay, cm.Name, len(got), len(grafana.JSON))
		}
	}
}
