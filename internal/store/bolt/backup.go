package bolt

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	bbolt "go.etcd.io/bbolt"
)

// backupReserve is the free space a hot backup's snapshot must leave in
// the data directory, so that it never takes the room the store itself
// needs to grow (bbolt grows its file in steps of up to 16 MiB).
const backupReserve = 64 << 20

// freeSpace reports the bytes an unprivileged writer may still use in
// dir's file system, and whether it could tell; a variable for tests.
var freeSpace = diskFree

// snapshotWriter is where a hot backup's snapshot is written: its
// temporary file; a variable for tests.
var snapshotWriter = func(f *os.File) io.Writer { return f }

// firstError is a writer that keeps the first error of w: bbolt's
// Tx.WriteTo reports it as text only, and a full disk must still be told
// from other failures.
type firstError struct {
	w   io.Writer
	err error
}

func (e *firstError) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}

// backupRefusal is a backup refused before its first byte: its message, and the
// errno it counts as (syscall.EBUSY, syscall.ENOSPC), which callers test
// with errors.Is.
type backupRefusal struct {
	msg   string
	errno syscall.Errno
}

func (r *backupRefusal) Error() string        { return r.msg }
func (r *backupRefusal) Is(target error) bool { return target == r.errno }

// Backup writes a consistent snapshot of the store to w while it keeps
// serving: the whole file as of one read transaction (bbolt's
// Tx.WriteTo), a valid store file of its own. The transaction lasts only
// while the snapshot is copied to a temporary file in the data directory,
// at the local disk's speed; w is then fed from that file, so however
// slowly w takes it, no writer or reader of the store waits for w. The
// temporary file has no name once created (on Unix), and is gone when
// Backup returns, whatever happened.
//
// Before the first byte it calls sized, if not nil, with the snapshot's
// exact length in bytes. It returns the bytes written to w. Errors, all
// before sized is called unless noted: one wrapping syscall.EBUSY when
// another Backup of this store is under way (one at a time, so that
// snapshots never pile up on the disk); one wrapping syscall.ENOSPC when
// the snapshot would leave less than 64 MiB free in the data directory,
// or the disk filled up while it was written; an I/O error of the
// temporary file; after sized, ctx's error when ctx ends, or w's error.
func (s *Store) Backup(ctx context.Context, w io.Writer, sized func(bytes int64)) (int64, error) {
	if !s.backingUp.CompareAndSwap(false, true) {
		return 0, &backupRefusal{"embedded store: another backup is being served: one at a time, try again when it ends", syscall.EBUSY}
	}
	defer s.backingUp.Store(false)
	// Everything acknowledged is in bbolt from here on.
	if err := s.checkpointNow(); err != nil {
		return 0, err
	}
	f, size, done, err := s.snapshot()
	if err != nil {
		return 0, err
	}
	defer done()
	if sized != nil {
		sized(size)
	}
	return io.Copy(ctxWriter{ctx, w}, io.NewSectionReader(f, 0, size))
}

// snapshot copies the store, as of one short read transaction, to a new
// temporary file beside it, and returns the file, its length and the
// function that closes and removes it.
func (s *Store) snapshot() (*os.File, int64, func(), error) {
	dir := filepath.Dir(s.db.Path())
	f, err := os.CreateTemp(dir, "."+FileName+".backup-*")
	if err != nil {
		return nil, 0, nil, fmt.Errorf("embedded store: backup: creating its temporary file in %s: %w", dir, err)
	}
	name := f.Name()
	// Unlinked at once where the system allows an open file without a
	// name: not even a crash leaves it behind.
	unlinked := os.Remove(name) == nil
	done := func() {
		f.Close()
		if !unlinked {
			os.Remove(name)
		}
	}
	var size int64
	w := &firstError{w: snapshotWriter(f)}
	err = s.db.View(func(tx *bbolt.Tx) error {
		size = tx.Size()
		if free, ok := freeSpace(dir); ok && free-size < backupReserve {
			return &backupRefusal{fmt.Sprintf("embedded store: backup refused: its snapshot of %d bytes would leave %d bytes free in %s, less than the %d kept for the store to grow: free some space there, or stop the server and copy the store with damone store backup --data-dir",
				size, max(free-size, 0), dir, backupReserve), syscall.ENOSPC}
		}
		_, err := tx.WriteTo(w)
		return err
	})
	if err != nil {
		done()
		if _, ok := err.(*backupRefusal); ok {
			return nil, 0, nil, err
		}
		if w.err != nil {
			err = w.err
		}
		return nil, 0, nil, fmt.Errorf("embedded store: backup: writing its snapshot to a temporary file in %s: %w", dir, err)
	}
	return f, size, done, nil
}

// ctxWriter stops a long copy when its context ends.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// BackupFile writes a copy of the store file at path to w for a store no
// server is running on: the file is verified first (Verify's errors), then
// copied as of its last transaction. If a log beside it holds writes the
// file does not (a server was killed), the store is opened and closed
// first, which writes them into the file as the next start would.
func BackupFile(path string, w io.Writer) (int64, error) {
	sum, err := Verify(path)
	if err != nil {
		return 0, err
	}
	if sum.LogGroups > 0 {
		s, err := Open(filepath.Dir(path))
		if err != nil {
			return 0, err
		}
		if err := s.Close(); err != nil {
			return 0, err
		}
	}
	var n int64
	err = guard(path, func() error {
		db, err := bbolt.Open(path, 0, &bbolt.Options{ReadOnly: true, Timeout: lockWait, OpenFile: openExisting})
		if err != nil {
			return fmt.Errorf("embedded store: open %s: %w", path, err)
		}
		defer db.Close()
		return db.View(func(tx *bbolt.Tx) error {
			n, err = tx.WriteTo(w)
			return err
		})
	})
	return n, err
}
