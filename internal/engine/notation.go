package engine

import (
	"fmt"
	"strings"
)

// MoveErrorCode classifies why a move was refused.
type MoveErrorCode uint8

const (
	// MoveMalformed: the text is not move notation (bad square, separator...).
	MoveMalformed MoveErrorCode = iota + 1
	// MoveNoPiece: no piece stands on the origin square.
	MoveNoPiece
	// MoveWrongSide: the piece on the origin belongs to the side not to move.
	MoveWrongSide
	// MoveCaptureCompulsory: a step was given while a capture exists.
	MoveCaptureCompulsory
	// MoveIncomplete: the capture sequence stops while a further leap exists.
	MoveIncomplete
	// MoveLowerPriority: a complete sequence that a longer or
	// higher-priority sequence excludes (RULES.md, Captures, Priority).
	MoveLowerPriority
	// MoveAmbiguous: a short form matching several legal moves.
	MoveAmbiguous
	// MoveIllegal: any other move the piece cannot make (not a diagonal
	// step, backward Pedine, occupied square, rank too low to capture...).
	MoveIllegal
	// MoveNoLegalMoves: the side to move has no legal move at all.
	MoveNoLegalMoves
)

var moveErrorNames = [...]string{"", "malformed", "no piece", "wrong side",
	"capture compulsory", "incomplete sequence", "lower priority", "ambiguous",
	"illegal", "no legal moves"}

func (c MoveErrorCode) String() string {
	if int(c) < len(moveErrorNames) {
		return moveErrorNames[c]
	}
	return fmt.Sprintf("MoveErrorCode(%d)", uint8(c))
}

// MoveError explains why a move text was refused.
type MoveError struct {
	Text       string        // the move as given
	Code       MoveErrorCode // the kind of refusal
	Reason     string        // a sentence for people, naming squares and pieces
	Candidates []Move        // for MoveAmbiguous, the matching moves
}

func (e *MoveError) Error() string { return fmt.Sprintf("move %s: %s", Quote(e.Text), e.Reason) }

// ParseMove reads a move in the notation of RULES.md, Notation, and returns
// the legal move it names. It accepts a step ("e2-d3"), a capture with all
// its landing squares ("f3xd5xb7"), any equivalent path of a move listed
// once for several paths, and the short form origin x destination
// ("f3xb7") when exactly one legal move matches. Any other input is a
// *MoveError saying why: malformed text, no piece, the other side's piece,
// a compulsory capture, an incomplete or lower-priority sequence, an
// ambiguous short form (listing the candidates), or an illegal step or leap.
func (p *Position) ParseMove(text string) (Move, error) {
	m, _, err := p.parseMove(text, nil)
	return m, err
}

// parseMove is ParseMove with the legal moves generated into buf (reusing
// its storage), which it returns for the next call: a game replayed move
// by move then allocates no move list per ply. A step in the canonical
// form is checked directly, without generating the legal moves.
func (p *Position) parseMove(text string, buf []Move) (Move, []Move, error) {
	var scratch [MaxCaptures + 1]Square
	squares, capture, ok := scanMove(text, &scratch)
	if !ok {
		var err error
		if squares, capture, err = splitMove(text); err != nil {
			return Move{}, buf, err
		}
	}
	from, to := squares[0], squares[len(squares)-1]
	if !capture {
		if m, ok := p.step(from, to); ok {
			return m, buf, nil
		}
	}
	if buf == nil {
		buf = make([]Move, 0, 32)
	}
	legal := p.GenerateMoves(buf)

	if !capture {
		for i := range legal {
			if m := &legal[i]; m.n == 0 && m.from == from && m.to == to {
				return *m, legal, nil
			}
		}
	} else {
		path := squares[1:]
		for i := range legal {
			if m := &legal[i]; m.n == uint8(len(path)) && m.from == from && samePath(m.path[:m.n], path) {
				return *m, legal, nil
			}
		}
		if set, why := p.checkLeaps(from, path); why == "" {
			for i := range legal {
				if m := &legal[i]; m.from == from && m.to == to && m.captured == set {
					return *m, legal, nil
				}
			}
		}
		if len(path) == 1 {
			var cands []Move
			for i := range legal {
				if legal[i].n > 0 && legal[i].from == from && legal[i].to == to {
					cands = append(cands, legal[i])
				}
			}
			switch len(cands) {
			case 1:
				return cands[0], legal, nil
			case 0:
			default:
				return Move{}, legal, &MoveError{text, MoveAmbiguous, fmt.Sprintf(
					"ambiguous: %d legal moves go from %s to %s: %s; give every landing square",
					len(cands), from, to, joinMoves(cands)), cands}
			}
		}
	}
	return Move{}, legal, p.explain(text, squares, capture, legal)
}

// step returns the step from -> to if it is a legal move: the side to
// move has no capture, its piece on from may move in that direction, and
// to is the empty neighbour that way. It is the move GenerateMoves lists
// for it.
func (p *Position) step(from, to Square) (Move, bool) {
	us := p.stm
	if p.occ[us]&bit(from) == 0 {
		return Move{}, false
	}
	d, ok := direction(from, to, 1)
	if !ok || neighbour[from][d] != to || (p.occ[Red]|p.occ[Black])&bit(to) != 0 {
		return Move{}, false
	}
	r := Pedine
	switch {
	case p.pieces[us][Dama]&bit(from) != 0:
		r = Dama
	case p.pieces[us][Damone]&bit(from) != 0:
		r = Damone
	}
	if dirsOf(us, r)&(1<<d) == 0 {
		return Move{}, false
	}
	if _, any := p.capturers(); any {
		return Move{}, false
	}
	return Move{from: from, to: to, rank: r, promo: promotionSquares[us][r]&bit(to) != 0}, true
}

// scanMove reads the common forms of move notation without allocating:
// two or more squares named by a file a-h (either case) and a rank 1-8,
// joined by '-' (exactly two squares) or by 'x' or 'X' (up to
// MaxCaptures+1), every square a playing square, nothing else. For those
// it returns what splitMove would; ok is false for anything else (white
// space, errors, other characters), which splitMove then reads.
func scanMove(text string, out *[MaxCaptures + 1]Square) (squares []Square, capture bool, ok bool) {
	if len(text) < 5 || len(text)%3 != 2 || len(text) > 3*MaxCaptures+2 {
		return nil, false, false
	}
	sep := text[2]
	switch sep {
	case '-':
		if len(text) != 5 {
			return nil, false, false
		}
	case 'x', 'X':
		capture = true
	default:
		return nil, false, false
	}
	n := 0
	for i := 0; i < len(text); i += 3 {
		if i > 0 {
			if c := text[i-1]; c != sep && !(capture && (c == 'x' || c == 'X')) {
				return nil, false, false
			}
		}
		f, r := text[i]|0x20, text[i+1]
		if f < 'a' || f > 'h' || r < '1' || r > '8' {
			return nil, false, false
		}
		s := NewSquare(int(f-'a'), int(r-'1'))
		if !s.Valid() {
			return nil, false, false
		}
		out[n] = s
		n++
	}
	return out[:n], capture, true
}

// ParseMoveSquares checks the syntax of a move without a position: it
// returns the squares written (origin first) and whether it is a capture
// ('x') rather than a step ('-'), or a *MoveError with Code MoveMalformed.
func ParseMoveSquares(text string) (squares []Square, capture bool, err error) {
	return splitMove(text)
}

// splitMove parses the notation into its squares and whether it is a
// capture ('x') or a step ('-').
func splitMove(text string) ([]Square, bool, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, false, &MoveError{text, MoveMalformed, "empty move (want e.g. e2-d3 or f3xd5xb7)", nil}
	}
	lower := strings.ToLower(t)
	var sep string
	switch {
	case strings.Contains(lower, "x") && strings.Contains(lower, "-"):
		return nil, false, &MoveError{text, MoveMalformed, "mixes '-' and 'x' (a step uses '-', a capture 'x' between every landing square)", nil}
	case strings.Contains(lower, "x"):
		sep = "x"
	case strings.Contains(lower, "-"):
		sep = "-"
	default:
		return nil, false, &MoveError{text, MoveMalformed, "no '-' or 'x' between squares (want e.g. e2-d3 or f3xd5xb7)", nil}
	}
	parts := strings.Split(lower, sep)
	if sep == "-" && len(parts) != 2 {
		return nil, false, &MoveError{text, MoveMalformed, "a step has exactly two squares, e.g. e2-d3", nil}
	}
	if len(parts) > MaxCaptures+1 {
		return nil, false, &MoveError{text, MoveMalformed, fmt.Sprintf("too many squares (a sequence captures at most %d pieces)", MaxCaptures), nil}
	}
	squares := make([]Square, len(parts))
	for i, part := range parts {
		s, err := ParseSquare(part)
		if err != nil {
			return nil, false, &MoveError{text, MoveMalformed, fmt.Sprintf("square %d: %v", i+1, err), nil}
		}
		squares[i] = s
	}
	return squares, sep == "x", nil
}

func samePath(a, b []Square) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkLeaps walks a capture path and returns the captured set or a reason
// why the path is not a sequence of leaps the piece may make.
func (p *Position) checkLeaps(from Square, path []Square) (uint64, string) {
	pc, ok := p.PieceAt(from)
	if !ok {
		return 0, fmt.Sprintf("no piece on %s", from)
	}
	them := pc.Side ^ 1
	allowed := p.capturable(them, pc.Rank)
	empty := dark&^(p.occ[Red]|p.occ[Black]) | bit(from)
	var captured uint64
	at := from
	for _, land := range path {
		d, ok := direction(at, land, 2)
		if !ok {
			return 0, fmt.Sprintf("%s to %s is not a diagonal leap over one square", at, land)
		}
		if dirsOf(pc.Side, pc.Rank)&(1<<d) == 0 {
			return 0, fmt.Sprintf("a %s cannot move or capture %s (backward)", pc, d)
		}
		mid := (at + land) / 2
		mp, occupied := p.PieceAt(mid)
		switch {
		case captured&bit(mid) != 0:
			return 0, fmt.Sprintf("the piece on %s is already captured in this sequence", mid)
		case !occupied:
			return 0, fmt.Sprintf("no piece on %s to capture", mid)
		case mp.Side == pc.Side:
			return 0, fmt.Sprintf("the piece on %s is your own", mid)
		case allowed&bit(mid) == 0:
			return 0, fmt.Sprintf("a %s cannot capture a %s (only the same or a lower rank: RULES.md, Captures)", pc.Rank, mp.Rank)
		case empty&bit(land) == 0:
			return 0, fmt.Sprintf("landing square %s is occupied", land)
		}
		captured |= bit(mid)
		at = land
	}
	return captured, ""
}

// direction returns the diagonal from a to b when b is exactly dist steps
// away along it.
func direction(a, b Square, dist int) (Direction, bool) {
	df, dr := b.File()-a.File(), b.Row()-a.Row()
	switch {
	case dr == dist && df == -dist:
		return NorthWest, true
	case dr == dist && df == dist:
		return NorthEast, true
	case dr == -dist && df == -dist:
		return SouthWest, true
	case dr == -dist && df == dist:
		return SouthEast, true
	}
	return 0, false
}

// explain builds the error for a move that matched no legal move.
func (p *Position) explain(text string, squares []Square, capture bool, legal []Move) error {
	fail := func(code MoveErrorCode, format string, args ...any) error {
		return &MoveError{text, code, fmt.Sprintf(format, args...), nil}
	}
	from, to := squares[0], squares[len(squares)-1]
	pc, ok := p.PieceAt(from)
	switch {
	case !ok:
		return fail(MoveNoPiece, "no piece on %s", from)
	case pc.Side != p.stm:
		return fail(MoveWrongSide, "the piece on %s is %s's; %s is to move", from, pc.Side, p.stm)
	case len(legal) == 0:
		return fail(MoveNoLegalMoves, "%s has no legal move", p.stm)
	}
	if !capture {
		d, diag := direction(from, to, 1)
		switch {
		case legal[0].n > 0:
			return fail(MoveCaptureCompulsory, "a capture is compulsory (RULES.md, Captures); legal moves: %s", joinMoves(legal))
		case !diag:
			return fail(MoveIllegal, "%s to %s is not a diagonal step to an adjacent square", from, to)
		case dirsOf(pc.Side, pc.Rank)&(1<<d) == 0:
			return fail(MoveIllegal, "a %s cannot move %s (backward: RULES.md, Moves)", pc, d)
		default:
			return fail(MoveIllegal, "%s is occupied", to)
		}
	}
	path := squares[1:]
	captured, why := p.checkLeaps(from, path)
	if why != "" {
		return fail(MoveIllegal, "%s", why)
	}
	// A valid chain of leaps: either it stops early or it is outranked.
	rest := captureSearch{
		enemy:      &p.pieces[pc.Side^1],
		capturable: p.capturable(pc.Side^1, pc.Rank) &^ captured,
		empty:      (dark &^ (p.occ[Red] | p.occ[Black])) | bit(from),
		side:       pc.Side, rank: pc.Rank, dirs: dirsOf(pc.Side, pc.Rank), from: from,
	}
	rest.search(to, 0, 0, 0, 0)
	if len(rest.moves) > 0 {
		return fail(MoveIncomplete, "the sequence must go on: from %s the %s can still capture (e.g. %s); a sequence ends only where no leap is left (RULES.md, Captures)",
			to, pc.Rank, continuation(to, &rest.moves[0]))
	}
	return fail(MoveLowerPriority, "a longer or higher-priority capture must be taken (RULES.md, Captures, Priority); legal moves: %s", joinMoves(legal))
}

// continuation writes the rest of a sequence that continues from at.
func continuation(at Square, m *Move) string {
	var b strings.Builder
	b.WriteString(at.String())
	for _, s := range m.path[:m.n] {
		b.WriteByte('x')
		b.WriteString(s.String())
	}
	return b.String()
}

func joinMoves(ms []Move) string {
	names := make([]string, len(ms))
	for i := range ms {
		names[i] = ms[i].String()
	}
	return strings.Join(names, ", ")
}
