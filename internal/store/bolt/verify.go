package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	bbolt "go.etcd.io/bbolt"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// knownSchemas are the schema markers this build opens: the one it writes
// into new files (schemaVersion) and any older one that prepare migrates.
var knownSchemas = [][]byte{schemaVersion}

// metaKeys are the keys the meta bucket may hold.
var metaKeys = [][]byte{keySchema}

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
}

func (e *DamageError) Error() string {
	what := "is damaged"
	if e.Foreign {
		what = "is damaged or not a damone store"
	}
	return fmt.Sprintf("embedded store: %s %s: %s (it is left as it is: move it away to start with an empty store, or restore a backup; docs/deploy.md, Backup and restore)",
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
}

// lockWait is how long Verify and Open wait for another process's lock on
// the file.
const lockWait = time.Second

// Verify checks the store file at path without writing to it, and never
// crashes on any content: on-disk format first, with plain reads (no
// memory map), then bbolt's own consistency check, then every record
// decoded with the games codec and checked against its key and its game.
//
// Errors: a *DamageError naming the file and the damage (an empty file,
// a truncated file, a bad meta page, a page that is not where it should
// be or not consistent, an unknown schema, a record that does not decode
// or does not match); ErrInUse (wrapped) when a running server holds the
// file; fs.ErrNotExist (wrapped) when there is no file; any other I/O
// error as it is.
func Verify(path string) (Summary, error) {
	sum := Summary{Path: path}
	f, err := os.Open(path)
	if err != nil {
		return sum, fmt.Errorf("embedded store: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return sum, fmt.Errorf("embedded store: %w", err)
	}
	if !info.Mode().IsRegular() {
		return sum, damaged(path, "not a regular file (%s)", info.Mode().Type())
	}
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
	if info, err = f.Stat(); err != nil { // the size under the lock
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
			return checkRecords(path, tx, &sum)
		})
	})
	return sum, err
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

type meta struct {
	pageSize uint32
	root     uint64
	freelist uint64
	pgid     uint64 // high water mark: pages 0..pgid-1 are in use or free
	txid     uint64
}

// readMeta decodes and checks the meta page at the start of b (at least
// pageHeaderSize+64 bytes) that should be page id.
func readMeta(b []byte, id uint64) (meta, error) {
	if order.Uint64(b[0:]) != id || order.Uint16(b[8:]) != metaPage {
		if order.Uint32(b[16:]) != boltMagic {
			return meta{}, errors.New("no bbolt magic number")
		}
		return meta{}, fmt.Errorf("its page header says page %d of type %#x, not meta page %d", order.Uint64(b[0:]), order.Uint16(b[8:]), id)
	}
	m := b[pageHeaderSize : pageHeaderSize+64]
	switch {
	case order.Uint32(m[0:]) != boltMagic:
		return meta{}, errors.New("no bbolt magic number")
	case order.Uint32(m[4:]) != boltVersion:
		return meta{}, fmt.Errorf("bbolt format version %d, want %d", order.Uint32(m[4:]), boltVersion)
	}
	h := fnv.New64a()
	h.Write(m[:56])
	if h.Sum64() != order.Uint64(m[56:]) {
		return meta{}, errors.New("bad checksum")
	}
	return meta{pageSize: order.Uint32(m[8:]), root: order.Uint64(m[16:]), freelist: order.Uint64(m[32:]),
		pgid: order.Uint64(m[40:]), txid: order.Uint64(m[48:])}, nil
}

// bitset marks pages.
type bitset []uint64

func newBitset(n uint64) bitset    { return make(bitset, (n+63)/64) }
func (s bitset) has(i uint64) bool { return s[i/64]&(1<<(i%64)) != 0 }
func (s bitset) set(i uint64)      { s[i/64] |= 1 << (i % 64) }
func (s bitset) count() (n int) {
	for _, w := range s {
		for ; w != 0; w &= w - 1 {
			n++
		}
	}
	return n
}

// walker checks the file's format with plain reads: the meta pages, the
// size, every page of every bucket's tree (where it is, its type, its
// elements inside it, keys in order) and the freelist, and that every
// page is used once or free. What passes cannot make bbolt read outside
// the file or trip its page assertions.
type walker struct {
	f    *os.File
	path string
	size int64
	ps   int
	hwm  uint64
	meta meta
	used bitset
	free bitset
	// spare holds page buffers done with: a walk reads every page, and
	// a new buffer each time would make the whole file garbage.
	spare [][]byte
}

// buf returns a buffer of n bytes, a spare one if one is big enough.
func (w *walker) buf(n int) []byte {
	if k := len(w.spare); k > 0 && cap(w.spare[k-1]) >= n {
		b := w.spare[k-1][:n]
		w.spare = w.spare[:k-1]
		return b
	}
	return make([]byte, n)
}

// release gives back a buffer from buf (or page) that nothing refers to
// any longer.
func (w *walker) release(b []byte) { w.spare = append(w.spare, b) }

func (w *walker) damaged(format string, args ...any) *DamageError {
	return damaged(w.path, format, args...)
}

func (w *walker) run() error {
	// Meta page 0 gives the page size; meta page 1 is one page further.
	first := make([]byte, 4096)
	n, err := w.f.ReadAt(first, 0)
	if err != nil && err != io.EOF {
		return fmt.Errorf("embedded store: read %s: %w", w.path, err)
	}
	if n < pageHeaderSize+64 {
		e := w.damaged("the file is %d bytes, too short for a bbolt meta page", w.size)
		e.Foreign = true
		return e
	}
	m0, err := readMeta(first, 0)
	if err != nil {
		e := w.damaged("meta page 0: %v", err)
		e.Foreign = err.Error() == "no bbolt magic number"
		return e
	}
	ps := int(m0.pageSize)
	if ps < 1024 || ps > 1<<24 || ps&(ps-1) != 0 {
		return w.damaged("meta page 0: page size %d is not a power of two from 1 KiB to 16 MiB", ps)
	}
	w.ps = ps
	if w.size < 2*int64(ps) {
		return w.damaged("the file is %d bytes, shorter than its two meta pages of %d bytes: it was truncated", w.size, ps)
	}
	second := make([]byte, pageHeaderSize+64)
	if _, err := w.f.ReadAt(second, int64(ps)); err != nil {
		return fmt.Errorf("embedded store: read %s: %w", w.path, err)
	}
	m1, err := readMeta(second, 1)
	if err != nil {
		// bbolt would fall back to the other meta page, but that could be
		// an older transaction: acknowledged moves would be lost silently.
		return w.damaged("meta page 1: %v", err)
	}
	if m1.pageSize != m0.pageSize {
		return w.damaged("the meta pages give two page sizes, %d and %d", m0.pageSize, m1.pageSize)
	}
	for i, m := range []meta{m0, m1} {
		switch {
		case m.pgid < 3 || m.pgid > uint64(w.size)/uint64(ps):
			if m.pgid > uint64(w.size)/uint64(ps) {
				return w.damaged("the file is %d bytes, but meta page %d counts %d pages of %d bytes (%d bytes): it was truncated",
					w.size, i, m.pgid, ps, m.pgid*uint64(ps))
			}
			return w.damaged("meta page %d counts %d pages, too few for a store", i, m.pgid)
		case m.root < 2 || m.root >= m.pgid:
			return w.damaged("meta page %d: the root page %d is outside pages 2..%d", i, m.root, m.pgid-1)
		case m.freelist == noFreelist:
			return w.damaged("meta page %d: the file keeps no freelist, which damone always writes: not a damone store", i)
		case m.freelist < 2 || m.freelist >= m.pgid:
			return w.damaged("meta page %d: the freelist page %d is outside pages 2..%d", i, m.freelist, m.pgid-1)
		}
	}
	// bbolt reads the meta page of the later transaction.
	w.meta = m0
	if m1.txid > m0.txid {
		w.meta = m1
	}
	w.hwm = w.meta.pgid
	w.used, w.free = newBitset(w.hwm), newBitset(w.hwm)
	w.used.set(0)
	w.used.set(1)

	if err := w.freelist(); err != nil {
		return err
	}
	if err := w.tree(w.meta.root, "the root bucket", nil, nil, 0, 0); err != nil {
		return err
	}
	for id := uint64(2); id < w.hwm; id++ {
		if !w.used.has(id) && !w.free.has(id) {
			return w.damaged("page %d is neither in use nor free (a reference to it was lost)", id)
		}
	}
	return nil
}

// page reads page id with its overflow pages and marks them used.
func (w *walker) page(id uint64, what string) ([]byte, error) {
	if id < 2 || id >= w.hwm {
		return nil, w.damaged("%s: page %d is outside pages 2..%d", what, id, w.hwm-1)
	}
	head := w.buf(w.ps)
	if _, err := w.f.ReadAt(head, int64(id)*int64(w.ps)); err != nil {
		return nil, fmt.Errorf("embedded store: read %s: %w", w.path, err)
	}
	if got := order.Uint64(head); got != id {
		return nil, w.damaged("%s: page %d says it is page %d (zeroed, overwritten or moved)", what, id, got)
	}
	overflow := uint64(order.Uint32(head[12:]))
	if id+overflow >= w.hwm {
		return nil, w.damaged("%s: page %d runs %d pages past the last page %d", what, id, overflow, w.hwm-1)
	}
	for i := id; i <= id+overflow; i++ {
		if w.used.has(i) {
			return nil, w.damaged("%s: page %d is used twice", what, i)
		}
		w.used.set(i)
	}
	if overflow == 0 {
		return head, nil
	}
	buf := w.buf(int(1+overflow) * w.ps)
	copy(buf, head)
	w.release(head)
	if _, err := w.f.ReadAt(buf[w.ps:], int64(id+1)*int64(w.ps)); err != nil {
		return nil, fmt.Errorf("embedded store: read %s: %w", w.path, err)
	}
	return buf, nil
}

func (w *walker) freelist() error {
	id := w.meta.freelist
	p, err := w.page(id, "the freelist")
	if err != nil {
		return err
	}
	defer w.release(p)
	if flags := order.Uint16(p[8:]); flags != freelistPage {
		return w.damaged("the freelist: page %d has type %#x, not a freelist", id, flags)
	}
	n, start := uint64(order.Uint16(p[10:])), uint64(pageHeaderSize)
	if n == 0xFFFF { // the count does not fit the header: it is the first id
		n, start = order.Uint64(p[pageHeaderSize:]), pageHeaderSize+8
	}
	if n > (uint64(len(p))-start)/8 {
		return w.damaged("the freelist: page %d counts %d free pages, more than it holds", id, n)
	}
	for i := uint64(0); i < n; i++ {
		f := order.Uint64(p[start+8*i:])
		switch {
		case f < 2 || f >= w.hwm:
			return w.damaged("the freelist names page %d, outside pages 2..%d", f, w.hwm-1)
		case w.free.has(f):
			return w.damaged("the freelist names page %d twice", f)
		case w.used.has(f):
			return w.damaged("the freelist names page %d, which is the freelist itself", f)
		}
		w.free.set(f)
	}
	return nil
}

// tree checks the tree of pages rooted at id of the bucket named by what:
// every key in [lo, hi) (nil: unbounded), in order.
func (w *walker) tree(id uint64, what string, lo, hi []byte, depth, nest int) error {
	if depth > maxDepth {
		return w.damaged("%s: a tree deeper than %d pages", what, maxDepth)
	}
	p, err := w.page(id, what)
	if err != nil {
		return err
	}
	defer w.release(p) // the page's keys that outlive it are copies (branch)
	if w.free.has(id) {
		return w.damaged("%s: page %d is in use and also on the freelist", what, id)
	}
	switch flags := order.Uint16(p[8:]); flags {
	case branchPage:
		return w.branch(p, id, what, lo, hi, depth, nest)
	case leafPage:
		return w.leaf(p, what, id, lo, hi, nest)
	default:
		return w.damaged("%s: page %d has type %#x, not a branch or leaf page", what, id, flags)
	}
}

// elements returns the count of page p's elements, checked to fit in p.
func elements(p []byte) (int, bool) {
	n := int(order.Uint16(p[10:]))
	return n, pageHeaderSize+n*elemSize <= len(p)
}

// slice returns p[off:off+n] if it lies inside p.
func slice(p []byte, off, n uint64) ([]byte, bool) {
	if off > uint64(len(p)) || n > uint64(len(p))-off {
		return nil, false
	}
	return p[off : off+n], true
}

func (w *walker) branch(p []byte, id uint64, what string, lo, hi []byte, depth, nest int) error {
	n, ok := elements(p)
	if !ok || n == 0 {
		return w.damaged("%s: branch page %d counts %d elements, which do not fit it", what, id, n)
	}
	keys := make([][]byte, n)
	for i := range n {
		e := pageHeaderSize + i*elemSize
		k, ok := slice(p, uint64(e)+uint64(order.Uint32(p[e:])), uint64(order.Uint32(p[e+4:])))
		if !ok || len(k) == 0 {
			return w.damaged("%s: branch page %d: element %d points outside the page", what, id, i)
		}
		if (i == 0 && lo != nil && bytes.Compare(k, lo) < 0) || (i > 0 && bytes.Compare(keys[i-1], k) >= 0) || (hi != nil && bytes.Compare(k, hi) >= 0) {
			return w.damaged("%s: branch page %d: key %d is out of order", what, id, i)
		}
		keys[i] = bytes.Clone(k)
	}
	for i := range n {
		e := pageHeaderSize + i*elemSize
		childHi := hi
		if i+1 < n {
			childHi = keys[i+1]
		}
		childLo := keys[i]
		if i == 0 && lo != nil {
			childLo = lo
		}
		if err := w.tree(order.Uint64(p[e+8:]), what, childLo, childHi, depth+1, nest); err != nil {
			return err
		}
	}
	return nil
}

// leaf checks a leaf page id (0: an inline bucket's page) of bucket what
// and the buckets nested in it.
func (w *walker) leaf(p []byte, what string, id uint64, lo, hi []byte, nest int) error {
	where := func() string { // for errors only: most pages have none
		if id == 0 {
			return what + " (inline)"
		}
		return fmt.Sprintf("%s, page %d", what, id)
	}
	n, ok := elements(p)
	if !ok {
		return w.damaged("%s: %d elements do not fit the page", where(), n)
	}
	var prev []byte
	for i := range n {
		e := pageHeaderSize + i*elemSize
		flags, pos, ksize, vsize := order.Uint32(p[e:]), order.Uint32(p[e+4:]), order.Uint32(p[e+8:]), order.Uint32(p[e+12:])
		kv, ok := slice(p, uint64(e)+uint64(pos), uint64(ksize)+uint64(vsize))
		if !ok || ksize == 0 {
			return w.damaged("%s: element %d points outside the page", where(), i)
		}
		k, v := kv[:ksize], kv[ksize:]
		if (prev == nil && lo != nil && bytes.Compare(k, lo) < 0) || (prev != nil && bytes.Compare(prev, k) >= 0) || (hi != nil && bytes.Compare(k, hi) >= 0) {
			return w.damaged("%s: key %d is out of order", where(), i)
		}
		prev = k
		switch flags {
		case 0:
		case bucketLeaf:
			child := "bucket " + printable(k)
			if nest > 0 {
				child = what + "/" + printable(k)
			}
			if err := w.bucket(v, child, nest+1); err != nil {
				return err
			}
		default:
			return w.damaged("%s: element %d has flags %#x", where(), i, flags)
		}
	}
	return nil
}

// bucket checks a nested bucket from its value in the parent's leaf.
func (w *walker) bucket(v []byte, what string, nest int) error {
	if nest > maxDepth {
		return w.damaged("%s: buckets nested deeper than %d", what, maxDepth)
	}
	if len(v) < bucketHeader {
		return w.damaged("%s: a bucket value of %d bytes", what, len(v))
	}
	if root := order.Uint64(v); root != 0 {
		return w.tree(root, what, nil, nil, 0, nest)
	}
	// An inline bucket: its one leaf page follows the header in the value
	// and holds no buckets (bbolt only inlines buckets without any).
	p := v[bucketHeader:]
	if len(p) < pageHeaderSize {
		return w.damaged("%s: an inline bucket of %d bytes", what, len(p))
	}
	if flags := order.Uint16(p[8:]); flags != leafPage {
		return w.damaged("%s: an inline bucket of type %#x, not a leaf", what, flags)
	}
	n, _ := elements(p)
	for i := range n {
		if e := pageHeaderSize + i*elemSize; e+elemSize <= len(p) && order.Uint32(p[e:]) != 0 {
			return w.damaged("%s: an inline bucket with a nested bucket or flags %#x", what, order.Uint32(p[e:]))
		}
	}
	return w.leaf(p, what, 0, nil, nil, nest)
}

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

// checkRecords checks the store's content: exactly the known buckets, a
// known schema marker, and every record decoded by the games codec and
// matching its key and its game (events numbered 1 to the game's last
// event, with the game's moves; request records of known games).
func checkRecords(path string, tx *bbolt.Tx, sum *Summary) error {
	bad := func(format string, args ...any) error { return damaged(path, format, args...) }
	want := [][]byte{bucketMeta, bucketGames, bucketEvents, bucketRequests}
	c := tx.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v != nil || !slices.ContainsFunc(want, func(b []byte) bool { return bytes.Equal(b, k) }) {
			return bad("unknown top-level entry %q", printable(k))
		}
	}
	for _, b := range want {
		if tx.Bucket(b) == nil {
			return bad("no %q bucket", b)
		}
	}
	meta := tx.Bucket(bucketMeta)
	if err := meta.ForEach(func(k, v []byte) error {
		if v == nil || !slices.ContainsFunc(metaKeys, func(m []byte) bool { return bytes.Equal(m, k) }) {
			return bad("unknown entry %q in the meta bucket", printable(k))
		}
		return nil
	}); err != nil {
		return err
	}
	schema := meta.Get(keySchema)
	if !slices.ContainsFunc(knownSchemas, func(s []byte) bool { return bytes.Equal(s, schema) }) {
		return bad("unknown schema %q (this damone reads %s)", printable(schema), schemaList())
	}
	sum.Schema = string(schema)

	gamesB, eventsB, requestsB := tx.Bucket(bucketGames), tx.Bucket(bucketEvents), tx.Bucket(bucketRequests)
	// This goroutine walks the buckets (a transaction and its buckets stay
	// on one goroutine: Bucket caches the nested ones) and hands each
	// game's raw records to workers that decode and check them, most of
	// the work.
	walk := func(send func(*gameJob) bool) {
		gamesB.ForEach(func(k, v []byte) error {
			j := &gameJob{key: k, value: v}
			j.events, j.hasEvents = records(eventsB.Bucket(k))
			j.requests, j.hasRequests = records(requestsB.Bucket(k))
			if !send(j) {
				return errStop
			}
			return nil
		})
	}
	if err := checkGames(path, runtime.GOMAXPROCS(0), walk, sum); err != nil {
		return err
	}
	// Every events or requests bucket belongs to a game.
	for _, b := range []struct {
		name   string
		bucket *bbolt.Bucket
	}{{"events", eventsB}, {"requests", requestsB}} {
		if err := b.bucket.ForEach(func(k, v []byte) error {
			if v != nil {
				return bad("%s: %q is a record, not a game's bucket", b.name, printable(k))
			}
			if gamesB.Get(k) == nil {
				return bad("%s of game %s, which is not in the games bucket", b.name, printable(k))
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

func schemaList() string {
	var b bytes.Buffer
	for i, s := range knownSchemas {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", s)
	}
	return b.String()
}

// decodeRecord decodes a JSON record, which encoding/json always writes
// as valid UTF-8: invalid UTF-8 is damage the decoder would otherwise
// pass over (replacing it inside strings).
func decodeRecord[T any](v []byte, decode func([]byte) (T, error)) (T, error) {
	if !utf8.Valid(v) {
		var zero T
		return zero, errors.New("the record is not valid UTF-8")
	}
	return decode(v)
}

// errStop ends a walk early.
var errStop = errors.New("stop")

// kv is a record's key and value as a bucket holds them; the value of a
// nested bucket is nil.
type kv struct{ k, v []byte }

// records returns the entries of b (nil: none) and whether there is a
// bucket. They point into the file's memory map: valid while the
// transaction that read them is open.
func records(b *bbolt.Bucket) ([]kv, bool) {
	if b == nil {
		return nil, false
	}
	var out []kv
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		out = append(out, kv{k, v})
	}
	return out, true
}

// gameJob is one game's raw records: its key and record in the games
// bucket, and the entries of its events and requests buckets (whether it
// has them). The slices point into the file's memory map.
type gameJob struct {
	index                  int // in key order
	key, value             []byte
	events, requests       []kv
	hasEvents, hasRequests bool
}

// checkGames checks games on worker goroutines. walk runs on the calling
// goroutine and sends every game in key order; send reports false once
// the check has failed (later games cannot change the answer). The error
// is that of the first failing game in key order, whatever the workers'
// timing: the same as one goroutine checking them in turn. A panic or a
// memory fault, in walk or in a worker, is the failure of the game at
// hand. checkGames returns after every worker is done, so the caller may
// then close the transaction the records point into. The counts in sum
// are complete only when the error is nil.
func checkGames(path string, workers int, walk func(send func(*gameJob) bool), sum *Summary) error {
	var (
		failedAt atomic.Int64 // the smallest index that failed; MaxInt64: none
		mu       sync.Mutex
		failure  error
		counts   = make([]Summary, workers)
		wg       sync.WaitGroup
		jobs     = make(chan *gameJob, 4*workers)
	)
	failedAt.Store(math.MaxInt64)
	fail := func(i int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if int64(i) < failedAt.Load() {
			failedAt.Store(int64(i))
			failure = err
		}
	}
	for w := range workers {
		c := &counts[w]
		wg.Go(func() {
			for j := range jobs {
				if int64(j.index) > failedAt.Load() {
					continue // an earlier game failed: this one cannot change the answer
				}
				if err := guarded(path, func() error { return checkGame(path, j, c) }); err != nil {
					fail(j.index, err)
				}
			}
		})
	}
	next := 0
	// Wait for the workers however walk ends: they read
	// the memory map, which the caller unmaps when it returns.
	func() {
		defer func() {
			close(jobs)
			wg.Wait()
		}()
		err := guarded(path, func() error {
			walk(func(j *gameJob) bool {
				if failedAt.Load() != math.MaxInt64 {
					return false
				}
				j.index = next
				next++
				jobs <- j
				return true
			})
			return nil
		})
		if err != nil {
			fail(next, err)
		}
	}()
	if failure != nil {
		return failure
	}
	for _, c := range counts {
		sum.Games += c.Games
		sum.Events += c.Events
		sum.Requests += c.Requests
	}
	return nil
}

// checkGame checks one game's record, events and requests, adding what
// it counts to c.
func checkGame(path string, j *gameJob, c *Summary) error {
	bad := func(format string, args ...any) error { return damaged(path, format, args...) }
	k, v := j.key, j.value
	if v == nil {
		return bad("game %q is a bucket, not a record", printable(k))
	}
	g, err := decodeRecord(v, games.DecodeGame)
	if err != nil {
		return bad("game %s: %v", printable(k), err)
	}
	if g.ID != string(k) {
		return bad("game %s: its record is of game %q", printable(k), printable([]byte(g.ID)))
	}
	c.Games++
	n, err := checkEvents(j.events, j.hasEvents, g)
	c.Events += n
	if err != nil {
		return bad("game %s: %v", g.ID, err)
	}
	n, err = checkRequests(j.requests, j.hasRequests, g)
	c.Requests += n
	if err != nil {
		return bad("game %s: %v", g.ID, err)
	}
	return nil
}

// checkEvents checks a game's events (the entries of its events bucket,
// if it has one): numbered 1 to the game's last event, each of the game,
// and a chain from the game's initial position to its position: every
// move legal in the position before it and leading to the position its
// event records, every other event at the position before it. The log is
// where the game's moves are kept.
func checkEvents(events []kv, present bool, g *games.Game) (int, error) {
	if !present {
		return 0, fmt.Errorf("no events (want %d)", g.LastEvent)
	}
	n := int64(0)
	moves := 0
	pos := g.Initial
	legal := make([]engine.Move, 0, 128) // GenerateMoves' storage, reused: it allocates nothing at this capacity
	for _, r := range events {
		k, v := r.k, r.v
		n++
		if v == nil {
			return int(n), fmt.Errorf("event key %s is a bucket", printable(k))
		}
		if len(k) != 8 || int64(binary.BigEndian.Uint64(k)) != n {
			return int(n), fmt.Errorf("event key %s where event %d should be", printable(k), n)
		}
		e, err := decodeRecord(v, games.DecodeEvent)
		if err != nil {
			return int(n), fmt.Errorf("event %d: %w", n, err)
		}
		switch {
		case e.GameID != g.ID || e.Sequence != n:
			return int(n), fmt.Errorf("event %d: its record is event %d of game %q", n, e.Sequence, printable([]byte(e.GameID)))
		case (n == 1) != (e.Kind == games.EventCreated):
			return int(n), fmt.Errorf("event %d is of kind %v (only event 1 is the game's creation)", n, e.Kind)
		case e.Ply < 0 || e.Ply > g.Ply():
			return int(n), fmt.Errorf("event %d: at ply %d of a game of %d moves", n, e.Ply, g.Ply())
		case e.Kind == games.EventMovePlayed && e.Ply != moves+1:
			return int(n), fmt.Errorf("event %d: move %s at ply %d, after %d moves", n, e.Move.Move.String(), e.Ply, moves)
		}
		if e.Kind == games.EventMovePlayed {
			var m engine.Move
			if m, legal, err = legalMove(&pos, &e.Move.Move, legal); err != nil {
				return int(n), fmt.Errorf("event %d: move %s is not legal after the moves before it: %v", n, e.Move.Move.String(), err)
			}
			pos.Play(&m)
			moves++
		}
		if !samePosition(&e.Position, &pos) {
			return int(n), fmt.Errorf("event %d: at position %s, but its moves lead to %s", n, e.Position.String(), pos.String())
		}
	}
	switch {
	case n != g.LastEvent:
		return int(n), fmt.Errorf("%d events, but its last event is %d", n, g.LastEvent)
	case moves != g.Ply():
		return int(n), fmt.Errorf("%d moves in its events, but the game is at ply %d", moves, g.Ply())
	case !samePosition(&pos, &g.Position):
		return int(n), fmt.Errorf("its moves lead to %s, but it is at %s", pos.String(), g.Position.String())
	}
	return int(n), nil
}

// legalMove returns the legal move of p that m (a move as its record
// gives it) names, as p.ParseMove(m.String()) does: found among p's legal
// moves (generated into buf, which it returns for reuse) when one has m's
// origin, landing squares and captures, else by ParseMove itself, which
// also takes an equivalent path and explains a refusal.
func legalMove(p *engine.Position, m *engine.Move, buf []engine.Move) (engine.Move, []engine.Move, error) {
	buf = p.GenerateMoves(buf)
	for i := range buf {
		if l := &buf[i]; l.Equivalent(m) && samePath(l, m) {
			return *l, buf, nil
		}
	}
	l, err := p.ParseMove(m.String())
	return l, buf, err
}

// samePath reports whether a and b have the same landing squares.
func samePath(a, b *engine.Move) bool {
	if a.NumLandings() != b.NumLandings() {
		return false
	}
	for i := range a.NumLandings() {
		if a.Landing(i) != b.Landing(i) {
			return false
		}
	}
	return true
}

// samePosition reports whether p and q have the same text form (String):
// the same pieces, side to move and no-progress count.
func samePosition(p, q *engine.Position) bool {
	return p.SamePlacement(q) && p.NoProgress() == q.NoProgress()
}

// checkRequests checks a game's request records (the entries of its
// requests bucket, if it has one).
func checkRequests(reqs []kv, present bool, g *games.Game) (int, error) {
	if !present {
		return 0, nil
	}
	n := 0
	for _, rec := range reqs {
		k, v := rec.k, rec.v
		n++
		if v == nil {
			return n, fmt.Errorf("request %q is a bucket", printable(k))
		}
		r, err := decodeRecord(v, games.DecodeRequest)
		if err != nil {
			return n, fmt.Errorf("request %q: %w", printable(k), err)
		}
		switch {
		case r.RequestID != string(k):
			return n, fmt.Errorf("request %q: its record is of request %q", printable(k), printable([]byte(r.RequestID)))
		case r.Ply < 1 || r.Ply > g.Ply() || r.Sequence < 1 || r.Sequence > g.LastEvent || r.Version > g.Version || r.LastEvent > g.LastEvent:
			return n, fmt.Errorf("request %q: ply %d, event %d, version %d, beyond the game's %d, %d, %d",
				printable(k), r.Ply, r.Sequence, r.Version, g.Ply(), g.LastEvent, g.Version)
		}
	}
	return n, nil
}

// notExist reports whether err says there is no file.
func notExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
