package bolt

import (
	"os"
)

// Blocks written ahead. bbolt grows its file with ftruncate, which leaves
// a hole past its last page: a commit's first write into the hole
// allocates a block, and that commit's fdatasync must then commit the
// file system's journal too: 1.7 to 3.8 times a sync that only overwrites
// written blocks, on the disk measured (BenchmarkDiskSync). A store
// that grows a page every few moves pays it every few commits. So the
// checkpointer keeps zeros written and synced ahead of bbolt's last page:
// commits then land on allocated blocks, and bbolt, finding its file long
// enough, never truncates it. Nothing past the last page (the meta page's
// page count) is part of the store: bbolt, Verify and backups read up to
// it, and a crash while zeros are written leaves only more unused tail.

const (
	fillMin = 256 << 10 // bytes kept written past the last page, at least
	fillMax = 8 << 20   // and at most: half the store's size in between
)

// filler writes zeros ahead of the store's last page. It is used only by
// the checkpointer, inside the write transaction, so no commit writes pages
// while it does.
type filler struct {
	f      *os.File // nil once it failed: bbolt then grows the file itself
	filled int64    // bytes from the start of the file known written
	zero   []byte
}

// newFiller opens the store file at path for writing zeros; on failure it
// returns a filler that does nothing. It opens the path after bbolt has,
// so, as bbolt's own open (openExisting), it refuses at once anything but
// a regular file put in the file's place meanwhile.
func newFiller(path string) *filler {
	f, err := openExisting(path, os.O_WRONLY, 0)
	if err != nil {
		return &filler{}
	}
	return &filler{f: f}
}

// ahead makes sure the blocks past size bytes (the last page's end, as of
// the write transaction it is called in) are written and synced for at
// least min(max(size/2, fillMin), fillMax) bytes, writing twice that when
// they are not. An error stops the filler for good; the store goes on as
// bbolt alone would (a full disk fails bbolt's own writes).
func (fl *filler) ahead(size int64) {
	if fl.f == nil {
		return
	}
	want := min(max(size/2, fillMin), fillMax)
	if fl.filled >= size+want {
		return
	}
	if fl.zero == nil {
		fl.zero = make([]byte, 1<<20)
	}
	to := size + 2*want
	for off := max(fl.filled, size); off < to; {
		n, err := fl.f.WriteAt(fl.zero[:min(int64(len(fl.zero)), to-off)], off)
		if err != nil {
			fl.close()
			return
		}
		off += int64(n)
	}
	if err := fdatasync(fl.f); err != nil {
		fl.close()
		return
	}
	fl.filled = to
}

func (fl *filler) close() {
	if fl.f != nil {
		fl.f.Close()
		fl.f = nil
	}
}
