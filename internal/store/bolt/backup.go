package bolt

import (
	"context"
	"fmt"
	"io"

	bbolt "go.etcd.io/bbolt"
)

// Backup writes a consistent snapshot of the store to w while it keeps
// serving: the whole file as of one read transaction (bbolt's
// Tx.WriteTo), a valid store file of its own. Writers do not wait for it,
// except one that must grow the file beyond its current memory map (the
// map doubles, up to 1 GiB steps), which waits for the snapshot to end.
// Before the first byte it calls sized, if not nil, with the snapshot's
// exact length in bytes. It returns the bytes written; it stops with
// ctx's error when ctx ends, or with w's error.
func (s *Store) Backup(ctx context.Context, w io.Writer, sized func(bytes int64)) (int64, error) {
	var n int64
	err := s.db.View(func(tx *bbolt.Tx) error {
		if sized != nil {
			sized(tx.Size())
		}
		var err error
		n, err = tx.WriteTo(ctxWriter{ctx, w})
		return err
	})
	return n, err
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
// copied as of its last transaction.
func BackupFile(path string, w io.Writer) (int64, error) {
	if _, err := Verify(path); err != nil {
		return 0, err
	}
	var n int64
	err := guard(path, func() error {
		db, err := bbolt.Open(path, 0, &bbolt.Options{ReadOnly: true, Timeout: lockWait})
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
