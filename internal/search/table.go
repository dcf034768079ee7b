package search

// The transposition table: one entry per bucket, replaced when the new
// result is at least as deep or the old one is from an earlier search.

const (
	flagExact uint8 = iota + 1
	flagLower       // the score is a lower bound (a cut-off)
	flagUpper       // the score is an upper bound (no move raised alpha)
)

type entry struct {
	key   uint64
	score int32
	depth int8
	flag  uint8
	move  uint8 // index of the best move in generation order; 255 none
	age   uint8
}

type table struct {
	entries []entry
	mask    uint64
	age     uint8
}

// newTable allocates about mb MiB of 16-byte entries (a power of two) and
// touches every page: make's zeroed memory is only mapped when first
// written, so without clear the first search would take a page fault on
// nearly every new probe.
func newTable(mb int) *table {
	mb = max(mb, 1)
	n := uint64(1)
	for n*2*16 <= uint64(mb)<<20 {
		n *= 2
	}
	t := &table{entries: make([]entry, n), mask: n - 1}
	t.clear()
	return t
}

func (t *table) clear() {
	clear(t.entries)
	t.age = 0
}

func (t *table) newSearch() { t.age++ }

func (t *table) probe(key uint64) (entry, bool) {
	e := t.entries[key&t.mask]
	return e, e.key == key && e.flag != 0
}

func (t *table) store(key uint64, score Score, depth int8, flag uint8, move uint8) {
	e := &t.entries[key&t.mask]
	if e.key == key || e.age != t.age || depth >= e.depth || e.flag == 0 {
		*e = entry{key: key, score: int32(score), depth: depth, flag: flag, move: move, age: t.age}
	}
}

// Forced results are stored relative to the node, so a win found at one
// ply keeps its distance when read back at another.
func toTT(s Score, ply int) Score {
	switch {
	case s >= WinThreshold:
		return s + Score(ply)
	case s <= -WinThreshold:
		return s - Score(ply)
	}
	return s
}

func fromTT(s int32, ply int) Score {
	sc := Score(s)
	switch {
	case sc >= WinThreshold:
		return sc - Score(ply)
	case sc <= -WinThreshold:
		return sc + Score(ply)
	}
	return sc
}
