package engine

// Perft against the project's reference counts (shared/perft.json, worked
// out from RULES.md independently of this engine). The numbers are embedded
// here so the test runs on a clean clone without ../shared.
//
//	go test ./internal/engine/ -run Perft -long   # adds depth 7

import (
	"flag"
	"testing"
)

var long = flag.Bool("long", false, "run deep perft")

type perftStart struct {
	name       string
	stm        Side
	setup      Setup
	red, black string // the pieces as listed in perft.json
	counts     []uint64
	divide3    map[string]uint64
}

var perftStarts = []perftStart{
	{
		name: "standard_red", stm: Red, setup: SetupStandard,
		red:    "Pd1,Df1,Mh1,Pe2,Pf3,Dh3,Pg4,Ph5",
		black:  "Pa4,Pb5,Da6,Pc6,Pd7,Ma8,Dc8,Pe8",
		counts: []uint64{1, 8, 64, 569, 4703, 42778, 374398, 3296118},
		divide3: map[string]uint64{
			"d1-c2": 78, "e2-d3": 92, "f1-g2": 48, "f3-e4": 85,
			"g4-f5": 92, "h1-g2": 48, "h3-g2": 48, "h5-g6": 78,
		},
	},
	{
		name: "standard_black", stm: Black, setup: SetupStandard,
		red:    "Pd1,Df1,Mh1,Pe2,Pf3,Dh3,Pg4,Ph5",
		black:  "Pa4,Pb5,Da6,Pc6,Pd7,Ma8,Dc8,Pe8",
		counts: []uint64{1, 8, 64, 569, 4703, 42778, 374398, 3296118},
		divide3: map[string]uint64{
			"a4-b3": 78, "a6-b7": 48, "a8-b7": 48, "b5-c4": 92,
			"c6-d5": 85, "c8-b7": 48, "d7-e6": 92, "e8-f7": 78,
		},
	},
	{
		name: "nodamone_red", stm: Red, setup: SetupNoDamone,
		red:    "Df1,Dh1,Pe2,Pf3,Dh3,Pg4",
		black:  "Pb5,Da6,Pc6,Pd7,Da8,Dc8",
		counts: []uint64{1, 8, 64, 546, 4477, 39174, 333742, 2912207},
		divide3: map[string]uint64{
			"e2-d1": 80, "e2-d3": 78, "f1-g2": 48, "f3-e4": 86,
			"g4-f5": 78, "g4-h5": 80, "h1-g2": 48, "h3-g2": 48,
		},
	},
}

func (s perftStart) position(t *testing.T) Position {
	t.Helper()
	p := xtPos(t, s.stm, s.red, s.black)
	start, err := StartPosition(s.setup, s.stm)
	if err != nil {
		t.Fatal(err)
	}
	if start != p {
		t.Fatalf("%s: StartPosition differs from the perft.json pieces: %v vs %v", s.name, start.Pieces(), p.Pieces())
	}
	return p
}

func TestPerftReference(t *testing.T) {
	maxDepth := 6
	if testing.Short() {
		maxDepth = 5
	}
	if *long {
		maxDepth = 7
	}
	for _, s := range perftStarts {
		t.Run(s.name, func(t *testing.T) {
			p := s.position(t)
			for d := 0; d <= maxDepth; d++ {
				before := p
				if got := Perft(&p, d); got != s.counts[d] {
					t.Errorf("Perft(%d) = %d, want %d", d, got, s.counts[d])
				}
				if p != before {
					t.Fatalf("Perft(%d) changed the position", d)
				}
			}
		})
	}
}

func TestPerftNoBulkEqualsBulk(t *testing.T) {
	for _, s := range perftStarts {
		p := s.position(t)
		for d := 1; d <= 5; d++ {
			if a, b := Perft(&p, d), PerftNoBulk(&p, d); a != b || b != s.counts[d] {
				t.Errorf("%s depth %d: Perft %d, PerftNoBulk %d, want %d", s.name, d, a, b, s.counts[d])
			}
		}
	}
	// Also on positions with captures at the leaves: the random positions
	// of the reference test.
	for _, fen := range [][3]string{
		{"r", "Dd3,Pa2,Mh1", "Pe4,Pg4,Pg2,Pe2,Pc6,Ma8"},
		{"b", "Pd1,Pe2,Me4,Df3", "Pc2,Pc4,Pe6,Md5,Pf5,Dg6"},
	} {
		stm := Red
		if fen[0] == "b" {
			stm = Black
		}
		p := xtPos(t, stm, fen[1], fen[2])
		for d := 1; d <= 5; d++ {
			if a, b := Perft(&p, d), PerftNoBulk(&p, d); a != b {
				t.Errorf("%v depth %d: Perft %d, PerftNoBulk %d", fen, d, a, b)
			}
		}
	}
}

func TestPerftDivide3(t *testing.T) {
	for _, s := range perftStarts {
		t.Run(s.name, func(t *testing.T) {
			p := s.position(t)
			entries := Divide(&p, 3)
			if len(entries) != len(s.divide3) {
				t.Errorf("Divide(3): %d entries, want %d", len(entries), len(s.divide3))
			}
			var sum uint64
			for _, e := range entries {
				sum += e.Nodes
				want, ok := s.divide3[e.Move.String()]
				if !ok {
					t.Errorf("Divide(3): unexpected first move %s", e.Move)
				} else if e.Nodes != want {
					t.Errorf("Divide(3) %s: %d, want %d", e.Move, e.Nodes, want)
				}
			}
			if sum != s.counts[3] {
				t.Errorf("Divide(3) sums to %d, want %d", sum, s.counts[3])
			}
		})
	}
}
