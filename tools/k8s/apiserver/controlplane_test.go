package apiserver_test

// The rest of a control plane for the rollout tests: kube-controller-manager
// and kube-scheduler (from the same pinned module) and fake nodes, played
// by fakeKubelet. There is no kubelet and no container runtime: a pod the
// scheduler binds to a fake node is marked Running and Ready by fakeKubelet
// (as kwok does), and a pod being deleted is removed at once, as a kubelet
// would once its containers stopped.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// fakeNodes is how many nodes the fake kubelet registers, each with room
// for every overlay's pods several times over.
const fakeNodes = 3

func (c *cluster) startControllers(tools, token string) error {
	kubeconfig := filepath.Join(c.dir, "kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: test
  user:
    token: %s
contexts:
- name: test
  context: {cluster: test, user: test}
current-context: test
`, c.cfg.Host, filepath.Join(c.dir, "serving.crt"), token)
	if err := os.WriteFile(kubeconfig, []byte(kc), 0o600); err != nil {
		return err
	}
	if err := c.start(filepath.Join(tools, "bin", "kube-controller-manager"), "kube-controller-manager",
		"--kubeconfig="+kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		// The fake nodes send no heartbeats: the node lifecycle
		// controller would mark them unreachable and evict their pods.
		"--controllers=*,-node-lifecycle-controller",
		"--root-ca-file="+filepath.Join(c.dir, "serving.crt"),
		"--service-account-private-key-file="+filepath.Join(c.dir, "sa.key"),
		// So that an HPA raises its Deployment to minReplicas in a second,
		// not fifteen.
		"--horizontal-pod-autoscaler-sync-period=1s",
	); err != nil {
		return err
	}
	if err := c.start(filepath.Join(tools, "bin", "kube-scheduler"), "kube-scheduler",
		"--kubeconfig="+kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
	); err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(c.cfg)
	if err != nil {
		return err
	}
	c.kube = kube
	ctx, cancel := context.WithCancel(context.Background())
	c.stopKubelet = cancel
	c.kubelet = &fakeKubelet{kube: kube, held: map[string]bool{}}
	if err := c.kubelet.registerNodes(ctx); err != nil {
		return err
	}
	go c.kubelet.run(ctx)
	return nil
}

// fakeKubelet plays the kubelet of every fake node: it marks bound pods
// Running and Ready and finishes deleting pods, except in the namespaces it
// is told to hold (there pods stay as they are: not ready, or
// terminating).
type fakeKubelet struct {
	kube kubernetes.Interface
	mu   sync.Mutex
	held map[string]bool
}

// hold stops (or, with false, resumes) acting on the pods of namespace ns.
func (k *fakeKubelet) hold(ns string, on bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.held[ns] = on
}

func (k *fakeKubelet) isHeld(ns string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.held[ns]
}

func (k *fakeKubelet) registerNodes(ctx context.Context) error {
	for i := range fakeNodes {
		name := fmt.Sprintf("fake-node-%d", i)
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		}}}
		n, err := k.kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		// Admission taints a new node not-ready; the node lifecycle
		// controller (not running) would lift it once the node is Ready.
		n.Spec.Taints = nil
		if n, err = k.kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			return err
		}
		room := corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("32"),
			corev1.ResourceMemory: resource.MustParse("128Gi"),
			corev1.ResourcePods:   resource.MustParse("110"),
		}
		now := metav1.Now()
		n.Status = corev1.NodeStatus{
			Capacity:    room,
			Allocatable: room,
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: now, LastTransitionTime: now,
			}},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.1.0.%d", i+1)}},
			NodeInfo:  corev1.NodeSystemInfo{KubeletVersion: "v1.37.2", OperatingSystem: "linux", Architecture: "amd64"},
		}
		if _, err := k.kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// run polls every pod until ctx ends.
func (k *fakeKubelet) run(ctx context.Context) {
	podIP := 0
	for ctx.Err() == nil {
		pods, err := k.kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		if err == nil {
			for i := range pods.Items {
				p := &pods.Items[i]
				if p.Spec.NodeName == "" || k.isHeld(p.Namespace) {
					continue
				}
				if p.DeletionTimestamp != nil {
					zero := int64(0)
					err := k.kube.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{
						GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &p.UID},
					})
					if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
						fmt.Fprintln(os.Stderr, "fake kubelet: delete", p.Name, err)
					}
					continue
				}
				if p.Status.Phase == corev1.PodRunning {
					continue
				}
				podIP++
				k.markReady(ctx, p, fmt.Sprintf("10.2.%d.%d", podIP/250, podIP%250+1))
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (k *fakeKubelet) markReady(ctx context.Context, p *corev1.Pod, ip string) {
	now := metav1.Now()
	cond := func(t corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now}
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.StartTime = &now
	p.Status.PodIP = ip
	p.Status.PodIPs = []corev1.PodIP{{IP: ip}}
	var node int
	fmt.Sscanf(p.Spec.NodeName, "fake-node-%d", &node)
	p.Status.HostIP = fmt.Sprintf("10.1.0.%d", node+1)
	p.Status.HostIPs = []corev1.HostIP{{IP: p.Status.HostIP}}
	p.Status.Conditions = []corev1.PodCondition{
		cond(corev1.PodScheduled), cond(corev1.PodInitialized), cond(corev1.ContainersReady), cond(corev1.PodReady),
	}
	p.Status.ContainerStatuses = nil
	for _, ct := range p.Spec.Containers {
		started := true
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: ct.Name, Image: ct.Image, ImageID: "fake://" + ct.Image, Ready: true, Started: &started,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		})
	}
	_, err := k.kube.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		fmt.Fprintln(os.Stderr, "fake kubelet: status of", p.Name, err)
	}
}
