package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/damone-rules/damone/internal/games"
)

// BackupPath is the metrics listener's hot backup endpoint (docs/deploy.md,
// Backup and restore); the public gRPC and REST ports never serve it.
const BackupPath = "/admin/backup"

// Backuper is a store that can stream a consistent snapshot of itself
// while it serves: the embedded store (bolt.Store.Backup). Backup calls
// sized with the snapshot's length in bytes before writing any of it. An
// error before that wrapping syscall.EBUSY means another backup is under
// way; one wrapping syscall.ENOSPC, that there is no room for the
// snapshot.
type Backuper interface {
	Backup(ctx context.Context, w io.Writer, sized func(bytes int64)) (int64, error)
}

// backupStall bounds how long a backup waits for its client to take the
// next bytes. The store does not wait for the client (the snapshot is
// served from a copy), but the copy takes disk space and the one backup
// slot until the client has it all or is cut off.
const backupStall = 30 * time.Second

// backupHandler serves GET BackupPath: the store file as of one
// transaction, application/octet-stream with its Content-Length; 501 for
// a store without hot backups, 409 while another backup is served, 507
// when there is no room for the snapshot, 500 for another failure before
// the first byte. A backup that fails midway is cut off, so the client
// sees fewer bytes than announced.
func backupHandler(store games.Store, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := store.(Backuper)
		if !ok {
			writePlain(w, http.StatusNotImplemented, "no hot backup here: only the embedded store (--store embedded) serves one; back up PostgreSQL with its own tools")
			return
		}
		rc := http.NewResponseController(w)
		started, start := false, time.Now()
		n, err := b.Backup(r.Context(), stallWriter{w, rc}, func(size int64) {
			started = true
			h := w.Header()
			h.Set("Content-Type", "application/octet-stream")
			h.Set("Content-Length", strconv.FormatInt(size, 10))
			h.Set("Content-Disposition", `attachment; filename="damone.db"`)
			h.Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
		})
		if err != nil {
			log.Warn("backup failed", "bytes", n, "error", err)
			if !started {
				code := http.StatusInternalServerError
				switch {
				case errors.Is(err, syscall.EBUSY):
					code = http.StatusConflict
				case errors.Is(err, syscall.ENOSPC):
					code = http.StatusInsufficientStorage
				}
				writePlain(w, code, "backup failed: "+err.Error())
				return
			}
			panic(http.ErrAbortHandler) // cut the response: the client must not take a short file for a backup
		}
		log.Info("backup served", "bytes", n, "took", time.Since(start).Round(time.Millisecond).String(), "client", r.RemoteAddr)
	})
}

// stallWriter gives each write backupStall to reach the client.
type stallWriter struct {
	w  io.Writer
	rc *http.ResponseController
}

func (s stallWriter) Write(p []byte) (int, error) {
	if err := s.rc.SetWriteDeadline(time.Now().Add(backupStall)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return 0, err
	}
	return s.w.Write(p)
}
