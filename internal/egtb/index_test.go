package egtb

import (
	"math/bits"
	"testing"
)

// TestUnindexTables checks the combination tables unindex reads: each
// holds every k-square mask once, in increasing order; and every entry of
// sampled materials unindexes to the board the rank-by-rank search gives,
// which indexes back to the entry (by index and by an indexer, which unindexes alike).
func TestUnindexTables(t *testing.T) {
	for k := 1; k < len(combos); k++ {
		if uint64(len(combos[k])) != binom[32][k] {
			t.Fatalf("combos[%d]: %d masks, want C(32,%d) = %d", k, len(combos[k]), k, binom[32][k])
		}
		for r, x := range combos[k] {
			if bits.OnesCount32(x) != k || r > 0 && x <= combos[k][r-1] {
				t.Fatalf("combos[%d][%d] = %#x", k, r, x)
			}
		}
	}
	for _, name := range []string{"MvP", "PPvP", "MDvPP", "PPPPvM", "MvMMMM", "PPvMD", "DDvDD"} {
		m, err := ParseMaterial(name)
		if err != nil {
			t.Fatal(err)
		}
		n := Size(m)
		ix := newIndexer(&m)
		step := max(n/20000, 1)
		for i := uint64(0); i < n; i += step {
			b := unindex(i, &m)
			var want board
			var occ uint32
			idx, free := i, 32
			var digits [6]uint64
			for j := 5; j >= 0; j-- {
				g := groupOrder[j]
				f := 32
				for _, h := range groupOrder[:j] {
					f -= int(m[h[0]][h[1]])
				}
				if k := int(m[g[0]][g[1]]); k > 0 {
					digits[j] = idx % binom[f][k]
					idx /= binom[f][k]
				}
			}
			for j, g := range groupOrder {
				k := int(m[g[0]][g[1]])
				if k > 0 {
					want[g[0]][g[1]] = unrank(digits[j], k, free, occ)
				}
				occ |= want[g[0]][g[1]]
				free -= k
			}
			if b != want || b.material() != m {
				t.Fatalf("%s entry %d: unindex %v, want %v", name, i, b, want)
			}
			if got := index(&b, &m); got != i {
				t.Fatalf("%s entry %d: indexes back to %d", name, i, got)
			}
			if ix.unindex(uint32(i)) != b {
				t.Fatalf("%s entry %d: the indexer unindexes %v", name, i, ix.unindex(uint32(i)))
			}
			if got := ix.index(&b); got != i {
				t.Fatalf("%s entry %d: the indexer gives %d", name, i, got)
			}
		}
	}
}

// TestHasCaptureMatchesEngine checks the board's own capture test against
// the engine's move generator on sampled entries of materials with every
// rank on both sides.
func TestHasCaptureMatchesEngine(t *testing.T) {
	seen := [2]int{}
	sampleEntries(t, []string{"PvP", "DvP", "PvD", "MvD", "DvM", "MDvPP", "PPvMD", "MPvDP", "DDvMM"}, func(name string, i uint64, b *board) {
		p := b.position(0)
		want := p.HasCapture()
		if got := b.hasCapture(); got != want {
			t.Fatalf("%s entry %d (%s): hasCapture %v, engine %v", name, i, p.String(), got, want)
		}
		seen[btoi(want)]++
	})
	if seen[0] < 1000 || seen[1] < 1000 {
		t.Fatalf("sampled %d positions without a capture and %d with one: too few of one kind", seen[0], seen[1])
	}
}

// TestStepsMatchEngine checks the board's own step generator against the
// engine's on sampled entries without a capture: as many quiet steps, and
// the same children of the promoting ones.
func TestStepsMatchEngine(t *testing.T) {
	promos := 0
	sampleEntries(t, []string{"PvP", "DvP", "PvD", "MvD", "PPvM", "MDvPP", "DPvMD", "PPPvM", "DDvMM"}, func(name string, i uint64, b *board) {
		if b.hasCapture() {
			return
		}
		p := b.position(0)
		want := map[board]bool{}
		wantQuiet := 0
		for _, mv := range p.GenerateMoves(nil) {
			if _, promo := mv.Promotion(); !promo {
				wantQuiet++
				continue
			}
			q := p.After(&mv)
			want[fromEngine(&q)] = true
		}
		var buf [maxSteps]board
		nq, np := b.steps(&buf)
		got := map[board]bool{}
		for _, c := range buf[:np] {
			got[c] = true
		}
		if nq != wantQuiet || np != len(want) || len(got) != len(want) {
			t.Fatalf("%s entry %d (%s): %d quiet and %d promoting steps, engine %d and %d", name, i, p.String(), nq, np, wantQuiet, len(want))
		}
		for c := range want {
			if !got[c] {
				t.Fatalf("%s entry %d (%s): a promotion's child is missing", name, i, p.String())
			}
		}
		promos += np
	})
	if promos < 100 {
		t.Fatalf("only %d promoting steps sampled", promos)
	}
}

// sampleEntries calls f with about 5,000 evenly spaced entries of each
// material named, broken ones left out.
func sampleEntries(t *testing.T, names []string, f func(name string, i uint64, b *board)) {
	t.Helper()
	for _, name := range names {
		m, err := ParseMaterial(name)
		if err != nil {
			t.Fatal(err)
		}
		n := Size(m)
		for i := uint64(0); i < n; i += max(n/5000, 1) {
			if b := unindex(i, &m); !b.broken() {
				f(name, i, &b)
			}
		}
	}
}
