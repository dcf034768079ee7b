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
	"sort"

	"github.com/damone-rules/damone/internal/engine"
)

// File format, version 1 (little-endian). One file per material slice,
// named "<material>.<pieces|damones>.dmtb":
//
//	0    magic "DMNEGTB\x00"
//	8    u16 format version (1)
//	10   u8 win condition (1 capture-all-pieces, 2 capture-all-damones)
//	11   u8 index scheme (1: index.go)
//	12   u16 no-progress limit the values are exact for
//	14   6 × u8 material (own P, D, M; other P, D, M)
//	20   4 bytes zero
//	24   u64 entries
//	32   6 × u64 statistics: wins, cursed wins, draws, blessed losses, losses, broken
//	80   u16 longest win, u16 longest loss (plies, DTC)
//	84   4 bytes zero
//	88   section A: u64 offset, u64 length, SHA-256
//	136  section B: u64 offset, u64 length, SHA-256
//	184  40 bytes zero
//	224  SHA-256 of bytes 0..223
//	256  section A: one byte per entry: 0 draw under the rule, 1..limit a win
//	     with that DTC, 128+d a loss with DTC d (d = 0: the game is over),
//	     255 broken
//	     section B: two bits per entry (entry i in byte i/4, bits 2(i%4)):
//	     the value with the rule off: 0 draw, 1 win, 2 loss, 3 broken
//
// Nothing in a file depends on when or how it was built, so a rebuild is
// byte-identical.

const (
	formatVersion = 1
	indexScheme   = 1
	headerSize    = 256
	magic         = "DMNEGTB\x00"

	codeBroken = 255
	codeLoss   = 128

	wdlDraw   = 0
	wdlWin    = 1
	wdlLoss   = 2
	wdlBroken = 3

	// MaxLimit is the largest no-progress limit a set can be built for
	// (a DTC must fit beside the loss flag in a byte).
	MaxLimit = 126
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
	a, b     []byte
}

// Entries returns the number of index entries.
func (t *Table) Entries() uint64 { return uint64(len(t.a)) }

func (t *Table) wdl(i uint64) uint8 { return t.b[i>>2] >> (2 * (i & 3)) & 3 }

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

// computeStats counts a table's values (Stats at counter 0).
func computeStats(a, b []byte) (Stats, error) {
	var s Stats
	for i, c := range a {
		w := b[i>>2] >> (2 * (i & 3)) & 3
		switch {
		case c == codeBroken:
			if w != wdlBroken {
				return s, fmt.Errorf("entry %d: broken in section A but not in B", i)
			}
			s.Broken++
		case c == 0:
			switch w {
			case wdlWin:
				s.CursedWins++
			case wdlLoss:
				s.BlessedLosses++
			case wdlDraw:
				s.Draws++
			default:
				return s, fmt.Errorf("entry %d: broken in section B but not in A", i)
			}
		case c < codeLoss:
			if w != wdlWin {
				return s, fmt.Errorf("entry %d: a win under the rule but not without it", i)
			}
			s.Wins++
			s.LongestWin = max(s.LongestWin, int(c))
		default:
			if w != wdlLoss {
				return s, fmt.Errorf("entry %d: a loss under the rule but not without it", i)
			}
			s.Losses++
			s.LongestLoss = max(s.LongestLoss, int(c-codeLoss))
		}
	}
	return s, nil
}

// encodeTable returns a table's file bytes.
func encodeTable(t *Table) []byte {
	n := uint64(len(t.a))
	out := make([]byte, headerSize, headerSize+len(t.a)+len(t.b))
	copy(out, magic)
	le := binary.LittleEndian
	le.PutUint16(out[8:], formatVersion)
	out[10] = uint8(t.Win)
	out[11] = indexScheme
	le.PutUint16(out[12:], uint16(t.Limit))
	for s := 0; s < 2; s++ {
		for r := 0; r < engine.NumRanks; r++ {
			out[14+3*s+r] = t.Material[s][r]
		}
	}
	le.PutUint64(out[24:], n)
	st := t.Stats
	for i, v := range []uint64{st.Wins, st.CursedWins, st.Draws, st.BlessedLosses, st.Losses, st.Broken} {
		le.PutUint64(out[32+8*i:], v)
	}
	le.PutUint16(out[80:], uint16(st.LongestWin))
	le.PutUint16(out[82:], uint16(st.LongestLoss))
	putSection := func(at int, off uint64, data []byte) {
		le.PutUint64(out[at:], off)
		le.PutUint64(out[at+8:], uint64(len(data)))
		sum := sha256.Sum256(data)
		copy(out[at+16:], sum[:])
	}
	putSection(88, headerSize, t.a)
	putSection(136, headerSize+n, t.b)
	sum := sha256.Sum256(out[:224])
	copy(out[224:], sum[:])
	out = append(out, t.a...)
	return append(out, t.b...)
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
}

// decodeTable checks a file's bytes completely (header, sizes, checksums,
// every entry's code, the statistics) before it is used; data is the
// whole file. Every failure is a *FileError naming path.
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
		return bad("format version %d, this build reads version %d", v, formatVersion)
	}
	if data[11] != indexScheme {
		return bad("index scheme %d, this build reads scheme %d", data[11], indexScheme)
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
	n := le.Uint64(data[24:])
	if n != Size(t.Material) {
		return bad("header says %d entries, material %v has %d", n, t.Material, Size(t.Material))
	}
	total := uint64(headerSize) + n + (n+3)/4
	if uint64(len(data)) != total {
		return bad("size %d bytes, want %d (truncated or padded)", len(data), total)
	}
	section := func(at int, off, length uint64, name string) ([]byte, error) {
		if le.Uint64(data[at:]) != off || le.Uint64(data[at+8:]) != length {
			return nil, &FileError{path, "section " + name + " has a bad offset or length"}
		}
		s := data[off : off+length]
		if sum := sha256.Sum256(s); !bytes.Equal(sum[:], data[at+16:at+48]) {
			return nil, &FileError{path, "section " + name + " checksum mismatch (corrupt data)"}
		}
		return s, nil
	}
	var err error
	if t.a, err = section(88, headerSize, n, "A"); err != nil {
		return nil, err
	}
	if t.b, err = section(136, headerSize+n, (n+3)/4, "B"); err != nil {
		return nil, err
	}
	for i, c := range t.a {
		if c != codeBroken && ((c > uint8(t.Limit) && c < codeLoss) || c > codeLoss+uint8(t.Limit)) {
			return bad("entry %d has the invalid code %d", i, c)
		}
	}
	st, err := computeStats(t.a, t.b)
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
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
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
	return os.Rename(tmp.Name(), path)
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
