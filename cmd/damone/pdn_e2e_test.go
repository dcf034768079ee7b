package main

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/pdn"
)

// A short game played over gRPC and exported over gRPC, REST and the CLI:
// the record holds the moves played, the tags docs/notation.md (PDN)
// names, and the result, and reads back to the game's rules.
func TestServeExportPdn(t *testing.T) {
	s := svStart(t)
	ctx := svCtx(t)

	// e2-d3 b5-c4 d3xb5 (RULES.md: the capture is compulsory), then Black
	// resigns: Red wins, 1-0.
	cr := svNewGame(t, ctx, s, "")
	name := cr.GetGame().GetName()
	moves := []string{"e2-d3", "b5-c4", "d3xb5"}
	tokens := []string{cr.GetRedToken(), cr.GetBlackToken()}
	for i, m := range moves {
		svMove(t, ctx, s, name, tokens[i%2], m)
	}
	if _, err := s.games.Resign(svAuth(ctx, cr.GetBlackToken()), &damonev1.ResignRequest{Name: name}); err != nil {
		t.Fatal(err)
	}
	resp, err := s.games.ExportPdn(ctx, &damonev1.ExportPdnRequest{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	text := resp.GetPdn()
	g, err := pdn.ParseGame(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !reflect.DeepEqual(g.Moves, moves) || g.Result != "1-0" {
		t.Errorf("moves %v result %q, want %v 1-0\n%s", g.Moves, g.Result, moves, text)
	}
	wantTags := map[string]string{
		"Event":           "damone game",
		"Round":           "-",
		"Site":            name,
		"Date":            cr.GetGame().GetCreateTime().AsTime().UTC().Format("2006.01.02"),
		"White":           "?",
		"Black":           "?",
		"Result":          "1-0",
		"GameType":        "90,W,8,8,A0,1",
		"Setup":           "standard",
		"FirstPlayer":     "red",
		"WinCondition":    "capture-all-pieces",
		"RepetitionDraw":  "on",
		"NoProgressLimit": "80",
	}
	for k, want := range wantTags {
		if got, ok := g.Tag(k); !ok || got != want {
			t.Errorf("tag %s = %q (present %v), want %q", k, got, ok, want)
		}
	}
	if g.Tags[0].Name != "Event" || g.Tags[6].Name != "Result" || !strings.HasSuffix(text, "\n") {
		t.Errorf("tags %v: want the seven standard tags first, and a final line end", g.Tags)
	}
	if v, err := g.Variant(); err != nil || v != engine.DefaultVariant() {
		t.Errorf("variant %+v, %v; want the default", v, err)
	}
	if !strings.Contains(g.Comment, "resignation") {
		t.Errorf("final comment %q, want the ending's reason", g.Comment)
	}

	// REST: the same record.
	code, body := svHTTP(t, "GET", s.url("/v1/"+name+":exportPdn"), "", nil)
	var rest struct{ Pdn string }
	if err := json.Unmarshal(body, &rest); code != http.StatusOK || err != nil || rest.Pdn != text {
		t.Errorf("REST: HTTP %d, %v, pdn %q; want 200 and the gRPC record", code, err, rest.Pdn)
	}

	// The CLI prints it, and validate finds it valid (the resignation is
	// not a rule ending, so the replay goes on after 3 plies).
	out, errOut, exit := runCLI(t, "", "pdn", "export", "--addr", s.grpcAddr, name)
	if exit != 0 || out != text {
		t.Errorf("pdn export: exit %d, stderr %q, stdout %q", exit, errOut, out)
	}
	out, errOut, exit = runCLI(t, text, "pdn", "validate", "-")
	if exit != 0 || !strings.HasPrefix(out, "stdin:1: game 1: valid, 3 plies, not over\n") {
		t.Errorf("pdn validate: exit %d, stderr %q, stdout %q", exit, errOut, out)
	}

	// A custom start that Red's only move ends (svOneMoveWin): the FEN is
	// the start, and the result the engine's.
	cr = svNewGame(t, ctx, s, svOneMoveWin)
	svMove(t, ctx, s, cr.GetGame().GetName(), cr.GetRedToken(), "c4xa6")
	resp, err = s.games.ExportPdn(ctx, &damonev1.ExportPdnRequest{Name: cr.GetGame().GetName()})
	if err != nil {
		t.Fatal(err)
	}
	g, err = pdn.ParseGame(resp.GetPdn())
	if err != nil {
		t.Fatal(err)
	}
	setUp, _ := g.Tag("SetUp")
	fen, _ := g.Tag("FEN")
	if setUp != "1" || fen != svOneMoveWin || !reflect.DeepEqual(g.Moves, []string{"c4xa6"}) || g.Result != "1-0" {
		t.Errorf("custom start exported as SetUp %q FEN %q moves %v result %q\n%s", setUp, fen, g.Moves, g.Result, resp.GetPdn())
	}
	out, _, exit = runCLI(t, resp.GetPdn(), "pdn", "validate", "-")
	if exit != 0 || !strings.Contains(out, "valid, 1 ply, red wins (all pieces captured) at ply 1") {
		t.Errorf("pdn validate of the custom game: exit %d: %s", exit, out)
	}

	// Against the engine, which plays Black: it is named as Black's player.
	ecr, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{EngineOpponent: &damonev1.EngineOpponent{
		Side: damonev1.Side_SIDE_BLACK, Strength: &damonev1.EngineOpponent_Depth{Depth: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err = s.games.ExportPdn(ctx, &damonev1.ExportPdnRequest{Name: ecr.GetGame().GetName()})
	if err != nil {
		t.Fatal(err)
	}
	if g, err = pdn.ParseGame(resp.GetPdn()); err != nil {
		t.Fatal(err)
	}
	if white, _ := g.Tag("White"); white != "?" {
		t.Errorf("White %q, want ? (a person)", white)
	}
	if black, _ := g.Tag("Black"); black != "damone engine" || g.Result != "*" {
		t.Errorf("Black %q result %q, want damone engine and *", black, g.Result)
	}

	// Errors: a malformed name, an unknown game (gRPC and CLI).
	_, err = s.games.ExportPdn(ctx, &damonev1.ExportPdnRequest{Name: "nope"})
	svWantStatus(t, err, codes.InvalidArgument, "INVALID_REQUEST", "name", nil)
	_, err = s.games.ExportPdn(ctx, &damonev1.ExportPdnRequest{Name: "games/unknown"})
	svWantStatus(t, err, codes.NotFound, "GAME_NOT_FOUND", "", map[string]string{"name": "games/unknown"})
	_, errOut, exit = runCLI(t, "", "pdn", "export", "--addr", s.grpcAddr, "games/unknown")
	if exit != 1 || !strings.Contains(errOut, "NotFound") {
		t.Errorf("pdn export of an unknown game: exit %d, stderr %q", exit, errOut)
	}
}
