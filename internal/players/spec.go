package players

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/damone-rules/damone/internal/search"
)

// Spec is a parsed player specification; New builds a fresh player from
// it (one per goroutine). The syntax is KIND[:KEY=VALUE[,KEY=VALUE...]]:
//
//	engine:movetime=100ms    search for up to 100 ms a move (the default)
//	engine:nodes=200000      search 200000 nodes a move (reproducible)
//	engine:depth=8           search to depth 8
//	engine:movetime=1s,hash=64   keys combine; hash is the table in MiB
//	engine:movetime=100ms,egtb=on   search with the endgame tables the caller gives (NewWithTables)
//	engine:nodes=100000,contempt=100  a draw costs the engine 1 Pedine unless clearly behind (0: none; default 25)
//	random                   a uniformly random legal move
//	greedy                   the move leaving the most material, ties at random
//	playout:movetime=100ms   Dagaz-style playouts for 100 ms a move (the default)
//	playout:playouts=50,plies=20  50 playouts of 20 plies per root move (reproducible)
type Spec struct {
	Kind     string // engine, random, greedy, playout
	MoveTime time.Duration
	Nodes    int64
	Depth    int
	HashMB   int
	Playouts int
	Plies    int
	Tables   bool // engine: search with endgame tables (egtb=on)
	// Contempt is the engine's search.Options.Contempt (0: the default;
	// contempt=0 is search.NoContempt).
	Contempt search.Score
	text     string
}

// String returns the specification as written.
func (s Spec) String() string { return s.text }

// ParseSpec parses a player specification (see Spec).
func ParseSpec(text string) (Spec, error) {
	kind, params, _ := strings.Cut(strings.TrimSpace(text), ":")
	s := Spec{Kind: strings.ToLower(kind), text: text}
	allowed := map[string][]string{
		"engine":  {"movetime", "nodes", "depth", "hash", "egtb", "contempt"},
		"random":  nil,
		"greedy":  nil,
		"playout": {"movetime", "playouts", "plies"},
	}
	keys, ok := allowed[s.Kind]
	if !ok {
		return Spec{}, fmt.Errorf("player %q: unknown kind %q (want engine, random, greedy or playout)", text, kind)
	}
	if params != "" {
		for _, kv := range strings.Split(params, ",") {
			k, v, found := strings.Cut(kv, "=")
			if !found || v == "" {
				return Spec{}, fmt.Errorf("player %q: %q is not KEY=VALUE", text, kv)
			}
			known := false
			for _, a := range keys {
				known = known || a == k
			}
			if !known {
				return Spec{}, fmt.Errorf("player %q: unknown key %q for %s (want one of %s)", text, k, s.Kind, strings.Join(keys, ", "))
			}
			var err error
			switch k {
			case "egtb":
				switch v {
				case "on":
					s.Tables = true
				case "off":
				default:
					err = fmt.Errorf("want on or off")
				}
			case "contempt":
				var n int
				n, err = strconv.Atoi(v)
				switch {
				case err != nil:
				case n < 0 || n > int(search.MaxContempt):
					err = fmt.Errorf("want 0 to %d hundredths of a Pedine", search.MaxContempt)
				case n == 0:
					s.Contempt = search.NoContempt
				default:
					s.Contempt = search.Score(n)
				}
			case "movetime":
				s.MoveTime, err = time.ParseDuration(v)
				if err == nil && s.MoveTime <= 0 {
					err = fmt.Errorf("must be positive")
				}
			case "nodes":
				s.Nodes, err = strconv.ParseInt(v, 10, 64)
				if err == nil && s.Nodes <= 0 {
					err = fmt.Errorf("must be positive")
				}
			default:
				var n int
				n, err = strconv.Atoi(v)
				if err == nil && n <= 0 {
					err = fmt.Errorf("must be positive")
				}
				switch k {
				case "depth":
					s.Depth = n
				case "hash":
					s.HashMB = n
				case "playouts":
					s.Playouts = n
				case "plies":
					s.Plies = n
				}
			}
			if err != nil {
				return Spec{}, fmt.Errorf("player %q: %s=%q: %v", text, k, v, err)
			}
		}
	}
	switch s.Kind {
	case "engine":
		if s.MoveTime == 0 && s.Nodes == 0 && s.Depth == 0 {
			s.MoveTime = defaultMoveTime
		}
	case "playout":
		if s.MoveTime > 0 && s.Playouts > 0 {
			return Spec{}, fmt.Errorf("player %q: give movetime or playouts, not both", text)
		}
	}
	return s, nil
}

// Deterministic reports whether the player's moves depend only on the
// position, history and seed (not on the clock).
func (s Spec) Deterministic() bool {
	switch s.Kind {
	case "engine", "playout":
		return s.MoveTime == 0
	}
	return true
}

// NewWithTables returns a new player of the specification that, if it
// is an engine asking for tables (egtb=on), searches with tb.
func (s Spec) NewWithTables(tb search.Tablebase) Player {
	p := s.New()
	if e, ok := p.(*Engine); ok && s.Tables {
		e.Tables = tb
	}
	return p
}

// New returns a new player of the specification (an engine asking for
// tables gets none; see NewWithTables).
func (s Spec) New() Player {
	switch s.Kind {
	case "engine":
		e := NewEngine(search.Limits{Depth: s.Depth, Nodes: s.Nodes, MoveTime: s.MoveTime}, s.HashMB)
		e.Contempt = s.Contempt
		return e
	case "random":
		return NewRandom()
	case "greedy":
		return NewGreedy()
	case "playout":
		return NewPlayout(s.MoveTime, s.Playouts, s.Plies)
	}
	panic("players: New on an unparsed Spec")
}
