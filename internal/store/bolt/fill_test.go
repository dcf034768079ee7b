//go:build linux

package bolt

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// seekHole is Linux's SEEK_HOLE: Seek to the first hole at or after the
// offset (the file's end counts as one).
const seekHole = 4

// lastPage returns the end in bytes of the store's last page.
func lastPage(t *testing.T, s *Store) int64 {
	t.Helper()
	var size int64
	if err := s.db.View(func(tx *bbolt.Tx) error { size = tx.Size(); return nil }); err != nil {
		t.Fatal(err)
	}
	return size
}

// firstHole returns the offset of the first hole in the file at path.
func firstHole(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	off, err := f.Seek(0, seekHole)
	if err != nil {
		t.Skipf("SEEK_HOLE: %v", err)
	}
	return off
}

// Commits write their pages into blocks written before, not into the
// hole bbolt's ftruncate leaves (a journal commit per sync): as the store
// grows, the file stays written well past its last page. The tail is not
// part of the store: the file verifies, and a backup is the pages only.
func TestCommitsLandOnWrittenBlocks(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.setNoSync(true) // the filler still syncs its zeros; the commits need not
	svc := games.NewService(s, games.Limits{})
	path := filepath.Join(dir, FileName)
	// 1,000 games' records and events are about 1.5 MB: the file grows
	// from 32 KiB past bbolt's own steps (doubling its size).
	for i := range 1000 {
		if _, _, err := svc.Create(context.Background(), engine.DefaultVariant()); err != nil {
			t.Fatal(err)
		}
		if i%100 != 99 {
			continue
		}
		// A checkpoint adds a few pages; the filler keeps at least 256 KiB
		// written ahead of the last page when one starts.
		settle(t, s)
		if end, hole := lastPage(t, s), firstHole(t, path); hole < end+fillMin/2 {
			t.Fatalf("after %d games: the file's first hole is at %d bytes, %d past the last page's end %d; want at least %d written past it",
				i+1, hole, hole-end, end, fillMin/2)
		}
	}
	end := lastPage(t, s)
	if end < 1<<20 {
		t.Fatalf("the store is %d bytes: too small to have grown past bbolt's first steps", end)
	}
	var backup bytes.Buffer
	if _, err := s.Backup(context.Background(), &backup, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	sum, err := Verify(path)
	if err != nil {
		t.Fatalf("Verify of the grown store: %v", err)
	}
	if sum.Games != 1000 || int64(sum.Pages)*int64(sum.PageSize) != end || sum.FileSize <= end {
		t.Fatalf("Verify: %d games, %d pages of %d bytes, file %d bytes; want 1000 games, %d bytes of pages, a longer file",
			sum.Games, sum.Pages, sum.PageSize, sum.FileSize, end)
	}
	if int64(backup.Len()) != end {
		t.Fatalf("the backup is %d bytes; want the %d bytes of the store's pages, not the tail", backup.Len(), end)
	}
}

// The filler opens the store's path a second time, after bbolt has: if
// something other than a regular file has taken its place meanwhile (a
// named pipe, whose opening for writing waits for a reader), the filler
// does nothing instead of blocking the store's start or writing into it.
func TestFillerRefusesWhatIsNotAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan *filler, 1)
	go func() { got <- newFiller(path) }()
	select {
	case fl := <-got:
		if fl.f != nil {
			fl.close()
			t.Errorf("the filler opened the named pipe at %s for writing", path)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("newFiller is still opening a named pipe after 2 s: the store's start blocks")
	}
}
