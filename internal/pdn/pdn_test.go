package pdn

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// The samples are written by hand; the expected games are read off them
// by hand (moves in order, variations and annotations dropped).
func TestParseSamples(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []Game
	}{{
		name: "tags, comments, NAGs, nested variations, escape line",
		src: `[Event "Club night"]
[Site "Rome"]
[White "Rossi, Anna"]
[Black "Bianchi, Luca"]
[Result "1-0"]
[Annotator "A \"quoted\" name, C:\\games"]

{Opening comment
 over two lines}
1. e2-d3 b5-c4 $1 2. d3xb5! (2. f3-e4 {also good} (2. h5-g6?! a4-b3)
c4-d3) a4-b3 ; a rest-of-line comment (with a bracket
% an escape line: [Event "not a tag"] 9. zz
3. b5-a6!? {promoted
  on   a6} 1-0
`,
		want: []Game{{
			Tags: []Tag{{"Event", "Club night"}, {"Site", "Rome"}, {"White", "Rossi, Anna"},
				{"Black", "Bianchi, Luca"}, {"Result", "1-0"}, {"Annotator", `A "quoted" name, C:\games`}},
			Moves:   []string{"e2-d3", "b5-c4", "d3xb5", "a4-b3", "b5-a6"},
			Result:  "1-0",
			Comment: "promoted on a6",
			Line:    1,
		}},
	}, {
		name: "several games, no tags, 1..., draughts results, glued numbers",
		src: `[Event "one"]
1. e2-d3 2-0

[Event "two"]
[FirstPlayer "black"]

1... d7-e6 2.e2-d3 e6-f5 0-2
1... a4-b3 1-1
1.f3-e4 *


1. e2-d3 1/2-1/2`,
		want: []Game{
			{Tags: []Tag{{"Event", "one"}}, Moves: []string{"e2-d3"}, Result: "1-0", Line: 1},
			{Tags: []Tag{{"Event", "two"}, {"FirstPlayer", "black"}}, Moves: []string{"d7-e6", "e2-d3", "e6-f5"}, Result: "0-1", Line: 4},
			{Tags: []Tag{}, Moves: []string{"a4-b3"}, Result: "1/2-1/2", Line: 8},
			{Tags: []Tag{}, Moves: []string{"f3-e4"}, Result: "*", Line: 9},
			{Tags: []Tag{}, Moves: []string{"e2-d3"}, Result: "1/2-1/2", Line: 12},
		},
	}, {
		name: "BOM and CRLF, spaces inside a tag pair, moves as written",
		src:  "\uFEFF[ Event   \"x\" ]\r\n\r\n1. E2-D3 f3xd5xb7 f3xb7 {a\r\nb}\r\n",
		want: []Game{{Tags: []Tag{{"Event", "x"}}, Moves: []string{"E2-D3", "f3xd5xb7", "f3xb7"}, Comment: "a b", Line: 1}},
	}, {
		name: "games without result tokens, split by the next tags",
		src:  "[Event \"a\"]\n1. e2-d3\n[Event \"b\"]\n[Result \"0-1\"]\n1. f3-e4 {not final} 1... b5-c4\n",
		want: []Game{
			{Tags: []Tag{{"Event", "a"}}, Moves: []string{"e2-d3"}, Line: 1},
			{Tags: []Tag{{"Event", "b"}, {"Result", "0-1"}}, Moves: []string{"f3-e4", "b5-c4"}, Line: 3},
		},
	}, {
		name: "a game of tags only, then a lone result",
		src:  "[Event \"empty\"]\n\n*\n{between games} ; and here\n0-1\n",
		want: []Game{
			{Tags: []Tag{{"Event", "empty"}}, Result: "*", Line: 1},
			{Tags: []Tag{}, Result: "0-1", Line: 5},
		},
	}, {
		name: "nothing but comments",
		src:  "{a file header}\n; nothing else\n% escape\n",
		want: []Game{},
	}, {
		name: "empty",
		src:  "",
		want: []Game{},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(c.src))
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if got[i].Tags == nil {
					got[i].Tags = []Tag{}
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// Each case is one mistake; the line and column are counted by hand
// (1-based, in characters; a leading byte order mark does not count).
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name      string
		src       string
		line, col int
		want      string
	}{
		{"unclosed comment", "1. e2-d3 {never closed\n", 1, 10, "never closed with '}'"},
		{"unclosed variation", "1. e2-d3 (f7-e6", 1, 10, "never closed with ')'"},
		{"unopened variation", "1. e2-d3 )", 1, 10, "')' without an open variation"},
		{"variation before any move", "( e2-d3 )", 1, 1, "must follow the move"},
		{"value not closed", `[Event "x]`, 1, 11, "value not closed"},
		{"value not quoted", `[Event x]`, 1, 8, "in double quotes"},
		{"junk after value", `[Event "x" junk]`, 1, 12, "want ']'"},
		{"unknown escape", `[Event "a\qb"]`, 1, 10, "unknown escape"},
		{"no tag name", `[ "x"]`, 1, 3, "want a tag name"},
		{"tag name starts with a digit", `[1Event "x"]`, 1, 2, "want a tag name"},
		{"tag given twice", "[Event \"x\"]\n[Event \"y\"]", 2, 1, "tag Event given twice in one game (first on line 1)"},
		{"not our notation", "1. e2-d3 Nf3", 1, 10, `"Nf3" is not a move`},
		{"light square", "1. e2-d4", 1, 4, "light square"},
		{"numbered squares", "1. 11-15", 1, 4, "numbered squares are not read"},
		{"half a result", "1. e2-d3 1/2", 1, 10, "neither a result"},
		{"number without dot", "12 e2-d3", 1, 1, "needs a '.'"},
		{"two dots", "1.. e2-d3", 1, 1, "one dot (1.) or three (1...)"},
		{"NAG without number", "1. e2-d3 $", 1, 10, "a NAG is '$' and a number"},
		{"NAG too big", "1. e2-d3 $300", 1, 10, "above 255"},
		{"unknown annotation", "1. e2-d3 !!!", 1, 10, "unknown annotation"},
		{"quote outside a tag", `1. e2-d3 "x"`, 1, 10, "outside a tag pair"},
		{"stray ]", "1. e2-d3 ]", 1, 10, "no tag pair is open"},
		{"stray }", "1. e2-d3 }", 1, 10, "no comment is open"},
		{"stray character", "1. e2-d3 @", 1, 10, `unexpected "@"`},
		{"glued bad move", "1.e2-d3 2.zz", 1, 11, `"zz" is not a move`},
		{"result against the tag", "[Result \"1-0\"]\n1. e2-d3 0-1", 2, 10, `result 0-1 disagrees with the Result tag "1-0" (line 1)`},
		{"Result tag not a result", "[Result \"won\"]\n1. e2-d3 *", 1, 1, `Result tag "won" is not a result`},
		{"tag inside a variation", "1. e2-d3 (f7-e6 [Event \"x\"])", 1, 17, "tag pair inside a variation (opened on line 1, col 10)"},
		{"result inside a variation", "1. e2-d3 (f7-e6 1-0)", 1, 17, "result 1-0 inside a variation"},
		{"lines counted over CRLF", "[Event \"x\"]\r\n\r\n1. e2-d3 zz", 3, 10, `"zz" is not a move`},
		{"BOM not counted", "\uFEFF1. e2-d3 zz", 1, 10, `"zz" is not a move`},
		{"lines counted in a comment", "1. e2-d3 {a\nb\nc} zz", 3, 4, `"zz" is not a move`},
		{"a lone CR ends a line", "1. e2-d3\rzz", 2, 1, `"zz" is not a move`},
		{"columns count characters", "{é} zz", 1, 5, `"zz" is not a move`},
		{"too deep", "1. e2-d3 " + strings.Repeat("(", 65), 1, 74, "nested more than 64 deep"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(c.src))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *SyntaxError", err)
			}
			if se.Line != c.line || se.Col != c.col || !strings.Contains(se.Msg, c.want) {
				t.Errorf("got line %d col %d %q; want line %d col %d and %q", se.Line, se.Col, se.Msg, c.line, c.col, c.want)
			}
			wantText := fmt.Sprintf("line %d, col %d: ", c.line, c.col)
			if !strings.HasPrefix(se.Error(), wantText) {
				t.Errorf("Error() = %q, want it to start %q", se.Error(), wantText)
			}
		})
	}
}

func TestParseNestingLimitAndReadError(t *testing.T) {
	deep := "1. e2-d3 " + strings.Repeat("(f7-e6 ", MaxVariationDepth) + strings.Repeat(")", MaxVariationDepth) + " *"
	g, err := ParseGame(deep)
	if err != nil || !reflect.DeepEqual(g.Moves, []string{"e2-d3"}) || g.Result != "*" {
		t.Fatalf("%d nested variations: %+v, %v; want the one mainline move", MaxVariationDepth, g, err)
	}
	boom := errors.New("disk gone")
	if _, err := Parse(iotest.ErrReader(boom)); !errors.Is(err, boom) {
		t.Fatalf("read error = %v, want %v", err, boom)
	}
}

func TestParseGameCounts(t *testing.T) {
	if _, err := ParseGame("{only a comment}"); err == nil || !strings.Contains(err.Error(), "no game") {
		t.Errorf("no game: %v", err)
	}
	if _, err := ParseGame("1. e2-d3 *\n\n\n1. f3-e4 *"); err == nil || !strings.Contains(err.Error(), "2 games") ||
		!strings.Contains(err.Error(), "line 4") {
		t.Errorf("two games: %v, want it to say 2 games and line 4", err)
	}
	g, err := ParseGame("\n\n[Event \"x\"]\n1. e2-d3 *")
	if err != nil || g.Line != 3 {
		t.Errorf("one game: %+v, %v; want it to start on line 3", g, err)
	}
	if v, ok := g.Tag("Event"); !ok || v != "x" {
		t.Errorf("Tag(Event) = %q, %v", v, ok)
	}
	if _, ok := g.Tag("event"); ok {
		t.Errorf("tag names are case sensitive, but Tag(event) found one")
	}
}
