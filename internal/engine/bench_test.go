package engine

import "testing"

// Perft benchmarks report leaf nodes per second as "nodes/s"; run with
//
//	go test ./internal/engine -run '^$' -bench Perft -benchtime 5x
func benchmarkPerft(b *testing.B, setup Setup, depth int, bulk bool) {
	p, _ := StartPosition(setup, Red)
	s := newPerftState(&p, depth)
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		if bulk {
			nodes += s.bulk(depth)
		} else {
			nodes += s.full(depth)
		}
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

func BenchmarkPerftBulkStandard8(b *testing.B)   { benchmarkPerft(b, SetupStandard, 8, true) }
func BenchmarkPerftNoBulkStandard7(b *testing.B) { benchmarkPerft(b, SetupStandard, 7, false) }
func BenchmarkPerftBulkNoDamone8(b *testing.B)   { benchmarkPerft(b, SetupNoDamone, 8, true) }

// movegenPositions are the fixed positions of BenchmarkGenerateMoves:
// quiet openings, capture-heavy middlegames, priority-deciding and
// promotion positions.
var movegenPositions = []string{
	"R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0", // standard start
	"B:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0", // start, Black to move
	"R:RDh1,Df1,Dh3,Pe2,Pf3,Pg4:BDa8,Da6,Dc8,Pb5,Pc6,Pd7:0",                 // no-Damone start
	"R:RMe4,Dd3,Pf3,Pg2:BMa8,Dh7,Pb7,Pf7:12",                                // open quiet middlegame
	"R:RDd3:BPe4,Pg4,Pg2,Pe2:0",                                             // the duplicate loop
	"R:RPc4:BPb5,Pb7:0",                                                     // capture ending in promotion
	"R:RPc4:BPb5,Db7:0",                                                     // promotion on a6, stop
	"R:RMe4,Me2:BMd5,Mf5,Pd3,Pf3,Dd7,Df7,Pg6:0",                             // two Damones, priority by captured ranks
	"R:RMf3,Dd3,Ph3:BPe4,Pg4,Pe6,Pg6,Pc4,Pc6:0",                             // many branching captures
	"B:RDd3,Df3,Ph3,Pc4,Pe4,Pg4:BMe6,Dd5,Df5:0",                             // Black captures, rank decides
	"R:RDa2,Dc2,De2,Dg2:BPb3,Pd3,Pf3,Pb5,Pd5,Pf5:0",                         // capture-heavy, four capturers
}

// BenchmarkGenerateMoves generates the legal moves of every position in
// movegenPositions into one caller-provided buffer; ns/op is per position.
func BenchmarkGenerateMoves(b *testing.B) {
	ps := make([]Position, len(movegenPositions))
	for i, t := range movegenPositions {
		p, err := ParsePosition(t)
		if err != nil {
			b.Fatalf("position %d: %v", i, err)
		}
		ps[i] = p
	}
	buf := make([]Move, 0, 128)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = ps[i%len(ps)].GenerateMoves(buf)
	}
}

// TestNoAllocations checks that perft (with and without bulk counting) and
// move generation into a caller's buffer allocate nothing once their
// buffers exist, on quiet and capture-heavy positions alike.
func TestNoAllocations(t *testing.T) {
	for _, text := range movegenPositions {
		p, err := ParsePosition(text)
		if err != nil {
			t.Fatal(err)
		}
		s := newPerftState(&p, 4)
		if n := testing.AllocsPerRun(5, func() { s.bulk(4) }); n != 0 {
			t.Errorf("%s: perft(4) with bulk counting allocates %v times per run", text, n)
		}
		s3 := newPerftState(&p, 3)
		if n := testing.AllocsPerRun(5, func() { s3.full(3) }); n != 0 {
			t.Errorf("%s: perft(3) without bulk counting allocates %v times per run", text, n)
		}
		buf := make([]Move, 0, 128)
		if n := testing.AllocsPerRun(100, func() { buf = p.GenerateMoves(buf) }); n != 0 {
			t.Errorf("%s: GenerateMoves allocates %v times per call", text, n)
		}
	}
}
