//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
)

func reasonOf(err error) string {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}

// holdLock takes the build lock of a default set's directory, as another
// damone serve building there would: a server started now waits, so its
// probes answer TABLEBASE_LOADING for as long as the test holds it.
func holdLock(t *testing.T, dir string) (release func()) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, egtbLockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return func() { f.Close() }
}

// TestServeDefaultTables: with no --egtb-dir, damone serve (memory store)
// builds its default set under the user cache directory in the background,
// answers TABLEBASE_LOADING over gRPC and REST until it is ready, then
// answers; the next start loads the set built.
func TestServeDefaultTables(t *testing.T) {
	cache := t.TempDir()
	dir := filepath.Join(cache, "damone", "egtb-2")
	release := holdLock(t, dir)
	env := []string{"XDG_CACHE_HOME=" + cache}
	s := svStartEnv(t, env, "--egtb-pieces", "2")
	tb := damonev1.NewTablebaseServiceClient(s.conn)
	ctx := svCtx(t)

	// Red's d3xf5 is compulsory (RULES.md) and takes Black's last piece:
	// a win in one ply, the move leading to a finished game (DTC 0) lost
	// by Black; at counter 0 of 80, 79 plies to spare.
	const pos = "R:RPd3:BPe4:0"
	_, err := tb.ProbePosition(ctx, &damonev1.ProbePositionRequest{Position: pos})
	if status.Code(err) != codes.Unavailable || reasonOf(err) != "TABLEBASE_LOADING" {
		t.Fatalf("probe while another process builds: %v (reason %q), want UNAVAILABLE TABLEBASE_LOADING", err, reasonOf(err))
	}
	resp, err := http.Get(s.url("/v1/tablebase:probe?position=" + url.QueryEscape(pos)))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"TABLEBASE_LOADING"`) {
		t.Fatalf("REST probe while loading: %d %s, want 503 TABLEBASE_LOADING", resp.StatusCode, body)
	}
	if v, ok := svMetric(s.metrics(t), "damone_tablebase_ready", nil); !ok || v != 0 {
		t.Fatalf("damone_tablebase_ready = %v (found %v) while loading, want 0", v, ok)
	}
	if !strings.Contains(s.logText(), "another damone is building the endgame tables here") {
		t.Errorf("no log line about waiting for the lock:\n%s", s.logText())
	}

	release()
	var got *damonev1.ProbePositionResponse
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		got, err = tb.ProbePosition(ctx, &damonev1.ProbePositionRequest{Position: pos})
		if status.Code(err) == codes.Unavailable && time.Now().Before(deadline) {
			continue
		}
		if err != nil {
			t.Fatalf("probe after the build: %v\n%s", err, s.logText())
		}
		break
	}
	if got.GetCategory() != damonev1.TablebaseCategory_TABLEBASE_CATEGORY_WIN || got.Dtc == nil || got.GetDtc() != 1 || got.GetPliesToSpare() != 79 {
		t.Errorf("probe %s: %v, want WIN dtc 1, 79 plies to spare", pos, got)
	}
	if ms := got.GetMoves(); len(ms) != 1 || ms[0].GetNotation() != "d3xf5" || !ms[0].GetConversion() ||
		ms[0].GetCategory() != damonev1.TablebaseCategory_TABLEBASE_CATEGORY_LOSS || ms[0].Dtc == nil || ms[0].GetDtc() != 0 {
		t.Errorf("moves %v, want only d3xf5, a conversion to a LOSS with dtc 0", ms)
	}
	m := s.metrics(t)
	if v, _ := svMetric(m, "damone_tablebase_ready", nil); v != 1 {
		t.Errorf("damone_tablebase_ready = %v when ready, want 1", v)
	}
	if v, _ := svMetric(m, "damone_tablebase_build_progress_ratio", nil); v != 1 {
		t.Errorf("damone_tablebase_build_progress_ratio = %v when ready, want 1", v)
	}
	if !strings.Contains(s.logText(), "endgame tables built and loaded") {
		t.Errorf("no log line for the build:\n%s", s.logText())
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.json")); err != nil {
		t.Errorf("the set is not in %s: %v", dir, err)
	}
	stopWithin(t, s, 10*time.Second, "tables ready")

	// The next start loads the set from the cache, builds nothing.
	s2 := svStartEnv(t, env, "--egtb-pieces", "2")
	waitLog(t, s2, "endgame tables loaded")
	if strings.Contains(s2.logText(), "building the endgame tables") {
		t.Errorf("second start built again:\n%s", s2.logText())
	}
}

// TestServeDefaultTablesStop: SIGTERM during the background build stops
// it (no build process left behind) within the drain, and exits 0.
func TestServeDefaultTablesStop(t *testing.T) {
	data := t.TempDir()
	s := svStart(t, "--store", "embedded", "--data-dir", data, "--egtb-pieces", "4", "--drain-timeout", "2s")
	waitLog(t, s, "building the endgame tables in the background")
	dir := filepath.Join(data, "egtb-4")
	for deadline := time.Now().Add(10 * time.Second); buildProcesses(t, dir) != 1; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d build processes for %s after 10s, want 1", buildProcesses(t, dir), dir)
		}
	}
	stopWithin(t, s, 10*time.Second, "the tables building")
	if n := buildProcesses(t, dir); n != 0 {
		t.Errorf("%d build processes for %s left after exit", n, dir)
	}
	if !strings.Contains(s.logText(), "build stopped at shutdown") {
		t.Errorf("no log line for the stopped build:\n%s", s.logText())
	}
}

// buildProcesses counts running processes whose command line builds into
// dir.
func buildProcesses(t *testing.T, dir string) int {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	n := 0
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 2 && args[1] == "egtb" && args[2] == "build" && strings.Contains(string(b), "\x00"+dir+"\x00") {
			// A zombie has an empty cmdline, so this one runs.
			n++
		}
	}
	return n
}

// waitLog waits for a log line whose message begins with msg.
func waitLog(t *testing.T, s *svServer, msg string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		for _, line := range strings.Split(s.logText(), "\n") {
			var m struct{ Msg string }
			if json.Unmarshal([]byte(line), &m) == nil && strings.HasPrefix(m.Msg, msg) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line %q within 30s:\n%s", msg, s.logText())
		}
	}
}

// TestServeEgtbDirUnusable: an --egtb-dir the server cannot serve stops
// damone serve with exit 1 (a runtime failure, as an unreadable
// --data-dir), naming the directory and what is wrong: a directory that is
// not a set before the server starts, and a table file that fails its
// SHA-256 check once it is read.
func TestServeEgtbDirUnusable(t *testing.T) {
	svSkip(t)
	set := t.TempDir()
	if err := egtb.Build(set, egtb.Options{Pieces: 2, Win: []engine.WinCondition{engine.CaptureAllPieces}}); err != nil {
		t.Fatal(err)
	}
	man, err := egtb.ReadManifest(set)
	if err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(set, man.Tables[0].File)
	data, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 0xff
	if err := os.WriteFile(victim, data, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "none")
	for _, c := range []struct {
		name, dir string
		want      []string
	}{
		{"missing", missing, []string{"--egtb-dir " + missing, filepath.Join(missing, egtb.ManifestName), "missing"}},
		{"corrupt", set, []string{"--egtb-dir " + set, victim, "SHA-256"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, svBin, "serve", "--store", "memory", "--grpc-addr", "127.0.0.1:0",
				"--http-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--egtb-dir", c.dir)
			cmd.Env = svEnv()
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if ctx.Err() != nil || !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("%v (stderr %.2000q); want exit 1", err, stderr.String())
			}
			last := strings.TrimSpace(stderr.String())
			last = last[strings.LastIndex(last, "\n")+1:]
			for _, w := range c.want {
				if !strings.Contains(last, w) {
					t.Errorf("last line %q; want it to name %q", last, w)
				}
			}
		})
	}
}
