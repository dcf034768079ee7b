package pdn

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/damone-rules/damone/internal/engine"
)

// play plays the moves on an engine game of v, failing on any refusal,
// and returns the moves and the outcome.
func play(t *testing.T, v engine.Variant, moves ...string) ([]engine.Move, engine.Outcome) {
	t.Helper()
	g, err := engine.NewGame(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range moves {
		if _, err := g.PlayText(m); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	return g.Moves(), g.Outcome()
}

func write(t *testing.T, g *Game) string {
	t.Helper()
	var b strings.Builder
	if err := Write(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The expected record is written out by hand from docs/notation.md
// (PDN): Black's capture b5xd3 takes Red's last piece (RULES.md,
// Captures; End of the game).
func TestWriteExact(t *testing.T) {
	v := engine.Variant{Setup: engine.SetupCustom, Start: mustPosition(t, "B:RPc4:BPb5:0"),
		WinCondition: engine.CaptureAllPieces, RepetitionDraw: true, NoProgressLimit: 80}
	moves, outcome := play(t, v, "b5xd3")
	g := FromGame(v, moves, outcome,
		Tag{"Event", "Test"}, Tag{"Site", "games/abc"}, Tag{"White", `Ann "the \ red"`}, Tag{"Black", "Bob"},
		Tag{"Annotator", "me"}, Tag{"GameType", "22"}, Tag{"Result", "1-0"}, Tag{"Annotator", "you"})
	want := `[Event "Test"]
[Site "games/abc"]
[Date "????.??.??"]
[Round "?"]
[White "Ann \"the \\ red\""]
[Black "Bob"]
[Result "0-1"]
[GameType "90,B,8,8,A0,1"]
[SetUp "1"]
[FEN "B:RPc4:BPb5:0"]
[WinCondition "capture-all-pieces"]
[RepetitionDraw "on"]
[NoProgressLimit "80"]
[Annotator "you"]

1... b5xd3 {black wins (all pieces captured)} 0-1
`
	if got := write(t, g); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A game going on, standard setup with Black first, no moves yet.
	v = engine.DefaultVariant()
	v.FirstPlayer, v.RepetitionDraw, v.NoProgressLimit = engine.Black, false, 0
	want = `[Event "?"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "?"]
[Black "?"]
[Result "*"]
[GameType "90,B,8,8,A0,1"]
[Setup "standard"]
[FirstPlayer "black"]
[WinCondition "capture-all-pieces"]
[RepetitionDraw "off"]
[NoProgressLimit "0"]

*
`
	if got := write(t, FromGame(v, nil, engine.Outcome{})); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Four plies of Damas going to and fro, repeated (no draw rule on): each
// full move "N. h1-g2 a8-b7" is 14 characters, so five of them with the
// spaces between fill 5*15-1 = 74 columns and the sixth would pass 79.
func TestWriteWrapsLines(t *testing.T) {
	v := engine.Variant{Setup: engine.SetupCustom, Start: mustPosition(t, "R:RDh1:BDa8:0"), WinCondition: engine.CaptureAllPieces}
	var texts []string
	for range 10 {
		texts = append(texts, "h1-g2", "a8-b7", "g2-h1", "b7-a8")
	}
	moves, outcome := play(t, v, texts...)
	out := write(t, FromGame(v, moves, outcome))
	_, movetext, _ := strings.Cut(out, "\n\n")
	lines := strings.Split(strings.TrimSuffix(movetext, "\n"), "\n")
	if want := "1. h1-g2 a8-b7 2. g2-h1 b7-a8 3. h1-g2 a8-b7 4. g2-h1 b7-a8 5. h1-g2 a8-b7"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > 79 {
			t.Errorf("line %d has %d characters: %q", i+1, n, l)
		}
	}
	// From move 10 on a full move takes 15 characters, so moves 16-20
	// fill exactly 79 columns and the result goes to a line of its own.
	want := []string{"16. g2-h1 b7-a8 17. h1-g2 a8-b7 18. g2-h1 b7-a8 19. h1-g2 a8-b7 20. g2-h1 b7-a8", "*"}
	if len(lines) != 5 || !reflect.DeepEqual(lines[3:], want) {
		t.Errorf("lines %q, want 5 ending %q", lines, want)
	}
	g, err := ParseGame(out)
	if err != nil || !reflect.DeepEqual(g.Moves, texts) {
		t.Fatalf("read back %v, %v; want %v", g.Moves, err, texts)
	}
}

func TestWriteErrors(t *testing.T) {
	cases := []struct {
		name string
		g    Game
		want string
	}{
		{"tag name with a space", Game{Tags: tags("My Tag", "x")}, "tag name"},
		{"tag name from a digit", Game{Tags: tags("1st", "x")}, "tag name"},
		{"empty tag name", Game{Tags: tags("", "x")}, "tag name"},
		{"tag twice", Game{Tags: tags("Event", "a", "Event", "b")}, "given twice"},
		{"line break in a value", Game{Tags: tags("Event", "a\nb")}, "line break"},
		{"CR in a value", Game{Tags: tags("Event", "a\rb")}, "line break"},
		{"bad result", Game{Result: "1-2"}, "result"},
		{"bad Result tag", Game{Tags: tags("Result", "won")}, "Result tag"},
		{"Result tag against the result", Game{Tags: tags("Result", "1-0"), Result: "0-1"}, "disagrees"},
		{"move not in notation", Game{Moves: []string{"e2-d3", "11-15"}}, "move 2"},
		{"move with a space", Game{Moves: []string{"e2-d3 f3-e4"}}, "move 1"},
		{"move with a comment", Game{Moves: []string{"e2-d3{"}}, "move 1"},
		{"comment with a brace", Game{Comment: "a } b"}, "'}'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Write(&strings.Builder{}, &c.g)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Write = %v, want an error with %q", err, c.want)
			}
		})
	}
}

// Each game is played with the engine from moves worked out by hand, and
// its expected ending and result token are read off RULES.md (End of the
// game) by hand; the export must read back to the same variant, moves and
// result, and replaying it must give the same ending.
func TestExportImportRoundTrip(t *testing.T) {
	def := engine.DefaultVariant()
	custom := func(text string, change func(v *engine.Variant)) engine.Variant {
		v := def
		v.Setup, v.Start = engine.SetupCustom, mustPosition(t, text)
		v.FirstPlayer = v.Start.SideToMove()
		if change != nil {
			change(&v)
		}
		return v
	}
	shuffle := []string{"h1-g2", "a8-b7", "g2-h1", "b7-a8", "h1-g2", "a8-b7", "g2-h1", "b7-a8"}
	cases := []struct {
		name    string
		v       engine.Variant
		moves   []string
		ended   engine.Outcome // an ending recorded outside the rules, if any
		want    engine.Outcome // the ending the rules give on replay
		result  string
		comment string
	}{
		{"standard, going on", def, []string{"e2-d3", "b5-c4", "d3xb5"}, engine.Outcome{}, engine.Outcome{}, "*", ""},
		{"Black first", func() engine.Variant { v := def; v.FirstPlayer = engine.Black; return v }(),
			[]string{"d7-e6", "e2-d3", "e6-f5", "g4xe6"}, engine.Outcome{}, engine.Outcome{}, "*", ""},
		{"no-Damone setup, rules off", func() engine.Variant {
			v := def
			v.Setup, v.RepetitionDraw, v.NoProgressLimit = engine.SetupNoDamone, false, 0
			return v
		}(), []string{"e2-d3"}, engine.Outcome{}, engine.Outcome{}, "*", ""},
		{"Black takes the last piece", custom("B:RPc4:BPb5:0", nil), []string{"b5xd3"}, engine.Outcome{},
			engine.Outcome{Result: engine.BlackWins, Reason: engine.AllPiecesCaptured}, "0-1", "black wins (all pieces captured)"},
		// The start comes back after plies 4 and 8: the third time.
		{"repetition", custom("R:RDh1:BDa8:0", nil), shuffle, engine.Outcome{},
			engine.Outcome{Result: engine.Draw, Reason: engine.Repetition}, "1/2-1/2", "draw (repetition)"},
		// Repetition off, four plies without progress reach the limit.
		{"no progress", custom("R:RDh1:BDa8:0", func(v *engine.Variant) { v.RepetitionDraw, v.NoProgressLimit = false, 4 }),
			shuffle[:4], engine.Outcome{}, engine.Outcome{Result: engine.Draw, Reason: engine.NoProgress}, "1/2-1/2", "draw (no progress)"},
		// The Red Damone on d3 takes the Black Damone on e4, landing on f5.
		{"capture all Damones", custom("R:RMd3:BMe4,Pb7:0", func(v *engine.Variant) { v.WinCondition = engine.CaptureAllDamones }),
			[]string{"d3xf5"}, engine.Outcome{},
			engine.Outcome{Result: engine.RedWins, Reason: engine.AllDamonesCaptured}, "1-0", "red wins (all damones captured)"},
		{"same capture, all pieces to take", custom("R:RMd3:BMe4,Pb7:0", nil), []string{"d3xf5"}, engine.Outcome{},
			engine.Outcome{}, "*", ""},
		{"resignation", def, []string{"e2-d3"}, engine.Outcome{Result: engine.BlackWins, Reason: engine.Resignation},
			engine.Outcome{}, "0-1", "black wins (resignation)"},
		{"agreed draw at the start", def, nil, engine.Outcome{Result: engine.Draw, Reason: engine.AgreedDraw},
			engine.Outcome{}, "1/2-1/2", "draw (agreed draw)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			moves, outcome := play(t, c.v, c.moves...)
			if outcome != c.want {
				t.Fatalf("the engine ends the game %v, want %v", outcome, c.want)
			}
			if c.ended.Over() {
				outcome = c.ended
			}
			text := write(t, FromGame(c.v, moves, outcome, Tag{"Site", "games/x"}))
			g, err := ParseGame(text)
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			if !reflect.DeepEqual(g.Moves, c.moves) && !(len(c.moves) == 0 && len(g.Moves) == 0) {
				t.Errorf("moves %v, want %v", g.Moves, c.moves)
			}
			if g.Result != c.result || g.Comment != c.comment {
				t.Errorf("result %q comment %q, want %q %q", g.Result, g.Comment, c.result, c.comment)
			}
			if site, _ := g.Tag("Site"); site != "games/x" {
				t.Errorf("Site %q", site)
			}
			v, err := g.Variant()
			if err != nil {
				t.Fatal(err)
			}
			if !sameVariant(v, c.v) {
				t.Errorf("variant %+v, want %+v", v, c.v)
			}
			if _, replayed := play(t, v, g.Moves...); replayed != c.want {
				t.Errorf("replay ends %v, want %v", replayed, c.want)
			}
		})
	}
}

// A comment that fits on a line is kept whole: after four full moves
// (14+3*15 = 59 columns) "{black wins (resignation)}" (26) would pass 79,
// so it starts the next line. A longer one is broken between words.
func TestWriteComments(t *testing.T) {
	v := engine.DefaultVariant()
	moves, _ := play(t, v, "e2-d3", "b5-c4", "d3xb5", "a6xc4", "f3-e4", "c6-d5", "e4xc6", "d7xb5")
	out := write(t, FromGame(v, moves, engine.Outcome{Result: engine.BlackWins, Reason: engine.Resignation}))
	_, movetext, _ := strings.Cut(out, "\n\n")
	want := "1. e2-d3 b5-c4 2. d3xb5 a6xc4 3. f3-e4 c6-d5 4. e4xc6 d7xb5\n{black wins (resignation)} 0-1\n"
	if movetext != want {
		t.Errorf("movetext\n%s\nwant\n%s", movetext, want)
	}
	var words []string
	for i := range 30 {
		words = append(words, fmt.Sprintf("word%02d", i))
	}
	g := &Game{Moves: []string{"e2-d3"}, Comment: strings.Join(words, "  \t ")}
	out = write(t, g)
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 79 {
			t.Errorf("line of %d characters: %q", utf8.RuneCountInString(l), l)
		}
	}
	back, err := ParseGame(out)
	if err != nil || back.Comment != strings.Join(words, " ") {
		t.Errorf("comment read back as %q, %v", back.Comment, err)
	}
}

// The records docs/notation.md (PDN) shows read back, replay legally and
// are written again exactly as shown.
func TestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/notation.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## PDN")
	if !ok {
		t.Fatal("docs/notation.md has no PDN section")
	}
	blocks := strings.Split(section, "```\n")
	n := 0
	for i := 1; i < len(blocks); i += 2 {
		text := blocks[i]
		if !strings.HasPrefix(text, "[Event ") {
			continue
		}
		n++
		g, err := ParseGame(text)
		if err != nil {
			t.Fatalf("example %d: %v", n, err)
		}
		v, err := g.Variant()
		if err != nil {
			t.Fatalf("example %d: %v", n, err)
		}
		play(t, v, g.Moves...)
		if got := write(t, &g); got != text {
			t.Errorf("example %d written as\n%s\nnot as in the docs\n%s", n, got, text)
		}
	}
	if n != 2 {
		t.Errorf("%d examples found, want 2", n)
	}
}
