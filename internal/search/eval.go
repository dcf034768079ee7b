package search

import (
	"math/bits"

	"github.com/damone-rules/damone/internal/engine"
)

// Score is an evaluation in hundredths of a Pedine, from the point of view
// of the side to move. Scores beyond ±WinThreshold are forced results:
// Win-n means "wins in n plies", -(Win-n) "loses in n plies".
type Score int32

const (
	// Win is the score of a won position at the root.
	Win Score = 30000
	// WinThreshold separates forced results from evaluations.
	WinThreshold = Win - 1000
	infinity     = Win + 1
)

// IsForced reports whether s is a forced win or loss.
func (s Score) IsForced() bool { return s >= WinThreshold || s <= -WinThreshold }

// Plies returns, for a forced result, in how many plies it comes (and
// whether it is one).
func (s Score) Plies() (int, bool) {
	switch {
	case s >= WinThreshold:
		return int(Win - s), true
	case s <= -WinThreshold:
		return int(Win + s), true
	}
	return 0, false
}

// The evaluation weights, all in hundredths of a Pedine, in one place
// (docs/engine.md, Evaluation, explains them too).
//
//   - Material by rank. A Dama moves and captures in all four directions and
//     can take Damas and Pedines, so it is worth about three Pedines; a
//     Damone can take anything and only a Damone can take it, so it is
//     worth about two Damas.
//   - damoneImmune: a Damone facing no enemy Damone can never be captured
//     (RULES.md, Captures), a lasting advantage material alone misses;
//     half a Pedine only, since an immune Damone cannot lose but alone
//     cannot win either: at 1.5 Pedines the engine gave up its Pedines
//     for the enemy Damone and drew the endings that followed.
//   - Advancement: a Pedine close to its promotion squares (the enemy
//     Damas' starting squares) is near to becoming a Dama; a Dama close to
//     the enemy Damone's corner near to becoming a Damone. Both are scored
//     per step saved, by distance along the piece's own directions.
//   - Mobility: each available step, since a side short of moves is close
//     to losing by stalemate (which is a loss in this game).
//   - Tempo: the side to move is a little better off.
//   - Mop-up, only when one side leads by at least mopUpLead in material
//     (the immune bonus counted). Such endings are won by capturing the
//     last pieces or by stalemating them, and a piece on an edge square can
//     never be captured (there is no square beyond it), so the stronger
//     side needs a gradient that leads somewhere within the no-progress
//     window: it gains mopUpMobility for every step the weaker side lacks
//     (on top of mobilityPerStep), and for each of its Damones and Damas
//     a bonus that grows as it comes closer (in king steps) to the nearest
//     weaker piece: mopUpDamone per step for a Damone (which may walk up
//     to anything once immune), mopUpDama for a Dama.
//     Also a trade-down bonus, up to leadPerMille of the lead, that grows
//     as the weaker side's material shrinks: fewer defenders, fewer ways
//     to block or shuttle.
//   - Winning chances: a Dama or Damone on an edge square can never be
//     captured, and two pairs of edge squares touch (a2–b1 and g8–h7), so
//     a lone Dama can shuttle on one pair for ever; it is lost only when
//     stalemated there, which takes two blockers. A Pedine left alone
//     walks to its promotion squares and does the same. To win, the side
//     ahead therefore needs about two pieces for each of the weaker
//     side's first two pieces, four in all (fortressNeed). With fewer,
//     the ending is a draw whatever the material says (a lone immune
//     Damone against a Dama and a Pedine, two Damones against two Damas),
//     and the whole evaluation is scaled by (pieces/needed)², so the side
//     ahead keeps the pieces it needs instead of trading into such an
//     ending (a lone Damone scores a sixteenth of its material lead, three
//     pieces of four nine sixteenths), and the side behind heads for one.
const (
	valuePedine       = 100
	valueDama         = 300
	valueDamone       = 600
	damoneImmune      = 50
	pedineAdvancement = 6 // per step closer to promotion
	damaAdvancement   = 2 // per step closer to the Damone corner
	mobilityPerStep   = 4
	tempo             = 10

	mopUpLead     = 200 // material lead that switches the mop-up terms on
	mopUpMobility = 10  // per step the weaker side has, against it
	mopUpDamone   = 8   // per king step closer to the nearest weaker piece
	mopUpDama     = 3   // likewise for a Dama
	leadPerMille  = 150 // trade-down bonus, per mille of the lead (see tradeBonus)

	fortressNeed = 4 // pieces the side ahead needs against two or more (see winningChances)
)

// The search's draw scores, in the same units (docs/engine.md, Draw
// awareness).
//
//   - DefaultContempt: a draw (repetition or no progress) inside the search
//     scores -contempt for the side to move at the root and +contempt for
//     its opponent, unless the root's static evaluation is below
//     -(contemptOff + contempt) (clearly behind, a draw is welcome and
//     scores 0). A draw is then the worst outcome the root side can settle
//     for short of a worse evaluation, so it stops repeating or shuffling
//     in positions it does not judge lost. Unless the caller sets one, the
//     contempt is DefaultContempt plus contemptPerPiece for every piece on
//     the board beyond 6: with many pieces left a Pedine or two behind is
//     still a game to play, and a repetition gives it away.
//   - noProgressScale: a static evaluation at a no-progress count of n is
//     multiplied by (noProgressScale·L − n)/(noProgressScale·L), L being
//     the variant's limit (two-thirds at the limit with 3): of two lines
//     equal otherwise, the one that captures or promotes sooner scores
//     further from 0, so the side ahead makes progress early instead of
//     drifting to the no-progress draw.
const (
	// DefaultContempt is Options.Contempt's default with 6 pieces or fewer
	// on the board (contemptPerPiece more for each beyond).
	DefaultContempt Score = 25
	// NoContempt as Options.Contempt scores every draw 0.
	NoContempt Score = -1
	// MaxContempt is the largest Options.Contempt used (larger ones are
	// taken as it): a draw, and a tablebase's cursed win or blessed loss
	// one point from it, must stay below every tablebase win and above
	// every tablebase loss (tbWin), so that no contempt makes a known
	// loss better than a draw.
	MaxContempt Score = 10000

	contemptOff      = 100
	contemptPerPiece = 15
	noProgressScale  = 3
)

// kingDistance[a][b] is the number of diagonal steps between two dark
// squares on an empty board (the Chebyshev distance: two dark squares
// always have the same colour, so max(|Δfile|, |Δrank|) steps suffice).
var kingDistance [64][64]uint8

func init() {
	for a := 0; a < 64; a++ {
		for b := 0; b < 64; b++ {
			df, dr := a&7-b&7, a>>3-b>>3
			kingDistance[a][b] = uint8(max(df, -df, dr, -dr))
		}
	}
}

// promotionDistance[side][rank][sq] is the number of steps, along the
// piece's own directions on an empty board, from sq to its nearest
// promotion square (RULES.md, Promotion); 0 where it cannot promote.
var promotionDistance [2][2][64]int

func init() {
	for s := engine.Red; s <= engine.Black; s++ {
		for r := engine.Pedine; r <= engine.Dama; r++ {
			dist := bfs(engine.PromotionSquares(s, r), engine.Directions(s, r))
			for sq := range dist {
				if dist[sq] > 0 {
					promotionDistance[s][r][sq] = 8 - min(dist[sq], 8)
				}
			}
		}
	}
}

// bfs returns 1 + the distance of every square to the targets moving only
// along dirs (0 if unreachable); computed backwards from the targets.
func bfs(targets uint64, dirs uint8) [64]int {
	var dist [64]int
	var queue []engine.Square
	for b := targets; b != 0; b &= b - 1 {
		sq := engine.Square(bits.TrailingZeros64(b))
		dist[sq] = 1
		queue = append(queue, sq)
	}
	for len(queue) > 0 {
		sq := queue[0]
		queue = queue[1:]
		for d := engine.Direction(0); d < 4; d++ {
			// A piece reaches sq by moving in d from the square behind it.
			if dirs&(1<<d) == 0 {
				continue
			}
			from := engine.Neighbour(sq, d^3)
			if from != engine.NoSquare && dist[from] == 0 {
				dist[from] = dist[sq] + 1
				queue = append(queue, from)
			}
		}
	}
	return dist
}

// Evaluate scores a position without searching, from the side to move's
// point of view, in hundredths of a Pedine.
func Evaluate(p *engine.Position) Score {
	us := p.SideToMove()
	mu, mt := material(p, us), material(p, us^1)
	score := mu - mt + positional(p, us) - positional(p, us^1) + tempo
	switch lead := mu - mt; {
	case lead >= mopUpLead:
		score += mopUp(p, us, lead, mt)
	case -lead >= mopUpLead:
		score -= mopUp(p, us^1, -lead, mu)
	}
	strong := us
	if mt > mu {
		strong = us ^ 1
	}
	if have, need := winningChances(p, strong); have < need {
		score = score * have * have / (need * need)
	}
	return Score(score)
}

// winningChances returns how many pieces strong has and how many it needs
// to capture or stalemate all of the weaker side's (see the weights above).
func winningChances(p *engine.Position, strong engine.Side) (have, need int) {
	return pieces(p, strong), min(2*pieces(p, strong^1), fortressNeed)
}

func pieces(p *engine.Position, s engine.Side) int {
	return bits.OnesCount64(p.Bitboard(s, engine.Pedine) | p.Bitboard(s, engine.Dama) | p.Bitboard(s, engine.Damone))
}

// material is side s's material, the immune Damone's bonus included.
func material(p *engine.Position, s engine.Side) int {
	score := valuePedine*p.Count(s, engine.Pedine) + valueDama*p.Count(s, engine.Dama) +
		valueDamone*p.Count(s, engine.Damone)
	if p.Bitboard(s, engine.Damone) != 0 && p.Bitboard(s^1, engine.Damone) == 0 {
		score += damoneImmune
	}
	return score
}

func positional(p *engine.Position, s engine.Side) int {
	score := 0
	for b := p.Bitboard(s, engine.Pedine); b != 0; b &= b - 1 {
		score += pedineAdvancement * promotionDistance[s][engine.Pedine][bits.TrailingZeros64(b)]
	}
	for b := p.Bitboard(s, engine.Dama); b != 0; b &= b - 1 {
		score += damaAdvancement * promotionDistance[s][engine.Dama][bits.TrailingZeros64(b)]
	}
	return score + mobilityPerStep*p.StepTargets(s)
}

// mopUp is the stronger side's bonus in an ending it leads by lead, the
// weaker side having weakMaterial (see the weights above).
func mopUp(p *engine.Position, strong engine.Side, lead, weakMaterial int) int {
	weak := strong ^ 1
	bonus := -mopUpMobility*p.StepTargets(weak) + tradeBonus(lead, weakMaterial)
	targets := p.Bitboard(weak, engine.Pedine) | p.Bitboard(weak, engine.Dama) | p.Bitboard(weak, engine.Damone)
	if targets == 0 {
		return bonus
	}
	for b := p.Bitboard(strong, engine.Damone); b != 0; b &= b - 1 {
		bonus += mopUpDamone * (7 - nearest(bits.TrailingZeros64(b), targets))
	}
	for b := p.Bitboard(strong, engine.Dama); b != 0; b &= b - 1 {
		bonus += mopUpDama * (7 - nearest(bits.TrailingZeros64(b), targets))
	}
	return bonus
}

// tradeBonus rewards the side ahead for trading down: leadPerMille of the
// lead when the weaker side has nothing left to trade, less as it has more
// (half at 1600, a full army's material without the Damone's bonus).
func tradeBonus(lead, weakMaterial int) int {
	return lead * leadPerMille / 1000 * 1600 / (1600 + weakMaterial)
}

// nearest returns the king distance from sq to the closest square of targets.
func nearest(sq int, targets uint64) int {
	d := 7
	for b := targets; b != 0; b &= b - 1 {
		d = min(d, int(kingDistance[sq][bits.TrailingZeros64(b)]))
	}
	return d
}
