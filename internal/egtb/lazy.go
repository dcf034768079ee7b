package egtb

import (
	"encoding/binary"
	"fmt"

	lru "github.com/hashicorp/golang-lru/v2"
)

// LazyPieces is the fewest pieces whose tables Open leaves compressed,
// decompressing a block (2^16 entries) when a probe first needs it and
// keeping the most recently used ones: a ≤ 5-piece set holds about 2 G
// entries, a byte each once decompressed, while its ≤ 4-piece tables
// (53 M entries) stay whole in memory for probes of a microsecond.
const LazyPieces = 5

// lazyCacheBlocks bounds the decompressed blocks a set keeps (64 KiB
// each: 64 MiB); a variable for tests.
var lazyCacheBlocks = 1024

// lazyTable is a table whose values stay compressed in memory; its file's
// section checksums and block index were checked on open.
type lazyTable struct {
	path  string
	n     uint64
	idx   []byte // section I
	vals  []byte // section V
	cache *lru.Cache[blockKey, []byte]
}

type blockKey struct {
	t *lazyTable
	k uint64
}

func newBlockCache() *lru.Cache[blockKey, []byte] {
	c, err := lru.New[blockKey, []byte](lazyCacheBlocks)
	if err != nil {
		panic("egtb: block cache: " + err.Error())
	}
	return c
}

// lazyValue returns entry i's stored code from a lazy table. A block that does not decompress
// to its entries, or holds a code the table's limit does not allow, is an
// error naming the file (its checksums matched on open, so only a file
// forged with matching checksums gets here).
func (t *Table) lazyValue(i uint64) (uint8, error) {
	lt := t.lazy
	key := blockKey{lt, i >> blockLog2}
	if b, ok := lt.cache.Get(key); ok {
		return b[i&(1<<blockLog2-1)], nil
	}
	le := binary.LittleEndian
	k := key.k
	lo, hi := k<<blockLog2, min((k+1)<<blockLog2, lt.n)
	frame := lt.vals[le.Uint64(lt.idx[8*k:]):le.Uint64(lt.idx[8*(k+1):])]
	out, err := zstdDecoder().DecodeAll(frame, make([]byte, 0, hi-lo))
	if err != nil {
		return 0, &FileError{lt.path, fmt.Sprintf("block %d does not decompress: %v", k, err)}
	}
	if uint64(len(out)) != hi-lo {
		return 0, &FileError{lt.path, fmt.Sprintf("block %d holds %d entries, want %d", k, len(out), hi-lo)}
	}
	if _, err := computeStats(out, t.Limit); err != nil {
		return 0, &FileError{lt.path, fmt.Sprintf("block %d: %v", k, err)}
	}
	lt.cache.Add(key, out)
	return out[i&(1<<blockLog2-1)], nil
}
