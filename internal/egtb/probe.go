package egtb

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/damone-rules/damone/internal/engine"
)

// Set is a loaded, checked set of tables: safe for concurrent probes.
type Set struct {
	Dir      string
	Manifest *Manifest
	tables   map[engine.WinCondition]map[Material]*Table
}

// Open reads a set: its manifest, then every file it lists, each checked
// completely (size, header, rules, checksums against the file and the
// manifest, entry codes, statistics) before it is used. Tables of
// LazyPieces or more pieces stay compressed in memory: all but their
// entry codes are checked now, and a block's codes when a probe first
// reads it (Probe then errs on a bad one; Verify checks everything). Any
// failure is an error naming the file.
func Open(dir string) (*Set, error) { return open(dir, lazyFrom) }

// OpenInMemory is Open holding every table decompressed and its entry
// codes checked, as Open holds those of fewer than LazyPieces pieces: a
// ≤ 5-piece set takes about 2 GB of memory (one byte an entry) instead of
// about 0.4 GB, and a probe of a 5-piece position costs what a 4-piece
// one does instead of, on a block cache miss, a block's decompression
// and check (docs/BENCHMARKS.md, Probe of 5-piece positions): for a
// search that probes at every node.
func OpenInMemory(dir string) (*Set, error) { return open(dir, 0) }

// open reads a set, leaving tables of lazyPieces or more pieces (0: none)
// compressed.
func open(dir string, lazyPieces int) (*Set, error) {
	man, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	s := &Set{Dir: dir, Manifest: man, tables: map[engine.WinCondition]map[Material]*Table{}}
	cache := newBlockCache()
	for _, e := range man.Tables {
		t, err := openEntry(dir, man, e, lazyPieces)
		if err != nil {
			return nil, err
		}
		if t.lazy != nil {
			t.lazy.cache = cache
		}
		if s.tables[t.Win] == nil {
			s.tables[t.Win] = map[Material]*Table{}
		}
		s.tables[t.Win][t.Material] = t
	}
	return s, nil
}

// lazyFrom is LazyPieces but for tests.
var lazyFrom = LazyPieces

// openEntry reads and checks one file of a set; a table of lazyPieces or
// more pieces (0: none) stays compressed (lazy.go).
func openEntry(dir string, man *Manifest, e ManifestEntry, lazyPieces int) (*Table, error) {
	path := filepath.Join(dir, e.File)
	wc, err := parseWinCondition(e.WinCondition)
	if err != nil {
		return nil, &FileError{filepath.Join(dir, ManifestName), err.Error()}
	}
	m, err := ParseMaterial(e.Material)
	if err != nil {
		return nil, &FileError{filepath.Join(dir, ManifestName), err.Error()}
	}
	data, err := readSetFile(path, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &FileError{path, "missing"}
		}
		return nil, &FileError{path, err.Error()}
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != e.SHA256 {
		return nil, &FileError{path, "SHA-256 differs from the manifest's (corrupt or replaced file)"}
	}
	t, err := decodeTable(path, data, expect{m, wc, man.Limit, lazyPieces > 0 && m.Pieces() >= lazyPieces})
	if err != nil {
		return nil, err
	}
	if t.Stats != e.Stats {
		return nil, &FileError{path, "statistics differ from the manifest's"}
	}
	return t, nil
}

// Pieces returns the most pieces the set holds.
func (s *Set) Pieces() int { return s.Manifest.Pieces }

// Limit returns the no-progress limit the set is exact for.
func (s *Set) Limit() int { return s.Manifest.Limit }

// Has reports whether the set holds tables for the win condition.
func (s *Set) Has(wc engine.WinCondition) bool { return s.tables[wc] != nil }

// ErrNotInTables is returned for a position the set does not hold: more
// pieces than it has, or a win condition it was not built for.
var ErrNotInTables = errors.New("position not in the tables")

// Value is what the tables know of a position for its side to move,
// whatever its counter.
type Value struct {
	// Terminal: the game is already over (Rule: the side to move has no
	// piece, no Damone under capture-all-Damones, or no legal move);
	// Rule says who won and DTC is 0.
	Terminal bool
	// Rule is the result at counter 0 under the set's no-progress limit:
	// +1 win, 0 draw, −1 loss; DTC the plies to the next conversion or the
	// end of the game under optimal play (wins and losses only).
	Rule int
	DTC  int
	// NoRule is the result with the no-progress rule off.
	NoRule int
}

// Probe returns the stored value of p under the win condition (p's counter
// is ignored; see Value.At). Errors: ErrNotInTables, or a corrupt entry.
func (s *Set) Probe(p *engine.Position, wc engine.WinCondition) (Value, error) {
	ts := s.tables[wc]
	if ts == nil {
		return Value{}, fmt.Errorf("%w: no tables for win condition %v", ErrNotInTables, wc)
	}
	b := fromEngine(p)
	m := b.material()
	over := func(r int) (Value, error) { return Value{Terminal: true, Rule: r, NoRule: r}, nil }
	switch {
	case m.Count(0) == 0:
		return over(-1)
	case m.Count(1) == 0:
		return over(1) // only a custom start leaves the side not to move without pieces
	case wc == engine.CaptureAllDamones && m[0][engine.Damone] == 0:
		return over(-1)
	case wc == engine.CaptureAllDamones && m[1][engine.Damone] == 0:
		return over(1)
	}
	if m.Pieces() > s.Pieces() {
		return Value{}, fmt.Errorf("%w: %d pieces, the set holds up to %d", ErrNotInTables, m.Pieces(), s.Pieces())
	}
	t := ts[m]
	if t == nil {
		return Value{}, fmt.Errorf("%w: no table for %v", ErrNotInTables, m)
	}
	i := t.ix.index(&b)
	var x uint8
	if t.v != nil {
		x = t.v[i]
	} else {
		var err error
		if x, err = t.lazyValue(i); err != nil {
			return Value{}, err
		}
	}
	c, w := ruleCode(x), wdlOf(x)
	v := Value{}
	switch {
	case c == codeBroken || w == wdlBroken:
		return Value{}, fmt.Errorf("egtb: %s: entry %d is marked unreachable but the position is valid", FileName(m, wc), i)
	case c == 0:
	case c < codeLoss:
		v.Rule, v.DTC = 1, int(c)
	default:
		v.Rule, v.DTC = -1, int(c-codeLoss)
		v.Terminal = v.DTC == 0
	}
	v.NoRule = [3]int{0, 1, -1}[w]
	return v, nil
}

// Category is the answer for the side to move.
type Category int

const (
	Unknown Category = iota
	Win
	CursedWin // won with the no-progress rule off, drawn by it
	Draw
	BlessedLoss // lost with the rule off, drawn by it
	Loss
)

func (c Category) String() string {
	return [...]string{"unknown", "win", "cursed-win", "draw", "blessed-loss", "loss"}[c]
}

// Answer is a position's category at a counter under a no-progress limit,
// with the DTC when it is exact for that limit.
type Answer struct {
	Category Category
	DTC      int
	HasDTC   bool
}

// At answers for the position at the given counter under the no-progress
// limit (0: the rule off), for a set exact for setLimit. The rule at
// setLimit: a win iff a win at counter 0 with counter + DTC ≤ setLimit,
// likewise a loss. Limits 0 and setLimit are exact at every counter; for
// another limit the answer is exact or Unknown, never wrong (a win or
// loss that holds at setLimit holds at any larger limit, a draw at
// setLimit at any smaller one, a draw with the rule off at every limit).
func (v Value) At(counter, limit, setLimit int) Answer {
	if v.Terminal {
		if v.Rule > 0 {
			return Answer{Win, 0, true}
		}
		return Answer{Loss, 0, true}
	}
	if limit == 0 {
		return Answer{Category: [3]Category{Loss, Draw, Win}[v.NoRule+1]}
	}
	if counter >= limit || v.NoRule == 0 {
		return Answer{Category: Draw}
	}
	decided := v.Rule != 0 && counter+v.DTC <= setLimit
	switch {
	case limit == setLimit && decided:
		return Answer{[3]Category{Loss, Draw, Win}[v.Rule+1], v.DTC, true}
	case limit == setLimit:
		return Answer{Category: [3]Category{BlessedLoss, Draw, CursedWin}[v.NoRule+1]}
	case limit > setLimit && decided:
		return Answer{Category: [3]Category{Loss, Draw, Win}[v.Rule+1]}
	case limit < setLimit && !decided:
		return Answer{Category: Draw}
	}
	return Answer{Category: Unknown}
}
