package bolt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// withinSeconds runs f and fails the test if it has not returned within
// 10 s: what it tests must not block.
func withinSeconds(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s has not returned after 10 s: it blocks", what)
		return nil
	}
}

// dirEntries lists dir's entries besides the store file and its log.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Name() != FileName && !strings.HasPrefix(e.Name(), walPrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// A disk that fills up while the snapshot is written fails the backup
// before its first byte, with an error that says so (ENOSPC, which the
// handler answers 507) and names the directory; nothing is left behind and
// the store goes on serving.
func TestBackupDiskFull(t *testing.T) {
	dir, id := oneGameStore(t)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old := snapshotWriter
	defer func() { snapshotWriter = old }()
	snapshotWriter = func(f *os.File) io.Writer { return &fullDisk{f: f, room: 8 << 10} }
	sizedCalled := false
	n, err := s.Backup(context.Background(), &bytes.Buffer{}, func(int64) { sizedCalled = true })
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), dir) || n != 0 || sizedCalled {
		t.Fatalf("backup onto a full disk: %d bytes, sized called %v, %v; want ENOSPC naming %s before any byte", n, sizedCalled, err, dir)
	}
	snapshotWriter = old
	if _, err := s.Get(context.Background(), id); err != nil {
		t.Fatalf("the store after a failed backup: %v", err)
	}
	var buf bytes.Buffer
	if _, err := s.Backup(context.Background(), &buf, nil); err != nil {
		t.Fatalf("a backup after the disk had room again: %v", err)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("the data directory holds %v besides the store", left)
	}
}

// A snapshot that would leave less than backupReserve free is refused
// before it is written, naming the sizes and what to do.
func TestBackupRefusedWithoutRoom(t *testing.T) {
	dir, _ := oneGameStore(t)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old := freeSpace
	defer func() { freeSpace = old }()
	freeSpace = func(string) (int64, bool) { return backupReserve, true } // the snapshot's bytes would come out of the reserve
	_, err = s.Backup(context.Background(), &bytes.Buffer{}, nil)
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "backup refused") || !strings.Contains(err.Error(), "store backup --data-dir") {
		t.Fatalf("backup without room: %v; want a refusal wrapping ENOSPC that says what to do", err)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("the data directory holds %v besides the store", left)
	}
	freeSpace = func(string) (int64, bool) { return backupReserve + 1<<20, true } // a 1 MiB margin is enough for one game
	if _, err := s.Backup(context.Background(), &bytes.Buffer{}, nil); err != nil {
		t.Fatalf("backup with room: %v", err)
	}
}

// A client that goes away midway ends the backup with its error; nothing
// is left behind, and the next backup is served.
func TestBackupClientGone(t *testing.T) {
	dir, _ := oneGameStore(t)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	gone := errors.New("connection reset by peer")
	_, err = s.Backup(context.Background(), failingWriter{gone}, nil)
	if !errors.Is(err, gone) {
		t.Fatalf("backup to a client gone: %v; want its error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Backup(ctx, &bytes.Buffer{}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("backup for a request gone: %v; want context.Canceled", err)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("the data directory holds %v besides the store", left)
	}
	var buf bytes.Buffer
	if _, err := s.Backup(context.Background(), &buf, nil); err != nil {
		t.Fatalf("the next backup: %v", err)
	}
}

// fullDisk writes to f until room bytes are written, then fails as a
// full disk does.
type fullDisk struct {
	f    *os.File
	room int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) > d.room {
		n, _ := d.f.Write(p[:d.room])
		d.room = 0
		return n, &os.PathError{Op: "write", Path: d.f.Name(), Err: syscall.ENOSPC}
	}
	d.room -= len(p)
	return d.f.Write(p)
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// A named pipe as the store file is refused at once, naming it, by Open
// (damone serve), Verify and BackupFile: opening one for reading would
// wait for a writer forever.
func TestNamedPipeStoreIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	want := path + " is a named pipe (FIFO), not a regular file"
	check := func(what string, err error) {
		t.Helper()
		var de *DamageError
		if !errors.As(err, &de) || !de.NotFile || !strings.Contains(err.Error(), want) {
			t.Errorf("%s of a named pipe: %v; want a refusal saying %q", what, err, want)
		}
	}
	check("Open", withinSeconds(t, "Open", func() error { _, err := Open(dir); return err }))
	check("Verify", withinSeconds(t, "Verify", func() error { _, err := Verify(path); return err }))
	check("BackupFile", withinSeconds(t, "BackupFile", func() error { _, err := BackupFile(path, &bytes.Buffer{}); return err }))
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Type() != os.ModeNamedPipe {
		t.Errorf("the named pipe after: %v, %v; want it left as it was", fi, err)
	}
}

// openExisting, bbolt's open of a verified file, refuses a named pipe put
// in its place since, without waiting for a writer.
func TestOpenExistingRefusesNamedPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, flag := range []int{os.O_RDONLY, os.O_RDWR | os.O_CREATE} {
		err := withinSeconds(t, "openExisting", func() error {
			f, err := openExisting(path, flag, 0o600)
			if err == nil {
				f.Close()
			}
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("openExisting(flag %#x) of a named pipe: %v; want a refusal", flag, err)
		}
	}
}
