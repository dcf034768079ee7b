package games

import (
	"context"
	"errors"
	"fmt"

	"github.com/damone-rules/damone/internal/engine"
)

// Resign ends the game with a win for the opponent of the token's side.
func (s *Service) Resign(ctx context.Context, id, token string) (*Game, error) {
	return s.Act(ctx, Action{GameID: id, Token: token, Call: CallResign})
}

func resign(g *Game, side engine.Side) ([]Event, error) {
	g.Outcome = engine.Outcome{Result: engine.WinFor(side ^ 1), Reason: engine.Resignation}
	g.HasOffer = false
	return []Event{{Kind: EventEnded, Outcome: g.Outcome}}, nil
}

// OfferDraw records a draw offer by the token's side; the opponent answers
// it with AnswerDrawOffer or declines it by moving.
func (s *Service) OfferDraw(ctx context.Context, id, token string) (*Game, error) {
	return s.Act(ctx, Action{GameID: id, Token: token, Call: CallOfferDraw})
}

func (s *Service) offerDraw(g *Game, side engine.Side) ([]Event, error) {
	if g.HasOffer {
		e := precondition(ReasonDrawAlreadyOffered, "%s has offered a draw: answer it with AnswerDrawOffer", g.DrawOffer)
		if g.DrawOffer == side {
			e.Message = fmt.Sprintf("%s has already offered a draw", side)
		}
		e.Metadata = map[string]string{"draw_offer": sideName(g.DrawOffer)}
		return nil, e
	}
	g.HasOffer, g.DrawOffer = true, side
	events := []Event{{Kind: EventDrawOffered, Side: side}}
	if g.Engine != nil && g.Engine.Side != side && s.atLengthLimit(g) {
		// The engine cannot move any more, so it takes the draw: the
		// game would otherwise go on only until its player resigned.
		g.HasOffer = false
		g.Outcome = engine.Outcome{Result: engine.Draw, Reason: engine.AgreedDraw}
		events = append(events, Event{Kind: EventEnded, Outcome: g.Outcome})
	}
	return events, nil
}

// atLengthLimit reports whether g has as many moves as a game may have
// (Limits.MaxPlies).
func (s *Service) atLengthLimit(g *Game) bool {
	return s.limits.MaxPlies > 0 && g.Ply() >= s.limits.MaxPlies
}

// engineToMove reports whether the engine is to move in g and may: not in
// a game at its length limit.
func (s *Service) engineToMove(g *Game) bool {
	return g.EngineToMove() && !s.atLengthLimit(g)
}

// AnswerDrawOffer accepts (ending the game as an agreed draw) or declines
// the opponent's pending offer.
func (s *Service) AnswerDrawOffer(ctx context.Context, id, token string, accept bool) (*Game, error) {
	call := CallDeclineDraw
	if accept {
		call = CallAcceptDraw
	}
	return s.Act(ctx, Action{GameID: id, Token: token, Call: call})
}

func answerDraw(accept bool) func(*Game, engine.Side) ([]Event, error) {
	return func(g *Game, side engine.Side) ([]Event, error) {
		if !g.HasOffer || g.DrawOffer == side {
			e := precondition(ReasonNoDrawOffer, "%s has no draw offer to answer", side)
			e.Metadata = map[string]string{"side": sideName(side)}
			return nil, e
		}
		g.HasOffer = false
		if !accept {
			return []Event{{Kind: EventDrawDeclined, Side: side}}, nil
		}
		g.Outcome = engine.Outcome{Result: engine.Draw, Reason: engine.AgreedDraw}
		return []Event{{Kind: EventEnded, Outcome: g.Outcome}}, nil
	}
}

// change applies a token-authorized change that is not a move, retrying
// when it loses a race (it is checked again on the new state). The checks
// run in the contract's order: a malformed request id, missing token,
// unknown game, a token that is neither side's, a replayed request id,
// then the game's state.
func (s *Service) change(ctx context.Context, a Action, fn func(*Game, engine.Side) ([]Event, error)) (*Game, error) {
	if err := checkRequestID(a.RequestID); err != nil {
		return nil, err
	}
	if a.Token == "" {
		return nil, errMissingToken
	}
	for attempt := 1; ; attempt++ {
		g, err := s.store.Get(ctx, a.GameID)
		if err != nil {
			return nil, storeError(err)
		}
		side, err := authorize(g, a.Token)
		if err != nil {
			return nil, err
		}
		reqID := ""
		if a.RequestID != "" {
			// The same namespace as MakeMove's (moves.go).
			reqID = side.String() + "/" + a.RequestID
			if first, err := s.replayAction(ctx, g, a, reqID); first != nil || err != nil {
				return first, err
			}
		}
		if g.Over() {
			return nil, gameOver(g)
		}
		now := s.now()
		if _, due := clockOutcome(g, now); due { // over, if not yet ended
			if err := s.expire(ctx, g.ID); err != nil {
				return nil, storeError(err)
			}
			continue
		}
		advanceClock(g, now)
		events, err := fn(g, side)
		if err != nil {
			return nil, err
		}
		settleClock(g, false, s.atLengthLimit(g))
		g.Version++
		g.UpdateTime = now
		s.stamp(g, events)
		var req *RequestRecord
		if reqID != "" {
			head, err := EncodeGame(g)
			if err != nil {
				return nil, err
			}
			req = &RequestRecord{RequestID: reqID, Call: a.Call, Ply: g.Ply(), Sequence: events[0].Sequence, Head: head}
		}
		err = s.store.Update(ctx, g, events, req)
		switch {
		case err == nil:
			s.hub.publish(g.ID, events)
			return g, nil
		case errors.Is(err, ErrDuplicateRequest) && attempt < maxAttempts:
			continue // a retry of ours landed first: answer as it did
		case errors.Is(err, ErrConflict) && attempt < maxAttempts:
			continue
		case errors.Is(err, ErrConflict):
			return nil, &Error{Code: CodeAborted, Reason: ReasonPlyMismatch, Message: "the game kept changing; retry"}
		default:
			return nil, storeError(err)
		}
	}
}
