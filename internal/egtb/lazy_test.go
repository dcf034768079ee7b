package egtb_test

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
)

// ownMaterial names p's material as the file names do, the side to move
// first (the independent generator's pieces, ranks M D P).
func ownMaterial(p *opos) string {
	var s [2]string
	for _, rank := range []int{oDamone, oDama, oPedine} {
		for f := 0; f < 8; f++ {
			for r := 0; r < 8; r++ {
				if v := p.cell[f][r]; v != 0 && int(v-1)%3 == rank {
					side := btoi(int(v-1)/3 != p.stm)
					s[side] += string("PDM"[rank])
				}
			}
		}
	}
	return s[0] + "v" + s[1]
}

// TestLazyTablesAnswerAlike: a set whose tables stay compressed (every
// one here, with a cache of two blocks, so blocks are evicted and
// decompressed again) answers every probe as the set held whole.
func TestLazyTablesAnswerAlike(t *testing.T) {
	dir := builtSet(t, 3, 80)
	whole, err := egtb.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	restore := egtb.SetLazyForTest(2, 2)
	lazy, err := egtb.Open(dir)
	restore()
	if err != nil {
		t.Fatal(err)
	}
	answerAlike(t, whole, lazy, 3, 3000)
}

// answerAlike probes n random positions of 2 and 3 pieces, both win
// conditions, in sets a and b, and fails at the first that answer apart.
func answerAlike(t *testing.T, a, b *egtb.Set, seed uint64, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	for i := 0; i < n; i++ {
		wc := []engine.WinCondition{engine.CaptureAllPieces, engine.CaptureAllDamones}[i%2]
		p := randomPosition(rng, 2+i%2, wc == engine.CaptureAllDamones)
		if x, y := probe(t, a, &p, wc), probe(t, b, &p, wc); x != y {
			t.Fatalf("%s (%v): %+v in one set, %+v in the other", p.text(0), wc, x, y)
		}
	}
}

// TestLazyForgedBlockIsAnError: a file forged with an invalid code and
// matching checksums opens lazily (its codes are not read yet), but every
// probe of its table is an error naming the file, never an answer; the
// other tables still answer.
func TestLazyForgedBlockIsAnError(t *testing.T) {
	dir := copySet(t, builtSet(t, 3, 80))
	reseal(t, dir, victim, func(v []byte) {
		v[firstCode(t, v, func(c byte) bool { return c >= 1 && c <= 80 })] = 100
	})
	restore := egtb.SetLazyForTest(3, 16)
	set, err := egtb.Open(dir)
	restore()
	if err != nil {
		t.Fatalf("lazy open: %v (the forged codes are in a block not read yet)", err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	hit, others := 0, 0
	for i := 0; i < 4000 && hit < 20; i++ {
		p := randomPosition(rng, 3, false)
		ep, err := engine.ParsePosition(p.text(0))
		if err != nil {
			t.Fatal(err)
		}
		_, err = set.Probe(&ep, engine.CaptureAllPieces)
		if ownMaterial(&p)+".pieces.dmtb" != victim {
			if err != nil {
				t.Fatalf("%s: %v", p.text(0), err)
			}
			others++
			continue
		}
		hit++
		var fe *egtb.FileError
		if !errors.As(err, &fe) || filepath.Base(fe.Path) != victim || !strings.Contains(err.Error(), "invalid code") {
			t.Errorf("%s in the forged table: Probe gave %v, want an error naming %s", p.text(0), err, victim)
		}
	}
	if hit == 0 || others == 0 {
		t.Fatalf("sampled %d positions of %s and %d of other tables; want some of each", hit, victim, others)
	}
}

// TestOpenInMemoryChecksEveryCode: OpenInMemory holds every table
// decompressed, whatever LazyPieces says, so it reads and checks every
// entry code at open: the forged file a lazy Open accepts (its block not
// read yet) is refused at once, naming it; the sound set opened in memory
// answers as the lazy one does.
func TestOpenInMemoryChecksEveryCode(t *testing.T) {
	sound := builtSet(t, 3, 80)
	dir := copySet(t, sound)
	reseal(t, dir, victim, func(v []byte) {
		v[firstCode(t, v, func(c byte) bool { return c >= 1 && c <= 80 })] = 100
	})
	restore := egtb.SetLazyForTest(2, 2)
	defer restore()
	if _, err := egtb.Open(dir); err != nil {
		t.Fatalf("lazy open of the forged set: %v; want it opened (the forged block not read yet)", err)
	}
	var fe *egtb.FileError
	if _, err := egtb.OpenInMemory(dir); !errors.As(err, &fe) || filepath.Base(fe.Path) != victim || !strings.Contains(err.Error(), "invalid code") {
		t.Fatalf("OpenInMemory of the forged set: %v; want an error naming %s and its invalid code", err, victim)
	}
	lazy, err := egtb.Open(sound)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := egtb.OpenInMemory(sound)
	if err != nil {
		t.Fatal(err)
	}
	answerAlike(t, whole, lazy, 7, 2000)
}
