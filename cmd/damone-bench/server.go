package main

// The `damone serve` processes that moves and soak run themselves, and
// what they read of a process from /proc.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/damone-rules/damone/internal/cli"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// findServerBin returns the damone binary to run: bin if given, else
// damone next to this executable (make builds both into bin/), else
// damone on PATH.
func findServerBin(bin string) (string, error) {
	if bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", cli.Usagef("--server-bin: %v", err)
		}
		return bin, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "damone")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath("damone"); err == nil {
		return p, nil
	}
	return "", cli.Usagef("--server-bin: no damone binary next to damone-bench or on PATH; build one (go build -o bin/damone ./cmd/damone) and give its path")
}

// freeAddrs returns n loopback addresses whose ports were free a moment
// ago: each is listened on, all at once so they differ, then released.
func freeAddrs(n int) ([]string, error) {
	var out []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		out = append(out, l.Addr().String())
	}
	return out, nil
}

// serverProc is one `damone serve` the tool runs, on fixed loopback
// ports (kept across restarts, so clients reconnect by themselves), its
// log (stderr) appended to a file.
type serverProc struct {
	bin                             string
	args                            []string // serve's flags other than the addresses
	grpcAddr, httpAddr, metricsAddr string
	logPath                         string
	cmd                             *exec.Cmd
	exited                          chan struct{}
	waitErr                         error
	starts                          int
}

// newServerProc prepares a server on fresh free ports; start runs it.
func newServerProc(bin, logPath string, args ...string) (*serverProc, error) {
	addrs, err := freeAddrs(3)
	if err != nil {
		return nil, err
	}
	return &serverProc{bin: bin, args: args, grpcAddr: addrs[0], httpAddr: addrs[1], metricsAddr: addrs[2], logPath: logPath}, nil
}

// serverEnv is this process's environment without DAMONE_ settings, so
// a caller's DAMONE_STORE (say) cannot change what is measured, and
// without the default endgame tables, whose background build would share
// the cores being measured.
func serverEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DAMONE_") {
			env = append(env, kv)
		}
	}
	return append(env, "DAMONE_EGTB_PIECES=0")
}

// start runs the server and returns once its gRPC readiness check says
// SERVING (within 60 s), or with an error quoting the end of its log.
func (s *serverProc) start(ctx context.Context) error {
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child has its own copy
	args := append([]string{"serve", "--grpc-addr", s.grpcAddr, "--http-addr", s.httpAddr, "--metrics-addr", s.metricsAddr}, s.args...)
	s.cmd = exec.Command(s.bin, args...)
	s.cmd.Env = serverEnv()
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.starts++
	s.exited = make(chan struct{})
	cmd, exited := s.cmd, s.exited
	go func() {
		s.waitErr = cmd.Wait()
		close(exited)
	}()
	// Retry the connection every 20-200 ms while the server starts, not
	// after gRPC's default backoff of a second and more.
	conn, err := grpc.NewClient("passthrough:///"+s.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: 20 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 200 * time.Millisecond},
			MinConnectTimeout: time.Second}))
	if err != nil {
		return err
	}
	defer conn.Close()
	health := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(60 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		resp, err := health.Check(cctx, &healthpb.HealthCheckRequest{Service: "readiness"})
		cancel()
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("%s serve exited before it was ready (%v); its log ends:\n%s", s.bin, s.waitErr, s.logTail(20))
		case <-ctx.Done():
			s.kill()
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("%s serve not ready after 60s (last check: %v); its log ends:\n%s", s.bin, err, s.logTail(20))
		}
	}
}

func (s *serverProc) pid() int { return s.cmd.Process.Pid }

// kill sends SIGKILL and waits for the process to be gone.
func (s *serverProc) kill() {
	if s.cmd == nil {
		return
	}
	select {
	case <-s.exited:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

// stop sends SIGTERM (the server drains) and waits up to 30 s, then
// kills it; it returns the server's exit error, if any.
func (s *serverProc) stop() error {
	if s.cmd == nil {
		return nil
	}
	select {
	case <-s.exited:
		return s.waitErr
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		return s.waitErr
	case <-time.After(30 * time.Second):
		s.kill()
		return errors.New("did not stop within 30s of SIGTERM: killed")
	}
}

// running tells whether the process is still there.
func (s *serverProc) running() bool {
	select {
	case <-s.exited:
		return false
	default:
		return s.cmd != nil
	}
}

// logTail is the last n lines of the server's log.
func (s *serverProc) logTail(n int) string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// procMem is a process's resident memory from /proc/PID/status, in
// bytes: all of it, and its anonymous and file-backed parts.
type procMem struct {
	RSS, Anon, File int64
}

func readProcMem(pid int) (procMem, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procMem{}, err
	}
	var m procMem
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch name {
		case "VmRSS":
			dst = &m.RSS
		case "RssAnon":
			dst = &m.Anon
		case "RssFile":
			dst = &m.File
		default:
			continue
		}
		f := strings.Fields(rest) // "1234 kB"
		if len(f) != 2 || f[1] != "kB" {
			return procMem{}, fmt.Errorf("/proc/%d/status: %s: %q", pid, name, rest)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return procMem{}, fmt.Errorf("/proc/%d/status: %s: %v", pid, name, err)
		}
		*dst = kb << 10
		found++
	}
	if found != 3 {
		return procMem{}, fmt.Errorf("/proc/%d/status: VmRSS, RssAnon or RssFile missing", pid)
	}
	return m, nil
}

// openFiles counts a process's open file descriptors (/proc/PID/fd).
func openFiles(pid int) (int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents), err
}

// scrapeGauges reads the named metrics (without labels) from a Prometheus
// text scrape at addr; a name not in the scrape is an error.
func scrapeGauges(ctx context.Context, client *http.Client, addr string, names ...string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("metrics at %s: HTTP %d", addr, resp.StatusCode)
	}
	return parseGauges(resp.Body, names...)
}

// parseGauges finds each name's sample in Prometheus text: the line
// "name value" (no labels).
func parseGauges(r io.Reader, names ...string) (map[string]float64, error) {
	out := make(map[string]float64, len(names))
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		for _, n := range names {
			if name == n {
				v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
				if err != nil {
					return nil, fmt.Errorf("metric %s: %q: %v", n, value, err)
				}
				out[n] = v
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("no metric %s in the scrape", n)
		}
	}
	return out, nil
}
