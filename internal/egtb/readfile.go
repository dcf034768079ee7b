package egtb

import (
	"fmt"
	"io"
	"os"

	"github.com/damone-rules/damone/internal/filekind"
)

// maxManifestBytes bounds what reading a manifest may hold: a manifest of
// every material up to five pieces is a few hundred KiB.
const maxManifestBytes = 16 << 20

// readSetFile reads one file of a set, which is untrusted input: anything
// but a regular file (a named pipe would block the open forever, a device
// never end) is refused before it is opened, and so is a file above max
// bytes (0: no bound but the file's own size).
func readSetFile(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s): a set's files are regular files", filekind.Of(fi.Mode()))
	}
	if max > 0 && fi.Size() > max {
		return nil, fmt.Errorf("%d bytes, above the %d a file of this kind may have", fi.Size(), max)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	limit := fi.Size() + 1 // one byte more tells a file that grew since its stat
	if max > 0 {
		limit = min(limit, max+1)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return nil, err
	}
	if max > 0 && int64(len(data)) > max {
		return nil, fmt.Errorf("above the %d bytes a file of this kind may have", max)
	}
	return data, nil
}
