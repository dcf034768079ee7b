package main

// End-to-end tests of a damone store backup that is interrupted (Ctrl-C,
// SIGTERM, a pipe reader gone): nothing may be left behind, neither the
// partial copy beside --out nor the temporary copy of --out -.

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// stalledBackupServer answers GET /admin/backup with a Content-Length of
// 10 MB, sends 64 KiB of it, then sends nothing more until the test ends.
func stalledBackupServer(t *testing.T) string {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(10<<20))
		w.WriteHeader(http.StatusOK)
		w.Write(make([]byte, 64<<10))
		w.(http.Flusher).Flush()
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv.URL
}

// dirEntries lists dir's names.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// waitForEntry waits up to 10 s for dir to hold something.
func waitForEntry(t *testing.T, dir string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if len(dirEntries(t, dir)) > 0 {
			return
		}
	}
	t.Fatalf("no temporary file appeared in %s within 10 s", dir)
}

func TestBackupInterruptedLeavesNothing(t *testing.T) {
	svSkip(t)
	from := stalledBackupServer(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for _, toStdout := range []bool{false, true} {
			name := sig.String() + "/out-file"
			if toStdout {
				name = sig.String() + "/out-stdout"
			}
			t.Run(name, func(t *testing.T) {
				outDir, tmpDir := t.TempDir(), t.TempDir()
				out, watch := filepath.Join(outDir, "backup.db"), outDir
				if toStdout {
					out, watch = "-", tmpDir
				}
				cmd := exec.Command(svBin, "store", "backup", "--from", from, "--out", out)
				cmd.Env = svEnv("TMPDIR=" + tmpDir)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				waitForEntry(t, watch) // the copy has begun
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				select {
				case err := <-exited:
					if err == nil {
						t.Fatal("an interrupted backup exited 0")
					}
				case <-time.After(10 * time.Second):
					cmd.Process.Kill()
					t.Fatalf("damone store backup has not ended 10 s after %v", sig)
				}
				if left := dirEntries(t, watch); len(left) != 0 {
					t.Errorf("after %v, %s still holds %q: want nothing left behind", sig, watch, left)
				}
			})
		}
	}
}

// TestBackupToClosedPipeLeavesNothing: with --out -, a reader that has
// gone away (`| head -c 100`) fails the write; the verified copy in
// $TMPDIR, which holds every game and token hash, must not stay there.
func TestBackupToClosedPipeLeavesNothing(t *testing.T) {
	svSkip(t)
	dataDir, tmpDir := stoppedStore(t), t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // nobody will read
	cmd := exec.Command(svBin, "store", "backup", "--data-dir", dataDir, "--out", "-")
	cmd.Env = svEnv("TMPDIR=" + tmpDir)
	cmd.Stdout = w
	err = cmd.Run()
	w.Close()
	if err == nil {
		t.Fatal("a backup whose standard output is a closed pipe exited 0")
	}
	if left := dirEntries(t, tmpDir); len(left) != 0 {
		t.Errorf("$TMPDIR still holds %q after the write failed: want the temporary copy removed", left)
	}
}
