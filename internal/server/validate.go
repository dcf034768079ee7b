package server

import (
	"context"
	"errors"
	"io"
	"math/bits"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/validation"
)

// DefaultMaxGamePlies is the default cap on the moves of one game given to
// ValidateGame (setting max-game-plies): ten times the longest game the
// default no-progress rule lets a game last without captures is far above
// any real game, and bounds one call's work to milliseconds.
const DefaultMaxGamePlies = 10000

// DefaultMaxPositionPlies is the default cap on the moves of a game whose
// every position ValidateGame returns (setting max-position-plies): about
// a megabyte of JSON.
const DefaultMaxPositionPlies = 1000

// WithMaxPositionPlies sets the cap on the moves of a game whose every
// position is returned (include_positions).
func (s *RulesServer) WithMaxPositionPlies(n int) *RulesServer {
	s.maxPositionPlies = n
	return s
}

// maxStreamID is the longest ValidateGamesRequest.id accepted, in bytes.
const maxStreamID = 128

// ValidateGame judges a whole game (RULES.md, End of the game, for where it
// ends). An illegal game is a verdict, not an error; errors are a malformed
// request (INVALID_ARGUMENT) or a game above the plies limit
// (RESOURCE_EXHAUSTED).
func (s *RulesServer) ValidateGame(_ context.Context, req *damonev1.ValidateGameRequest) (*damonev1.ValidateGameResponse, error) {
	out, err := s.validate("", req)
	return out, toStatus(err)
}

// ValidateGames judges a stream of games, answering each in order. A
// reader hands over one request at a time and reads the next only once
// the previous one is taken, and an answer is sent before the next request
// is taken, so a client that stops reading stops the reading of its
// requests (flow control) instead of growing a queue here. When the server
// shuts down, the stream ends at once with UNAVAILABLE (docs/api.md).
func (s *RulesServer) ValidateGames(stream damonev1.RulesService_ValidateGamesServer) error {
	reqs := make(chan *damonev1.ValidateGamesRequest)
	ended := make(chan error, 1)
	go func() {
		for {
			req, err := stream.Recv()
			if err != nil {
				ended <- err
				return
			}
			select {
			case reqs <- req:
			case <-stream.Context().Done():
				return
			}
		}
	}()
	for {
		var req *damonev1.ValidateGamesRequest
		select {
		case <-s.stopping:
			return withInfo(codes.Unavailable, "the server is shutting down: send the games not yet answered again, on a new stream", "", nil)
		case err := <-ended:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case req = <-reqs:
		}
		resp := &damonev1.ValidateGamesResponse{Id: validUTF8(req.GetId())}
		if len(req.GetId()) > maxStreamID || !utf8.ValidString(req.GetId()) {
			resp.Answer = &damonev1.ValidateGamesResponse_Error{Error: validationError(
				badField("id", "must be valid UTF-8 of at most %d bytes, got %d bytes", maxStreamID, len(req.GetId())))}
		} else if req.GetGame() == nil {
			resp.Answer = &damonev1.ValidateGamesResponse_Error{Error: validationError(
				badField("game", "is required: the game to validate, as in a ValidateGame request"))}
		} else if verdict, err := s.validate("game.", req.GetGame()); err != nil {
			resp.Answer = &damonev1.ValidateGamesResponse_Error{Error: validationError(err)}
		} else {
			resp.Answer = &damonev1.ValidateGamesResponse_Result{Result: verdict}
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

// StopStreamsOn makes ValidateGames streams end with UNAVAILABLE once
// stopping is closed (the server shutting down), instead of holding the
// drain for as long as their clients keep them open.
func (s *RulesServer) StopStreamsOn(stopping <-chan struct{}) *RulesServer {
	s.stopping = stopping
	return s
}

// validate answers one ValidateGame request; prefix is the path of the
// request within the message that carries it, for field errors.
func (s *RulesServer) validate(prefix string, req *damonev1.ValidateGameRequest) (*damonev1.ValidateGameResponse, error) {
	variant, moves, err := s.gameOf(prefix, req)
	if err != nil {
		return nil, err
	}
	if req.GetIncludePositions() && len(moves) > s.maxPositionPlies {
		return nil, limitExceeded("position_plies", s.maxPositionPlies,
			"include_positions with %d moves: the server returns every position only for games of at most %d moves (setting max-position-plies)",
			len(moves), s.maxPositionPlies)
	}
	if len(moves) > s.maxGamePlies {
		return nil, limitExceeded("game_plies", s.maxGamePlies,
			"the game has %d moves, above the server's limit of %d (setting max-game-plies)", len(moves), s.maxGamePlies)
	}
	timer := startTimer(s.observe, "validate_game")
	v, err := validation.Game(variant, moves, validation.Options{Positions: req.GetIncludePositions()})
	timer.stop()
	if err != nil {
		return nil, badField(prefix+"variant", "%v", err)
	}
	return verdictToProto(v, moves), nil
}

// gameOf reads the variant and the moves of a ValidateGame request.
func (s *RulesServer) gameOf(prefix string, req *damonev1.ValidateGameRequest) (engine.Variant, []string, error) {
	if req.Pdn != nil && len(req.GetMoves()) > 0 {
		return engine.Variant{}, nil, badField(prefix+"pdn", "give the game as moves or as pdn, not both")
	}
	if req.Pdn == nil {
		v, err := variantFromProto(prefix+"variant", req.GetVariant())
		return v, req.GetMoves(), err
	}
	return pdnGame(prefix, req.GetVariant(), req.GetPdn())
}

// verdictToProto writes a verdict in the API's terms; the refusal of the
// first illegal move is what ApplyMove would answer for it. given are the
// moves as the request gave them.
func verdictToProto(v *validation.Verdict, given []string) *damonev1.ValidateGameResponse {
	out := &damonev1.ValidateGameResponse{
		Valid:           v.Valid(),
		FirstIllegalPly: int32(v.IllegalPly),
		IllegalMove:     validUTF8(v.IllegalMove),
		Moves:           notations(v.Moves, given),
		Ply:             int32(len(v.Moves)),
		Outcome:         outcomeToProto(v.Outcome),
		FinalPosition:   positionToProto(&v.Final),
	}
	if v.Outcome.Over() {
		out.EndPly = ptr(int32(v.EndPly))
	}
	if len(v.Positions) > 0 {
		out.Positions = positionsToProto(v.Positions)
	}
	if v.Err != nil {
		var st *status.Status
		var me *engine.MoveError
		switch {
		case errors.Is(v.Err, engine.ErrGameOver):
			st = status.Convert(gameOverStatus(v.Outcome))
		case v.IllegalMove == "":
			// ApplyMove refuses an empty move before reading it.
			st = status.Convert(toStatus(errMoveRequired))
		case errors.As(v.Err, &me):
			st = status.Convert(moveStatus(me, v.Final.LegalMoves()))
		default:
			st = status.Convert(toStatus(v.Err))
		}
		out.Message = st.Message()
		if info := errorInfo(st); info != nil {
			out.Reason, out.Metadata, out.Cause = info.Reason, info.Metadata, info.Metadata["cause"]
		}
	}
	return out
}

// notations returns the moves in full notation. A move given in exactly
// that form (the usual case) is answered with the request's own string,
// so a game costs no string per ply; any other form (short, upper case,
// white space) gets its own.
func notations(moves []engine.Move, given []string) []string {
	out := make([]string, len(moves))
	var buf [3 + 3*engine.MaxCaptures]byte
	for i := range moves {
		b := moves[i].AppendNotation(buf[:0])
		if i < len(given) && string(b) == given[i] {
			out[i] = given[i]
		} else {
			out[i] = string(b)
		}
	}
	return out
}

// positionsToProto converts many positions as positionToProto does each,
// with a handful of allocations for all of them instead of several per
// position: include_positions asks for one per ply.
func positionsToProto(ps []engine.Position) []*damonev1.Position {
	pieces, textBytes := 0, 0
	for i := range ps {
		n := bits.OnesCount64(occupied(&ps[i]))
		pieces += n
		textBytes += 12 + 4*n // "R:R:B:" + "Mh1," per piece + the counter
	}
	msgs := make([]damonev1.Position, len(ps))
	out := make([]*damonev1.Position, len(ps))
	pieceMsgs := make([]damonev1.Piece, pieces)
	piecePtrs := make([]*damonev1.Piece, pieces)
	// Every text in one string, each position's a substring of it.
	text := make([]byte, 0, textBytes)
	ends := make([]int, len(ps))
	for i := range ps {
		text = ps[i].AppendText(text)
		ends[i] = len(text)
	}
	all := string(text)
	start := 0
	for i := range ps {
		p := &ps[i]
		m := &msgs[i]
		m.SideToMove, m.NoProgressPlies, m.Text = sideToProto[p.SideToMove()], int32(p.NoProgress()), all[start:ends[i]]
		start = ends[i]
		occ := occupied(p)
		n := bits.OnesCount64(occ)
		m.Pieces, piecePtrs = piecePtrs[:n:n], piecePtrs[n:]
		// By square, a1 to h8 row by row, as positionToProto lists them.
		for j := 0; occ != 0; occ &= occ - 1 {
			sq := engine.Square(bits.TrailingZeros64(occ))
			pc, _ := p.PieceAt(sq)
			pm := &pieceMsgs[0]
			pieceMsgs = pieceMsgs[1:]
			pm.Square, pm.Side, pm.Rank = sq.String(), sideToProto[pc.Side], rankToProto[pc.Rank]
			m.Pieces[j] = pm
			j++
		}
		out[i] = m
	}
	return out
}

// occupied returns the squares holding a piece, as a bitboard.
func occupied(p *engine.Position) uint64 {
	var occ uint64
	for side := engine.Red; side <= engine.Black; side++ {
		for r := engine.Pedine; r <= engine.Damone; r++ {
			occ |= p.Bitboard(side, r)
		}
	}
	return occ
}

// validationError is a stream answer's error in the error model's terms.
func validationError(err error) *damonev1.ValidationError {
	st := status.Convert(toStatus(err))
	out := &damonev1.ValidationError{Code: code.Code(st.Code()).String(), Message: st.Message()}
	if info := errorInfo(st); info != nil {
		out.Reason, out.Metadata = info.Reason, info.Metadata
	}
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok && len(br.FieldViolations) > 0 {
			out.Field = br.FieldViolations[0].Field
		}
	}
	return out
}

func errorInfo(st *status.Status) *errdetails.ErrorInfo {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info
		}
	}
	return nil
}
