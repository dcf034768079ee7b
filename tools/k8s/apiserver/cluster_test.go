package apiserver_test

// The harness: etcd and kube-apiserver, from the directory that
// scripts/k8s-tools builds, on free loopback ports, with a token file
// (one system:masters user), a self-signed serving certificate and a
// service-account key pair made here. One pair serves every test of the
// binary; TestMain stops it.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// toolsScript builds the binaries; every message about missing tools names
// it.
const toolsScript = "scripts/k8s-tools"

// cluster is a running etcd and kube-apiserver (and, for the rollout
// tests, kube-controller-manager, kube-scheduler and fake nodes).
type cluster struct {
	dir       string // logs, certificates, kubeconfig, etcd data
	procs     []*proc
	cfg       *rest.Config
	dyn       dynamic.Interface
	disc      discovery.DiscoveryInterface
	mapper    *restmapper.DeferredDiscoveryRESTMapper
	warnings  *warnings
	serverVer string

	crdMu        sync.Mutex
	crdInstalled map[schema.GroupKind]bool

	kube        kubernetes.Interface // with controllers only
	stopKubelet context.CancelFunc
	kubelet     *fakeKubelet
}

// lazyCluster starts one cluster on first use.
type lazyCluster struct {
	once sync.Once
	c    *cluster
	err  error
}

var (
	// apiOnly runs only etcd and the API server: nothing changes what the
	// tests apply, so a second apply can be compared with the first.
	apiOnly lazyCluster
	// withControllers also runs the controller manager, the scheduler and
	// fake nodes, for rollouts and evictions.
	withControllers lazyCluster
)

// repoRoot is the repository's top folder (this package is tools/k8s/apiserver).
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "k8s", "overlays")); err != nil {
		t.Fatalf("repository root %s: %v", root, err)
	}
	return root
}

// getCluster returns the cluster of etcd and kube-apiserver alone,
// started on first use. Under -short the test is skipped: the check needs
// the tools (minutes to build once) and runs through make test-k8s.
func getCluster(t *testing.T) *cluster {
	return apiOnly.get(t, false)
}

// getControlPlane returns the cluster that also runs the controller
// manager, the scheduler and fake nodes.
func getControlPlane(t *testing.T) *cluster {
	return withControllers.get(t, true)
}

func (l *lazyCluster) get(t *testing.T, controllers bool) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the API server check runs in make test-k8s")
	}
	l.once.Do(func() {
		bins := []string{"etcd", "kube-apiserver"}
		if controllers {
			bins = append(bins, "kube-controller-manager", "kube-scheduler")
		}
		var dir string
		dir, l.err = toolsDir(repoRoot(t), bins)
		if l.err == nil {
			l.c, l.err = startCluster(dir, controllers)
		}
	})
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.c
}

// toolsDir is the folder whose bin/ holds the tools: DAMONE_K8S_TOOLS_DIR
// if set, else what `scripts/k8s-tools dir` prints.
func toolsDir(root string, bins []string) (string, error) {
	dir := os.Getenv("DAMONE_K8S_TOOLS_DIR")
	if dir == "" {
		cmd := exec.Command(filepath.Join(root, toolsScript), "dir")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("%s dir: %w", toolsScript, err)
		}
		dir = strings.TrimSpace(string(out))
	}
	for _, b := range bins {
		if _, err := os.Stat(filepath.Join(dir, "bin", b)); err != nil {
			return "", fmt.Errorf("%s is not built (%v): run `%s build` first (make test-k8s does; a cold build takes many minutes)", b, err, toolsScript)
		}
	}
	return dir, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, l := range []*lazyCluster{&withControllers, &apiOnly} {
		if l.c != nil {
			l.c.stop()
		}
	}
	os.Exit(code)
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func startCluster(tools string, controllers bool) (*cluster, error) {
	dir, err := os.MkdirTemp("", "damone-apiserver-")
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, crdInstalled: map[schema.GroupKind]bool{}}
	ok := false
	defer func() {
		if !ok {
			c.stop()
		}
	}()
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	etcdClient, etcdPeer, apiPort := ports[0], ports[1], ports[2]

	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdClient)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPeer)
	if err := c.start(filepath.Join(tools, "bin", "etcd"), "etcd",
		"--name=default",
		"--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+etcdURL,
		"--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=default="+peerURL,
		// A throwaway store: durability buys nothing here.
		"--unsafe-no-fsync",
		"--log-level=warn",
	); err != nil {
		return nil, err
	}

	token, err := randomHex(16)
	if err != nil {
		return nil, err
	}
	certPEM, keyPEM, err := selfSignedServing()
	if err != nil {
		return nil, err
	}
	saKey, saPub, err := serviceAccountKeys()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		"tokens.csv":  []byte(token + ",damone-test,damone-test,system:masters\n"),
		"serving.crt": certPEM,
		"serving.key": keyPEM,
		"sa.key":      saKey,
		"sa.pub":      saPub,
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return nil, err
		}
	}
	if err := c.start(filepath.Join(tools, "bin", "kube-apiserver"), "kube-apiserver",
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		// The lease reconciler refuses a loopback address for the
		// kubernetes Service's endpoints; nothing here needs them.
		"--endpoint-reconciler-type=none",
		fmt.Sprintf("--secure-port=%d", apiPort),
		"--cert-dir="+filepath.Join(dir, "certs"),
		"--tls-cert-file="+filepath.Join(dir, "serving.crt"),
		"--tls-private-key-file="+filepath.Join(dir, "serving.key"),
		"--token-auth-file="+filepath.Join(dir, "tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file="+filepath.Join(dir, "sa.key"),
		"--service-cluster-ip-range=10.96.0.0/16",
		"--profiling=false",
	); err != nil {
		return nil, err
	}

	c.warnings = &warnings{}
	c.cfg = &rest.Config{
		Host:            fmt.Sprintf("https://127.0.0.1:%d", apiPort),
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: certPEM},
		WarningHandler:  c.warnings,
		QPS:             200,
		Burst:           400,
	}
	if err := c.waitReady(certPEM, token, 2*time.Minute); err != nil {
		return nil, err
	}
	if c.dyn, err = dynamic.NewForConfig(c.cfg); err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(c.cfg)
	if err != nil {
		return nil, err
	}
	c.disc = dc
	c.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	v, err := dc.ServerVersion()
	if err != nil {
		return nil, err
	}
	c.serverVer = v.GitVersion
	if controllers {
		if err := c.startControllers(tools, token); err != nil {
			return nil, err
		}
	}
	ok = true
	return c, nil
}

// proc is one started process; done closes once it has exited (err then
// holds how).
type proc struct {
	name, log string
	cmd       *exec.Cmd
	done      chan struct{}
	err       error
}

// start runs bin with args, its output in dir/<name>.log. It dies with the
// test binary (Pdeathsig) even if TestMain's stop never runs.
func (c *cluster) start(bin, name string, args ...string) error {
	p := &proc{name: name, log: filepath.Join(c.dir, name+".log"), done: make(chan struct{})}
	f, err := os.Create(p.log)
	if err != nil {
		return err
	}
	defer f.Close()
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	c.procs = append(c.procs, p)
	return nil
}

// waitReady polls /readyz until it answers 200, a process exits, or the
// timeout passes; the error carries the tail of the logs.
func (c *cluster) waitReady(caPEM []byte, token string, timeout time.Duration) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		for _, p := range c.procs {
			select {
			case <-p.done:
				return fmt.Errorf("%s exited: %v\n%s", p.name, p.err, c.logTails())
			default:
			}
		}
		req, _ := http.NewRequest(http.MethodGet, c.cfg.Host+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err == nil {
			body := new(bytes.Buffer)
			body.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, body)
		} else {
			last = err.Error()
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver not ready after %v (last /readyz: %s)\n%s", timeout, last, c.logTails())
}

func (c *cluster) logTails() string {
	var b strings.Builder
	for _, p := range c.procs {
		data, _ := os.ReadFile(p.log)
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > 30 {
			lines = lines[len(lines)-30:]
		}
		fmt.Fprintf(&b, "--- %s (last lines)\n%s\n", p.log, strings.Join(lines, "\n"))
	}
	return b.String()
}

func (c *cluster) stop() {
	if c.stopKubelet != nil {
		c.stopKubelet()
	}
	// The API server first, then etcd under it.
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
		}
	}
	if os.Getenv("DAMONE_K8S_KEEP") == "" {
		os.RemoveAll(c.dir)
	} else {
		fmt.Fprintln(os.Stderr, "apiserver: kept", c.dir)
	}
}

// warnings collects the Warning headers of the server's responses (Pod
// Security "warn" findings, deprecated APIs, ...).
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) HandleWarningHeader(code int, agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, text)
}

// take returns the warnings since the last take.
func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.msgs
	w.msgs = nil
	return m
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// selfSignedServing makes a serving certificate for 127.0.0.1 and
// localhost that is its own CA (the client trusts exactly it).
func selfSignedServing() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "damone-test-apiserver"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), nil
}

// serviceAccountKeys makes the key pair the API server signs and checks
// service-account tokens with (it refuses to start without one).
func serviceAccountKeys() (keyPEM, pubPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	pder, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pder}), nil
}

// testContext bounds one test's calls.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
