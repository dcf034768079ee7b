package egtb

import (
	"crypto/sha256"
	"encoding/binary"
	"os"

	"github.com/damone-rules/damone/internal/engine"
)

// readForTest decodes a sound table file, whatever it holds.
func readForTest(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Material
	for s := 0; s < 2; s++ {
		for r := 0; r < engine.NumRanks; r++ {
			m[s][r] = data[14+3*s+r]
		}
	}
	return decodeTable(path, data, expect{m, engine.WinCondition(data[10]), 0, false})
}

// ResealValuesForTest rewrites a sound table file with its values changed
// by edit and every checksum made to match, the header's statistics kept,
// as a forger would.
func ResealValuesForTest(path string, edit func(v []byte)) error {
	t, err := readForTest(path)
	if err != nil {
		return err
	}
	edit(t.v)
	return os.WriteFile(path, encodeTable(t), 0o644)
}

// ResealBlocksForTest rewrites a sound table file with its zstd frames
// (one per block) replaced by edit's, the block index, the section
// checksums and the header checksum made to match; the checksum of the
// decompressed values is kept.
func ResealBlocksForTest(path string, edit func(frames [][]byte) [][]byte) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	nb := uint64(le.Uint32(data[84:]))
	idx := data[headerSize : headerSize+8*(nb+1)]
	vals := data[headerSize+8*(nb+1):]
	var frames [][]byte
	for k := uint64(0); k < nb; k++ {
		frames = append(frames, vals[le.Uint64(idx[8*k:]):le.Uint64(idx[8*(k+1):])])
	}
	frames = edit(frames)
	newIdx := make([]byte, 8*(len(frames)+1))
	var newVals []byte
	for k, f := range frames {
		newVals = append(newVals, f...)
		le.PutUint64(newIdx[8*(k+1):], uint64(len(newVals)))
	}
	out := append([]byte(nil), data[:headerSize]...)
	le.PutUint32(out[84:], uint32(len(frames)))
	put := func(at int, off uint64, b []byte) {
		le.PutUint64(out[at:], off)
		le.PutUint64(out[at+8:], uint64(len(b)))
		sum := sha256.Sum256(b)
		copy(out[at+16:], sum[:])
	}
	put(88, headerSize, newIdx)
	put(136, headerSize+uint64(len(newIdx)), newVals)
	sum := sha256.Sum256(out[:224])
	copy(out[224:], sum[:])
	out = append(append(out, newIdx...), newVals...)
	return os.WriteFile(path, out, 0o644)
}

// ResealHeaderForTest rewrites a file's header with edit and its header
// checksum made to match.
func ResealHeaderForTest(path string, edit func(h []byte)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	edit(data[:224])
	sum := sha256.Sum256(data[:224])
	copy(data[224:], sum[:])
	return os.WriteFile(path, data, 0o644)
}

// SetLazyForTest makes Open leave tables of pieces or more pieces
// compressed, keeping up to blocks decompressed blocks, until restore is
// called.
func SetLazyForTest(pieces, blocks int) (restore func()) {
	oldFrom, oldBlocks := lazyFrom, lazyCacheBlocks
	lazyFrom, lazyCacheBlocks = pieces, blocks
	return func() { lazyFrom, lazyCacheBlocks = oldFrom, oldBlocks }
}

// index returns b's entry number in its material m (b must have that
// material), for tests with no table at hand.
func index(b *board, m *Material) uint64 {
	ix := newIndexer(m)
	return ix.index(b)
}

// unindex is index's inverse: the board of entry idx of material m. Every
// material of a set has under 2^32 entries (Build refuses more).
func unindex(idx uint64, m *Material) board {
	ix := newIndexer(m)
	return ix.unindex(uint32(idx))
}
