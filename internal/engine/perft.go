package engine

// Perft counts the leaf nodes of the legal-move tree to the given depth in
// plies, counting duplicate sequences once (RULES.md, Captures) and
// applying no game-over rule except "no legal move". It uses bulk counting
// at the last ply.
func Perft(p *Position, depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	return newPerftState(p, depth).bulk(depth)
}

// PerftUntil is Perft that gives up once done is closed: it returns the
// count and true, or false if done closed first. It looks at done before
// every subtree of 3 plies or more, so it stops within a few thousand
// nodes.
func PerftUntil(p *Position, depth int, done <-chan struct{}) (uint64, bool) {
	if depth <= 0 {
		return 1, true
	}
	s := newPerftState(p, depth)
	s.done = done
	n := s.bulk(depth)
	return n, !s.stopped
}

// PerftNoBulk is Perft without bulk counting: every leaf is played.
func PerftNoBulk(p *Position, depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	return newPerftState(p, depth).full(depth)
}

// DivideEntry is one first move and the leaf count below it.
type DivideEntry struct {
	Move  Move
	Nodes uint64
}

// Divide returns, for each legal move, the perft count of depth-1 below it.
func Divide(p *Position, depth int) []DivideEntry {
	if depth <= 0 {
		return nil
	}
	moves := p.LegalMoves()
	out := make([]DivideEntry, len(moves))
	for i := range moves {
		child := p.After(&moves[i])
		out[i] = DivideEntry{moves[i], Perft(&child, depth-1)}
	}
	return out
}

// perftState holds one position and one move buffer per remaining depth,
// so the recursion allocates nothing.
type perftState struct {
	pos     []Position
	moves   [][]Move
	done    <-chan struct{} // closed: stop counting (nil: never)
	stopped bool
}

func newPerftState(p *Position, depth int) *perftState {
	s := &perftState{pos: make([]Position, depth+1), moves: make([][]Move, depth+1)}
	for i := range s.moves {
		s.moves[i] = make([]Move, 0, 128)
	}
	s.pos[depth] = *p
	return s
}

// bulk counts the leaves below pos[depth], counting the last ply's moves
// without playing them.
func (s *perftState) bulk(depth int) uint64 {
	p := &s.pos[depth]
	if depth == 1 {
		return uint64(p.CountMoves(s.moves[0]))
	}
	if s.done != nil && depth >= 3 {
		select {
		case <-s.done:
			s.stopped = true
			return 0
		default:
		}
	}
	moves := p.GenerateMoves(s.moves[depth])
	s.moves[depth] = moves[:0] // keep any storage append had to grow
	child := &s.pos[depth-1]
	var n uint64
	for i := range moves {
		*child = *p
		child.Play(&moves[i])
		n += s.bulk(depth - 1)
		if s.stopped {
			return 0
		}
	}
	return n
}

// full counts the leaves below pos[depth], playing every move.
func (s *perftState) full(depth int) uint64 {
	if depth == 0 {
		return 1
	}
	p := &s.pos[depth]
	moves := p.GenerateMoves(s.moves[depth])
	s.moves[depth] = moves[:0]
	child := &s.pos[depth-1]
	var n uint64
	for i := range moves {
		*child = *p
		child.Play(&moves[i])
		n += s.full(depth - 1)
	}
	return n
}
