package k8s_test

// Checks against the damone binary itself, built by `make build` as the
// Dockerfile builds it: the variables and defaults `damone serve --help`
// reports, the stamped version, and each Deployment's pod started with its
// rendered environment, answering the probes' health services.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/server"
	"github.com/damone-rules/damone/k8s"
)

// testVersion is stamped into the binary the tests build.
const testVersion = "v0.0.0-k8s-test"

type binary struct {
	path     string
	defaults map[string]string // DAMONE_* variable -> default, from serve --help
}

var (
	buildOnce sync.Once
	built     *binary
	buildErr  error
)

// damone builds the binary once per test run with the Makefile's build
// target (the Dockerfile's build step) and reads its serve flags.
func damone(t *testing.T) *binary {
	t.Helper()
	buildOnce.Do(func() { built, buildErr = build() })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// helpFlag matches one flag of `damone serve --help`: its name and type
// line, then the description ending in "(default V, env DAMONE_X)", or
// "(env DAMONE_X)" for a flag whose default is its type's zero value.
var helpFlag = regexp.MustCompile(`(?m)^\s+--([a-z0-9-]+)(?: (\w+))?\n\s+.*\((?:default ("[^"]*"|[^,()]*), )?env (DAMONE_[A-Z0-9_]+)\)$`)

// zeroValues are the defaults help leaves out, by flag type (a boolean
// flag shows no type).
var zeroValues = map[string]string{"string": "", "int": "0", "duration": "0s", "": "false"}

func build() (*binary, error) {
	dir, err := os.MkdirTemp("", "damone-k8s-test-")
	if err != nil {
		return nil, err
	}
	bin := &binary{path: filepath.Join(dir, "damone"), defaults: map[string]string{}}
	root := filepath.Dir(k8s.Dir())
	cmd := exec.Command("make", "--no-print-directory", "-C", root, "build", "VERSION="+testVersion, "BIN="+bin.path)
	// A make that runs this test must not hand its job server or flags on.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "MAKEFLAGS" && k != "MFLAGS" && k != "MAKELEVEL" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("make build: %v\n%s", err, out)
	}
	help, _ := exec.Command(bin.path, "serve", "--help").CombinedOutput()
	for _, m := range helpFlag.FindAllStringSubmatch(string(help), -1) {
		def, ok := zeroValues[m[2]]
		if m[3] != "" {
			def, ok = strings.Trim(m[3], `"`), true
		}
		if !ok {
			return nil, fmt.Errorf("damone serve --help: flag --%s of type %s has no default shown", m[1], m[2])
		}
		bin.defaults[m[4]] = def
	}
	if n := strings.Count(string(help), "env DAMONE_"); n != len(bin.defaults) {
		return nil, fmt.Errorf("damone serve --help names %d DAMONE_ variables, of which %d were read:\n%s", n, len(bin.defaults), help)
	}
	if len(bin.defaults) == 0 {
		return nil, fmt.Errorf("damone serve --help listed no DAMONE_ variables:\n%s", help)
	}
	return bin, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built != nil {
		os.RemoveAll(filepath.Dir(built.path))
	}
	os.Exit(code)
}

// TestBinaryDefaultsMatchServer: what the manifests are checked against (the
// binary's flag defaults) is what internal/server declares.
func TestBinaryDefaultsMatchServer(t *testing.T) {
	bin := damone(t)
	for env, want := range map[string]string{
		"DAMONE_GRPC_ADDR":     server.DefaultGRPCAddr,
		"DAMONE_HTTP_ADDR":     server.DefaultHTTPAddr,
		"DAMONE_METRICS_ADDR":  server.DefaultMetricsAddr,
		"DAMONE_DRAIN_TIMEOUT": server.DefaultDrainTimeout.String(),
	} {
		if got, ok := bin.defaults[env]; !ok || got != want {
			t.Errorf("damone serve --help: %s default %q, internal/server says %q", env, got, want)
		}
	}
	for _, env := range []string{"DAMONE_SERVICES", "DAMONE_STORE", "DAMONE_LOG_FORMAT"} {
		if _, ok := bin.defaults[env]; !ok {
			t.Errorf("damone serve --help does not list %s, which the manifests set", env)
		}
	}
}

func TestVersionIsStamped(t *testing.T) {
	out, err := exec.Command(damone(t).path, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != testVersion {
		t.Fatalf("damone version printed %q, make build stamped %q", got, testVersion)
	}
}

// TestPodsServeAsConfigured starts the binary once per Deployment of every
// overlay, with the container's args and rendered environment (only the
// listen addresses moved to free loopback ports), and checks what the
// kubelet and clients would see: both probes' health services SERVING, the
// gRPC services that DAMONE_SERVICES names and no others, /metrics on the
// metrics port, and a clean exit on SIGTERM within the grace period.
func TestPodsServeAsConfigured(t *testing.T) {
	bin := damone(t)
	// The pods read the endgame tables the image holds (DAMONE_EGTB_DIR,
	// the Dockerfile's /egtb); here a small set built by the same binary
	// stands in for it, and the server refuses to start without one.
	tables := filepath.Join(t.TempDir(), "egtb")
	if out, err := exec.Command(bin.path, "egtb", "build", "--pieces", "2", "--out", tables).CombinedOutput(); err != nil {
		t.Fatalf("damone egtb build --pieces 2: %v\n%s", err, out)
	}
	for _, o := range renderedOverlays(t, k8s.Dir()) {
		for _, d := range o.deployments {
			t.Run(o.overlay+"/"+d.Name, func(t *testing.T) {
				c := d.Spec.Template.Spec.Containers[0]
				env, errs := resolveEnv(o, c)
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				ctr := container{c: c, env: env}
				if ctr.setting(bin, "DAMONE_STORE") == "postgres" {
					// The DSN comes from a Secret the cluster holds; here the
					// test database stands in for it.
					dsn := os.Getenv("DAMONE_TEST_POSTGRES_DSN")
					if dsn == "" {
						if os.Getenv("CI") == "true" {
							t.Fatal("CI=true but DAMONE_TEST_POSTGRES_DSN is unset (make test starts a PostgreSQL)")
						}
						t.Skip("DAMONE_TEST_POSTGRES_DSN unset: cannot run a postgres pod")
					}
					env["DAMONE_POSTGRES_DSN"] = dsn
				}
				if env["DAMONE_EGTB_DIR"] != "" {
					env["DAMONE_EGTB_DIR"] = tables
				}
				grace := time.Duration(*d.Spec.Template.Spec.TerminationGracePeriodSeconds) * time.Second
				runPod(t, bin, c.Args, env, ctr.services(bin), grace-time.Duration(c.Lifecycle.PreStop.Sleep.Seconds)*time.Second)
			})
		}
	}
}

var servingAddr = regexp.MustCompile(`"?(grpc|http|metrics)"?[=:]"?([0-9.]+:[0-9]+)`)

func runPod(t *testing.T, bin *binary, args []string, env map[string]string, want services, stopWithin time.Duration) {
	cmd := exec.Command(bin.path, args...)
	cmd.Dir = t.TempDir() // a relative --data-dir lands here, not in the repository
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "DAMONE_GRPC_ADDR=127.0.0.1:0", "DAMONE_HTTP_ADDR=127.0.0.1:0", "DAMONE_METRICS_ADDR=127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	addrs := make(chan map[string]string, 1)
	var logMu sync.Mutex
	var logText strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			logMu.Lock()
			logText.WriteString(line + "\n")
			logMu.Unlock()
			if !sent && strings.Contains(line, "serving") {
				a := map[string]string{}
				for _, m := range servingAddr.FindAllStringSubmatch(line, -1) {
					a[m[1]] = m[2]
				}
				addrs <- a
				sent = true
			}
		}
		io.Copy(io.Discard, stderr)
		exited <- cmd.Wait()
	}()
	waited := false
	defer func() {
		if !waited {
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			logMu.Lock()
			t.Logf("damone log:\n%s", logText.String())
			logMu.Unlock()
		}
	}()

	var a map[string]string
	select {
	case a = <-addrs:
	case err := <-exited:
		waited = true
		t.Fatalf("damone serve exited before serving: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("damone serve did not log its addresses within 20s")
	}
	if a["grpc"] == "" || a["metrics"] == "" {
		t.Fatalf("could not read the listen addresses from the serving line: %v", a)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := grpc.NewClient("passthrough:///"+a["grpc"], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, svc := range []string{server.LivenessService, server.ReadinessService} {
		resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil {
			t.Fatalf("health check %q: %v", svc, err)
		}
		if resp.Status != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health service %q: %v, want SERVING", svc, resp.Status)
		}
	}

	served := listServices(ctx, t, conn)
	for name, want := range map[string]bool{
		damonev1.RulesService_ServiceDesc.ServiceName:    want.rules,
		damonev1.GameService_ServiceDesc.ServiceName:     want.games,
		damonev1.AnalysisService_ServiceDesc.ServiceName: want.analysis,
	} {
		if served[name] != want {
			t.Errorf("serves %s: %v, want %v (DAMONE_SERVICES=%q)", name, served[name], want, env["DAMONE_SERVICES"])
		}
	}

	resp, err := http.Get("http://" + a["metrics"] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /metrics: %s", resp.Status)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		waited = true
		if err != nil {
			t.Errorf("after SIGTERM: %v, want exit 0", err)
		}
	case <-time.After(stopWithin):
		t.Errorf("still running %v after SIGTERM: the kubelet would kill it", stopWithin)
	}
}

func listServices(ctx context.Context, t *testing.T, conn *grpc.ClientConn) map[string]bool {
	t.Helper()
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.CloseSend()
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{ListServices: "*"},
	}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, s := range resp.GetListServicesResponse().GetService() {
		out[s.GetName()] = true
	}
	return out
}
