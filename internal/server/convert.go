package server

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// fieldError is a malformed request field: it becomes INVALID_ARGUMENT
// with a google.rpc.BadRequest field violation.
type fieldError struct {
	field string
	msg   string
}

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

func badField(field, format string, args ...any) *fieldError {
	return &fieldError{field, fmt.Sprintf(format, args...)}
}

var sideToProto = [2]damonev1.Side{engine.Red: damonev1.Side_SIDE_RED, engine.Black: damonev1.Side_SIDE_BLACK}

var rankToProto = [engine.NumRanks]damonev1.Rank{
	engine.Pedine: damonev1.Rank_RANK_PEDINE,
	engine.Dama:   damonev1.Rank_RANK_DAMA,
	engine.Damone: damonev1.Rank_RANK_DAMONE,
}

func sideFromProto(field string, s damonev1.Side) (engine.Side, error) {
	switch s {
	case damonev1.Side_SIDE_RED:
		return engine.Red, nil
	case damonev1.Side_SIDE_BLACK:
		return engine.Black, nil
	}
	return 0, badField(field, "must be SIDE_RED or SIDE_BLACK, got %v", s)
}

func rankFromProto(field string, r damonev1.Rank) (engine.Rank, error) {
	switch r {
	case damonev1.Rank_RANK_PEDINE:
		return engine.Pedine, nil
	case damonev1.Rank_RANK_DAMA:
		return engine.Dama, nil
	case damonev1.Rank_RANK_DAMONE:
		return engine.Damone, nil
	}
	return 0, badField(field, "must be RANK_PEDINE, RANK_DAMA or RANK_DAMONE, got %v", r)
}

// positionFromProto reads a position given either as text or in the
// structured form (not both). field is the request field's path.
func positionFromProto(field string, p *damonev1.Position) (engine.Position, error) {
	if p == nil {
		return engine.Position{}, badField(field, "is required")
	}
	if p.GetText() != "" {
		pos, err := engine.ParsePosition(p.GetText())
		if err != nil {
			return engine.Position{}, badField(field+".text", "%v", err)
		}
		structured := len(p.GetPieces()) > 0 || p.GetSideToMove() != damonev1.Side_SIDE_UNSPECIFIED || p.GetNoProgressPlies() != 0
		if !structured {
			return pos, nil
		}
		// Both forms, as in a position copied from a response: they must
		// describe the same position.
		other, err := structuredPosition(field, p)
		if err != nil {
			return engine.Position{}, err
		}
		if !other.SamePlacement(&pos) || other.NoProgress() != pos.NoProgress() {
			return engine.Position{}, badField(field, "text %s and the structured form (%s) describe different positions", engine.Quote(p.GetText()), other.String())
		}
		return pos, nil
	}
	return structuredPosition(field, p)
}

// structuredPosition reads the structured form of a position.
func structuredPosition(field string, p *damonev1.Position) (engine.Position, error) {
	stm, err := sideFromProto(field+".side_to_move", p.GetSideToMove())
	if err != nil {
		return engine.Position{}, err
	}
	if n := p.GetNoProgressPlies(); n < 0 || n > engine.MaxNoProgress {
		return engine.Position{}, badField(field+".no_progress_plies", "must be 0..%d, got %d", engine.MaxNoProgress, n)
	}
	if n := len(p.GetPieces()); n > 32 {
		return engine.Position{}, badField(field+".pieces", "%d pieces, but the board has 32 playing squares", n)
	}
	pieces := make([]engine.PlacedPiece, len(p.GetPieces()))
	var seen [64]int // 1 + the index of the piece on each square
	for i, pc := range p.GetPieces() {
		f := fmt.Sprintf("%s.pieces[%d]", field, i)
		at, err := engine.ParseSquare(pc.GetSquare())
		if err != nil {
			return engine.Position{}, badField(f+".square", "%v", err)
		}
		if j := seen[at]; j > 0 {
			return engine.Position{}, badField(f+".square", "%s already holds %s.pieces[%d]: two pieces on one square", at, field, j-1)
		}
		seen[at] = i + 1
		side, err := sideFromProto(f+".side", pc.GetSide())
		if err != nil {
			return engine.Position{}, err
		}
		rank, err := rankFromProto(f+".rank", pc.GetRank())
		if err != nil {
			return engine.Position{}, err
		}
		pieces[i] = engine.PlacedPiece{Square: at, Piece: engine.Piece{Side: side, Rank: rank}}
	}
	pos, err := engine.NewPosition(stm, pieces, int(p.GetNoProgressPlies()))
	if err != nil {
		// What is left is a placement no game can reach: name the piece.
		var pe *engine.PositionError
		if errors.As(err, &pe) {
			for i := range pieces {
				if pieces[i].Square.String() == pe.Where {
					return engine.Position{}, badField(fmt.Sprintf("%s.pieces[%d]", field, i), "%v", err)
				}
			}
		}
		return engine.Position{}, badField(field, "%v", err)
	}
	return pos, nil
}

func positionToProto(p *engine.Position) *damonev1.Position {
	pieces := p.Pieces()
	// The contract lists pieces by square, a1 to h8 row by row.
	slices.SortFunc(pieces, func(a, b engine.PlacedPiece) int { return int(a.Square) - int(b.Square) })
	out := &damonev1.Position{
		SideToMove:      sideToProto[p.SideToMove()],
		Pieces:          make([]*damonev1.Piece, len(pieces)),
		NoProgressPlies: int32(p.NoProgress()),
		Text:            p.String(),
	}
	msgs := make([]damonev1.Piece, len(pieces)) // one allocation for all
	for i, pc := range pieces {
		msgs[i].Square, msgs[i].Side, msgs[i].Rank = pc.Square.String(), sideToProto[pc.Side], rankToProto[pc.Rank]
		out.Pieces[i] = &msgs[i]
	}
	return out
}

// variantFromProto reads rule settings; unset fields take their defaults
// (RULES.md: standard setup, capture all pieces, Red first, repetition on,
// 80 plies). A nil variant is the default game.
func variantFromProto(field string, v *damonev1.Variant) (engine.Variant, error) {
	out := engine.DefaultVariant()
	if v == nil {
		return out, nil
	}
	switch s := v.GetStart().(type) {
	case nil:
	case *damonev1.Variant_Setup:
		switch s.Setup {
		case damonev1.Setup_SETUP_STANDARD, damonev1.Setup_SETUP_UNSPECIFIED:
			out.Setup = engine.SetupStandard
		case damonev1.Setup_SETUP_NO_DAMONE:
			out.Setup = engine.SetupNoDamone
		default:
			return out, badField(field+".setup", "must be SETUP_UNSPECIFIED, SETUP_STANDARD or SETUP_NO_DAMONE, got %v", s.Setup)
		}
	case *damonev1.Variant_StartPosition:
		pos, err := positionFromProto(field+".start_position", s.StartPosition)
		if err != nil {
			return out, err
		}
		out.Setup, out.Start = engine.SetupCustom, pos
	}
	switch v.GetWinCondition() {
	case damonev1.WinCondition_WIN_CONDITION_UNSPECIFIED, damonev1.WinCondition_WIN_CONDITION_CAPTURE_ALL_PIECES:
		out.WinCondition = engine.CaptureAllPieces
	case damonev1.WinCondition_WIN_CONDITION_CAPTURE_ALL_DAMONES:
		out.WinCondition = engine.CaptureAllDamones
	default:
		return out, badField(field+".win_condition", "must be WIN_CONDITION_UNSPECIFIED, WIN_CONDITION_CAPTURE_ALL_PIECES or WIN_CONDITION_CAPTURE_ALL_DAMONES, got %v", v.GetWinCondition())
	}
	if v.GetFirstPlayer() != damonev1.Side_SIDE_UNSPECIFIED {
		s, err := sideFromProto(field+".first_player", v.GetFirstPlayer())
		if err != nil {
			return out, err
		}
		if out.Setup == engine.SetupCustom && s != out.Start.SideToMove() {
			return out, badField(field+".first_player", "must be unset or equal to start_position's side_to_move (%v), which moves first; got %v",
				sideToProto[out.Start.SideToMove()], v.GetFirstPlayer())
		}
		out.FirstPlayer = s
	}
	if v.RepetitionDraw != nil {
		out.RepetitionDraw = v.GetRepetitionDraw()
	}
	if v.NoProgressLimit != nil {
		if v.GetNoProgressLimit() < 0 {
			return out, badField(field+".no_progress_limit", "must be 0 (off) or more, got %d", v.GetNoProgressLimit())
		}
		out.NoProgressLimit = int(v.GetNoProgressLimit())
	}
	if _, err := out.InitialPosition(); err != nil {
		return out, badField(field, "%v", err)
	}
	return out, nil
}

// variantToProto writes every setting explicitly, defaults included.
func variantToProto(v *engine.Variant) *damonev1.Variant {
	out := &damonev1.Variant{
		WinCondition:    damonev1.WinCondition_WIN_CONDITION_CAPTURE_ALL_PIECES,
		RepetitionDraw:  &v.RepetitionDraw,
		NoProgressLimit: ptr(int32(v.NoProgressLimit)),
	}
	if v.WinCondition == engine.CaptureAllDamones {
		out.WinCondition = damonev1.WinCondition_WIN_CONDITION_CAPTURE_ALL_DAMONES
	}
	switch v.Setup {
	case engine.SetupNoDamone:
		out.Start = &damonev1.Variant_Setup{Setup: damonev1.Setup_SETUP_NO_DAMONE}
		out.FirstPlayer = sideToProto[v.FirstPlayer]
	case engine.SetupCustom:
		out.Start = &damonev1.Variant_StartPosition{StartPosition: positionToProto(&v.Start)}
	default:
		out.Start = &damonev1.Variant_Setup{Setup: damonev1.Setup_SETUP_STANDARD}
		out.FirstPlayer = sideToProto[v.FirstPlayer]
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// moveToProto describes m, a move of the side to move in before.
func moveToProto(before *engine.Position, m *engine.Move) *damonev1.Move {
	return movesToProto(before, []engine.Move{*m})[0]
}

// movesToProto describes the legal moves of before, as moveToProto does
// for one, with a handful of allocations for the whole list instead of
// several per move: listing moves is the service's hottest call.
func movesToProto(before *engine.Position, moves []engine.Move) []*damonev1.Move {
	landings, captures := 0, 0
	for i := range moves {
		landings += moves[i].NumLandings()
		captures += moves[i].CaptureCount()
	}
	msgs := make([]damonev1.Move, len(moves))
	out := make([]*damonev1.Move, len(moves))
	squares := make([]string, landings)
	pieces := make([]damonev1.Piece, captures)
	piecePtrs := make([]*damonev1.Piece, captures)
	side := sideToProto[before.SideToMove()]
	for i := range moves {
		m := &moves[i]
		msg := &msgs[i]
		msg.Notation, msg.Side, msg.Rank, msg.Origin = m.String(), side, rankToProto[m.Rank()], m.From().String()
		n := m.NumLandings()
		msg.LandingSquares, squares = squares[:n:n], squares[n:]
		if k := m.CaptureCount(); k > 0 {
			msg.CapturedPieces, piecePtrs = piecePtrs[:k:k], piecePtrs[k:]
		}
		prev := m.From()
		for j := range n {
			to := m.Landing(j)
			msg.LandingSquares[j] = to.String()
			if m.IsCapture() {
				mid := (prev + to) / 2 // the jumped square
				pc, _ := before.PieceAt(mid)
				pieces[0].Square, pieces[0].Side, pieces[0].Rank = mid.String(), sideToProto[pc.Side], rankToProto[pc.Rank]
				msg.CapturedPieces[j] = &pieces[0]
				pieces = pieces[1:]
			}
			prev = to
		}
		if r, ok := m.Promotion(); ok {
			msg.Promotion = rankToProto[r]
		}
		out[i] = msg
	}
	return out
}

func playedToProto(pm games.PlayedMove) *damonev1.Move {
	m := &pm.Move
	landings := m.Landings()
	out := &damonev1.Move{
		Notation:       m.String(),
		Side:           sideToProto[pm.Side],
		Rank:           rankToProto[m.Rank()],
		Origin:         m.From().String(),
		LandingSquares: make([]string, len(landings)),
	}
	for i, s := range landings {
		out.LandingSquares[i] = s.String()
	}
	if len(pm.Captured) > 0 {
		// One allocation for all the captured pieces.
		pieces := make([]damonev1.Piece, len(pm.Captured))
		out.CapturedPieces = make([]*damonev1.Piece, len(pm.Captured))
		for i, c := range pm.Captured {
			pieces[i].Square, pieces[i].Side, pieces[i].Rank = c.Square.String(), sideToProto[c.Side], rankToProto[c.Rank]
			out.CapturedPieces[i] = &pieces[i]
		}
	}
	if r, ok := m.Promotion(); ok {
		out.Promotion = rankToProto[r]
	}
	return out
}

var resultToProto = [...]damonev1.OutcomeResult{
	engine.Ongoing:   damonev1.OutcomeResult_OUTCOME_RESULT_UNSPECIFIED,
	engine.RedWins:   damonev1.OutcomeResult_OUTCOME_RESULT_RED_WINS,
	engine.BlackWins: damonev1.OutcomeResult_OUTCOME_RESULT_BLACK_WINS,
	engine.Draw:      damonev1.OutcomeResult_OUTCOME_RESULT_DRAW,
	engine.NoResult:  damonev1.OutcomeResult_OUTCOME_RESULT_NO_RESULT,
}

var reasonToProto = [...]damonev1.OutcomeReason{
	engine.NoReason:           damonev1.OutcomeReason_OUTCOME_REASON_UNSPECIFIED,
	engine.AllPiecesCaptured:  damonev1.OutcomeReason_OUTCOME_REASON_ALL_PIECES_CAPTURED,
	engine.Stalemate:          damonev1.OutcomeReason_OUTCOME_REASON_STALEMATE,
	engine.AllDamonesCaptured: damonev1.OutcomeReason_OUTCOME_REASON_ALL_DAMONES_CAPTURED,
	engine.Repetition:         damonev1.OutcomeReason_OUTCOME_REASON_REPETITION,
	engine.NoProgress:         damonev1.OutcomeReason_OUTCOME_REASON_NO_PROGRESS,
	engine.Resignation:        damonev1.OutcomeReason_OUTCOME_REASON_RESIGNATION,
	engine.AgreedDraw:         damonev1.OutcomeReason_OUTCOME_REASON_AGREED_DRAW,
	engine.Timeout:            damonev1.OutcomeReason_OUTCOME_REASON_TIMEOUT,
	engine.Aborted:            damonev1.OutcomeReason_OUTCOME_REASON_ABORTED,
}

// outcomeToProto returns nil while the game goes on.
func outcomeToProto(o engine.Outcome) *damonev1.Outcome {
	if !o.Over() {
		return nil
	}
	return &damonev1.Outcome{Result: resultToProto[o.Result], Reason: reasonToProto[o.Reason]}
}

const gamePrefix = "games/"

func gameName(id string) string { return gamePrefix + id }

// gameID reads a resource name "games/{game}".
func gameID(field, name string) (string, error) {
	if len(name) <= len(gamePrefix) || name[:len(gamePrefix)] != gamePrefix {
		return "", badField(field, "must be a game resource name like games/0193a7c2-...; got %s", engine.Quote(name))
	}
	id := name[len(gamePrefix):]
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') || len(id) > 64 {
			return "", badField(field, "game id %s has characters other than letters, digits, '-' and '_' or is too long", engine.Quote(id))
		}
	}
	return id, nil
}

func gameToProto(g *games.Game) *damonev1.Game {
	out := &damonev1.Game{
		Name:              gameName(g.ID),
		Variant:           variantToProto(&g.Variant),
		InitialPosition:   positionToProto(&g.Initial),
		Position:          positionToProto(&g.Position),
		Moves:             make([]*damonev1.Move, len(g.Moves)),
		Status:            damonev1.GameStatus_GAME_STATUS_IN_PROGRESS,
		Outcome:           outcomeToProto(g.Outcome),
		Ply:               int32(g.Ply()),
		LastEventSequence: g.LastEvent,
		Etag:              g.Etag(),
		CreateTime:        timestamppb.New(g.CreateTime),
		UpdateTime:        timestamppb.New(g.UpdateTime),
	}
	if g.Over() {
		out.Status = damonev1.GameStatus_GAME_STATUS_FINISHED
	}
	if g.HasOffer {
		out.DrawOffer = sideToProto[g.DrawOffer]
	}
	if e := g.Engine; e != nil {
		out.EngineOpponent = &damonev1.EngineOpponent{Side: sideToProto[e.Side]}
		if e.MoveTime > 0 {
			out.EngineOpponent.Strength = &damonev1.EngineOpponent_MoveTime{MoveTime: durationpb.New(e.MoveTime)}
		} else {
			out.EngineOpponent.Strength = &damonev1.EngineOpponent_Depth{Depth: int32(e.Depth)}
		}
	}
	if tc := g.TimeControl; tc.On() && g.Clock != nil {
		out.TimeControl = &damonev1.TimeControl{}
		if tc.PerMove > 0 {
			out.TimeControl.PerMove = durationpb.New(tc.PerMove)
		} else {
			out.TimeControl.Initial, out.TimeControl.Increment = durationpb.New(tc.Initial), durationpb.New(tc.Increment)
		}
		out.Clock = clockToProto(g.Clock, g.Position.SideToMove())
	}
	for i, m := range g.Moves {
		out.Moves[i] = playedToProto(m)
	}
	return out
}

// clockToProto gives a clock as game.proto's Clock: the deadline is the
// running side's flag, or before stm's first move, the abort time.
func clockToProto(c *games.Clock, stm engine.Side) *damonev1.Clock {
	out := &damonev1.Clock{RedRemaining: durationpb.New(c.Remaining[engine.Red]), BlackRemaining: durationpb.New(c.Remaining[engine.Black])}
	switch {
	case c.Deadline.IsZero():
	case c.Running:
		out.Running, out.Deadline = sideToProto[stm], timestamppb.New(c.Deadline)
	default:
		out.FirstMoveDeadline = timestamppb.New(c.Deadline)
	}
	return out
}

// timeControlFromProto reads CreateGameRequest.game.time_control; the
// service checks it against its bounds.
func timeControlFromProto(tc *damonev1.TimeControl) (games.TimeControl, error) {
	const field = "game.time_control"
	var out games.TimeControl
	for _, f := range []struct {
		name string
		d    *durationpb.Duration
		to   *time.Duration
	}{{"initial", tc.GetInitial(), &out.Initial}, {"increment", tc.GetIncrement(), &out.Increment}, {"per_move", tc.GetPerMove(), &out.PerMove}} {
		if f.d == nil {
			continue
		}
		if err := f.d.CheckValid(); err != nil {
			return out, badField(field+"."+f.name, "not a valid duration: %v", err)
		}
		if f.d.AsDuration() < 0 || (f.name != "increment" && f.d.AsDuration() == 0) {
			what := "above 0"
			if f.name == "increment" {
				what = "0 or more"
			}
			return out, badField(field+"."+f.name, "must be a duration %s, e.g. \"180s\"; got %v", what, f.d.AsDuration())
		}
		if f.d.GetSeconds() > int64(games.MaxRemaining/time.Second) {
			return out, badField(field+"."+f.name, "%ds is out of range: a clock holds at most %v", f.d.GetSeconds(), games.MaxRemaining)
		}
		*f.to = f.d.AsDuration()
	}
	if tc.GetPerMove() != nil && tc.GetIncrement() != nil {
		return out, badField(field+".increment", "an increment goes with initial, not with per_move (even 0s)")
	}
	if out == (games.TimeControl{}) {
		return out, badField(field, "give initial (with an optional increment, e.g. {\"initial\": \"180s\", \"increment\": \"2s\"}) or per_move; leave time_control out for no clock")
	}
	return out, nil
}

func eventToProto(e *games.Event) *damonev1.GameEvent {
	out := &damonev1.GameEvent{
		Game:      gameName(e.GameID),
		Sequence:  e.Sequence,
		EventTime: timestamppb.New(e.Time),
		Ply:       int32(e.Ply),
		Position:  positionToProto(&e.Position),
	}
	if e.Clock != nil {
		out.Clock = clockToProto(e.Clock, e.Position.SideToMove())
	}
	switch e.Kind {
	case games.EventCreated:
		out.Event = &damonev1.GameEvent_GameCreated_{GameCreated: &damonev1.GameEvent_GameCreated{Variant: variantToProto(&e.Variant)}}
	case games.EventMovePlayed:
		out.Event = &damonev1.GameEvent_MovePlayed_{MovePlayed: &damonev1.GameEvent_MovePlayed{Move: playedToProto(e.Move)}}
	case games.EventDrawOffered:
		out.Event = &damonev1.GameEvent_DrawOffered_{DrawOffered: &damonev1.GameEvent_DrawOffered{Side: sideToProto[e.Side]}}
	case games.EventDrawDeclined:
		out.Event = &damonev1.GameEvent_DrawDeclined_{DrawDeclined: &damonev1.GameEvent_DrawDeclined{Side: sideToProto[e.Side], ByMove: e.ByMove}}
	case games.EventEnded:
		out.Event = &damonev1.GameEvent_GameEnded_{GameEnded: &damonev1.GameEvent_GameEnded{Outcome: outcomeToProto(e.Outcome)}}
	}
	return out
}

func engineOpponentFromProto(eo *damonev1.EngineOpponent) (games.EngineOpponent, error) {
	const field = "game.engine_opponent"
	side, err := sideFromProto(field+".side", eo.GetSide())
	if err != nil {
		return games.EngineOpponent{}, err
	}
	opp := games.EngineOpponent{Side: side}
	switch st := eo.GetStrength().(type) {
	case *damonev1.EngineOpponent_MoveTime:
		if err := st.MoveTime.CheckValid(); err != nil || st.MoveTime.AsDuration() <= 0 {
			return opp, badField(field+".move_time", "must be a duration above 0, e.g. \"0.5s\"")
		}
		opp.MoveTime = st.MoveTime.AsDuration()
	case *damonev1.EngineOpponent_Depth:
		if st.Depth < 1 || st.Depth > 64 {
			return opp, badField(field+".depth", "must be 1..64, got %d", st.Depth)
		}
		opp.Depth = int(st.Depth)
	default:
		return opp, badField(field, "give a strength: move_time or depth")
	}
	return opp, nil
}
