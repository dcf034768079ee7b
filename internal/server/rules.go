package server

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// movePool recycles move buffers: a fresh one per call would be garbage
// of several kilobytes on the hottest call.
var movePool = sync.Pool{New: func() any { b := make([]engine.Move, 0, 64); return &b }}

// MovegenObserver counts the engine's calls per operation
// ("list_legal_moves", "apply_move", "perft", "validate_game"), every one,
// and records how long they took, measured around the engine call only,
// not the RPC. SampleMovegen says whether to time a fast call at all
// (timing costs about as much as the work; see package metrics).
type MovegenObserver interface {
	CountMovegen(operation string)
	SampleMovegen() bool
	ObserveMovegen(operation string, d time.Duration)
}

// sampleTimer times an engine call if the observer samples it.
type sampleTimer struct {
	obs MovegenObserver
	op  string
	t0  time.Time
	on  bool
}

func startTimer(obs MovegenObserver, op string) sampleTimer {
	obs.CountMovegen(op)
	if !obs.SampleMovegen() {
		return sampleTimer{}
	}
	return sampleTimer{obs: obs, op: op, t0: time.Now(), on: true}
}

func (t *sampleTimer) stop() {
	if t.on {
		t.obs.ObserveMovegen(t.op, time.Since(t.t0))
		t.on = false
	}
}

// RulesServer serves damone.v1.RulesService from the engine alone.
type RulesServer struct {
	damonev1.UnimplementedRulesServiceServer
	maxPerftDepth int
	maxGamePlies  int
	// maxPositionPlies bounds the games whose every position is returned
	// (include_positions): a position is about a hundred times a move's
	// size in the answer, so without it one call of a long game could
	// take hundreds of megabytes.
	maxPositionPlies int
	observe          MovegenObserver
	stopping         <-chan struct{} // closed at shutdown; nil: never
}

// NewRulesServer returns the stateless rules service; a perft deeper than
// maxPerftDepth, or a game to validate with more than maxGamePlies moves,
// is refused.
func NewRulesServer(maxPerftDepth, maxGamePlies int, observe MovegenObserver) *RulesServer {
	return &RulesServer{maxPerftDepth: maxPerftDepth, maxGamePlies: maxGamePlies, maxPositionPlies: DefaultMaxPositionPlies, observe: observe}
}

func (s *RulesServer) GetInitialPosition(_ context.Context, req *damonev1.GetInitialPositionRequest) (*damonev1.GetInitialPositionResponse, error) {
	v, err := variantFromProto("variant", req.GetVariant())
	if err != nil {
		return nil, toStatus(err)
	}
	start, err := v.InitialPosition()
	if err != nil {
		return nil, toStatus(badField("variant", "%v", err))
	}
	return &damonev1.GetInitialPositionResponse{Position: positionToProto(&start)}, nil
}

func (s *RulesServer) ListLegalMoves(_ context.Context, req *damonev1.ListLegalMovesRequest) (*damonev1.ListLegalMovesResponse, error) {
	pos, v, err := positionAndVariant(req.GetPosition(), req.GetVariant())
	if err != nil {
		return nil, toStatus(err)
	}
	buf := movePool.Get().(*[]engine.Move)
	defer movePool.Put(buf)
	timer := startTimer(s.observe, "list_legal_moves")
	outcome := v.PositionOutcome(&pos)
	var moves []engine.Move
	if !outcome.Over() {
		moves = pos.GenerateMoves(*buf)
		*buf = moves[:0] // keep any storage that grew
	}
	timer.stop()

	out := &damonev1.ListLegalMovesResponse{
		Moves:    movesToProto(&pos, moves),
		Outcome:  outcomeToProto(outcome),
		Position: positionToProto(&pos),
	}
	slices.SortFunc(out.Moves, func(a, b *damonev1.Move) int { return strings.Compare(a.Notation, b.Notation) })
	return out, nil
}

func (s *RulesServer) ApplyMove(_ context.Context, req *damonev1.ApplyMoveRequest) (*damonev1.ApplyMoveResponse, error) {
	pos, v, err := positionAndVariant(req.GetPosition(), req.GetVariant())
	if err != nil {
		return nil, toStatus(err)
	}
	if req.GetMove() == "" {
		return nil, toStatus(errMoveRequired)
	}
	timer := startTimer(s.observe, "apply_move")
	if o := v.PositionOutcome(&pos); o.Over() {
		timer.stop()
		return nil, gameOverStatus(o)
	}
	m, err := pos.ParseMove(req.GetMove())
	var next engine.Position
	var outcome engine.Outcome
	if err == nil {
		next = pos.After(&m)
		outcome = v.PositionOutcome(&next)
	}
	timer.stop()
	if err != nil {
		var me *engine.MoveError
		if errors.As(err, &me) {
			return nil, moveStatus(me, pos.LegalMoves())
		}
		return nil, toStatus(err)
	}
	return &damonev1.ApplyMoveResponse{
		Move:     moveToProto(&pos, &m),
		Position: positionToProto(&next),
		Outcome:  outcomeToProto(outcome),
	}, nil
}

func (s *RulesServer) Perft(ctx context.Context, req *damonev1.PerftRequest) (*damonev1.PerftResponse, error) {
	pos, err := positionFromProto("position", req.GetPosition())
	if err != nil {
		return nil, toStatus(err)
	}
	depth := int(req.GetDepth())
	switch {
	case depth < 1:
		return nil, toStatus(badField("depth", "must be 1 or more, got %d", depth))
	case depth > s.maxPerftDepth:
		return nil, limitExceeded("perft_depth", s.maxPerftDepth,
			"depth %d is above the server's perft depth limit of %d (setting max-perft-depth)", depth, s.maxPerftDepth)
	}
	// Count one first move at a time, each stopping as soon as the call is
	// cancelled or late (at depth 12 one first move's subtree takes
	// minutes).
	t0 := time.Now()
	moves := pos.LegalMoves()
	out := &damonev1.PerftResponse{}
	for i := range moves {
		child := pos.After(&moves[i])
		n, done := engine.PerftUntil(&child, depth-1, ctx.Done())
		if !done || ctx.Err() != nil {
			return nil, toStatus(ctx.Err())
		}
		out.Nodes += int64(n)
		if req.GetDivide() {
			out.Divisions = append(out.Divisions, &damonev1.PerftResponse_Division{Move: moves[i].String(), Nodes: int64(n)})
		}
	}
	s.observe.CountMovegen("perft")
	s.observe.ObserveMovegen("perft", time.Since(t0))
	slices.SortFunc(out.Divisions, func(a, b *damonev1.PerftResponse_Division) int { return strings.Compare(a.Move, b.Move) })
	return out, nil
}

// errMoveRequired refuses an empty move.
var errMoveRequired = badField("move", "is required, e.g. e2-d3 or f3xd5xb7")

// gameOverStatus is the refusal of a move in a game that is over.
func gameOverStatus(o engine.Outcome) error {
	return withInfo(codes.FailedPrecondition, "the game is already over in this position: "+o.String(),
		games.ReasonGameOver, map[string]string{
			"result": outcomeToProto(o).GetResult().String(), "reason": outcomeToProto(o).GetReason().String()})
}

func positionAndVariant(p *damonev1.Position, v *damonev1.Variant) (engine.Position, engine.Variant, error) {
	pos, err := positionFromProto("position", p)
	if err != nil {
		return pos, engine.Variant{}, err
	}
	variant, err := variantFromProto("variant", v)
	if err != nil {
		return pos, variant, err
	}
	return pos, variant, nil
}
