//go:build faults

package faulttest

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/damone-rules/damone/internal/engine"
)

// gstate is a game as the model sees it: what every call reads or
// changes, as a comparable value.
type gstate struct {
	Moves   string // the full notations played, space-separated
	Ply     int
	Pos     string // the position's text
	Outcome int    // result*16 + reason, as the API's enum numbers; 0 going on
	Offer   int    // the side with a pending draw offer: 1 red, 2 black, 0 none
	Seq     int64  // last_event_sequence
}

// op kinds.
const (
	kGet    = "get"
	kMove   = "move"
	kResign = "resign"
	kOffer  = "offer"
	kAnswer = "answer"
)

// input is one call's request as the model needs it.
type input struct {
	Kind   string
	Game   string // resource name
	Side   int    // 1 red, 2 black (writes)
	Move   string
	ExpPly int // -1: no precondition
	Accept bool
	ReqID  string
	Basic  bool // GetGame's basic view: no moves
}

// output is one call's answer: Unknown when the call's effect is not
// known (an error that leaves it open), else Code ("" for OK, else the
// error's reason) and, on OK, the game it returned.
type output struct {
	Unknown bool
	Code    string
	St      gstate
	Partial bool   // St has no Moves (basic view, write responses)
	Played  string // MakeMove: the move's full notation
	EvSeq   int64  // MakeMove: its event's sequence
}

// replay returns a fresh engine game after moves (a cached prefix copy).
func replay(moves string) (*engine.Game, error) {
	g, err := engine.NewGame(engine.DefaultVariant())
	if err != nil {
		return nil, err
	}
	if moves == "" {
		return g, nil
	}
	for _, m := range strings.Fields(moves) {
		if _, err := g.PlayText(m); err != nil {
			return nil, fmt.Errorf("replaying %q: %v", moves, err)
		}
	}
	return g, nil
}

func initState() gstate {
	g, _ := replay("")
	return gstate{Pos: g.Position().String(), Seq: 1}
}

func outcomeNum(o engine.Outcome) int { return int(o.Result)*16 + int(o.Reason) }

// apply is the model's step: the error reason the call must get on s, or
// the state after it.
func apply(s gstate, in input) (string, gstate) {
	over := s.Outcome != 0
	switch in.Kind {
	case kGet:
		return "", s
	case kMove:
		if in.ExpPly >= 0 && in.ExpPly != s.Ply {
			return "PLY_MISMATCH", s
		}
		if over {
			return "GAME_OVER", s
		}
		g, err := replay(s.Moves)
		if err != nil {
			return "MODEL:" + err.Error(), s
		}
		if p := g.Position(); int(p.SideToMove())+1 != in.Side {
			return "NOT_YOUR_TURN", s
		}
		m, err := g.PlayText(in.Move)
		if err != nil {
			var me *engine.MoveError
			if errors.As(err, &me) && me.Code == engine.MoveAmbiguous {
				return "AMBIGUOUS_MOVE", s
			}
			if errors.As(err, &me) && me.Code == engine.MoveMalformed {
				return "INVALID_REQUEST", s
			}
			return "ILLEGAL_MOVE", s
		}
		n := s
		if n.Offer != 0 && n.Offer != in.Side { // moving declines the opponent's offer
			n.Offer = 0
			n.Seq++
		}
		n.Moves = strings.TrimSpace(n.Moves + " " + m.String())
		n.Ply++
		n.Pos = g.Position().String()
		n.Seq++
		if o := g.Outcome(); o.Over() {
			n.Outcome = outcomeNum(o)
			n.Offer = 0
			n.Seq++
		}
		return "", n
	case kResign, kOffer, kAnswer:
		if over {
			return "GAME_OVER", s
		}
		n := s
		switch in.Kind {
		case kResign:
			n.Outcome = outcomeNum(engine.Outcome{Result: engine.WinFor(engine.Side(in.Side-1) ^ 1), Reason: engine.Resignation})
			n.Offer = 0
		case kOffer:
			if s.Offer != 0 {
				return "DRAW_ALREADY_OFFERED", s
			}
			n.Offer = in.Side
		case kAnswer:
			if s.Offer == 0 || s.Offer == in.Side {
				return "NO_DRAW_OFFER", s
			}
			n.Offer = 0
			if in.Accept {
				n.Outcome = outcomeNum(engine.Outcome{Result: engine.Draw, Reason: engine.AgreedDraw})
			}
		}
		n.Seq++
		return "", n
	}
	return "MODEL:unknown kind " + in.Kind, s
}

// step is the porcupine step: a definite answer must be the model's, an
// unknown one may have happened (it is placed where it fits; with no
// return time it may also be placed after everything).
func step(st interface{}, i, o interface{}) (bool, interface{}) {
	s, in, out := st.(gstate), i.(input), o.(output)
	code, next := apply(s, in)
	if out.Unknown {
		if code != "" {
			return true, s
		}
		return true, next
	}
	if out.Code != "" {
		// ABORTED after losing every retry of a race is a definite no-op
		// for a call without a precondition too.
		if out.Code == "PLY_MISMATCH" && code == "" && (in.Kind != kMove || in.ExpPly < 0) {
			return true, s
		}
		return out.Code == code, s
	}
	if code != "" {
		return false, s
	}
	got := out.St
	if out.Partial {
		got.Moves = next.Moves
	}
	if in.Kind == kMove {
		last := next.Moves[strings.LastIndexByte(next.Moves, ' ')+1:]
		evSeq := next.Seq
		if next.Outcome != 0 {
			evSeq-- // the game_ended event follows the move's
		}
		if out.Played != last || out.EvSeq != evSeq {
			return false, s
		}
	}
	return got == next, next
}

var gameModel = porcupine.Model{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		by := map[string][]porcupine.Operation{}
		var order []string
		for _, op := range h {
			g := op.Input.(input).Game
			if _, ok := by[g]; !ok {
				order = append(order, g)
			}
			by[g] = append(by[g], op)
		}
		out := make([][]porcupine.Operation, 0, len(order))
		for _, g := range order {
			out = append(out, by[g])
		}
		return out
	},
	Init:  func() interface{} { return initState() },
	Step:  step,
	Equal: func(a, b interface{}) bool { return a.(gstate) == b.(gstate) },
	Hash: func(s interface{}) uint64 {
		h := fnv.New64a()
		fmt.Fprintf(h, "%+v", s.(gstate))
		return h.Sum64()
	},
	DescribeOperation: func(i, o interface{}) string {
		in, out := i.(input), o.(output)
		var b strings.Builder
		fmt.Fprintf(&b, "%s", in.Kind)
		switch in.Kind {
		case kMove:
			fmt.Fprintf(&b, " side=%d %s exp=%d id=%s", in.Side, in.Move, in.ExpPly, in.ReqID)
		case kAnswer:
			fmt.Fprintf(&b, " side=%d accept=%v", in.Side, in.Accept)
		case kResign, kOffer:
			fmt.Fprintf(&b, " side=%d", in.Side)
		}
		switch {
		case out.Unknown:
			b.WriteString(" -> unknown")
		case out.Code != "":
			b.WriteString(" -> " + out.Code)
		default:
			fmt.Fprintf(&b, " -> ply %d seq %d outcome %d offer %d", out.St.Ply, out.St.Seq, out.St.Outcome, out.St.Offer)
		}
		return b.String()
	},
	DescribeState: func(st interface{}) string {
		s := st.(gstate)
		return fmt.Sprintf("ply %d seq %d outcome %d offer %d", s.Ply, s.Seq, s.Outcome, s.Offer)
	},
}
