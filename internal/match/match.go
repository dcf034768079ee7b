// Package match plays matches between two players (internal/players):
// game pairs with colours swapped from a seeded opening set, in parallel
// goroutines, and reports wins/draws/losses, pentanomial counts, the
// score, the Elo difference with a 95 % interval and, when asked, an SPRT
// log-likelihood ratio. See docs/engine.md, "Match methodology".
package match

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/players"
	"github.com/damone-rules/damone/internal/search"
)

// Opening is a short sequence of moves from the variant's start.
type Opening struct {
	Moves    []string
	Position engine.Position // after the moves
}

// Openings returns count distinct openings: positions after plies
// uniformly random legal moves from the variant's starting position,
// drawn with a PCG generator seeded by seed, in the order first drawn,
// skipping a position already drawn (same placement and side to move) or
// a game already over. If the tree has fewer distinct positions than
// count, it returns as many as it found in 100·count draws.
func Openings(v engine.Variant, plies, count int, seed uint64) ([]Opening, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6f70656e696e6773)) // "openings"
	seen := map[string]bool{}
	var out []Opening
	for tries := 0; len(out) < count && tries < 100*count; tries++ {
		g, err := engine.NewGame(v)
		if err != nil {
			return nil, err
		}
		var moves []string
		for i := 0; i < plies && !g.Outcome().Over(); i++ {
			cur := g.Position()
			legal := cur.LegalMoves()
			m := legal[rng.IntN(len(legal))]
			if err := g.Play(m); err != nil {
				return nil, err
			}
			moves = append(moves, m.String())
		}
		p := g.Position()
		key := p.String()
		if g.Outcome().Over() || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Opening{Moves: moves, Position: p})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("match: no opening found")
	}
	return out, nil
}

// EndgameOpenings returns count distinct openings with minPieces to
// maxPieces pieces on the board: from each random opening (as Openings,
// plies random plies from seed), the engine at depth 3 plays both sides on
// until the game first has at most maxPieces pieces; the position is kept
// if it has at least minPieces, neither side leads by more than a Pedine
// in material (players.Material) and the game is not over. It gives up
// after 50·count random openings if it has not found count.
func EndgameOpenings(v engine.Variant, plies, minPieces, maxPieces, count int, seed uint64) ([]Opening, error) {
	if minPieces < 2 || maxPieces < minPieces {
		return nil, fmt.Errorf("match: opening pieces %d-%d: want 2 <= min <= max", minPieces, maxPieces)
	}
	starts, err := Openings(v, plies, 50*count, seed)
	if err != nil {
		return nil, err
	}
	s := search.NewSearcher(1)
	seen := map[string]bool{}
	var out []Opening
	for _, o := range starts {
		if len(out) == count {
			break
		}
		g, err := engine.NewGame(v)
		if err != nil {
			return nil, err
		}
		moves := append([]string(nil), o.Moves...)
		for _, m := range moves {
			if _, err := g.PlayText(m); err != nil {
				return nil, err
			}
		}
		s.Clear()
		for !g.Outcome().Over() {
			p := g.Position()
			if p.CountSide(engine.Red)+p.CountSide(engine.Black) <= maxPieces {
				break
			}
			res := s.Search(context.Background(), p, search.Options{Variant: v, History: g.History()}, search.Limits{Depth: 3}, nil)
			if !res.HasBest {
				break
			}
			if err := g.Play(res.Best); err != nil {
				return nil, err
			}
			moves = append(moves, res.Best.String())
		}
		p := g.Position()
		n := p.CountSide(engine.Red) + p.CountSide(engine.Black)
		d := players.Material(&p, engine.Red)
		if g.Outcome().Over() || n < minPieces || n > maxPieces || d > 100 || d < -100 || seen[p.String()] {
			continue
		}
		seen[p.String()] = true
		out = append(out, Opening{Moves: moves, Position: p})
	}
	if len(out) < count {
		return nil, fmt.Errorf("match: found %d openings with %d-%d pieces, want %d", len(out), minPieces, maxPieces, count)
	}
	return out, nil
}

// Config describes a match.
type Config struct {
	Player1, Player2 players.Spec
	Variant          engine.Variant
	Pairs            int
	OpeningPlies     int
	// OpeningPieces, if set (min, max), makes the openings endgames with
	// that many pieces (EndgameOpenings).
	OpeningPieces [2]int
	Seed          uint64
	Concurrency   int
	// MaxPlies ends a game still going after this many plies (opening
	// included) as a draw, reported as adjudicated; 0 means 1000. The
	// repetition and no-progress rules end every real game long before.
	MaxPlies int
	// Tables, if set, are the endgame tables: engines whose Spec asks
	// for them search with them, and with TablebaseAdjudication a game
	// ends as soon as it reaches a position they decide.
	Tables *egtb.Set
	// TablebaseAdjudication stops a game at the first position (the
	// opening's included) that Tables hold and decide under the match's
	// rules at its counter: a win or loss for the side to move, or a draw
	// (drawn, cursed win or blessed loss under the no-progress limit).
	// An answer the tables cannot give exactly for the limit (UNKNOWN)
	// plays on. The tables ignore the game's history (docs/engine.md).
	TablebaseAdjudication bool
	// Progress, if set, is called after each game (from one goroutine at
	// a time).
	Progress func(done, total int, g GameResult)
}

// GameResult is one game of a match.
type GameResult struct {
	Pair, Game int // pair index; 0: player 1 has Red, 1: player 1 has Black
	Opening    int
	P1Side     engine.Side
	Outcome    engine.Outcome
	// Points for player 1: 1, ½ or 0.
	Points      float64
	Plies       int
	Adjudicated bool // stopped at MaxPlies and counted as a draw
	// Tablebase: stopped by the tables (Config.TablebaseAdjudication)
	// with Outcome.Result theirs and no Reason; TablebaseCategory is
	// their category for the side to move then ("win", "cursed-win", ...).
	Tablebase         bool   `json:",omitempty"`
	TablebaseCategory string `json:",omitempty"`
	Moves             []string
	Final             string // the final position (text form)
	Err               string `json:",omitempty"`
}

// Result is a finished match.
type Result struct {
	Player1, Player2    string
	Games               []GameResult
	Openings            int // distinct openings used (pair i plays opening i mod Openings)
	Wins, Draws, Losses int
	DrawReasons         map[string]int
	Adjudicated         int // stopped at MaxPlies
	Tablebase           int // stopped by the tables (wins and draws)
	Penta               Pentanomial
	Stats               Stats
	AvgPlies            float64
}

// gameSeed derives the seed of one game from the match seed, so that a
// game's random choices do not depend on scheduling.
func gameSeed(seed uint64, pair, game, player int) uint64 {
	x := seed ^ uint64(pair)<<20 ^ uint64(game)<<8 ^ uint64(player)
	// splitmix64 finaliser
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Run plays the match and returns its result; ctx cancels it (the games
// finished so far are returned with ctx's error).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Pairs < 1 {
		return nil, fmt.Errorf("match: pairs must be at least 1")
	}
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	if cfg.MaxPlies <= 0 {
		cfg.MaxPlies = 1000
	}
	if cfg.Variant.Setup == 0 {
		cfg.Variant = engine.DefaultVariant()
	}
	var openings []Opening
	var err error
	if cfg.OpeningPieces != [2]int{} {
		openings, err = EndgameOpenings(cfg.Variant, cfg.OpeningPlies, cfg.OpeningPieces[0], cfg.OpeningPieces[1], cfg.Pairs, cfg.Seed)
	} else {
		openings, err = Openings(cfg.Variant, cfg.OpeningPlies, cfg.Pairs, cfg.Seed)
	}
	if err != nil {
		return nil, err
	}
	total := 2 * cfg.Pairs
	results := make([]GameResult, total)
	jobs := make(chan int)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for w := 0; w < cfg.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p1, p2 := newPlayer(cfg, cfg.Player1), newPlayer(cfg, cfg.Player2) // one Searcher per goroutine
			for j := range jobs {
				pair, game := j/2, j%2
				r := playGame(ctx, cfg, openings[pair%len(openings)].Moves, p1, p2, pair, game)
				r.Opening = pair % len(openings)
				results[j] = r
				mu.Lock()
				done++
				if cfg.Progress != nil {
					cfg.Progress(done, total, r)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for j := 0; j < total; j++ {
		select {
		case jobs <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	res := summarize(cfg, results[:min(total, len(results))], len(openings))
	if err := ctx.Err(); err != nil {
		return res, err
	}
	for _, g := range results {
		if g.Err != "" {
			return res, fmt.Errorf("match: pair %d game %d: %s", g.Pair, g.Game, g.Err)
		}
	}
	return res, nil
}

// playGame plays game (0 or 1) of a pair: in game 0 player 1 has Red, the
// side that moves first in the default variant; in game 1 Black.
func playGame(ctx context.Context, cfg Config, opening []string, p1, p2 players.Player, pair, game int) GameResult {
	r := GameResult{Pair: pair, Game: game, P1Side: engine.Side(game)}
	g, err := engine.NewGame(cfg.Variant)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	for _, m := range opening {
		if _, err := g.PlayText(m); err != nil {
			r.Err = err.Error()
			return r
		}
	}
	p1.NewGame(gameSeed(cfg.Seed, pair, game, 1))
	p2.NewGame(gameSeed(cfg.Seed, pair, game, 2))
	playOn(ctx, cfg, g, p1, p2, &r)
	return r
}

// playOn plays g to its end (or to MaxPlies, or to the tables' verdict),
// player 1 having side r.P1Side, and fills in r.
func playOn(ctx context.Context, cfg Config, g *engine.Game, p1, p2 players.Player, r *GameResult) {
	for !g.Outcome().Over() {
		if cfg.TablebaseAdjudication && cfg.Tables != nil {
			if res, cat, ok := tablebaseResult(cfg.Tables, g); ok {
				r.Outcome, r.Tablebase, r.TablebaseCategory = engine.Outcome{Result: res}, true, cat.String()
				break
			}
		}
		if g.Ply() >= cfg.MaxPlies {
			r.Adjudicated = true
			break
		}
		mover := p2
		if cur := g.Position(); cur.SideToMove() == r.P1Side {
			mover = p1
		}
		m, err := mover.Move(ctx, players.StateOf(g))
		if err != nil {
			r.Err = fmt.Sprintf("%s at ply %d: %v", mover.Name(), g.Ply(), err)
			break
		}
		if err := g.Play(m); err != nil {
			r.Err = fmt.Sprintf("%s played an illegal move %s at ply %d: %v", mover.Name(), m, g.Ply(), err)
			break
		}
	}
	if !r.Tablebase {
		r.Outcome = g.Outcome()
	}
	r.Plies, r.Final = g.Ply(), g.Position().String()
	for _, m := range g.Moves() {
		r.Moves = append(r.Moves, m.String())
	}
	switch r.Outcome.Result {
	case engine.WinFor(r.P1Side):
		r.Points = 1
	case engine.WinFor(r.P1Side ^ 1):
		r.Points = 0
	default: // draw or adjudicated
		r.Points = 0.5
	}
}

func summarize(cfg Config, games []GameResult, nOpenings int) *Result {
	res := &Result{Player1: cfg.Player1.String(), Player2: cfg.Player2.String(), Games: games,
		Openings: nOpenings, DrawReasons: map[string]int{}}
	pairPoints := map[int]float64{}
	pairGames := map[int]int{}
	plies := 0
	n := 0
	for _, g := range games {
		if g.Plies == 0 && g.Outcome == (engine.Outcome{}) && !g.Adjudicated {
			continue // never played (cancelled)
		}
		n++
		plies += g.Plies
		if g.Tablebase {
			res.Tablebase++
		}
		switch g.Points {
		case 1:
			res.Wins++
		case 0:
			res.Losses++
		default:
			res.Draws++
			switch {
			case g.Adjudicated:
				res.Adjudicated++
				res.DrawReasons["max plies"]++
			case g.Tablebase:
				res.DrawReasons["tablebase"]++
			default:
				res.DrawReasons[g.Outcome.Reason.String()]++
			}
		}
		pairPoints[g.Pair] += g.Points
		pairGames[g.Pair]++
	}
	for pair, k := range pairGames {
		if k == 2 {
			res.Penta[int(pairPoints[pair]*2)]++
		}
	}
	res.Stats = ComputeStats(res.Penta)
	if n > 0 {
		res.AvgPlies = float64(plies) / float64(n)
	}
	return res
}

// newPlayer builds a player of the spec, with the match's tables if the
// spec asks for them.
func newPlayer(cfg Config, s players.Spec) players.Player {
	if s.Tables && cfg.Tables != nil {
		return s.NewWithTables(search.Tables(cfg.Tables))
	}
	return s.New()
}

// tablebaseResult is the game's result by the tables at its current
// position, exact at the position's counter under the game's no-progress
// limit, and the category for the side to move; false when the tables do
// not hold the position or cannot answer exactly for the limit.
func tablebaseResult(set *egtb.Set, g *engine.Game) (engine.Result, egtb.Category, bool) {
	p := g.Position()
	v := g.Variant()
	if p.CountSide(engine.Red)+p.CountSide(engine.Black) > set.Pieces() || !set.Has(v.WinCondition) {
		return 0, egtb.Unknown, false
	}
	val, err := set.Probe(&p, v.WinCondition)
	if err != nil {
		return 0, egtb.Unknown, false
	}
	cat := val.At(p.NoProgress(), v.NoProgressLimit, set.Limit()).Category
	switch cat {
	case egtb.Win:
		return engine.WinFor(p.SideToMove()), cat, true
	case egtb.Loss:
		return engine.WinFor(p.SideToMove() ^ 1), cat, true
	case egtb.Draw, egtb.CursedWin, egtb.BlessedLoss:
		return engine.Draw, cat, true
	}
	return 0, cat, false
}
