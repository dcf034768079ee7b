package server

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/pdn"
)

// GameServer serves damone.v1.GameService on a games.Service.
type GameServer struct {
	damonev1.UnimplementedGameServiceServer
	games *games.Service
}

// NewGameServer returns the stateful game service.
func NewGameServer(svc *games.Service) *GameServer { return &GameServer{games: svc} }

// Page sizes of ListGames (AIP-158).
const (
	defaultPageSize = 50
	maxPageSize     = 1000
)

func (s *GameServer) CreateGame(ctx context.Context, req *damonev1.CreateGameRequest) (*damonev1.CreateGameResponse, error) {
	v, err := variantFromProto("game.variant", req.GetGame().GetVariant())
	if err != nil {
		return nil, toStatus(err)
	}
	var tc games.TimeControl
	if pb := req.GetGame().GetTimeControl(); pb != nil {
		if tc, err = timeControlFromProto(pb); err != nil {
			return nil, toStatus(err)
		}
	}
	cr := games.CreateRequest{Variant: v, TimeControl: tc, RequestID: req.GetRequestId()}
	if eo := req.GetGame().GetEngineOpponent(); eo != nil {
		opp, ferr := engineOpponentFromProto(eo)
		if ferr != nil {
			return nil, toStatus(ferr)
		}
		cr.Engine = &opp
	}
	g, tokens, err := s.games.CreateGame(ctx, cr)
	if err != nil {
		return nil, toStatus(err)
	}
	return &damonev1.CreateGameResponse{Game: gameToProto(g), RedToken: tokens.Red, BlackToken: tokens.Black}, nil
}

func (s *GameServer) GetGame(ctx context.Context, req *damonev1.GetGameRequest) (*damonev1.Game, error) {
	id, err := gameID("name", req.GetName())
	if err != nil {
		return nil, toStatus(err)
	}
	full, err := fullView(req.GetView())
	if err != nil {
		return nil, toStatus(err)
	}
	g, err := s.games.Get(ctx, id)
	if err != nil {
		return nil, toStatus(named(err, req.GetName()))
	}
	return s.gameView(ctx, g, full)
}

// fullView reads a request's view (game.proto, GameView): the full view
// unless the basic one is asked for.
func fullView(v damonev1.GameView) (bool, error) {
	switch v {
	case damonev1.GameView_GAME_VIEW_UNSPECIFIED, damonev1.GameView_GAME_VIEW_FULL:
		return true, nil
	case damonev1.GameView_GAME_VIEW_BASIC:
		return false, nil
	}
	return false, badField("view", "must be GAME_VIEW_BASIC or GAME_VIEW_FULL (unset means full), got %v", v)
}

// gameView converts g for a response, with its moves (read from the
// game's event log) in the full view.
func (s *GameServer) gameView(ctx context.Context, g *games.Game, full bool) (*damonev1.Game, error) {
	if full {
		if err := s.games.WithMoves(ctx, g); err != nil {
			return nil, toStatus(err)
		}
	}
	return gameToProto(g), nil
}

func (s *GameServer) ListGames(ctx context.Context, req *damonev1.ListGamesRequest) (*damonev1.ListGamesResponse, error) {
	size := int(req.GetPageSize())
	switch {
	case size < 0:
		return nil, toStatus(badField("page_size", "must be 0 (the default, %d) or more, got %d", defaultPageSize, size))
	case size == 0:
		size = defaultPageSize
	case size > maxPageSize:
		size = maxPageSize
	}
	full, err := fullView(req.GetView())
	if err != nil {
		return nil, toStatus(err)
	}
	q := games.ListQuery{Limit: size, Moves: full}
	switch req.GetStatus() {
	case damonev1.GameStatus_GAME_STATUS_UNSPECIFIED:
	case damonev1.GameStatus_GAME_STATUS_IN_PROGRESS:
		q.Status = games.InProgress
	case damonev1.GameStatus_GAME_STATUS_FINISHED:
		q.Status = games.Finished
	default:
		return nil, toStatus(badField("status", "must be GAME_STATUS_UNSPECIFIED (every game), GAME_STATUS_IN_PROGRESS or GAME_STATUS_FINISHED, got %v", req.GetStatus()))
	}
	if t := req.GetPageToken(); t != "" {
		after, err := decodePageToken(t, q.Status)
		if err != nil {
			return nil, toStatus(err)
		}
		q.After = after
	}
	gs, more, err := s.games.List(ctx, q)
	if err != nil {
		return nil, toStatus(err)
	}
	out := &damonev1.ListGamesResponse{Games: make([]*damonev1.Game, len(gs))}
	for i, g := range gs {
		if out.Games[i], err = s.gameView(ctx, g, full); err != nil {
			return nil, err
		}
	}
	if more && len(gs) > 0 {
		out.NextPageToken = encodePageToken(gs[len(gs)-1].ID, q.Status)
	}
	return out, nil
}

// Page tokens are opaque to clients: the last game id of the page and the
// filter, so a token cannot be replayed with another filter.
func encodePageToken(lastID string, f games.StatusFilter) string {
	return base64.RawURLEncoding.EncodeToString([]byte{'v', '1', byte('0' + f)}) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(lastID))
}

func decodePageToken(t string, f games.StatusFilter) (string, error) {
	head, body, ok := strings.Cut(t, ".")
	h, err1 := base64.RawURLEncoding.DecodeString(head)
	id, err2 := base64.RawURLEncoding.DecodeString(body)
	if !ok || err1 != nil || err2 != nil || len(h) != 3 || h[0] != 'v' || h[1] != '1' {
		return "", badField("page_token", "is not a page token this service returned")
	}
	if h[2] != byte('0'+f) {
		return "", badField("page_token", "was returned for a different status filter")
	}
	return string(id), nil
}

func (s *GameServer) MakeMove(ctx context.Context, req *damonev1.MakeMoveRequest) (*damonev1.MakeMoveResponse, error) {
	id, token, err := actingOn(ctx, req.GetName())
	if err != nil {
		return nil, toStatus(err)
	}
	if req.GetMove() == "" {
		return nil, toStatus(badField("move", "is required, e.g. e2-d3 or f3xd5xb7"))
	}
	full, err := fullView(req.GetView())
	if err != nil {
		return nil, toStatus(err)
	}
	mr := games.MoveRequest{GameID: id, Token: token, Move: req.GetMove(), RequestID: req.GetRequestId()}
	switch p := req.GetPrecondition().(type) {
	case *damonev1.MakeMoveRequest_Etag:
		if p.Etag == "" {
			return nil, toStatus(badField("etag", "is empty; leave it unset to skip the check"))
		}
		mr.ExpectedEtag = p.Etag
	case *damonev1.MakeMoveRequest_ExpectedPly:
		if p.ExpectedPly < 0 {
			return nil, toStatus(badField("expected_ply", "must be 0 or more, got %d", p.ExpectedPly))
		}
		ply := int(p.ExpectedPly)
		mr.ExpectedPly = &ply
	}
	res, err := s.games.MakeMove(ctx, mr)
	if err != nil {
		return nil, toStatus(named(err, req.GetName()))
	}
	game, err := s.gameView(ctx, res.Game, full)
	if err != nil {
		return nil, err
	}
	return &damonev1.MakeMoveResponse{Move: playedToProto(res.Move), Game: game, EventSequence: res.Sequence}, nil
}

func (s *GameServer) Resign(ctx context.Context, req *damonev1.ResignRequest) (*damonev1.ResignResponse, error) {
	id, token, err := actingOn(ctx, req.GetName())
	if err != nil {
		return nil, toStatus(err)
	}
	g, err := s.games.Act(ctx, games.Action{GameID: id, Token: token, Call: games.CallResign, RequestID: req.GetRequestId()})
	if err != nil {
		return nil, toStatus(named(err, req.GetName()))
	}
	game, err := s.gameView(ctx, g, true)
	if err != nil {
		return nil, err
	}
	return &damonev1.ResignResponse{Game: game}, nil
}

func (s *GameServer) OfferDraw(ctx context.Context, req *damonev1.OfferDrawRequest) (*damonev1.OfferDrawResponse, error) {
	id, token, err := actingOn(ctx, req.GetName())
	if err != nil {
		return nil, toStatus(err)
	}
	g, err := s.games.Act(ctx, games.Action{GameID: id, Token: token, Call: games.CallOfferDraw, RequestID: req.GetRequestId()})
	if err != nil {
		return nil, toStatus(named(err, req.GetName()))
	}
	game, err := s.gameView(ctx, g, true)
	if err != nil {
		return nil, err
	}
	return &damonev1.OfferDrawResponse{Game: game}, nil
}

func (s *GameServer) AnswerDrawOffer(ctx context.Context, req *damonev1.AnswerDrawOfferRequest) (*damonev1.AnswerDrawOfferResponse, error) {
	id, token, err := actingOn(ctx, req.GetName())
	if err != nil {
		return nil, toStatus(err)
	}
	call := games.CallDeclineDraw
	if req.GetAccept() {
		call = games.CallAcceptDraw
	}
	g, err := s.games.Act(ctx, games.Action{GameID: id, Token: token, Call: call, RequestID: req.GetRequestId()})
	if err != nil {
		return nil, toStatus(named(err, req.GetName()))
	}
	game, err := s.gameView(ctx, g, true)
	if err != nil {
		return nil, err
	}
	return &damonev1.AnswerDrawOfferResponse{Game: game}, nil
}

func (s *GameServer) WatchGame(req *damonev1.WatchGameRequest, stream grpc.ServerStreamingServer[damonev1.GameEvent]) error {
	id, err := gameID("name", req.GetName())
	if err != nil {
		return toStatus(err)
	}
	sent := false
	err = s.games.WatchLive(stream.Context(), id, req.GetSinceSequence(), func(e *games.Event) error {
		// A live event is converted and encoded once for all its watchers.
		r := e.Rendered(renderEvent)
		if err, ok := r.(error); ok {
			return err
		}
		sent = true
		return stream.SendMsg(r)
	}, func() {
		// A watch with nothing to replay is still open: its headers say
		// so, and the REST gateway starts its heartbeats on them.
		if !sent {
			_ = stream.SendHeader(nil)
		}
	})
	return toStatus(named(err, req.GetName()))
}

// ExportPdn returns the game as one PDN record (docs/notation.md, PDN).
// Errors: INVALID_ARGUMENT naming `name` for a malformed name, NOT_FOUND
// for an unknown game.
func (s *GameServer) ExportPdn(ctx context.Context, req *damonev1.ExportPdnRequest) (*damonev1.ExportPdnResponse, error) {
	id, err := gameID("name", req.GetName())
	if err != nil {
		return nil, toStatus(err)
	}
	g, err := s.games.Get(ctx, id)
	if err != nil {
		return nil, toStatus(named(err, req.GetName()))
	}
	if err := s.games.WithMoves(ctx, g); err != nil {
		return nil, toStatus(err)
	}
	text, err := gamePDN(g)
	if err != nil {
		return nil, toStatus(err)
	}
	return &damonev1.ExportPdnResponse{Pdn: text}, nil
}

// gamePDN writes a stored game as PDN: Site is its resource name, Date
// its creation date (UTC), and the engine, when it plays, is named as its
// side's player.
func gamePDN(g *games.Game) (string, error) {
	moves := make([]engine.Move, len(g.Moves))
	for i := range g.Moves {
		moves[i] = g.Moves[i].Move
	}
	tags := []pdn.Tag{
		{Name: "Event", Value: "damone game"},
		{Name: "Site", Value: gameName(g.ID)},
		{Name: "Date", Value: g.CreateTime.UTC().Format("2006.01.02")},
		{Name: "Round", Value: "-"},
	}
	if e := g.Engine; e != nil {
		player := map[engine.Side]string{engine.Red: "White", engine.Black: "Black"}[e.Side]
		tags = append(tags, pdn.Tag{Name: player, Value: "damone engine"})
	}
	var b strings.Builder
	if err := pdn.Write(&b, pdn.FromGame(g.Variant, moves, g.Outcome, tags...)); err != nil {
		return "", fmt.Errorf("export game %s as PDN: %w", g.ID, err)
	}
	return b.String(), nil
}

// actingOn returns the game id of a call that acts for a side, and the
// side's token.
func actingOn(ctx context.Context, name string) (id, token string, err error) {
	if id, err = gameID("name", name); err != nil {
		return "", "", err
	}
	token, err = bearerToken(ctx)
	return id, token, err
}

// bearerToken reads "authorization: Bearer <token>" from the call's
// metadata ("" if absent or in another form). More than one authorization
// value is refused: which side is acting must never depend on which
// header a proxy kept first.
func bearerToken(ctx context.Context) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) > 1 {
		return "", &games.Error{Code: games.CodeUnauthenticated, Reason: games.ReasonMissingToken,
			Message: fmt.Sprintf("authorization: %d values; send exactly one 'authorization: Bearer <token>'", len(vals))}
	}
	for _, v := range vals {
		if scheme, tok, ok := strings.Cut(v, " "); ok && strings.EqualFold(scheme, "bearer") {
			return strings.TrimSpace(tok), nil
		}
	}
	return "", nil
}

// named adds the resource name to a not-found error's metadata.
func named(err error, name string) error {
	if ge, ok := err.(*games.Error); ok && ge.Code == games.CodeNotFound {
		ge.Message = "no game named " + name
		ge.Metadata = map[string]string{"name": name}
	}
	return err
}

// renderEvent returns the event in wire form (an *encoded), or an error.
func renderEvent(e *games.Event) any {
	enc, err := encode(eventToProto(e))
	if err != nil {
		return err
	}
	return enc
}
