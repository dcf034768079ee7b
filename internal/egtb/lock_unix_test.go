//go:build unix

package egtb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A build holds its directory's lock: a second build there is refused,
// naming the directory, while the first runs; and the temporary files of
// a build that was killed mid-write are removed by the next one.
func TestBuildLocksItsDirectory(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockBuild(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = Build(dir, Options{Pieces: 2})
	if err == nil || !strings.Contains(err.Error(), dir+" is being built by another process") {
		t.Fatalf("build beside a held lock: %v", err)
	}
	unlock()

	stale := filepath.Join(dir, tempPrefix+"RvB.cap-all.egtb-123456")
	if err := os.WriteFile(stale, []byte("half a table"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Build(dir, Options{Pieces: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the killed build's temporary file is still there: %v", err)
	}
	if _, err := Open(dir); err != nil {
		t.Errorf("the set built: %v", err)
	}
}
