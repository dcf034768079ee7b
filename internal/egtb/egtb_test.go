package egtb_test

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
)

// TestOracleMatchesSharedPerft checks the test package's own move
// generator against the shared perft counts before any test trusts it.
func TestOracleMatchesSharedPerft(t *testing.T) {
	data, err := os.ReadFile("../../../shared/perft.json")
	if err != nil {
		data, err = os.ReadFile("/work/shared/perft.json")
	}
	if err != nil {
		t.Skipf("shared/perft.json not found: %v", err)
	}
	var doc struct {
		Starts map[string]struct {
			SideToMove string `json:"side_to_move"`
			Pieces     []struct{ Square, Side, Rank string }
			Perft      map[string]uint64
			Divide3    map[string]uint64 `json:"divide_3"`
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Starts) == 0 {
		t.Fatal("no starts in perft.json")
	}
	maxDepth := 5
	if testing.Short() {
		maxDepth = 4
	}
	for name, st := range doc.Starts {
		var p opos
		if st.SideToMove == "black" {
			p.stm = oBlack
		}
		for _, pc := range st.Pieces {
			side := map[string]int{"red": oRed, "black": oBlack}[pc.Side]
			rank := map[string]int{"pedine": oPedine, "dama": oDama, "damone": oDamone}[pc.Rank]
			p.cell[pc.Square[0]-'a'][pc.Square[1]-'1'] = int8(1 + side*3 + rank)
		}
		for d := 1; d <= maxDepth; d++ {
			want, ok := st.Perft[strconv.Itoa(d)]
			if !ok {
				continue
			}
			if got := p.operft(d); got != want {
				t.Errorf("%s: perft %d = %d, shared/perft.json says %d", name, d, got, want)
			}
		}
		for _, m := range p.omoves() {
			q := p.oplay(m)
			if want, ok := st.Divide3[m.text]; !ok || q.operft(2) != want {
				t.Errorf("%s: divide 3 %s = %d, shared/perft.json says %d (listed %v)", name, m.text, q.operft(2), want, ok)
			}
		}
		if len(p.omoves()) != len(st.Divide3) {
			t.Errorf("%s: %d first moves, shared/perft.json lists %d", name, len(p.omoves()), len(st.Divide3))
		}
	}
}

// sets are built once per (pieces, limit) for the whole test binary.
var (
	setsMu sync.Mutex
	sets   = map[[2]int]string{}
)

func builtSet(t *testing.T, pieces, limit int) string {
	t.Helper()
	setsMu.Lock()
	defer setsMu.Unlock()
	if dir, ok := sets[[2]int{pieces, limit}]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "egtb-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := egtb.Build(dir, egtb.Options{Pieces: pieces, Limit: limit, Threads: 2}); err != nil {
		t.Fatal(err)
	}
	sets[[2]int{pieces, limit}] = dir
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range sets {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// randomPosition places a random material of the set (both sides with a
// piece; for capture-all-Damones both with a Damone) on random squares,
// avoiding unpromoted pieces on their own promotion squares.
func randomPosition(rng *rand.Rand, pieces int, damones bool) opos {
	for {
		var p opos
		p.stm = rng.IntN(2)
		var dark []ocoord
		for f := 0; f < 8; f++ {
			for r := 0; r < 8; r++ {
				if (f+r)%2 == 1 {
					dark = append(dark, ocoord{f, r})
				}
			}
		}
		rng.Shuffle(len(dark), func(i, j int) { dark[i], dark[j] = dark[j], dark[i] })
		ok := true
		for i := 0; i < pieces; i++ {
			side := i % 2
			if i >= 2 {
				side = rng.IntN(2)
			}
			rank := rng.IntN(3)
			if damones && i < 2 {
				rank = oDamone
			}
			if opromotes(side, rank, dark[i]) {
				ok = false
			}
			p.cell[dark[i].f][dark[i].r] = int8(1 + side*3 + rank)
		}
		if ok {
			return p
		}
	}
}

func probe(t *testing.T, set *egtb.Set, p *opos, wc engine.WinCondition) egtb.Value {
	t.Helper()
	ep, err := engine.ParsePosition(p.text(0))
	if err != nil {
		t.Fatalf("%s: %v", p.text(0), err)
	}
	v, err := set.Probe(&ep, wc)
	if err != nil {
		t.Fatalf("%s: %v", p.text(0), err)
	}
	return v
}

// checkAgainstSearch compares the tables' category with the exact search
// on sampled positions of every size up to pieces, at counters biased to
// where the category turns (limit − DTC and one more).
func checkAgainstSearch(t *testing.T, pieces, limit, samples int) {
	dir := builtSet(t, pieces, limit)
	set, err := egtb.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(pieces), uint64(limit)))
	cats := map[egtb.Category]int{}
	for _, wc := range []engine.WinCondition{engine.CaptureAllPieces, engine.CaptureAllDamones} {
		solver := &osolver{limit: limit, damones: wc == engine.CaptureAllDamones, memo: map[uint64]int8{}}
		for n := 2; n <= pieces; n++ {
			for i := 0; i < samples; i++ {
				p := randomPosition(rng, n, wc == engine.CaptureAllDamones)
				v := probe(t, set, &p, wc)
				var c int
				switch {
				case v.Rule != 0 && i%2 == 0:
					c = max(limit-v.DTC, 0)
				case v.Rule != 0:
					c = min(limit-v.DTC+1, limit)
				default:
					c = limit - rng.IntN(min(limit, 12)+1)
				}
				if rng.IntN(8) == 0 {
					c = rng.IntN(limit + 1)
				}
				a := v.At(c, limit, set.Limit())
				cats[a.Category]++
				got := map[egtb.Category]int8{egtb.Win: 1, egtb.Loss: -1, egtb.Draw: 0, egtb.CursedWin: 0, egtb.BlessedLoss: 0}[a.Category]
				if a.Category == egtb.Unknown {
					t.Fatalf("%s (%v): unknown at the set's own limit", p.text(c), wc)
				}
				if want := solver.value(&p, c); got != want {
					t.Errorf("%s (%v, limit %d): tables say %v (value %+v), the search %d", p.text(c), wc, limit, a.Category, v, want)
				}
			}
		}
	}
	t.Logf("limit %d, ≤ %d pieces: categories sampled %v", limit, pieces, cats)
	for _, c := range []egtb.Category{egtb.Win, egtb.Draw, egtb.Loss} {
		if cats[c] == 0 {
			t.Errorf("no %v among the samples: the check does not bite", c)
		}
	}
}

func TestTablesMatchSearchLimit80(t *testing.T) {
	n := 600 // per size and win condition: 2,400 positions
	if testing.Short() {
		n = 100
	}
	checkAgainstSearch(t, 3, 80, n)
}

// A small limit is the only way to reach cursed wins and blessed losses
// with few pieces.
func TestTablesMatchSearchLimit20(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 100
	}
	checkAgainstSearch(t, 3, 20, n)
	set, err := egtb.Open(builtSet(t, 3, 20))
	if err != nil {
		t.Fatal(err)
	}
	var cursed, blessed uint64
	for _, e := range set.Manifest.Tables {
		cursed += e.Stats.CursedWins
		blessed += e.Stats.BlessedLosses
	}
	if cursed == 0 || blessed == 0 {
		t.Errorf("limit 20: %d cursed wins, %d blessed losses; want some of each", cursed, blessed)
	}
}

func TestFourPiecesMatchSearch(t *testing.T) {
	if os.Getenv("EGTB_4") == "" {
		t.Skip("set EGTB_4=1 to build the ≤ 4-piece set and check it (a few minutes)")
	}
	checkAgainstSearch(t, 4, 80, 300)
}

func TestVerifyFixedPointAndMirror(t *testing.T) {
	for _, limit := range []int{80, 20} {
		rep, err := egtb.Verify(builtSet(t, 3, limit), 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Errors != 0 || rep.Positions == 0 {
			t.Errorf("limit %d: %d errors over %d positions: %v", limit, rep.Errors, rep.Positions, rep.First)
		}
	}
}

// TestColourSymmetry: a position and its colour swap turned 180° have the
// same value, by the independent search and by the tables.
func TestColourSymmetry(t *testing.T) {
	set, err := egtb.Open(builtSet(t, 3, 80))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	solver := &osolver{limit: 80, memo: map[uint64]int8{}}
	for i := 0; i < 200; i++ {
		p := randomPosition(rng, 2+i%2, false)
		var q opos
		q.stm = p.stm ^ 1
		for f := 0; f < 8; f++ {
			for r := 0; r < 8; r++ {
				if v := p.cell[f][r]; v != 0 {
					side, rank := int(v-1)/3, int(v-1)%3
					q.cell[7-f][7-r] = int8(1 + (side^1)*3 + rank)
				}
			}
		}
		if a, b := probe(t, set, &p, engine.CaptureAllPieces), probe(t, set, &q, engine.CaptureAllPieces); a != b {
			t.Errorf("%s: %+v, its colour swap %s: %+v", p.text(0), a, q.text(0), b)
		}
		c := 76 + i%5
		if a, b := solver.value(&p, c), solver.value(&q, c); a != b {
			t.Errorf("search: %s = %d, its colour swap %s = %d", p.text(c), a, q.text(c), b)
		}
	}
}

// TestRebuildIsByteIdentical builds with one thread and with two, and
// resumes a build with one file missing and one damaged: every file comes
// out the same.
func TestRebuildIsByteIdentical(t *testing.T) {
	ref := builtSet(t, 3, 80) // two threads
	one := t.TempDir()
	if err := egtb.Build(one, egtb.Options{Pieces: 3, Threads: 1}); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, ref, one)
	os.Remove(filepath.Join(one, "MDvP.pieces.dmtb"))
	flipByte(t, filepath.Join(one, "MvMP.damones.dmtb"), 300)
	if err := egtb.Build(one, egtb.Options{Pieces: 3, Threads: 1}); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, ref, one)
}

func sameDirs(t *testing.T, a, b string) {
	t.Helper()
	ea, _ := os.ReadDir(a)
	eb, _ := os.ReadDir(b)
	if len(ea) != len(eb) || len(ea) < 10 {
		t.Fatalf("%d files vs %d", len(ea), len(eb))
	}
	for _, e := range ea {
		x, _ := os.ReadFile(filepath.Join(a, e.Name()))
		y, err := os.ReadFile(filepath.Join(b, e.Name()))
		if err != nil || string(x) != string(y) {
			t.Errorf("%s differs between builds (%v)", e.Name(), err)
		}
	}
}

func flipByte(t *testing.T, path string, at int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[at] ^= 0x20
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkBuild3 builds the ≤ 3-piece set (both win conditions) on one
// thread and reports positions per second.
func BenchmarkBuild3(b *testing.B) {
	var entries uint64
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		if err := egtb.Build(dir, egtb.Options{Pieces: 3, Threads: 1}); err != nil {
			b.Fatal(err)
		}
		m, err := egtb.ReadManifest(dir)
		if err != nil {
			b.Fatal(err)
		}
		entries = 0
		for _, e := range m.Tables {
			entries += e.Entries
		}
	}
	if entries == 0 {
		b.Fatal("nothing built")
	}
	b.ReportMetric(float64(entries)*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
}

// BenchmarkProbe probes sampled ≤ 3-piece positions.
func BenchmarkProbe(b *testing.B) {
	dir := b.TempDir()
	if err := egtb.Build(dir, egtb.Options{Pieces: 3, Threads: 2}); err != nil {
		b.Fatal(err)
	}
	benchProbe(b, dir, 3)
}

// benchSet is a prebuilt set for the benchmarks that need more pieces
// than a benchmark should build (docs/BENCHMARKS.md, Endgame tablebases).
func benchSet(b *testing.B, pieces int) string {
	dir := os.Getenv("EGTB_BENCH_DIR")
	if dir == "" {
		b.Skipf("set EGTB_BENCH_DIR to a built set with at least %d pieces", pieces)
	}
	m, err := egtb.ReadManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	if m.Pieces < pieces {
		b.Fatalf("%s holds up to %d pieces, the benchmark wants %d", dir, m.Pieces, pieces)
	}
	return dir
}

// BenchmarkProbe4 probes sampled 4-piece positions of a set held in
// memory (EGTB_BENCH_DIR).
func BenchmarkProbe4(b *testing.B) { benchProbe(b, benchSet(b, 4), 4) }

// BenchmarkProbe5 probes sampled 5-piece positions of a ≤ 5 set
// (EGTB_BENCH_DIR): its 5-piece tables are held compressed, so a probe
// whose block is not in the cache decompresses it first.
func BenchmarkProbe5(b *testing.B) { benchProbe(b, benchSet(b, 5), 5) }

// BenchmarkOpen4 opens (reads, decompresses and checks) a set of at least
// 4 pieces (EGTB_BENCH_DIR) and reports its entries per second.
func BenchmarkOpen4(b *testing.B) {
	dir := benchSet(b, 4)
	var entries uint64
	for i := 0; i < b.N; i++ {
		set, err := egtb.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		entries = 0
		for _, e := range set.Manifest.Tables {
			entries += e.Entries
		}
	}
	if entries == 0 {
		b.Fatal("nothing opened")
	}
	b.ReportMetric(float64(entries)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkProbeLazy probes sampled 3-piece positions of tables left
// compressed (LazyPieces), with every block cached, and with a one-block
// cache, so nearly every probe decompresses its block.
func BenchmarkProbeLazy(b *testing.B) {
	dir := b.TempDir()
	if err := egtb.Build(dir, egtb.Options{Pieces: 3, Threads: 2}); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		blocks int
	}{{"cached", 1024}, {"decompressing", 1}} {
		b.Run(c.name, func(b *testing.B) {
			restore := egtb.SetLazyForTest(2, c.blocks)
			defer restore()
			benchProbe(b, dir, 3)
		})
	}
}

func benchProbe(b *testing.B, dir string, pieces int) {
	set, err := egtb.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var ps []engine.Position
	for len(ps) < 4096 {
		p := randomPosition(rng, pieces, false)
		ep, err := engine.ParsePosition(p.text(0))
		if err != nil {
			b.Fatal(err)
		}
		ps = append(ps, ep)
	}
	decided := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, err := set.Probe(&ps[i%len(ps)], engine.CaptureAllPieces)
		if err != nil {
			b.Fatal(err)
		}
		decided += btoi(v.Rule != 0)
	}
	if b.N >= len(ps) && decided == 0 {
		b.Fatal("no probe found a win or a loss: the benchmark probes nothing real")
	}
}

func btoi(ok bool) int {
	if ok {
		return 1
	}
	return 0
}
