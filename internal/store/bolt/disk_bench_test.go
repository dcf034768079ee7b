//go:build linux

package bolt

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkDiskSync is the disk's own cost of what a commit asks of it,
// in the file system of the test's temporary directory (TMPDIR): one
// 4 KiB page written and fdatasync'd, where the page's block is already
// written (overwrite), in a hole left by ftruncate (how bbolt grows its
// file), allocated but unwritten (fallocate), or past the end (append);
// and bbolt's commit of one page (commit-1) and of five scattered pages
// (commit-5, a move's commit alone writes five or six) and 200 (commit-200,
// a group of 64 games' moves writes about that many), overwritten: the
// data pages, a sync, the meta page, a sync. The embedded store's time per
// move alone cannot be below its commit's.
func BenchmarkDiskSync(b *testing.B) {
	const page = 4096
	const span = 64 << 20 // enough fresh blocks for every op of a run
	buf := make([]byte, page)
	for i := range buf {
		buf[i] = byte(i)
	}
	setup := map[string]func(f *os.File) error{
		"overwrite": func(f *os.File) error {
			zero := make([]byte, 1<<20)
			for off := int64(0); off < 4<<20; off += int64(len(zero)) {
				if _, err := f.WriteAt(zero, off); err != nil {
					return err
				}
			}
			return nil
		},
		"hole":      func(f *os.File) error { return f.Truncate(span) },
		"fallocate": func(f *os.File) error { return syscall.Fallocate(int(f.Fd()), 0, 0, span) },
		"append":    func(*os.File) error { return nil },
	}
	for _, name := range []string{"overwrite", "overwrite-direct", "overwrite-direct-idle", "hole", "fallocate", "append", "commit-1", "commit-5", "commit-200"} {
		b.Run(name, func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "sync"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			prep := setup[name]
			pages := 0
			switch name {
			case "commit-1":
				pages = 1
			case "commit-5":
				pages = 5
			case "commit-200":
				pages = 200
			}
			direct := strings.HasPrefix(name, "overwrite-direct")
			if pages > 0 || direct {
				prep = setup["overwrite"]
			}
			if err := prep(f); err != nil {
				b.Fatal(err)
			}
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
			if direct {
				w := &wal{}
				d := openDirect(f.Name())
				if d == nil {
					b.Skip("the file system refuses O_DIRECT|O_DSYNC")
				}
				defer d.Close()
				idle := name == "overwrite-direct-idle"
				for i := 0; b.Loop(); i++ {
					if idle {
						b.StopTimer()
						// Spin, not sleep: the pause is the disk's, not a
						// wake-up's of this thread.
						for t := time.Now(); time.Since(t) < 500*time.Microsecond; {
						}
						b.StartTimer()
					}
					if _, err := d.WriteAt(w.align(buf, page), int64(i%1000+2)*page); err != nil {
						b.Fatal(err)
					}
				}
				return
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				off := int64(i) * page
				if name == "overwrite" {
					off = int64(i%1000+2) * page
				}
				if pages > 0 {
					for j := range pages {
						// pages spread over the 4 MiB written, as a tree's are
						off = int64((i*pages+j)*197%1000+2) * page
						if _, err := f.WriteAt(buf, off); err != nil {
							b.Fatal(err)
						}
					}
					if err := syscall.Fdatasync(int(f.Fd())); err != nil {
						b.Fatal(err)
					}
					off = int64(i%2) * page // the meta page
				}
				if off >= span {
					b.Fatalf("op %d past the %d bytes set up", i, span)
				}
				if _, err := f.WriteAt(buf, off); err != nil {
					b.Fatal(err)
				}
				if err := syscall.Fdatasync(int(f.Fd())); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
