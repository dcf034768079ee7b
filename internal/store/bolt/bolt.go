// Package bolt is the embedded game store: one file under a data
// directory, written with bbolt (pure Go, no cgo), and a write-ahead log
// beside it. Every change is in the log, synced, before it is
// acknowledged, and bbolt is written behind it in synced checkpoints, so
// a killed process loses no acknowledged move: the next open replays the
// log. A file that cannot be read is an error at open, never a silent
// reset.
package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/filekind"
	"github.com/damone-rules/damone/internal/games"
)

// FileName is the database file inside the data directory.
const FileName = "damone.db"

var (
	bucketMeta     = []byte("meta")
	bucketGames    = []byte("games")
	bucketEvents   = []byte("events")   // one nested bucket per game: seq -> event
	bucketRequests = []byte("requests") // one nested bucket per game: request id -> record
	// bucketCreates maps a CreateGame request id's lookup key to its
	// record (games.CreateRecord). Files written before it existed have
	// none; prepare adds it.
	bucketCreates = []byte("create_requests")
	keySchema     = []byte("schema")
	// schemaVersion is written into new files; schemaV1 files have no
	// deadlines bucket (deadlines.go), schemaV1 and schemaV2 files no
	// status bucket (status.go): prepare builds them.
	schemaVersion = []byte("damone-3")
	schemaV2      = []byte("damone-2")
	schemaV1      = []byte("damone-1")
)

// Store is a games.Store in a bbolt file and its write-ahead log. Its
// writes go through one committer (commit.go) that lets concurrent
// writers share a log append and its sync; reads see the overlay of
// logged writes (overlay.go) over bbolt.
type Store struct {
	db    *bbolt.DB
	games atomic.Int64 // games held: Count without walking the file
	heads *heads       // decoded records of recent games (heads.go)
	fill  *filler      // the checkpointer's (fill.go)
	// arrived counts the writes handed to the committer so far.
	arrived atomic.Int64
	storeState
	// backingUp is held by the one Backup under way.
	backingUp atomic.Bool
	closed    sync.Once
	closeErr  error
}

var _ games.Store = (*Store)(nil)

// Open opens the store in dir, creating the directory and an empty store
// if there is no file (and no log: a log without its file is refused). An
// existing file is first verified read-only (Verify, the log included)
// and only then opened for writing, so a damaged file or log is refused
// byte for byte as it was: the error (a *DamageError) names the file and
// the damage. An empty (0-byte) file is refused too. The log's writes are
// then replayed into the file in one synced transaction and the log
// removed, before Open returns. It also fails if the file is locked by
// another process for more than a second.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("embedded store: data directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	if _, err := os.Lstat(path); notExist(err) {
		// A log without its file would be replayed onto an empty store:
		// its games' moves without their starts.
		if segs, err := logSegments(dir); err != nil {
			return nil, err
		} else if len(segs) > 0 {
			return nil, &DamageError{Path: segs[0], Problem: fmt.Sprintf("write-ahead log: a segment of a store whose file %s is not there: restore the file, or move the damone.wal.* files away too to start with an empty store", path)}
		}
		if err := create(dir, path); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, fmt.Errorf("embedded store: %w", err)
	}
	locked := fmt.Errorf("embedded store: %s is locked by another process (is another damone serve using --data-dir %s?)", path, dir)
	sum, err := Verify(path)
	if errors.Is(err, ErrInUse) {
		return nil, locked
	} else if err != nil {
		return nil, err
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: lockWait, OpenFile: openExisting, FreelistType: bbolt.FreelistMapType})
	if errors.Is(err, bbolt.ErrTimeout) {
		return nil, locked
	}
	if err != nil {
		return nil, fmt.Errorf("embedded store: cannot open %s: %w", path, err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		wrote, err := prepare(tx)
		if err == nil && !wrote {
			return errNothingWritten
		}
		return err
	})
	if err != nil && !errors.Is(err, errNothingWritten) {
		db.Close()
		return nil, fmt.Errorf("embedded store: %s: %w (left as it is)", path, err)
	}
	created, last, err := replay(db, dir)
	if err == nil {
		var s *Store
		// Verify counted the games, reading every record: no second walk.
		if s, err = start(db, sum.Games+created, last+1); err == nil {
			return s, nil
		}
	}
	db.Close()
	if _, ok := err.(*DamageError); ok {
		return nil, err
	}
	return nil, fmt.Errorf("embedded store: %s: %w", path, err)
}

// errNothingWritten rolls back prepare's transaction when it changed
// nothing: bbolt would write a new meta page for an empty commit.
var errNothingWritten = errors.New("nothing written")

// openExisting is os.OpenFile without O_CREATE: Open verified the file
// it opens, and must not create a new one if it vanished meanwhile. It
// refuses anything but a regular file (something put in the file's place
// since it was verified), without waiting: a named pipe is opened
// non-blocking, as openFile does.
func openExisting(name string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(name, (flag&^os.O_CREATE)|openNoBlock, perm)
	if err != nil {
		return nil, err
	}
	if err := regular(name, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// openFile opens the store file at path to read it, refusing anything but
// a regular file (or a symbolic link to one) with a *DamageError naming
// it and what it is. It never blocks: a named pipe is looked at before it
// is opened, and opened non-blocking where the system allows (in case one
// took the file's place meanwhile).
func openFile(path string) (*os.File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("embedded store: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, notRegular(path, info.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return nil, fmt.Errorf("embedded store: %w", err)
	}
	if err := regular(path, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// regular checks that the open file f (at path) is a regular file.
func regular(path string, f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("embedded store: %w", err)
	}
	if !info.Mode().IsRegular() {
		return notRegular(path, info.Mode())
	}
	return nil
}

// notRegular is the refusal of a store path that is not a regular file.
func notRegular(path string, m fs.FileMode) *DamageError {
	what := filekind.Of(m)
	return &DamageError{Path: path, Problem: what + ", not a regular file: a store is one regular file", NotFile: true}
}

// prepare brings a verified file, or a new empty one, to the current
// schema; it is the only write Open makes. It reports whether it wrote
// anything, so a sound file of the current schema is opened without a
// write. Migrations from older schemas (knownSchemas) go here.
func prepare(tx *bbolt.Tx) (wrote bool, err error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil { // a new file
		if meta, err = tx.CreateBucket(bucketMeta); err != nil {
			return false, err
		}
		if err := meta.Put(keySchema, schemaVersion); err != nil {
			return false, err
		}
		wrote = true
	}
	v := bytes.Clone(meta.Get(keySchema))
	v1, v2 := bytes.Equal(v, schemaV1), bytes.Equal(v, schemaV2)
	switch {
	case !v1 && !v2 && !bytes.Equal(v, schemaVersion):
		return false, fmt.Errorf("unknown schema %q (want %q)", v, schemaVersion)
	case v1 && tx.Bucket(bucketDeadlines) != nil:
		// Verify refuses it; a damone-1 file never had one.
		return false, fmt.Errorf("schema %q with a deadlines bucket", schemaV1)
	case (v1 || v2) && tx.Bucket(bucketStatus) != nil:
		return false, fmt.Errorf("schema %q with a status bucket", v)
	}
	for _, b := range [][]byte{bucketGames, bucketEvents, bucketRequests, bucketDeadlines, bucketCreates, bucketStatus} {
		if tx.Bucket(b) == nil {
			if _, err := tx.CreateBucket(b); err != nil {
				return false, err
			}
			wrote = true
		}
	}
	if v1 {
		if err := buildDeadlines(tx); err != nil {
			return false, fmt.Errorf("migrating from schema %q: %w", v, err)
		}
	}
	if v1 || v2 {
		if err := buildStatus(tx); err != nil {
			return false, fmt.Errorf("migrating from schema %q: %w", v, err)
		}
		if err := meta.Put(keySchema, schemaVersion); err != nil {
			return false, err
		}
	}
	return wrote, nil
}

// create makes a new empty store at path: built in a temporary file and
// linked into place, so a start killed halfway leaves no file rather than
// an empty or half-written one (which the next start would refuse), and
// a file another process created meanwhile is never replaced.
func create(dir, path string) error {
	tmp, err := os.CreateTemp(dir, "."+FileName+".new-*")
	if err != nil {
		return fmt.Errorf("embedded store: create %s: %w", path, err)
	}
	name := tmp.Name()
	tmp.Close()
	defer os.Remove(name)
	db, err := bbolt.Open(name, 0o600, &bbolt.Options{Timeout: lockWait})
	if err == nil {
		err = db.Update(func(tx *bbolt.Tx) error { _, err := prepare(tx); return err })
		if cerr := db.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		if err = os.Link(name, path); errors.Is(err, fs.ErrExist) {
			err = nil // created by another process meanwhile: Open verifies it
		}
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		return fmt.Errorf("embedded store: create %s: %w", path, err)
	}
	return nil
}

// syncDir makes a new directory entry durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Close stops the committer, failing writes that were waiting for it,
// writes everything acknowledged into bbolt, removes the log and closes
// the file. If that last checkpoint fails, the log is left for the next
// open to replay, and its error returned.
func (s *Store) Close() error {
	s.closed.Do(func() {
		s.stop()
		close(s.ckptQuit)
		<-s.ckptDone
		c := s.checkpoint()
		err := c.err
		if werr := s.wal.close(err == nil); err == nil {
			err = werr
		}
		s.fill.close()
		if cerr := s.db.Close(); err == nil {
			err = cerr
		}
		s.closeErr = err
	})
	return s.closeErr
}

// Ping reports whether the file is usable.
func (s *Store) Ping(context.Context) error {
	return s.db.View(func(*bbolt.Tx) error { return nil })
}

func seqKey(seq int64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(seq))
	return b[:]
}

func (s *Store) Create(ctx context.Context, g *games.Game, events []games.Event) error {
	return s.CreateRequested(ctx, g, events, nil)
}

func (s *Store) CreateRequested(_ context.Context, g *games.Game, events []games.Event, req *games.CreateRecord) error {
	data, err := games.EncodeGame(g)
	if err != nil {
		return err
	}
	var rdata []byte
	if req != nil {
		if rdata, err = games.EncodeCreateRequest(req); err != nil {
			return err
		}
	}
	evs, err := encodeEvents(events)
	if err != nil {
		return err
	}
	key, err := deadlineKey(g)
	if err != nil {
		return fmt.Errorf("embedded store: %w", err)
	}
	return s.write(&change{create: true, id: g.ID, data: data, g: g.Head(), dkey: key, skey: statusKey(g), events: evs, reqKey: reqKey(req), reqData: rdata})
}

func reqKey(req *games.CreateRecord) string {
	if req == nil {
		return ""
	}
	return req.Key
}

func encodeEvents(events []games.Event) ([]eventRec, error) {
	out := make([]eventRec, len(events))
	for i := range events {
		data, err := games.EncodeEvent(&events[i])
		if err != nil {
			return nil, err
		}
		out[i] = eventRec{events[i].Sequence, data}
	}
	return out, nil
}

func (s *Store) Update(_ context.Context, g *games.Game, events []games.Event, req *games.RequestRecord) error {
	data, err := games.EncodeGame(g)
	if err != nil {
		return err
	}
	evs, err := encodeEvents(events)
	if err != nil {
		return err
	}
	var rdata []byte
	if req != nil {
		if rdata, err = games.EncodeRequest(req); err != nil {
			return err
		}
	}
	key, err := deadlineKey(g)
	if err != nil {
		return fmt.Errorf("embedded store: %w", err)
	}
	var id string
	if req != nil {
		id = req.RequestID
	}
	return s.write(&change{id: g.ID, data: data, g: g.Head(), dkey: key, skey: statusKey(g), events: evs, reqKey: id, reqData: rdata})
}

// Count returns the number of games, counted once at open and kept since:
// it costs the same however many games the file holds.
func (s *Store) Count(context.Context) (int, error) {
	return int(s.games.Load()), nil
}
