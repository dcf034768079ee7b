package engine

// Perft counts the leaf nodes of the legal-move tree to the given depth in
// plies, counting duplicate sequences once (RULES.md, Captures) and
// applying no game-over rule except "no legal move". It uses bulk counting
// at the last ply.
func Perft(p *Position, depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	return perft(p, depth, newMoveStack(depth))
}

// PerftNoBulk is Perft without bulk counting: every leaf is played.
func PerftNoBulk(p *Position, depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	return perftNoBulk(p, depth, newMoveStack(depth))
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
	stack := newMoveStack(depth)
	moves := p.LegalMoves()
	out := make([]DivideEntry, len(moves))
	for i := range moves {
		child := p.After(&moves[i])
		n := uint64(1)
		if depth > 1 {
			n = perft(&child, depth-1, stack)
		}
		out[i] = DivideEntry{moves[i], n}
	}
	return out
}

func newMoveStack(depth int) [][]Move {
	stack := make([][]Move, depth+1)
	for i := range stack {
		stack[i] = make([]Move, 0, 128)
	}
	return stack
}

func perft(p *Position, depth int, stack [][]Move) uint64 {
	if depth == 1 {
		return uint64(p.CountMoves(stack[0]))
	}
	moves := p.GenerateMoves(stack[depth])
	stack[depth] = moves[:0] // keep any storage append had to grow
	var n uint64
	for i := range moves {
		child := *p
		child.Play(&moves[i])
		n += perft(&child, depth-1, stack)
	}
	return n
}

func perftNoBulk(p *Position, depth int, stack [][]Move) uint64 {
	if depth == 0 {
		return 1
	}
	moves := p.GenerateMoves(stack[depth])
	stack[depth] = moves[:0]
	var n uint64
	for i := range moves {
		child := *p
		child.Play(&moves[i])
		n += perftNoBulk(&child, depth-1, stack)
	}
	return n
}
