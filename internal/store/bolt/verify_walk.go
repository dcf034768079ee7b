package bolt

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// The format walk: the file checked page by page with plain reads, before
// bbolt maps it, so no damage can make bbolt read outside the file.

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
