// Package apiserver proves damone's Kubernetes manifests (k8s/overlays/*) on
// a real API server: its tests start etcd and kube-apiserver, built from the
// modules pinned in tools/k8s by scripts/k8s-tools, on free loopback ports,
// install the prometheus-operator CRDs the overlays use, and server-side
// apply every overlay into fresh namespaces: all objects accepted,
// idempotent, upgradable from the committed baseline in
// k8s/testdata/baseline, and read back as stored. A second cluster also
// runs kube-controller-manager, kube-scheduler and fake nodes, for
// rollouts and evictions. `make test-k8s` runs them; docs/deploy.md (The
// API server check) says what they prove.
//
// There is no kubelet and no container runtime: a fake kubelet marks the
// pods bound to the fake nodes Ready, and nothing runs in them.
package apiserver
