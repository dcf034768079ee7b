//go:build unix

package egtb_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/egtb"
)

// A named pipe in a set's place (the manifest or a table) is refused at
// once, naming it: opening one blocks until a writer comes, so a server
// loading such a set would answer TABLEBASE_LOADING forever.
func TestNamedPipeInASetIsRefused(t *testing.T) {
	ref := builtSet(t, 3, 80)
	for _, file := range []string{egtb.ManifestName, victim} {
		dir := copySet(t, ref)
		path := filepath.Join(dir, file)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			wantFileError(t, dir, file, "a named pipe")
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			// Unblock every open of the pipe so the test can end, then fail.
			for stop := false; !stop; {
				if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				select {
				case <-done:
					stop = true
				case <-time.After(100 * time.Millisecond):
				}
			}
			t.Fatalf("%s as a named pipe: Open or Verify has not returned after 10 s: it blocks", file)
		}
	}
}
