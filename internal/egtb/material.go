// Package egtb builds, reads, verifies and probes endgame tablebases for
// Italian Damone: exact values under the no-progress rule for every
// position with few pieces.
//
// The parts, each over one index (index.go) and one file format
// (format.go):
//
//   - Build (build.go): retrograde analysis, one material pair at a time,
//     using the engine's own move generator to value every position;
//   - Verify (verify.go): checksums, the fixed-point check, mirror
//     invariance and the statistics against the manifest;
//   - Set.Probe (probe.go): a position's stored value, and Category, which
//     turns it into the answer at a given counter and no-progress limit.
//
// Every stored position has "own" (the side to move) moving like Red: a
// Black-to-move position is turned 180° with the colours swapped, which maps
// the rules onto themselves exactly (RULES.md, Moves and Promotion).
package egtb

import (
	"fmt"
	"sort"
	"strings"

	"github.com/damone-rules/damone/internal/engine"
)

// MaxPieces is the largest total number of pieces a set can hold.
const MaxPieces = 5

// Material is a slice's piece counts: [0] the side to move ("own"), [1] the
// other side, each indexed by engine.Rank (Pedine, Dama, Damone).
type Material [2][engine.NumRanks]uint8

// Count returns the number of pieces of side s (0 own, 1 other).
func (m Material) Count(s int) int { return int(m[s][0]) + int(m[s][1]) + int(m[s][2]) }

// Pieces returns the total number of pieces.
func (m Material) Pieces() int { return m.Count(0) + m.Count(1) }

// Swap returns the material with the sides exchanged: the slice a quiet
// move of this slice leads to.
func (m Material) Swap() Material { return Material{m[1], m[0]} }

// potential is the number of promotions still possible: a conversion by
// promotion lowers it, so slices are built in ascending (pieces, potential).
func (m Material) potential() int {
	return 2*int(m[0][engine.Pedine]+m[1][engine.Pedine]) + int(m[0][engine.Dama]+m[1][engine.Dama])
}

// String names the material, own side first, e.g. "MDvP": M Damone,
// D Dama, P Pedine, highest rank first.
func (m Material) String() string {
	var b strings.Builder
	for s := 0; s < 2; s++ {
		if s == 1 {
			b.WriteByte('v')
		}
		for r := engine.Damone; ; r-- {
			for i := uint8(0); i < m[s][r]; i++ {
				b.WriteByte(r.Letter())
			}
			if r == engine.Pedine {
				break
			}
		}
	}
	return b.String()
}

// ParseMaterial parses the form String writes.
func ParseMaterial(text string) (Material, error) {
	var m Material
	own, other, ok := strings.Cut(text, "v")
	if !ok || own == "" || other == "" {
		return m, fmt.Errorf("material %q: want OWNvOTHER, e.g. MDvP", text)
	}
	for s, part := range []string{own, other} {
		last := engine.Damone + 1
		for i := 0; i < len(part); i++ {
			var r engine.Rank
			switch part[i] {
			case 'M':
				r = engine.Damone
			case 'D':
				r = engine.Dama
			case 'P':
				r = engine.Pedine
			default:
				return m, fmt.Errorf("material %q: unknown piece letter %q (want M, D or P)", text, part[i])
			}
			if r > last {
				return m, fmt.Errorf("material %q: pieces must be written highest rank first", text)
			}
			last = r
			m[s][r]++
		}
	}
	if m.Pieces() > MaxPieces {
		return m, fmt.Errorf("material %q: more than %d pieces", text, MaxPieces)
	}
	return m, nil
}

// inSet reports whether the material belongs to a set for the win
// condition: both sides have a piece and, for capture-all-Damones, a
// Damone.
func inSet(m Material, wc engine.WinCondition) bool {
	if m.Count(0) == 0 || m.Count(1) == 0 {
		return false
	}
	if wc == engine.CaptureAllDamones && (m[0][engine.Damone] == 0 || m[1][engine.Damone] == 0) {
		return false
	}
	return true
}

// Materials lists every material of a set with at most n pieces, in
// build order: ascending pieces, then promotion potential, then name. A
// conversion (capture or promotion) always leads to an earlier material.
func Materials(n int, wc engine.WinCondition) []Material {
	var out []Material
	var rec func(m Material, left int, slot int)
	rec = func(m Material, left int, slot int) {
		if slot == 6 {
			if inSet(m, wc) {
				out = append(out, m)
			}
			return
		}
		for k := 0; k <= left; k++ {
			m[slot/3][slot%3] = uint8(k)
			rec(m, left-k, slot+1)
		}
	}
	rec(Material{}, n, 0)
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Pieces() != b.Pieces() {
			return a.Pieces() < b.Pieces()
		}
		if a.potential() != b.potential() {
			return a.potential() < b.potential()
		}
		return a.String() < b.String()
	})
	return out
}

// pairs groups materials into {A, A.Swap()} pairs (solved together, since
// quiet moves go from one to the other), in build order, and into levels:
// pairs of one level never depend on each other.
func pairs(ms []Material) [][][2]Material {
	seen := map[Material]bool{}
	var levels [][][2]Material
	lastKey := [2]int{-1, -1}
	for _, m := range ms {
		if seen[m] {
			continue
		}
		seen[m], seen[m.Swap()] = true, true
		a, b := m, m.Swap()
		if b.String() < a.String() {
			a, b = b, a
		}
		key := [2]int{m.Pieces(), m.potential()}
		if key != lastKey {
			levels = append(levels, nil)
			lastKey = key
		}
		levels[len(levels)-1] = append(levels[len(levels)-1], [2]Material{a, b})
	}
	return levels
}
