package bolt

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// The write-ahead log. A commit of bbolt writes each game's pages where
// they lie in the file, a few dozen separate runs per group, and the disk's
// sync costs by the run: so the committer (commit.go) instead appends each
// group's changes to a log, in one contiguous durable write
// (O_DIRECT|O_DSYNC where the file system has it, one request to the disk;
// else a write and an fdatasync), and acknowledges them from there; the
// checkpointer (checkpoint.go) later applies many groups to bbolt in one
// normal, synced transaction. The
// bbolt file is therefore always a consistent store of its own, as of its
// last checkpoint, whose group number it records (meta key "wal"); Open
// replays the log's later groups onto it.
//
// The log is a run of segment files beside the store, damone.wal.NNNNNNNN
// (decimal, in order), each written with zeros and synced before its first
// use, so that an append overwrites allocated blocks and its fdatasync has
// no file system metadata to commit. A segment holds frames, each at a
// multiple of walBlock bytes from the segment's start (so an append never
// rewrites the block of an acknowledged frame):
//
//	0  magic "dWAL"
//	4  payload length, uint32 little-endian
//	8  group number, uint64 little-endian: one more per frame, across segments
//	16 CRC-32C (Castagnoli) of bytes 0..16 and the payload
//	20 zero
//	24 payload: the group's changes (encodeChange)
//
// A block of zeros where a frame would start ends the segment's frames.

const (
	walBlock  = 4096
	walHeader = 24
	walMagic  = "dWAL"
	// Segment sizes: the first of a start is small (a store opened and
	// closed writes little), each next one twice the last, up to walMax.
	walMin = 256 << 10
	walMax = 32 << 20
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// LogPrefix starts the file names of the log's segments, in the data
// directory beside FileName.
const LogPrefix = "damone.wal."

const walPrefix = LogPrefix

func segmentName(dir string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("%s%08d", walPrefix, n))
}

// frameLen is the bytes a frame of payload p bytes takes in its segment.
func frameLen(p int) int64 {
	return (int64(walHeader+p) + walBlock - 1) / walBlock * walBlock
}

// sealFrame fills the header of frame b (its payload at b[walHeader:]).
func sealFrame(b []byte, group int64) {
	copy(b[0:4], walMagic)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-walHeader))
	binary.LittleEndian.PutUint64(b[8:], uint64(group))
	crc := crc32.Update(0, crcTable, b[0:16])
	binary.LittleEndian.PutUint32(b[16:], crc32.Update(crc, crcTable, b[walHeader:]))
	binary.LittleEndian.PutUint32(b[20:], 0)
}

// segment is one log file the store holds.
type segment struct {
	n    int
	path string
	last int64 // the last group it holds (0: none)
}

// wal appends frames; it is used by the committer only.
type wal struct {
	dir string
	f   *os.File // the segment appended to
	// direct is the same segment opened for durable direct writes
	// (openDirect), nil where the file system has none.
	direct *os.File
	size   int64 // its length
	off    int64 // where its next frame goes
	segs   []segment
	next   int64 // the next group's number
	// spare is the next segment, being written with zeros.
	spare chan spareSeg
	buf   []byte
	// aligned is where a frame is copied for a direct write.
	aligned []byte
}

type spareSeg struct {
	f    *os.File
	n    int
	size int64
	err  error
}

// newWAL starts a log in dir whose first group will be next, creating its
// first segment numbered n (there must be none from n on).
func newWAL(dir string, n int, next int64) (*wal, error) {
	w := &wal{dir: dir, next: next}
	sp := prepareSegment(dir, n, walMin)
	if sp.err != nil {
		return nil, sp.err
	}
	w.use(sp)
	return w, nil
}

// prepareSegment creates segment n of size bytes, all zeros, and makes it
// and its directory entry durable.
func prepareSegment(dir string, n int, size int64) spareSeg {
	path := segmentName(dir, n)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return spareSeg{err: fmt.Errorf("embedded store: log: %w", err)}
	}
	zero := make([]byte, min(size, 1<<20))
	for off := int64(0); off < size && err == nil; off += int64(len(zero)) {
		_, err = f.WriteAt(zero, off)
	}
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return spareSeg{err: fmt.Errorf("embedded store: log: preparing %s: %w", path, err)}
	}
	return spareSeg{f: f, n: n, size: size}
}

// use makes sp the segment appended to, and starts preparing the next.
func (w *wal) use(sp spareSeg) {
	if w.f != nil {
		w.f.Close()
	}
	if w.direct != nil {
		w.direct.Close()
	}
	w.f, w.size, w.off = sp.f, sp.size, 0
	w.direct = directWrites(sp.f.Name())
	w.segs = append(w.segs, segment{n: sp.n, path: sp.f.Name()})
	w.prepare(sp.n+1, min(2*sp.size, walMax))
}

// directWrites opens a segment for durable direct writes (openDirect);
// tests replace it to take the other path.
var directWrites = openDirect

// prepare starts preparing segment n of size bytes as the spare.
func (w *wal) prepare(n int, size int64) {
	w.spare = make(chan spareSeg, 1)
	go func(ch chan spareSeg, dir string) { ch <- prepareSegment(dir, n, size) }(w.spare, w.dir)
}

// frame returns a buffer for a frame's header and payload, to append the
// payload to.
func (w *wal) frame() []byte {
	return append(w.buf[:0], make([]byte, walHeader)...)
}

// append writes frame b (from frame, its payload appended) as the next
// group and syncs it (unless not sync); it returns the group's number.
// After an error with touched, the log's state on disk is unknown: the
// caller stops writing. Without, nothing was written (a next segment
// could not be made: it is tried again at the next append).
func (w *wal) append(b []byte, sync bool) (group int64, touched bool, err error) {
	w.buf = b[:0]
	group = w.next
	sealFrame(b, group)
	n := frameLen(len(b) - walHeader)
	if w.off+n > w.size {
		next := w.segs[len(w.segs)-1].n + 1
		sp := <-w.spare
		if sp.err == nil && sp.size < n { // a group larger than a segment: one of its own
			sp.f.Close()
			os.Remove(sp.f.Name())
			sp = prepareSegment(w.dir, next, n)
		}
		if sp.err != nil {
			w.prepare(next, min(2*w.size, walMax))
			return 0, false, sp.err
		}
		w.use(sp)
	}
	if sync && w.direct != nil {
		if _, err := w.direct.WriteAt(w.align(b, n), w.off); err != nil {
			return 0, true, fmt.Errorf("embedded store: log %s: durable write: %w", w.f.Name(), err)
		}
	} else {
		if _, err := w.f.WriteAt(b, w.off); err != nil {
			return 0, true, fmt.Errorf("embedded store: log %s: %w", w.f.Name(), err)
		}
		if sync {
			if err := fdatasync(w.f); err != nil {
				return 0, true, fmt.Errorf("embedded store: log %s: sync: %w", w.f.Name(), err)
			}
		}
	}
	w.off += n
	w.segs[len(w.segs)-1].last = group
	w.next++
	return group, false, nil
}

// align returns frame b copied to the start of n bytes (its frameLen)
// of memory aligned for a direct write, zeros after it, as the segment
// holds where the frame ends.
func (w *wal) align(b []byte, n int64) []byte {
	if int64(len(w.aligned)) < n {
		raw := make([]byte, n+walBlock)
		skip := int(-uintptr(unsafe.Pointer(&raw[0])) & (walBlock - 1))
		w.aligned = raw[skip : skip+int(n)]
	}
	a := w.aligned[:n]
	clear(a[copy(a, b):])
	return a
}

// retire removes the segments, but the one appended to, whose groups are
// all at or before group checkpointed.
func (w *wal) retire(checkpointed int64) {
	i := 0
	for i < len(w.segs)-1 && w.segs[i].last <= checkpointed {
		os.Remove(w.segs[i].path)
		i++
	}
	if i > 0 {
		syncDir(w.dir) // best effort: a removal lost in a crash only leaves a segment readLog skips
	}
	w.segs = w.segs[i:]
}

// close closes the log's files; with remove (everything checkpointed) it
// also removes them.
func (w *wal) close(remove bool) error {
	sp := <-w.spare
	w.spare <- spareSeg{err: errClosed}
	if sp.f != nil {
		sp.f.Close()
		os.Remove(sp.f.Name())
	}
	w.f.Close()
	if w.direct != nil {
		w.direct.Close()
	}
	if !remove {
		return nil
	}
	for _, s := range w.segs {
		if err := os.Remove(s.path); err != nil && !notExist(err) {
			return fmt.Errorf("embedded store: log: %w", err)
		}
	}
	w.segs = nil
	return syncDir(w.dir)
}

// logFrame is one group read back from the log.
type logFrame struct {
	path    string // its segment
	group   int64
	payload []byte
}

// readLog reads the log segments in dir and returns, in order, the groups
// after group applied (the last one in the store file), and the segments'
// paths. A torn last frame (an append the crash cut short, never
// acknowledged) is dropped. Anything else that is not a sound, unbroken
// run of frames is a *DamageError naming the segment and the problem: a
// file that is not a log, a damaged frame before sound ones, a missing
// group.
func readLog(dir string, applied int64) ([]logFrame, []string, error) {
	paths, err := logSegments(dir)
	if err != nil {
		return nil, nil, err
	}
	var (
		frames []logFrame
		prev   int64 = -1 // the last group read
	)
	for i, path := range paths {
		data, err := readSegment(path)
		if err != nil {
			return nil, nil, err
		}
		end, ended, err := scanSegment(path, data, func(off int64, group int64, payload []byte) error {
			switch {
			// A gap is missing groups only if some of them are past the
			// store file's: a retired segment whose removal outlived a
			// later one's in a crash (directory entries are not ordered)
			// leaves a gap of groups already in the file.
			case prev >= 0 && group != prev+1 && (group <= prev || group > applied+1):
				return damaged(path, "write-ahead log: the frame at byte %d holds group %d where group %d was due: groups are missing", off, group, prev+1)
			case prev < 0 && group > applied+1:
				return damaged(path, "write-ahead log: its first group is %d, but the store file holds groups only up to %d: groups %d to %d are missing", group, applied, applied+1, group-1)
			}
			prev = group
			if group > applied {
				frames = append(frames, logFrame{path, group, payload})
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		if ended != "" && ended != endZeros && !(i == len(paths)-1 || laterEmpty(paths[i+1:])) {
			return nil, nil, damaged(path, "write-ahead log: %s at byte %d, and later segments hold frames", ended, end)
		}
	}
	return frames, paths, nil
}

// laterEmpty reports whether the segments at paths hold no frame.
func laterEmpty(paths []string) bool {
	for _, p := range paths {
		data, err := readSegment(p)
		if err != nil {
			return false
		}
		if len(data) >= walHeader && string(data[:4]) == walMagic {
			return false
		}
		if len(data) >= 4 && string(data[:4]) != "\x00\x00\x00\x00" {
			return false
		}
	}
	return true
}

// logSegments returns the paths of the log segments in dir, in order. A
// file whose name starts like one but does not end in a number is an
// error: it may be a segment renamed by hand.
func logSegments(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("embedded store: %w", err)
	}
	type seg struct {
		n    int
		path string
	}
	var segs []seg
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, walPrefix) {
			continue
		}
		path := filepath.Join(dir, name)
		n, err := strconv.Atoi(name[len(walPrefix):])
		if err != nil || n < 1 {
			return nil, damaged(path, "write-ahead log: the file's name does not end in a segment number (damone.wal.00000001, ...); move it away if it is not one")
		}
		segs = append(segs, seg{n, path})
	}
	slices.SortFunc(segs, func(a, b seg) int { return a.n - b.n })
	paths := make([]string, len(segs))
	for i, s := range segs {
		paths[i] = s.path
	}
	return paths, nil
}

// readSegment reads a whole segment, refusing anything but a regular file.
func readSegment(path string) ([]byte, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("embedded store: %s: %w", path, err)
	}
	return data, nil
}

// scanSegment calls each for every sound frame of segment data (of file
// path), in order, until the frames end. It returns where they ended and,
// when not at the end of the file, why ("a block of zeros", "a damaged
// frame"): a damaged frame is a torn last append only when no sound frame
// follows it in the segment, else a *DamageError. A segment that does not
// start like one is a *DamageError too.
func scanSegment(path string, data []byte, each func(off int64, group int64, payload []byte) error) (int64, string, error) {
	if len(data) >= 4 && string(data[:4]) != walMagic && string(data[:4]) != "\x00\x00\x00\x00" {
		e := damaged(path, "write-ahead log: it does not start with a frame (magic %q): not a damone log segment", walMagic)
		e.Foreign = true
		return 0, "", e
	}
	off := int64(0)
	for ; off+walHeader <= int64(len(data)); off += walBlock {
		group, payload, why := frameAt(data, off)
		if why != "" {
			if later := soundAfter(data, off+walBlock); later >= 0 {
				return off, why, damaged(path, "write-ahead log: %s at byte %d, before the sound frame at byte %d", why, off, later)
			}
			return off, why, nil
		}
		if err := each(off, group, payload); err != nil {
			return off, "", err
		}
		off += frameLen(len(payload)) - walBlock
	}
	return off, "", nil
}

// frameAt decodes the frame at off, or says why there is none.
func frameAt(data []byte, off int64) (group int64, payload []byte, why string) {
	h := data[off : off+walHeader]
	if string(h[:4]) != walMagic {
		if allZero(h) {
			return 0, nil, endZeros
		}
		return 0, nil, "a damaged frame (no magic)"
	}
	n := int64(binary.LittleEndian.Uint32(h[4:]))
	if off+walHeader+n > int64(len(data)) {
		return 0, nil, "a damaged frame (its length passes the end of the segment)"
	}
	payload = data[off+walHeader : off+walHeader+n]
	crc := crc32.Update(0, crcTable, h[0:16])
	if crc32.Update(crc, crcTable, payload) != binary.LittleEndian.Uint32(h[16:]) {
		return 0, nil, "a damaged frame (bad checksum)"
	}
	return int64(binary.LittleEndian.Uint64(h[8:])), payload, ""
}

// soundAfter returns the offset of the first sound frame at a block
// boundary from off on, or -1.
func soundAfter(data []byte, off int64) int64 {
	for ; off+walHeader <= int64(len(data)); off += walBlock {
		if _, _, why := frameAt(data, off); why == "" {
			return off
		}
	}
	return -1
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// endZeros is why a segment's frames end where it was never written.
const endZeros = "a block of zeros"

// removeFile removes path; one already gone is fine.
func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !notExist(err) {
		return fmt.Errorf("embedded store: %w", err)
	}
	return nil
}
