//go:build faults

package faulttest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// repoRoot is the module's root, from this package's directory.
const repoRoot = "../.."

// buildDamone builds cmd/damone into dir, with the given build tags.
func buildDamone(t *testing.T, dir, tags string) string {
	t.Helper()
	bin := filepath.Join(dir, "damone")
	args := []string{"build", "-o", bin}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command("go", append(args, "./cmd/damone")...)
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/damone: %v\n%s", err, out)
	}
	return bin
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// pg is the throwaway PostgreSQL of scripts/test-postgres, with fsync on,
// which the test may restart and crash.
type pg struct {
	dir, bin, dsn, port string
	pool                *pgxpool.Pool // straight to the server: faults and final checks
}

func startPG(t *testing.T) *pg {
	t.Helper()
	cmd := exec.Command(filepath.Join(repoRoot, "scripts/test-postgres"), "start")
	cmd.Env = append(os.Environ(), "TEST_PG_FSYNC=on")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/test-postgres start: %v", err)
	}
	p := &pg{}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, "'")
		switch k {
		case "TEST_PG_DIR":
			p.dir = v
		case "TEST_PG_BIN":
			p.bin = v
		case "DAMONE_TEST_POSTGRES_DSN":
			p.dsn = v
		}
	}
	u, err := url.Parse(p.dsn)
	if err != nil || p.dir == "" {
		t.Fatalf("scripts/test-postgres start printed %q", out)
	}
	p.port = u.Port()
	t.Cleanup(func() {
		if p.pool != nil {
			p.pool.Close()
		}
		exec.Command(filepath.Join(repoRoot, "scripts/test-postgres"), "stop", p.dir).Run()
	})
	p.pool, err = pgxpool.New(context.Background(), p.dsn)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ctl runs pg_ctl as the cluster's owner.
func (p *pg) ctl(args ...string) error {
	all := append([]string{filepath.Join(p.bin, "pg_ctl"), "-D", filepath.Join(p.dir, "data"), "-l",
		filepath.Join(p.dir, "server.log"), "-w", "-t", "60"}, args...)
	var cmd *exec.Cmd
	if os.Getuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--"}, all...)...)
	} else {
		cmd = exec.Command(all[0], all[1:]...)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl %v: %v\n%s", args, err, out)
	}
	return nil
}

func (p *pg) start() error {
	return p.ctl("-o", fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %s -k %s -c fsync=on -c max_connections=200", p.port, p.dir), "start")
}

// replica is one `damone serve` process; its clients reach it through
// cl, and it reaches PostgreSQL through db (nil on the embedded store).
type replica struct {
	name     string
	bin      string
	args     []string
	env      []string
	grpcAddr string
	logPath  string
	cl, db   *Proxy
	conn     *grpc.ClientConn // through cl
	games    damonev1.GameServiceClient

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

func newReplica(t *testing.T, name, bin, logDir string, env []string, storeArgs []string, db *Proxy) *replica {
	t.Helper()
	r := &replica{name: name, bin: bin, env: env, grpcAddr: freePort(t), db: db, logPath: filepath.Join(logDir, name+".log")}
	r.args = append([]string{"serve", "--grpc-addr", r.grpcAddr, "--http-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0",
		"--services", "games", "--log-format", "json", "--drain-timeout", "1s", "--web=false"}, storeArgs...)
	var err error
	if r.cl, err = NewProxy(r.grpcAddr); err != nil {
		t.Fatal(err)
	}
	r.conn, err = grpc.NewClient(r.cl.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6,
			Jitter: 0.2, MaxDelay: 500 * time.Millisecond}, MinConnectTimeout: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	r.games = damonev1.NewGameServiceClient(r.conn)
	t.Cleanup(func() {
		r.kill()
		r.conn.Close()
		r.cl.Close()
	})
	return r
}

// start runs the process and waits until it is ready.
func (r *replica) start() error {
	f, err := os.OpenFile(r.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(r.bin, r.args...)
	// No default endgame tables: their background build would cost a core.
	cmd.Env = append(append(os.Environ(), "DAMONE_EGTB_PIECES=0"), r.env...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); f.Close(); close(done) }()
	r.mu.Lock()
	r.cmd, r.done = cmd, done
	r.mu.Unlock()
	return r.waitReady(30 * time.Second)
}

// waitReady polls the readiness check straight on the replica's port.
func (r *replica) waitReady(d time.Duration) error {
	conn, err := grpc.NewClient(r.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	h := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(d)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		resp, err := h.Check(ctx, &healthpb.HealthCheckRequest{Service: "readiness"})
		cancel()
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready within %v (last: %v, %v); log %s", r.name, d, resp.GetStatus(), err, r.logPath)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (r *replica) signal(sig syscall.Signal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd != nil && r.cmd.Process != nil {
		r.cmd.Process.Signal(sig)
	}
}

// kill ends the process with SIGKILL and waits for it.
func (r *replica) kill() {
	r.mu.Lock()
	cmd, done := r.cmd, r.done
	r.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGCONT) // a stopped process dies only once resumed
	cmd.Process.Kill()
	<-done
}

// logTail returns the replica log's last lines, for failure messages.
func (r *replica) logTail(n int) string {
	f, err := os.Open(r.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}
