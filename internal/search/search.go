// Package search finds good moves in Italian Damone positions: iterative
// deepening principal-variation search with a transposition table keyed by
// the engine's Zobrist hash, move ordering, a quiescence search over
// compulsory captures, and draw-aware scores. It plays by the engine's
// rules and changes nothing in it. See docs/engine.md.
package search

import (
	"context"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// MaxDepth bounds the nominal search depth in plies.
const MaxDepth = 64

// maxPly bounds the plies of one search line, quiescence included.
const maxPly = 128

// MaxLines is the most principal variations one search reports.
const MaxLines = 5

// Limits say when a search stops. Zero fields are unset; with none set the
// search runs until its context is cancelled (or MaxDepth).
type Limits struct {
	Depth int   // complete iterations up to this depth
	Nodes int64 // stop after this many nodes (deterministic on one thread)
	// MoveTime is the search's time; a timed search spends all of it
	// (the move of an unfinished last iteration counts, see Result).
	MoveTime time.Duration
}

// Options are the search's settings beyond its limits.
type Options struct {
	// Lines is the number of principal variations (multi-PV), 1..MaxLines.
	Lines int
	// Variant gives the draw and win rules the scores respect (the
	// no-progress limit, repetition, capture-all-Damones).
	Variant engine.Variant
	// History holds the game's earlier positions, oldest first, for the
	// repetition rule; it may be empty.
	History []engine.Position
	// Contempt is what a draw costs the side to move at the root, in
	// hundredths of a Pedine, unless it is clearly behind (docs/engine.md,
	// Draw awareness): 0 means DefaultContempt and 15 more for every
	// piece on the board beyond 6 (175 from the standard start),
	// NoContempt none, at most MaxContempt (larger is taken as
	// MaxContempt). Against an opponent known to be much weaker a larger
	// value makes the engine play on from a small deficit instead of
	// taking a repetition.
	Contempt Score
	// Tablebase, if set, gives exact values: positions it holds are
	// scored from it instead of searched, and at the root only the moves
	// that keep the best category it gives are considered.
	Tablebase Tablebase
}

// Line is one principal variation: its score and its moves, each legal in
// turn from the searched position.
type Line struct {
	Score Score
	PV    []engine.Move
}

// Info describes a completed iteration (or the final result).
type Info struct {
	Depth   int
	Nodes   int64
	Elapsed time.Duration
	Lines   []Line
}

// NodesPerSecond returns the search speed of the iteration.
func (i *Info) NodesPerSecond() float64 {
	if i.Elapsed <= 0 {
		return 0
	}
	return float64(i.Nodes) / i.Elapsed.Seconds()
}

// Result is a finished search: the best move (if the side to move has a
// move at all) and the last completed iteration. With one line, a search
// stopped (by its time, its node limit or its context) during an
// iteration plays that iteration's best so far if another move there
// proved better than the completed iteration's best (the one searched
// first): Best is then not Info.Lines[0]'s first move.
type Result struct {
	Best    engine.Move
	HasBest bool
	// BestLine is the line Best begins, with its exact score, and
	// BestDepth the depth that proved it: Info.Lines[0] and Info.Depth,
	// or the unfinished iteration's line and depth (Info.Depth + 1).
	// BestDepth is 0 when no iteration raised a score (Best is then the
	// first legal move).
	BestLine  Line
	BestDepth int
	Info      Info
}

// Searcher searches positions; it keeps its transposition table between
// searches. It is not safe for concurrent use: give each goroutine its own.
type Searcher struct {
	tt       *table
	history  [2][64][64]int32
	killers  [maxPly][2]killer
	pos      [maxPly + 1]engine.Position
	moves    [maxPly + 1][]engine.Move
	pv       [maxPly + 1][maxPly + 1]engine.Move
	pvLen    [maxPly + 1]int
	path     [maxPly + 1]uint64 // hashes of the line searched, for repetition
	scoreBuf [maxPly + 1][128]int32
	order    [maxPly + 1][128]uint8 // generation index of each sorted move

	opts       Options
	limits     Limits
	gameHashes []uint64 // hashes of the game's positions that can still repeat
	nodes      int64
	stopped    bool
	start      time.Time
	deadline   time.Time
	rootFirst  engine.Move // the root move searched first in this iteration
	rootScore  Score       // the exact score of the root's latest alpha raise
	ctx        context.Context
	rootSkip   []engine.Move // root moves excluded (multi-PV)
	rootKeep   []engine.Move // if set, the only root moves searched (tablebase)
	drawScore  [2]Score      // a draw's score for the side to move at even, odd plies
}

type killer struct {
	from, to engine.Square
	captured uint64
	set      bool
}

// NewSearcher returns a searcher with a transposition table of about
// ttMegabytes MiB (at least 1).
func NewSearcher(ttMegabytes int) *Searcher {
	s := &Searcher{tt: newTable(ttMegabytes)}
	for i := range s.moves {
		s.moves[i] = make([]engine.Move, 0, 64)
	}
	return s
}

// Clear forgets everything learnt in earlier searches.
func (s *Searcher) Clear() {
	s.tt.clear()
	s.history = [2][64][64]int32{}
}

// Search searches pos within lim and returns the best move found, calling
// progress (if not nil) after each completed iteration. It returns within
// a few milliseconds of ctx being cancelled.
func (s *Searcher) Search(ctx context.Context, pos engine.Position, opts Options, lim Limits, progress func(Info)) Result {
	if opts.Lines < 1 {
		opts.Lines = 1
	}
	opts.Lines = min(opts.Lines, MaxLines)
	s.opts, s.limits, s.ctx = opts, lim, ctx
	s.nodes, s.stopped = 0, false
	s.start = time.Now()
	s.deadline = time.Time{}
	if lim.MoveTime > 0 {
		s.deadline = s.start.Add(lim.MoveTime)
	}
	s.gameHashes = s.gameHashes[:0]
	// Only positions since the last capture or promotion can repeat.
	for i := len(opts.History) - 1; i >= 0 && len(opts.History)-1-i < pos.NoProgress(); i-- {
		s.gameHashes = append(s.gameHashes, opts.History[i].Hash())
	}
	s.killers = [maxPly][2]killer{}
	s.tt.newSearch()
	for i := range s.history { // age the history so a new search can change its mind
		for j := range s.history[i] {
			for k := range s.history[i][j] {
				s.history[i][j][k] /= 8
			}
		}
	}

	s.pos[0] = pos
	s.drawScore = [2]Score{}
	c := opts.Contempt
	switch {
	case c == 0:
		c = DefaultContempt + contemptPerPiece*Score(max(0, pieceCount(&pos)-6))
	case c < 0:
		c = 0
	case c > MaxContempt:
		c = MaxContempt
	}
	if Evaluate(&pos) >= -contemptOff-c {
		s.drawScore = [2]Score{-c, c}
	}
	var res Result
	rootMoves := pos.LegalMoves()
	if len(rootMoves) == 0 {
		res.Info = Info{Lines: []Line{{Score: lossIn(0)}}, Elapsed: time.Since(s.start)}
		return res
	}
	s.rootKeep = nil
	if kept := s.rootBest(&pos, rootMoves); len(kept) < len(rootMoves) {
		rootMoves, s.rootKeep = kept, kept
	}
	res.Best, res.HasBest = rootMoves[0], true
	maxDepth := MaxDepth
	if lim.Depth > 0 {
		maxDepth = min(lim.Depth, MaxDepth)
	}
	for depth := 1; depth <= maxDepth; depth++ {
		lines := make([]Line, 0, opts.Lines)
		s.rootSkip = s.rootSkip[:0]
		for k := 0; k < opts.Lines && k < len(rootMoves); k++ {
			score := s.negamax(0, depth, -infinity, infinity)
			if s.stopped {
				if opts.Lines == 1 && len(res.Info.Lines) > 0 && s.pvLen[0] > 0 && s.rootFirst.Equivalent(&res.Best) {
					// Every root move that raised alpha was searched in
					// full (a null window re-searched with an open one),
					// so the last beats the previous best at this depth.
					res.Best = s.pv[0][0]
					res.BestLine = Line{Score: s.rootScore, PV: append([]engine.Move(nil), s.pv[0][:s.pvLen[0]]...)}
					res.BestDepth = depth
				}
				break
			}
			if s.pvLen[0] == 0 {
				break
			}
			pv := append([]engine.Move(nil), s.pv[0][:s.pvLen[0]]...)
			lines = append(lines, Line{Score: score, PV: pv})
			s.rootSkip = append(s.rootSkip, pv[0])
		}
		if s.stopped || len(lines) == 0 {
			break // keep the last complete iteration
		}
		res.Best, res.BestLine, res.BestDepth = lines[0].PV[0], lines[0], depth
		res.Info = Info{Depth: depth, Nodes: s.nodes, Elapsed: time.Since(s.start), Lines: lines}
		if progress != nil {
			progress(res.Info)
		}
		if lines[0].Score.IsForced() && len(rootMoves) == 1 {
			break
		}
		if p, ok := lines[0].Score.Plies(); ok && p <= depth && opts.Lines == 1 {
			break // a forced result found within the horizon cannot change
		}
		if len(rootMoves) == 1 && opts.Lines == 1 && lim.Depth == 0 && lim.Nodes == 0 && depth >= 1 && !s.deadline.IsZero() {
			break // one legal move: no need to think
		}
	}
	res.Info.Nodes = s.nodes
	res.Info.Elapsed = time.Since(s.start)
	return res
}

// checkStop polls the limits every 1024 nodes: often enough to stop within
// a millisecond, rarely enough to cost nothing.
func (s *Searcher) checkStop() {
	if s.limits.Nodes > 0 && s.nodes >= s.limits.Nodes {
		s.stopped = true
		return
	}
	if s.nodes&1023 != 0 {
		return
	}
	select {
	case <-s.ctx.Done():
		s.stopped = true
		return
	default:
	}
	if !s.deadline.IsZero() && time.Now().After(s.deadline) {
		s.stopped = true
	}
}

// lossIn is the score of the side to move losing at ply: no legal move
// (no pieces or stalemate, RULES.md, End of the game) or, under
// capture-all-Damones, no Damone.
func lossIn(ply int) Score { return -(Win - Score(ply)) }

// isRepetition reports whether the position at ply repeats one of the
// line searched or of the game; a repetition inside the search is scored
// as the draw it leads to.
func (s *Searcher) isRepetition(ply int, p *engine.Position) bool {
	h := p.Hash()
	np := p.NoProgress()
	for i := ply - 2; i >= 0 && ply-i <= np; i -= 2 {
		if s.path[i] == h {
			return true
		}
	}
	if !s.opts.Variant.RepetitionDraw {
		return false
	}
	back := np - ply // game positions within the no-progress window
	for i, gh := range s.gameHashes {
		if i >= back {
			break
		}
		if gh == h {
			return true
		}
	}
	return false
}

func (s *Searcher) negamax(ply, depth int, alpha, beta Score) Score {
	s.pvLen[ply] = 0
	s.nodes++
	s.checkStop()
	if s.stopped {
		return 0
	}
	p := &s.pos[ply]
	s.path[ply] = p.Hash()
	if ply > 0 && s.isRepetition(ply, p) {
		return s.drawScore[ply&1]
	}
	if depth <= 0 && ply > 0 && !p.HasCapture() {
		// A quiet leaf: the same verdicts as below, without generating
		// the moves (most nodes are leaves, and most leaves are quiet).
		if !p.HasMoves() {
			return lossIn(ply)
		}
		if sc, ok := s.ended(ply, p); ok {
			return sc
		}
		return s.evaluate(p)
	}
	moves := p.GenerateMoves(s.moves[ply])
	s.moves[ply] = moves[:0]
	if len(moves) == 0 {
		return lossIn(ply)
	}
	if ply > 0 {
		if sc, ok := s.ended(ply, p); ok {
			return sc
		}
	}
	if ply >= maxPly-1 {
		return s.evaluate(p)
	}
	capture := moves[0].IsCapture()
	if depth <= 0 {
		// Quiescence: a position with a compulsory capture is not quiet;
		// the capture must be played (no stand-pat), so search it on.
		if !capture {
			return s.evaluate(p)
		}
		depth = 0
	}
	pvNode := beta-alpha > 1

	// Transposition table (not in quiescence, where a probe's cache miss
	// costs more than the short capture line it could save).
	ttIdx := -1
	if depth == 0 {
	} else if e, ok := s.tt.probe(p.Hash()); ok {
		if int(e.move) < len(moves) {
			ttIdx = int(e.move)
		}
		if !pvNode && int(e.depth) >= depth && ply > 0 {
			sc := fromTT(e.score, ply)
			switch e.flag {
			case flagExact:
				return sc
			case flagLower:
				if sc >= beta {
					return sc
				}
			case flagUpper:
				if sc <= alpha {
					return sc
				}
			}
		}
	}

	scores := s.orderScores(ply, p, moves, ttIdx)
	order := &s.order[ply]
	for i := range moves {
		order[i] = uint8(i)
	}
	origAlpha := alpha
	best := -infinity
	bestIdx := -1
	searched := 0
	for i := range moves {
		pick(moves, scores, order, i)
		m := &moves[i]
		if ply == 0 && s.skippedAtRoot(m) {
			continue
		}
		child := &s.pos[ply+1]
		*child = *p
		child.Play(m)
		next := depth - 1
		if capture && depth <= 0 {
			next = 0
		}
		var sc Score
		if searched == 0 {
			if ply == 0 {
				s.rootFirst = *m
			}
			sc = -s.negamax(ply+1, next, -beta, -alpha)
		} else {
			// Late quiet moves at depth are first tried one ply shallower.
			reduce := 0
			if !capture && depth >= 3 && searched >= 3 && !pvNode {
				reduce = 1
			}
			sc = -s.negamax(ply+1, next-reduce, -alpha-1, -alpha)
			if s.stopped { // the 0 of a stopped search must not trigger a re-search
				return 0
			}
			if sc > alpha && (reduce > 0 || sc < beta) {
				sc = -s.negamax(ply+1, next, -beta, -alpha)
			}
		}
		searched++
		if s.stopped {
			return 0
		}
		if sc > best {
			best, bestIdx = sc, i
			if sc > alpha {
				alpha = sc
				s.pv[ply][0] = *m
				copy(s.pv[ply][1:], s.pv[ply+1][:s.pvLen[ply+1]])
				s.pvLen[ply] = s.pvLen[ply+1] + 1
				if ply == 0 {
					s.rootScore = sc
				}
				if sc >= beta {
					if !capture {
						s.history[p.SideToMove()][m.From()][m.To()] += int32(depth * depth)
						s.addKiller(ply, m)
					}
					break
				}
			}
		}
	}
	if searched == 0 { // every root move excluded (multi-PV exhausted)
		return -infinity
	}
	flag := flagExact
	switch {
	case best <= origAlpha:
		flag = flagUpper
	case best >= beta:
		flag = flagLower
	}
	// The table keeps the move's index in generation order, which is the
	// same every time the position is met.
	if depth > 0 {
		s.tt.store(p.Hash(), toTT(best, ply), int8(depth), flag, s.order[ply][bestIdx])
	}
	return best
}

// ended scores a position below the root, where the side to move has a
// legal move, that the game's rules beyond "no legal move" or the
// endgame tables decide: false if neither does.
func (s *Searcher) ended(ply int, p *engine.Position) (Score, bool) {
	v := &s.opts.Variant
	if v.WinCondition == engine.CaptureAllDamones && p.Count(p.SideToMove(), engine.Damone) == 0 {
		return lossIn(ply), true
	}
	if v.NoProgressLimit > 0 && p.NoProgress() >= v.NoProgressLimit {
		return s.drawScore[ply&1], true
	}
	if tb := s.opts.Tablebase; tb != nil && pieceCount(p) <= tb.Pieces() {
		if c, d, ok := tb.Probe(p, s.opts.Variant); ok {
			if p.NoProgress() == 0 {
				// Reached by a capture or a promotion at this ply: that
				// conversion is the progress a win is measured by, so
				// it ranks above every quiet move's (a longer distance
				// to the next one would otherwise make the winner put
				// off converting, and shuffle).
				d = 0
			}
			return s.tbScore(ply, c, d), true
		}
	}
	return 0, false
}

// evaluate is Evaluate scaled towards 0 as the no-progress counter grows
// (see noProgressScale).
func (s *Searcher) evaluate(p *engine.Position) Score {
	sc := Evaluate(p)
	if lim := s.opts.Variant.NoProgressLimit; lim > 0 {
		// In 64 bits: with a limit above a few ten thousand plies, the
		// product overflows a Score (any limit up to int32's maximum).
		d := int64(noProgressScale) * int64(lim)
		sc = Score(int64(sc) * (d - int64(min(p.NoProgress(), lim))) / d)
	}
	return sc
}

func (s *Searcher) skippedAtRoot(m *engine.Move) bool {
	if s.rootKeep != nil {
		kept := false
		for i := range s.rootKeep {
			if s.rootKeep[i].Equivalent(m) {
				kept = true
				break
			}
		}
		if !kept {
			return true
		}
	}
	for i := range s.rootSkip {
		if s.rootSkip[i].Equivalent(m) {
			return true
		}
	}
	return false
}

func (s *Searcher) addKiller(ply int, m *engine.Move) {
	k := killer{m.From(), m.To(), m.CapturedSet(), true}
	if s.killers[ply][0] != k {
		s.killers[ply][1] = s.killers[ply][0]
		s.killers[ply][0] = k
	}
}

// orderScores ranks the moves: the table's move first, then killers, then
// by history. (When captures exist every legal move is a capture of the
// same priority, so "captures first" is already so.)
func (s *Searcher) orderScores(ply int, p *engine.Position, moves []engine.Move, ttIdx int) *[128]int32 {
	sc := &s.scoreBuf[ply]
	us := p.SideToMove()
	for i := range moves {
		m := &moves[i]
		switch {
		case i == ttIdx:
			sc[i] = 1 << 30
		case s.isKiller(ply, 0, m):
			sc[i] = 1<<29 + 1
		case s.isKiller(ply, 1, m):
			sc[i] = 1 << 29
		default:
			sc[i] = s.history[us][m.From()][m.To()]
			if _, promo := m.Promotion(); promo {
				sc[i] += 1 << 28
			}
		}
	}
	return sc
}

func (s *Searcher) isKiller(ply, k int, m *engine.Move) bool {
	kl := s.killers[ply][k]
	return kl.set && kl.from == m.From() && kl.to == m.To() && kl.captured == m.CapturedSet()
}

// pick moves the best-scored move of moves[i:] to i (selection sort, one
// step at a time: most nodes cut off after a move or two).
func pick(moves []engine.Move, sc *[128]int32, order *[128]uint8, i int) {
	best := i
	for j := i + 1; j < len(moves); j++ {
		if sc[j] > sc[best] {
			best = j
		}
	}
	if best != i {
		moves[i], moves[best] = moves[best], moves[i]
		sc[i], sc[best] = sc[best], sc[i]
		order[i], order[best] = order[best], order[i]
	}
}
