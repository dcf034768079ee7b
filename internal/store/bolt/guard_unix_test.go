//go:build unix

package bolt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// guard is the last defence of Verify: a panic, or a fault reading a
// mapped file that shrank underneath (SIGBUS, fatal to the process
// without it), becomes a *DamageError.
func TestGuardTurnsPanicsAndFaultsIntoErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 1<<16), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := syscall.Mmap(int(f.Fd()), 0, 1<<16, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var sink byte
	for name, f := range map[string]func() error{
		"fault": func() error { sink = m[1<<15]; return nil },
		"panic": func() error { panic("assertion failed: Page expected to be: 67, but self identifies as 0") },
	} {
		err := guard(path, f)
		var de *DamageError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "reading it failed") {
			t.Errorf("%s: %v, want a *DamageError naming the file", name, err)
		}
	}
	_ = sink
}

// The records are decoded and checked on worker goroutines, each of which
// must turn a fault of its own into an error: SetPanicOnFault is per
// goroutine. walk only hands over a slice of a mapped file that shrank
// underneath; the first read of it is a worker's (a real SIGBUS).
func TestCheckGamesTurnsWorkerFaultsIntoErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 1<<16), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := syscall.Mmap(int(f.Fd()), 0, 1<<16, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 4} {
		var sum Summary
		_, _, err := checkGames(path, workers, func(send func(*gameJob) bool) {
			send(&gameJob{key: []byte("g"), value: m[1<<15 : 1<<15+64], hasEvents: true})
		}, &sum)
		var de *DamageError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "reading it failed") {
			t.Errorf("%d workers: %v, want a *DamageError naming the file", workers, err)
		}
	}
}
