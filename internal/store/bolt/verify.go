package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime/debug"
	"time"
	"unicode/utf8"

	bbolt "go.etcd.io/bbolt"
)

// knownSchemas are the schema markers this build opens: the one it writes
// into new files (schemaVersion) and any older one that prepare migrates.
var knownSchemas = [][]byte{schemaVersion, schemaV2, schemaV1}

// metaKeys are the keys the meta bucket may hold.
var metaKeys = [][]byte{keySchema, keyApplied}

// ErrInUse is returned (wrapped) by Verify when another process holds the
// file open for writing: a running damone serve. Its data are then only
// checked through a hot backup (damone store backup --from).
var ErrInUse = errors.New("in use by another process")

const inUseHint = "check its data through a hot backup: damone store backup --from http://HOST:METRICS-PORT --out FILE"

// DamageError is Verify's (and Open's) refusal of a file that is damaged
// or is not a damone store. The file is left as it is.
type DamageError struct {
	Path    string
	Problem string // what is wrong, e.g. "page 67: its header says it is page 0"
	// Foreign is set when the file does not even start like a bbolt file
	// (no magic number): it may be some other file rather than a damaged
	// store.
	Foreign bool
	// NotFile is set when the path is not a regular file at all (a named
	// pipe, a device, a directory): nothing was read from it.
	NotFile bool
}

func (e *DamageError) Error() string {
	what := "is damaged"
	switch {
	case e.NotFile:
		return fmt.Sprintf("embedded store: %s is %s (nothing was read from it or written to it)", e.Path, e.Problem)
	case e.Foreign:
		what = "is damaged or not a damone store"
	}
	return fmt.Sprintf("embedded store: %s %s: %s (it is left as it is: move it away (with any damone.wal.* files beside it) to start with an empty store, or restore a backup; docs/deploy.md, Backup and restore)",
		e.Path, what, e.Problem)
}

func damaged(path, format string, args ...any) *DamageError {
	return &DamageError{Path: path, Problem: fmt.Sprintf(format, args...)}
}

// Summary is what Verify found in a sound file.
type Summary struct {
	Path      string
	FileSize  int64  // bytes
	PageSize  int    // bytes
	Pages     uint64 // pages in use or free (the high water mark); the rest of the file is unused
	FreePages int
	TxID      uint64 // the last committed transaction
	Schema    string
	Games     int
	Events    int
	Requests  int
	// LogGroups and LogWrites are the groups and writes of the log beside
	// the file (one named FileName) that it does not hold yet: the next
	// open replays them.
	LogGroups, LogWrites int
}

// lockWait is how long Verify and Open wait for another process's lock on
// the file.
const lockWait = time.Second

// Verify checks the store file at path without writing to it, and never
// crashes on any content: on-disk format first, with plain reads (no
// memory map), then bbolt's own consistency check, then every record
// decoded with the games codec and checked against its key and its game,
// and the deadline index (deadlines.go) against the games' records.
//
// Errors: a *DamageError naming the file and the damage (an empty file,
// a truncated file, a bad meta page, a page that is not where it should
// be or not consistent, an unknown schema, a record that does not decode
// or does not match, a deadline index that is not exactly the keys of
// the games' deadlines); ErrInUse (wrapped) when a running server holds the
// file; fs.ErrNotExist (wrapped) when there is no file; any other I/O
// error as it is.
func Verify(path string) (Summary, error) {
	sum := Summary{Path: path}
	f, err := openFile(path)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	// A shared lock, as bbolt's read-only open takes: it waits out no
	// reader, but a writer (a running server) holds it exclusively, and
	// reading a file under a writer could report damage that is only a
	// write in progress.
	if err := lockShared(f, lockWait); err != nil {
		if errors.Is(err, ErrInUse) {
			return sum, fmt.Errorf("embedded store: %s is %w (a running damone serve? %s)", path, err, inUseHint)
		}
		return sum, fmt.Errorf("embedded store: lock %s: %w", path, err)
	}
	info, err := f.Stat() // the size under the lock
	if err != nil {
		return sum, fmt.Errorf("embedded store: %w", err)
	}
	sum.FileSize = info.Size()
	if sum.FileSize == 0 {
		return sum, damaged(path, "the file is empty (0 bytes); a new store is only created where there is no file")
	}
	w := &walker{f: f, path: path, size: sum.FileSize}
	if err := w.run(); err != nil {
		return sum, err
	}
	sum.PageSize, sum.Pages, sum.TxID = w.ps, w.hwm, w.meta.txid
	sum.FreePages = w.free.count()

	// The format is sound, so bbolt can map and read it; its panics and
	// faults are still turned into errors here, as a last defence.
	var applied int64
	err = guard(path, func() error {
		db, err := bbolt.Open(path, 0, &bbolt.Options{ReadOnly: true, Timeout: lockWait})
		if err != nil {
			if errors.Is(err, bbolt.ErrTimeout) {
				return fmt.Errorf("embedded store: %s is %w (a running damone serve? %s)", path, ErrInUse, inUseHint)
			}
			return damaged(path, "bbolt cannot open it: %v", err)
		}
		defer db.Close()
		return db.View(func(tx *bbolt.Tx) error {
			if tx.ID() != int(w.meta.txid) {
				return fmt.Errorf("embedded store: %s changed while it was checked (transaction %d, then %d)", path, w.meta.txid, tx.ID())
			}
			var problems []string
			for err := range tx.Check() {
				if len(problems) < 3 {
					problems = append(problems, err.Error())
				}
			}
			if len(problems) > 0 {
				return damaged(path, "bbolt's consistency check: %s", joinProblems(problems))
			}
			if err := checkRecords(path, tx, &sum); err != nil {
				return err
			}
			applied, err = appliedGroup(tx)
			if err != nil {
				return damaged(path, "%v", err)
			}
			return nil
		})
	})
	if err != nil || filepath.Base(path) != FileName {
		return sum, err
	}
	return sum, verifyLog(filepath.Dir(path), applied, &sum)
}

// verifyLog checks the log in dir after group applied: sound frames of
// changes that decode (readLog's errors).
func verifyLog(dir string, applied int64, sum *Summary) error {
	frames, _, err := readLog(dir, applied)
	if err != nil {
		return err
	}
	for _, f := range frames {
		cs, err := decodeChanges(f.payload)
		if err != nil {
			return damaged(f.path, "write-ahead log: group %d: %v", f.group, err)
		}
		sum.LogGroups++
		sum.LogWrites += len(cs)
	}
	return nil
}

func joinProblems(p []string) string {
	var b bytes.Buffer
	for i, s := range p {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(s)
	}
	return b.String()
}

// guard runs f on a goroutine of its own where a panic, or a memory fault
// in a mapped file (which would otherwise kill the process), becomes a
// *DamageError.
func guard(path string, f func() error) error {
	ch := make(chan error, 1)
	go func() { ch <- guarded(path, f) }()
	return <-ch
}

// guarded runs f on the calling goroutine, turning a panic or a memory
// fault into a *DamageError. A fault only becomes a panic on a goroutine
// that asked for it (debug.SetPanicOnFault is per goroutine), so every
// goroutine that reads the mapped file runs its reads through guarded.
func guarded(path string, f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = damaged(path, "reading it failed: %v", r)
		}
	}()
	return f()
}

// The bbolt file format (version 2), as bbolt 1.x writes it in the
// machine's byte order: every page starts with a 16-byte header (id
// uint64, flags uint16, count uint16, overflow uint32); pages 0 and 1 are
// the meta pages; a page may span 1+overflow pages.
const (
	pageHeaderSize = 16
	elemSize       = 16 // a branch element (pos, ksize uint32, pgid uint64) or a leaf element (flags, pos, ksize, vsize uint32)
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	branchPage     = 0x01
	leafPage       = 0x02
	metaPage       = 0x04
	freelistPage   = 0x10
	bucketLeaf     = 0x01 // a leaf element that is a nested bucket
	bucketHeader   = 16   // a bucket's value: root pgid, sequence; then an inline bucket's page
	noFreelist     = ^uint64(0)
	maxDepth       = 64 // of a bucket's tree, and of buckets in buckets: far beyond any real file
)

var order = binary.NativeEndian

// printable shows a key in an error: as text if it is short printable
// text, else in hex.
func printable(k []byte) string {
	if len(k) <= 64 && utf8.Valid(k) && !bytes.ContainsFunc(k, func(r rune) bool { return r < 0x20 || r == 0x7f || r == utf8.RuneError }) {
		return string(k)
	}
	if len(k) > 32 {
		return fmt.Sprintf("%x...", k[:32])
	}
	return fmt.Sprintf("%x", k)
}

// notExist reports whether err says there is no file.
func notExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
