package egtb

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/damone-rules/damone/internal/engine"
)

// File format, version 2 (little-endian). One file per material slice,
// named "<material>.<pieces|damones>.dmtb":
//
//	0    magic "DMNEGTB\x00"
//	8    u16 format version (2)
//	10   u8 win condition (1 capture-all-pieces, 2 capture-all-damones)
//	11   u8 index scheme (1: index.go)
//	12   u16 no-progress limit the values are exact for
//	14   6 × u8 material (own P, D, M; other P, D, M)
//	20   u8 encoding (1: zstd blocks), u8 log2 of the entries per block,
//	     2 bytes zero
//	24   u64 entries
//	32   6 × u64 statistics: wins, cursed wins, draws, blessed losses, losses, broken
//	80   u16 longest win, u16 longest loss (plies, DTC)
//	84   u32 blocks
//	88   section I, the block index: u64 offset, u64 length, SHA-256
//	136  section V, the values: u64 offset, u64 length, SHA-256
//	184  SHA-256 of the decompressed values (entries bytes)
//	216  8 bytes zero
//	224  SHA-256 of bytes 0..223
//	256  section I: blocks + 1 × u64, where block k of section V starts and
//	     ends (relative to the section; 0 first, the section's length last)
//	     section V: per block of 2^log2 entries (the last one shorter), one
//	     zstd frame of one byte per entry: 0 a draw with and without the
//	     rule, 1..limit a win with that DTC, 128+d a loss with DTC d (d = 0:
//	     the game is over), 127 a cursed win and 254 a blessed loss (drawn by
//	     the rule, won or lost without it), 255 broken
//
// Blocks give random access to the values without decompressing a whole
// file. Nothing in a file depends on when or how it was built (the
// compressor runs at a fixed level, one frame per block), so a rebuild is
// byte-identical.

const (
	formatVersion = 2
	indexScheme   = 1
	encodingZstd  = 1
	blockLog2     = 16
	headerSize    = 256
	magic         = "DMNEGTB\x00"

	codeBroken      = 255
	codeLoss        = 128
	codeCursedWin   = 127
	codeBlessedLoss = 254

	wdlDraw   = 0
	wdlWin    = 1
	wdlLoss   = 2
	wdlBroken = 3

	// MaxLimit is the largest no-progress limit a set can be built for
	// (a DTC must fit beside the loss flag in a byte, below the cursed and
	// blessed codes).
	MaxLimit = 125
)

// Stats are a table's figures at counter 0, over its valid entries.
type Stats struct {
	Wins          uint64 `json:"wins"`
	CursedWins    uint64 `json:"cursed_wins"`
	Draws         uint64 `json:"draws"`
	BlessedLosses uint64 `json:"blessed_losses"`
	Losses        uint64 `json:"losses"`
	Broken        uint64 `json:"broken"`
	LongestWin    int    `json:"longest_win"`
	LongestLoss   int    `json:"longest_loss"`
}

// Table is one slice: a material with its side to move, for a win
// condition, exact for a no-progress limit.
type Table struct {
	Material Material
	Win      engine.WinCondition
	Limit    int
	Stats    Stats
	v        []byte // one code per entry, as in section V; nil if lazy
	lazy     *lazyTable
	ix       indexer // numbers the material's boards
}

// Entries returns the number of index entries.
func (t *Table) Entries() uint64 { return uint64(len(t.v)) }

// code returns entry i's value with the rule: 0 a draw, 1..limit a win,
// codeLoss+d a loss, codeBroken.
func (t *Table) code(i uint64) uint8 { return ruleCode(t.v[i]) }

// wdl returns entry i's value with the rule off.
func (t *Table) wdl(i uint64) uint8 { return wdlOf(t.v[i]) }

func ruleCode(c uint8) uint8 {
	if c == codeCursedWin || c == codeBlessedLoss {
		return 0
	}
	return c
}

func wdlOf(c uint8) uint8 {
	switch {
	case c == 0:
		return wdlDraw
	case c == codeBroken:
		return wdlBroken
	case c == codeCursedWin || c < codeLoss:
		return wdlWin
	}
	return wdlLoss
}

// merge returns the stored code of an entry from its value with the rule
// (a code) and without it (a wdl value), or false if the two disagree
// (a win or loss under a rule is one without it).
func merge(code, wdl uint8) (uint8, bool) {
	switch {
	case code == codeBroken:
		return code, wdl == wdlBroken
	case code != 0:
		return code, wdl == [2]uint8{wdlWin, wdlLoss}[btoi(code >= codeLoss)]
	case wdl == wdlWin:
		return codeCursedWin, true
	case wdl == wdlLoss:
		return codeBlessedLoss, true
	}
	return 0, wdl == wdlDraw
}

// FileName returns the file name of a material's table for a win condition.
func FileName(m Material, wc engine.WinCondition) string {
	return m.String() + "." + wcShort(wc) + ".dmtb"
}

func wcShort(wc engine.WinCondition) string {
	if wc == engine.CaptureAllDamones {
		return "damones"
	}
	return "pieces"
}

// computeStats checks every code against the limit and counts the values
// (Stats at counter 0).
func computeStats(v []byte, limit int) (Stats, error) {
	var s Stats
	for i, c := range v {
		switch {
		case c == codeBroken:
			s.Broken++
		case c == 0:
			s.Draws++
		case c == codeCursedWin:
			s.CursedWins++
		case c == codeBlessedLoss:
			s.BlessedLosses++
		case c <= uint8(limit):
			s.Wins++
			s.LongestWin = max(s.LongestWin, int(c))
		case c >= codeLoss && c <= codeLoss+uint8(limit):
			s.Losses++
			s.LongestLoss = max(s.LongestLoss, int(c-codeLoss))
		default:
			return s, fmt.Errorf("entry %d has the invalid code %d", i, c)
		}
	}
	return s, nil
}

func blockCount(n uint64) uint64 { return (n + 1<<blockLog2 - 1) >> blockLog2 }

var (
	encoderOnce sync.Once
	encoder     *zstd.Encoder
	decoderOnce sync.Once
	decoder     *zstd.Decoder
)

// zstdEncoder is shared: EncodeAll is safe for concurrent use and gives
// the same bytes for the same input whatever else runs.
func zstdEncoder() *zstd.Encoder {
	encoderOnce.Do(func() {
		var err error
		encoder, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression),
			zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true), zstd.WithWindowSize(1<<blockLog2))
		if err != nil {
			panic("egtb: zstd encoder: " + err.Error())
		}
	})
	return encoder
}

// zstdDecoder never decodes more than a block: a frame that claims more
// is refused before its memory is taken.
func zstdDecoder() *zstd.Decoder {
	decoderOnce.Do(func() {
		var err error
		decoder, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)),
			zstd.WithDecoderMaxMemory(1<<blockLog2), zstd.WithDecoderMaxWindow(1<<blockLog2),
			zstd.WithDecodeAllCapLimit(true))
		if err != nil {
			panic("egtb: zstd decoder: " + err.Error())
		}
	})
	return decoder
}

// encodeTable returns a table's file bytes.
func encodeTable(t *Table) []byte {
	n := uint64(len(t.v))
	nb := blockCount(n)
	idx := make([]byte, 8*(nb+1))
	var data []byte
	enc := zstdEncoder()
	le := binary.LittleEndian
	for k := uint64(0); k < nb; k++ {
		data = enc.EncodeAll(t.v[k<<blockLog2:min((k+1)<<blockLog2, n)], data)
		le.PutUint64(idx[8*(k+1):], uint64(len(data)))
	}
	out := make([]byte, headerSize, headerSize+len(idx)+len(data))
	copy(out, magic)
	le.PutUint16(out[8:], formatVersion)
	out[10] = uint8(t.Win)
	out[11] = indexScheme
	le.PutUint16(out[12:], uint16(t.Limit))
	for s := 0; s < 2; s++ {
		for r := 0; r < engine.NumRanks; r++ {
			out[14+3*s+r] = t.Material[s][r]
		}
	}
	out[20], out[21] = encodingZstd, blockLog2
	le.PutUint64(out[24:], n)
	st := t.Stats
	for i, v := range []uint64{st.Wins, st.CursedWins, st.Draws, st.BlessedLosses, st.Losses, st.Broken} {
		le.PutUint64(out[32+8*i:], v)
	}
	le.PutUint16(out[80:], uint16(st.LongestWin))
	le.PutUint16(out[82:], uint16(st.LongestLoss))
	le.PutUint32(out[84:], uint32(nb))
	putSection := func(at int, off uint64, data []byte) {
		le.PutUint64(out[at:], off)
		le.PutUint64(out[at+8:], uint64(len(data)))
		sum := sha256.Sum256(data)
		copy(out[at+16:], sum[:])
	}
	putSection(88, headerSize, idx)
	putSection(136, headerSize+uint64(len(idx)), data)
	sum := sha256.Sum256(t.v)
	copy(out[184:], sum[:])
	sum = sha256.Sum256(out[:224])
	copy(out[224:], sum[:])
	out = append(out, idx...)
	return append(out, data...)
}

// FileError is a table file that cannot be used: missing, truncated,
// corrupt, or built for other rules. Path names the file.
type FileError struct {
	Path   string
	Reason string
}

func (e *FileError) Error() string { return "egtb: " + e.Path + ": " + e.Reason }

// expect is what a file must say about itself to be accepted.
type expect struct {
	material Material
	win      engine.WinCondition
	limit    int // 0: any
	// lazy: check the header, sizes, section checksums and block index now
	// and decompress a block when a probe first needs it (lazy.go).
	lazy bool
}

// decodeTable checks a file's bytes completely (header, sizes, checksums,
// every block, every entry's code, the statistics) before it is used;
// data is the whole file. Every failure is a *FileError naming path.
func decodeTable(path string, data []byte, want expect) (*Table, error) {
	bad := func(format string, args ...any) (*Table, error) {
		return nil, &FileError{path, fmt.Sprintf(format, args...)}
	}
	if len(data) < headerSize {
		return bad("truncated: %d bytes, shorter than the %d-byte header", len(data), headerSize)
	}
	if string(data[:8]) != magic {
		return bad("not a damone tablebase file (bad magic)")
	}
	if sum := sha256.Sum256(data[:224]); !bytes.Equal(sum[:], data[224:256]) {
		return bad("header checksum mismatch (corrupt header)")
	}
	le := binary.LittleEndian
	if v := le.Uint16(data[8:]); v != formatVersion {
		return bad("format version %d, this build reads version %d (rebuild the set)", v, formatVersion)
	}
	if data[11] != indexScheme {
		return bad("index scheme %d, this build reads scheme %d", data[11], indexScheme)
	}
	if data[20] != encodingZstd || data[21] != blockLog2 {
		return bad("encoding %d with 2^%d entries per block, this build reads %d with 2^%d", data[20], data[21], encodingZstd, blockLog2)
	}
	t := &Table{Win: engine.WinCondition(data[10]), Limit: int(le.Uint16(data[12:]))}
	if t.Win != engine.CaptureAllPieces && t.Win != engine.CaptureAllDamones {
		return bad("unknown win condition %d", data[10])
	}
	if t.Win != want.win {
		return bad("built for win condition %v, want %v", t.Win, want.win)
	}
	if t.Limit < 1 || t.Limit > MaxLimit || (want.limit != 0 && t.Limit != want.limit) {
		return bad("built for no-progress limit %d, want %d", t.Limit, want.limit)
	}
	for s := 0; s < 2; s++ {
		for r := 0; r < engine.NumRanks; r++ {
			t.Material[s][r] = data[14+3*s+r]
		}
	}
	if t.Material != want.material {
		return bad("holds material %v, want %v", t.Material, want.material)
	}
	t.ix = newIndexer(&t.Material)
	n := le.Uint64(data[24:])
	if n != Size(t.Material) {
		return bad("header says %d entries, material %v has %d", n, t.Material, Size(t.Material))
	}
	nb := blockCount(n)
	if uint64(le.Uint32(data[84:])) != nb {
		return bad("header says %d blocks, %d entries take %d", le.Uint32(data[84:]), n, nb)
	}
	idxLen := 8 * (nb + 1)
	dataOff := uint64(headerSize) + idxLen
	if le.Uint64(data[88:]) != headerSize || le.Uint64(data[96:]) != idxLen ||
		le.Uint64(data[136:]) != dataOff || le.Uint64(data[144:]) > uint64(len(data)) {
		return bad("a section has a bad offset or length")
	}
	if total := dataOff + le.Uint64(data[144:]); uint64(len(data)) != total {
		return bad("size %d bytes, want %d (truncated or padded)", len(data), total)
	}
	section := func(at int, name string) ([]byte, error) {
		off, length := le.Uint64(data[at:]), le.Uint64(data[at+8:])
		s := data[off : off+length]
		if sum := sha256.Sum256(s); !bytes.Equal(sum[:], data[at+16:at+48]) {
			return nil, &FileError{path, "section " + name + " checksum mismatch (corrupt data)"}
		}
		return s, nil
	}
	idx, err := section(88, "I")
	if err != nil {
		return nil, err
	}
	vals, err := section(136, "V")
	if err != nil {
		return nil, err
	}
	for k := uint64(0); k < nb; k++ {
		from, to := le.Uint64(idx[8*k:]), le.Uint64(idx[8*(k+1):])
		if (k == 0 && from != 0) || to < from || to > uint64(len(vals)) || (k == nb-1 && to != uint64(len(vals))) {
			return bad("block %d has a bad offset", k)
		}
	}
	if want.lazy {
		st := Stats{LongestWin: int(le.Uint16(data[80:])), LongestLoss: int(le.Uint16(data[82:]))}
		for i, p := range []*uint64{&st.Wins, &st.CursedWins, &st.Draws, &st.BlessedLosses, &st.Losses, &st.Broken} {
			*p = le.Uint64(data[32+8*i:])
		}
		t.Stats = st
		t.lazy = &lazyTable{path: path, n: n, idx: idx, vals: vals}
		return t, nil
	}
	t.v = make([]byte, n)
	dec := zstdDecoder()
	for k := uint64(0); k < nb; k++ {
		from, to := le.Uint64(idx[8*k:]), le.Uint64(idx[8*(k+1):])
		lo, hi := k<<blockLog2, min((k+1)<<blockLog2, n)
		out, err := dec.DecodeAll(vals[from:to], t.v[lo:lo:hi])
		if err != nil {
			return bad("block %d does not decompress: %v", k, err)
		}
		if uint64(len(out)) != hi-lo || (len(out) > 0 && &out[0] != &t.v[lo]) {
			return bad("block %d holds %d entries, want %d", k, len(out), hi-lo)
		}
	}
	if sum := sha256.Sum256(t.v); !bytes.Equal(sum[:], data[184:216]) {
		return bad("decompressed values checksum mismatch (corrupt data)")
	}
	st, err := computeStats(t.v, t.Limit)
	if err != nil {
		return bad("%v", err)
	}
	for i, v := range []uint64{st.Wins, st.CursedWins, st.Draws, st.BlessedLosses, st.Losses, st.Broken} {
		if le.Uint64(data[32+8*i:]) != v {
			return bad("statistics in the header do not match the data")
		}
	}
	if int(le.Uint16(data[80:])) != st.LongestWin || int(le.Uint16(data[82:])) != st.LongestLoss {
		return bad("statistics in the header do not match the data")
	}
	t.Stats = st
	return t, nil
}

// readTable reads and checks one table file.
func readTable(path string, want expect) (*Table, error) {
	data, err := readSetFile(path, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &FileError{path, "missing"}
		}
		return nil, &FileError{path, err.Error()}
	}
	return decodeTable(path, data, want)
}

// writeFileAtomic writes data to path through a temporary file and a
// rename, so a crash never leaves a half-written table under its name.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// ManifestName is the manifest's file name in a set's directory.
const ManifestName = "MANIFEST.json"

// Manifest describes a set: the rules it was built for and every file
// with its checksum and statistics. It holds nothing that changes from
// one build to the next.
type Manifest struct {
	Format        string          `json:"format"`
	FormatVersion int             `json:"format_version"`
	Pieces        int             `json:"pieces"`
	Limit         int             `json:"no_progress_limit"`
	WinConditions []string        `json:"win_conditions"`
	Tables        []ManifestEntry `json:"tables"`
}

// ManifestEntry is one file of a set.
type ManifestEntry struct {
	File         string `json:"file"`
	WinCondition string `json:"win_condition"`
	Material     string `json:"material"`
	Entries      uint64 `json:"entries"`
	Bytes        int64  `json:"bytes"`
	SHA256       string `json:"sha256"`
	Stats        Stats  `json:"stats"`
}

const manifestFormat = "damone-egtb"

func parseWinCondition(s string) (engine.WinCondition, error) {
	switch s {
	case engine.CaptureAllPieces.String():
		return engine.CaptureAllPieces, nil
	case engine.CaptureAllDamones.String():
		return engine.CaptureAllDamones, nil
	}
	return 0, fmt.Errorf("unknown win condition %q", s)
}

// ReadManifest reads and checks a set's manifest: its format, version and
// rules, and that it lists exactly the files the set must have.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestName)
	data, err := readSetFile(path, maxManifestBytes)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &FileError{path, "missing (not a tablebase directory, or its build has not finished)"}
		}
		return nil, &FileError{path, err.Error()}
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, &FileError{path, "not a valid manifest: " + err.Error()}
	}
	if m.Format != manifestFormat || m.FormatVersion != formatVersion {
		return nil, &FileError{path, fmt.Sprintf("format %q version %d, want %q version %d", m.Format, m.FormatVersion, manifestFormat, formatVersion)}
	}
	if m.Pieces < 2 || m.Pieces > MaxPieces || m.Limit < 1 || m.Limit > MaxLimit {
		return nil, &FileError{path, fmt.Sprintf("pieces %d or no-progress limit %d out of range", m.Pieces, m.Limit)}
	}
	var want []ManifestEntry
	for _, w := range m.WinConditions {
		wc, err := parseWinCondition(w)
		if err != nil {
			return nil, &FileError{path, err.Error()}
		}
		for _, mat := range Materials(m.Pieces, wc) {
			want = append(want, ManifestEntry{File: FileName(mat, wc), WinCondition: w, Material: mat.String()})
		}
	}
	if len(want) != len(m.Tables) {
		return nil, &FileError{path, fmt.Sprintf("lists %d tables, a %d-piece set for %v has %d", len(m.Tables), m.Pieces, m.WinConditions, len(want))}
	}
	sort.Slice(want, func(i, j int) bool { return want[i].File < want[j].File })
	for i, e := range m.Tables {
		if e.File != want[i].File || e.WinCondition != want[i].WinCondition || e.Material != want[i].Material {
			return nil, &FileError{path, fmt.Sprintf("table %d is %s (%s, %s), want %s", i, e.File, e.WinCondition, e.Material, want[i].File)}
		}
	}
	return &m, nil
}

func writeManifest(dir string, m *Manifest) error {
	sort.Slice(m.Tables, func(i, j int) bool { return m.Tables[i].File < m.Tables[j].File })
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, ManifestName), append(data, '\n'))
}
