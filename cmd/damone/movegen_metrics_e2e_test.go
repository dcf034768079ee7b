package main

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc/metadata"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// movegenTotal reads damone_movegen_total{operation=op} from a scrape.
func movegenTotal(t *testing.T, scrape, op string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^damone_movegen_total\{operation="` + op + `"\} (\d+)`).FindStringSubmatch(scrape)
	if m == nil {
		t.Fatalf("no damone_movegen_total{operation=%q} in the scrape", op)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestMovegenMetricsCountEveryCall: after a whole game and a few rules
// calls, damone_movegen_total holds the exact number of engine calls per
// operation (docs/api.md, metrics): every move given to the game, played
// or refused, and every RulesService call, though timing is sampled.
func TestMovegenMetricsCountEveryCall(t *testing.T) {
	s := svStart(t)
	ctx := context.Background()
	// RULES.md, Promotion: c4xa6xc8 takes both Black Pedines; the game
	// ends after one ply, and one step before it is refused.
	created, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{Variant: &damonev1.Variant{
		Start: &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	red := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+created.GetRedToken())
	name := created.GetGame().GetName()
	if _, err := s.games.MakeMove(red, &damonev1.MakeMoveRequest{Name: name, Move: "c4-d5"}); err == nil {
		t.Fatal("a step while a capture is compulsory was played")
	}
	if _, err := s.games.MakeMove(red, &damonev1.MakeMoveRequest{Name: name, Move: "c4xa6xc8"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if _, err := s.rules.ListLegalMoves(ctx, &damonev1.ListLegalMovesRequest{Position: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.rules.ValidateGame(ctx, &damonev1.ValidateGameRequest{Moves: []string{"e2-d3"}}); err != nil {
		t.Fatal(err)
	}
	scrape := s.metrics(t)
	for op, want := range map[string]int{"make_move": 2, "list_legal_moves": 20, "validate_game": 1, "apply_move": 0, "perft": 0} {
		if got := movegenTotal(t, scrape, op); got != want {
			t.Errorf("damone_movegen_total{operation=%q} = %d, want %d", op, got, want)
		}
	}
}

// TestMetricsTableMatchesScrape: every metric docs/api.md's Metrics table
// names is served on /metrics, so the table cannot drift from the service.
func TestMetricsTableMatchesScrape(t *testing.T) {
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "\n## Metrics\n")
	if start < 0 {
		t.Fatal("docs/api.md has no Metrics section")
	}
	section := text[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	names := regexp.MustCompile("`((?:damone|grpc_server)_[a-z_]*)").FindAllStringSubmatch(section, -1)
	if len(names) < 10 {
		t.Fatalf("only %d metric names in docs/api.md's Metrics section", len(names))
	}
	s := svStart(t)
	// Traffic that makes every labelled series appear.
	if _, err := s.rules.ListLegalMoves(context.Background(), &damonev1.ListLegalMovesRequest{
		Position: &damonev1.Position{Text: "R:RPc4:BPb5,Pb7:0"}}); err != nil {
		t.Fatal(err)
	}
	// A refused move, for the refusals counter's first series.
	created, err := s.games.CreateGame(context.Background(), &damonev1.CreateGameRequest{})
	if err != nil {
		t.Fatal(err)
	}
	red := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+created.GetRedToken())
	if _, err := s.games.MakeMove(red, &damonev1.MakeMoveRequest{Name: created.GetGame().GetName(), Move: "e2-e3"}); err == nil {
		t.Fatal("e2-e3 was played")
	}
	scrape := s.metrics(t)
	for _, m := range names {
		name := m[1]
		if !regexp.MustCompile(`(?m)^# TYPE ` + regexp.QuoteMeta(name)).MatchString(scrape) {
			t.Errorf("docs/api.md names %s, which /metrics does not serve", name)
		}
	}
}
